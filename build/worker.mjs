// @ts-check

// The Cloudflare Workers entry module: plugin.wasm behind the platform-neutral host
// (host.mjs), with the content store in the Worker's static assets.
//
// `skilledge build DIR -o OUT` copies this file to OUT/worker.mjs, and host.mjs (with its
// modules, OUT/host/) beside it, with OUT/plugin.wasm and OUT/catalog.pack (the catalog
// index), which wrangler bundles as a CompiledWasm and a Data module, and OUT/assets/,
// the content store, which wrangler uploads as the Worker's static assets, bound as
// ASSETS (see the root wrangler.toml, which also aliases the Extism SDK to its browser
// build). Everything a host does is host.mjs's; this file only says where Cloudflare
// keeps things: the options in the SKILLEDGE_OPTIONS binding (wrangler.toml's
// [vars.SKILLEDGE_OPTIONS], which only a request's env carries, so the plugin starts on
// the first request), the store objects in env.ASSETS, a stream of known length in
// FixedLengthStream, ctx.waitUntil for a body still streaming or a key set still being
// fetched, how the key sets an auth option names are fetched (fetchKeys), and the auth
// option kept as a Worker secret (SKILLEDGE_AUTH, optionsOf), and what is told of each
// answer: a JSON line on the console with SKILLEDGE_LOG = "json" (Workers Logs and Logpush
// ingest it), and a data point in the Analytics Engine dataset bound as SKILLEDGE_ANALYTICS,
// when there is one (telemetryFrom; SKILLEDGE_LOG_CALLERS = "false" leaves callers out).
//
// Why does the Worker start its plugin on the first request, not when the script loads?
// Because it cannot do otherwise. Go's runtime, as it starts (_initialize), reads the clock
// and draws random numbers, which the Workers runtime refuses outside a request: created
// at the module's top level, the instance dies with "nanotime returning zero". The options
// are also a binding, which only a request's env carries. Measured in workerd from process
// start to the first skills/list answer, most of what the skilledge script adds to a plain
// Worker's start is compiling the module's wasm code as the script loads; creating the
// instance (the Extism SDK, then Go's runtime and package initialisation) adds less, and
// configuring, loading the index and answering less still (BENCHMARKS.md, "Why the Worker
// starts its plugin on the first request"). Compilation grows with the code:
// encoding/json, reflect and fmt are a good part of it, the Go runtime a larger one.
//
// Why does the Worker import catalog.pack before plugin.wasm? wrangler lists a script's
// modules in the order its imports name them, and workerd's start depends on that order:
// with the index's module before the plugin's, the anthropics-shaped catalog's Worker
// answered its first request about 4 ms (3 to 4%) sooner in workerd, the same files
// otherwise (BENCHMARKS.md, "Why the Worker imports the index first"). Why the order
// matters is not established (workerd compiles the wasm module as it loads the script,
// either way); the measurement is what holds (TestEdgeAnthropicsReport, which measures
// it, refuses a worker.js that imports the plugin first).
import createPlugin from "@extism/extism";
import pack from "./catalog.pack";
import module from "./plugin.wasm";
import { Host, limits, optionsFrom, startFailure, storeDir, telemetryFrom } from "./host.mjs";

let host = null; // one per isolate: it keeps the key sets it fetched, for the isolate's life
let store = null; // the assets of the isolate's env
let refusalLogged = false; // the options could not be read, and the log says why

// fetchKeys fetches a key set (auth.jwt.jwksUri, auth.access.certsUrl) for the host, which
// keeps it in the isolate as long as the contract says. A set fetched at start or because
// it went stale may come from Cloudflare's cache, kept there for the least time a set is
// fresh, so that the isolates of one location share a fetch; a set the plugin wants again
// because it lacked a token's key (a rotation) is fetched past every cache.
//
// Why does the Worker use Cloudflare's cache for a first fetch, but not when the plugin
// wants a set again? The host keeps the sets in the isolate (KeySets), but a Worker runs
// in many isolates that start and stop; fetching through Cloudflare's cache for a minute
// (cf.cacheTtl) lets those of one location share a fetch, so a cold isolate answers its
// first authorized request without waiting for the issuer. A set the plugin wants again
// because it lacked a token's key is fetched with cache: "no-store" (and every host sends
// Cache-Control: no-cache): a cached copy is exactly the one that lacked the key. Rejected:
// no shared cache (every cold isolate waits on the issuer) and the cache for every fetch
// (a rotation invisible for the cache's lifetime).
function fetchKeys(url, init, { urgent }) {
	const cache = urgent ? { cache: "no-store" } : { cf: { cacheTtl: limits.KeysMinAge, cacheEverything: true } };
	return fetch(url, { ...init, ...cache });
}

// optionsOf is the plugin's options: the SKILLEDGE_OPTIONS binding (wrangler.toml's table),
// whose auth option the SKILLEDGE_AUTH secret replaces when it is set (`wrangler secret
// put SKILLEDGE_AUTH < auth.json`), so that static keys' digests and the like stay out of
// wrangler.toml (optionsFrom).
//
// Why are the Worker's options a `[vars]` table in `wrangler.toml`, not a file `build`
// writes? Host and Origin policy, body cap and page size are deployment settings, and
// wrangler.toml is where a Workers user looks for them; a [vars.NAME] table arrives as a
// JSON binding, typed, and can differ between wrangler environments without rebuilding.
// Baking them into dist/ would tie one catalog build to one deployment. The cost: the
// options reach the plugin on the first request, and bad options show as a 500 naming the
// problem on every request, not as a build error.
export const optionsOf = (env) => optionsFrom(env.SKILLEDGE_OPTIONS, env.SKILLEDGE_AUTH, "SKILLEDGE_AUTH secret");

export default {
	fetch(request, env, ctx) {
		if (host === null) {
			let options, telemetry;
			try {
				options = optionsOf(env);
				telemetry = telemetryFrom((name) => (typeof env[name] === "string" ? env[name] : undefined), env.SKILLEDGE_ANALYTICS ?? null);
			} catch (err) {
				// The reason goes to the log (wrangler tail), once an isolate; every request is
				// answered with the host's failure, which for the auth option says nothing of it.
				if (!refusalLogged) console.error(`skilledge: ${err.message}`);
				refusalLogged = true;
				return startFailure(err);
			}
			host = new Host({ createPlugin, module, pack, options, fetch: fetchKeys, observe: telemetry.enabled ? (r) => telemetry.observe(r) : undefined });
		}
		store ??= {
			object(name) {
				if (!env.ASSETS) throw new Error("the Worker has no ASSETS binding: wrangler.toml's [assets] must bind OUT/assets as ASSETS");
				return env.ASSETS.fetch(new Request("https://assets.invalid" + storeDir + name));
			},
			// A packed catalog's packs are in the R2 bucket bound as SKILLEDGE_PACKS, read by
			// range (the host checks what it reads: splice.mjs).
			async packed(pack, offset, length) {
				if (!env.SKILLEDGE_PACKS) throw new Error("the catalog's objects are packed, and the Worker has no SKILLEDGE_PACKS binding: bind the R2 bucket the packs were uploaded to (wrangler.toml's [[r2_buckets]])");
				const o = await env.SKILLEDGE_PACKS.get("sha256/" + pack, { range: { offset, length } });
				return o === null ? new Response(null, { status: 404 }) : new Response(o.body);
			},
			stream: (length) => new FixedLengthStream(length),
		};
		return host.fetch(request, store, ctx);
	},
};
