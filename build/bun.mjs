// @ts-check

// The Bun entry module: plugin.wasm behind the platform-neutral host (host.mjs) on
// Bun.serve, with the content store read from the assets folder beside it.
//
// `skilledge build DIR -o OUT` writes this file to OUT/bun.mjs beside OUT/host.mjs (with
// its modules, OUT/host/), OUT/plugin.wasm, OUT/catalog.pack, OUT/assets/ and
// OUT/package.json, which names the Extism JS SDK (`npm ci --prefix OUT` installs it from
// OUT/package-lock.json); then `bun --max-http-header-size=65536 OUT/bun.mjs` (a 64 KiB
// head, as serve reads; Bun's default, 16 KiB, refuses large access tokens) serves OUT on
// $PORT (default 8787; $HOST, default every address) with the plugin's options from
// $SKILLEDGE_OPTIONS (the JSON object the Worker's SKILLEDGE_OPTIONS is) and an auth
// option from $SKILLEDGE_AUTH. The plugin and the index are loaded once per process; the
// SDK's browser build is the one loaded, as on every platform. Everything a host does is
// host.mjs's; this file says where Bun keeps things.
import { optionsFrom, startHost, storeDir, telemetryFrom } from "./host.mjs";

const here = (name) => new URL(name, import.meta.url);
const { default: createPlugin } = await import(new URL("../browser/mod.js", import.meta.resolve("@extism/extism")).href);
const [module, pack] = await Promise.all([Bun.file(here("plugin.wasm")).arrayBuffer().then((b) => WebAssembly.compile(b)), Bun.file(here("catalog.pack")).arrayBuffer()]);

// observed is the host's observer: what SKILLEDGE_LOG, SKILLEDGE_LOG_CALLERS and the
// OTEL_* variables ask for (telemetryFrom: a JSON line per answer on stdout, spans over
// OTLP), or none.
function observed() {
	const telemetry = telemetryFrom((name) => process.env[name]);
	return telemetry.enabled ? { observe: (r) => telemetry.observe(r) } : {};
}

// host is the host, its instance made: bad options (SKILLEDGE_OPTIONS, SKILLEDGE_AUTH),
// a private catalog without SKILLEDGE_AUTH, or a bad build stop the process here, saying
// what is wrong.
const host = await startHost(
	() => ({ ...observed(), createPlugin, module, pack, options: optionsFrom(process.env.SKILLEDGE_OPTIONS, process.env.SKILLEDGE_AUTH), fetch }),
	process.exit,
	here("catalog.pack").pathname,
);

// store reads the content store's objects from OUT/assets/sha256/: a Bun.file, which Bun
// sends with its length (a missing one is a 404), and packed objects from their packs.
const store = {
	async object(name) {
		const file = Bun.file(here("assets" + storeDir + name));
		if (!(await file.exists())) return new Response(null, { status: 404 });
		return new Response(file, { headers: { "Content-Length": String(file.size) } });
	},
	// packed reads length bytes at offset of a pack, from OUT/packs/sha256/.
	async packed(pack, offset, length) {
		const file = Bun.file(here("packs" + storeDir + pack));
		if (!(await file.exists())) return new Response(null, { status: 404 });
		return new Response(file.slice(offset, offset + length));
	},
};

const server = Bun.serve({
	port: Number(process.env.PORT ?? 8787),
	hostname: process.env.HOST,
	fetch: (request) => host.fetch(request, store),
});
console.log(`skilledge: serving ${here("catalog.pack").pathname} at ${new URL("/mcp", server.url)}`);
