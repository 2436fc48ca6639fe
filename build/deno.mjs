// @ts-check

// The Deno entry module (Deno 2, and Deno Deploy): plugin.wasm behind the
// platform-neutral host (host.mjs) for `deno serve`, with the content store read from the
// assets folder beside it.
//
// `skilledge build DIR -o OUT` writes this file to OUT/deno.mjs beside OUT/host.mjs (with
// its modules, OUT/host/), OUT/plugin.wasm, OUT/catalog.pack, OUT/assets/ and
// OUT/package.json, which names the Extism JS SDK (`npm ci --prefix OUT` installs it from
// OUT/package-lock.json); then `deno serve -A --port 8787 OUT/deno.mjs` serves OUT with
// the plugin's options from $SKILLEDGE_OPTIONS (the JSON object the Worker's
// SKILLEDGE_OPTIONS is) and an auth option from $SKILLEDGE_AUTH. The plugin and the index
// are loaded once per isolate; the SDK's browser build is the one loaded, as on every
// platform. Everything a host does is host.mjs's; this file says where Deno keeps things.
//
// Why `deno serve --config dist/deno.json`? deno run finds package.json from the script's
// folder, but deno serve looks from the working directory only, so from the repository
// root it would not resolve the SDK at all. --config dist/deno.json points Deno at dist/,
// where it also reads package.json and node_modules/. The alternative, cd dist first, is a
// command people would drop.
//
// Why is Netlify Edge not served as it is? Netlify Edge Functions run Deno without a file
// system: plugin.wasm and catalog.pack would have to be imported as modules and the store
// fetched from the site's static files by URL. The store would then be a public surface
// (every object at its digest's URL), which a private catalog must not have. Deno Deploy
// reads files uploaded with the project, which is what this entry does. None of these
// platforms is reachable from here, so the README says which is tested (the runtimes) and
// which is not (the platforms).
import { optionsFrom, startHost, storeDir, telemetryFrom } from "./host.mjs";

const here = (name) => new URL(name, import.meta.url);
const { default: createPlugin } = await import(new URL("../browser/mod.js", import.meta.resolve("@extism/extism")).href);
const [module, pack] = await Promise.all([Deno.readFile(here("plugin.wasm")).then((b) => WebAssembly.compile(b)), Deno.readFile(here("catalog.pack"))]);

// observed is the host's observer: what SKILLEDGE_LOG, SKILLEDGE_LOG_CALLERS and the
// OTEL_* variables ask for (telemetryFrom: a JSON line per answer on stdout, spans over
// OTLP), or none.
function observed() {
	const telemetry = telemetryFrom((name) => Deno.env.get(name));
	return telemetry.enabled ? { observe: (r) => telemetry.observe(r) } : {};
}

// host is the host, its instance made: bad options (SKILLEDGE_OPTIONS, SKILLEDGE_AUTH),
// a private catalog without SKILLEDGE_AUTH, or a bad build stop the process here, saying
// what is wrong.
const host = await startHost(
	() => ({ ...observed(), createPlugin, module, pack, options: optionsFrom(Deno.env.get("SKILLEDGE_OPTIONS"), Deno.env.get("SKILLEDGE_AUTH")), fetch }),
	Deno.exit,
	here("catalog.pack").pathname,
);

// store reads the content store's objects from OUT/assets/sha256/, each streamed from
// its file with its length (a missing one is a 404), and packed objects from their packs.
const store = {
	async object(name) {
		let file;
		try {
			file = await Deno.open(here("assets" + storeDir + name));
		} catch (err) {
			if (err instanceof Deno.errors.NotFound) return new Response(null, { status: 404 });
			throw err;
		}
		let size;
		try {
			({ size } = await file.stat());
		} catch (err) {
			file.close();
			throw err;
		}
		return new Response(file.readable, { headers: { "Content-Length": String(size) } });
	},
	// bytes reads an object whole, in one call (an index shard: host/need.mjs).
	async bytes(name) {
		try {
			return await Deno.readFile(here("assets" + storeDir + name));
		} catch (err) {
			if (err instanceof Deno.errors.NotFound) return null;
			throw err;
		}
	},
	// packed reads length bytes at offset of a pack, from OUT/packs/sha256/.
	async packed(pack, offset, length) {
		let file;
		try {
			file = await Deno.open(here("packs" + storeDir + pack));
		} catch (err) {
			if (err instanceof Deno.errors.NotFound) return new Response(null, { status: 404 });
			throw err;
		}
		try {
			await file.seek(offset, Deno.SeekMode.Start);
			const b = new Uint8Array(length);
			for (let n = 0; n < length; ) {
				const got = await file.read(b.subarray(n));
				if (got === null) return new Response(null, { status: 416 });
				n += got;
			}
			return new Response(b);
		} finally {
			file.close();
		}
	},
};

export default {
	fetch: (request) => host.fetch(request, store),
};
