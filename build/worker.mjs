// The Cloudflare Workers entry module: a pipe between the fetch event and plugin.wasm.
//
// `skilledge build DIR -o OUT` copies this file to OUT/worker.mjs beside OUT/plugin.wasm and
// OUT/catalog.pack (the catalog index), which wrangler bundles as a CompiledWasm and a Data
// module, and OUT/assets/, the content store, which wrangler uploads as the Worker's
// static assets, bound as ASSETS (see the root wrangler.toml). Every HTTP and MCP decision
// is the plugin's (edge/): this file only turns a Request into a request frame, hands it
// to the plugin, and turns the response frame back into a Response. The frame format is
// documented in edge/wire: "METHOD SP TARGET LF *(NAME: VALUE LF) LF BODY" in,
// "STATUS LF *(NAME: VALUE LF) *(@AT SIZE NAME LF) LF BODY" out, where each "@" line asks
// for the SIZE bytes of store object NAME at offset AT of BODY. The shim fetches those
// objects from the assets (env.ASSETS.fetch("/sha256/NAME")) and puts them into the
// Response between the slices of BODY: streamed, or for an answer of at most 64 KiB
// assembled in memory, which costs less than a stream, from objects the isolate keeps
// (small ones, 8 MiB in all) so that a repeated small read fetches nothing. File contents never enter the
// plugin or the script. The plugin bounds how many objects one answer names (a batch's
// answers at most 64), and the shim fetches at most 6 at a time.
//
// The Extism JS SDK instantiates the plugin (WASI and the extism:host/env imports); the
// options, the index and every request then go through the raw exports (skilledge_configure,
// skilledge_load, skilledge_http), which move their input with one copy instead of go-pdk's
// host call per 8 bytes (BENCHMARKS.md, RATIONALE.md).
// One instance, with the index loaded, lives for the isolate; it is made on the first
// request (the options are a binding, which only a request's env carries). Calls into it
// are synchronous, so they never interleave. The host's own duties are the ones only a
// host can do: capping the request body it reads, splicing store objects, and answering
// 500 when the plugin cannot start or traps (the next request then gets a new instance) or
// when an object is missing from the assets.
import createPlugin from "@extism/extism";
import wasm from "./plugin.wasm";
import pack from "./catalog.pack";

// The body cap when the options do not set maxBody: edge.DefaultMaxBody (a test in build/
// holds the two equal).
const defaultMaxBody = 1048576;

let plugin = null; // Promise of {http, maxBody}, made once per isolate

async function start(env) {
	// SKILLEDGE_OPTIONS is the plugin's options object (edge.ParseOptions), from
	// wrangler.toml's [vars.SKILLEDGE_OPTIONS] or any JSON binding.
	const options = env.SKILLEDGE_OPTIONS ?? {};
	// enableWasiOutput: the plugin writes to stderr only when it crashes; let that reach the logs.
	const p = await createPlugin({ wasm: [{ module: wasm }] }, { useWasi: true, enableWasiOutput: true });
	const x = (await p.getInstance()).exports;
	// Options and index go in through the raw exports too: one copy each, where the Extism
	// exports read their input 8 bytes per call into JavaScript (the index of a large
	// catalog is hundreds of KB: milliseconds of the first request).
	const raw = new Raw(x);
	raw.call("skilledge_configure", encoder.encode(JSON.stringify(options)));
	raw.call("skilledge_load", new Uint8Array(pack));
	return { http: (frame) => raw.http(frame), maxBody: options.maxBody ?? defaultMaxBody };
}

// Raw calls the plugin's raw exports (see edge/plugin/main.go). It keeps the input buffer
// skilledge_alloc gave, valid until the next alloc or load, so a request is one call.
// Calls are synchronous, so calls into the instance never interleave.
class Raw {
	constructor(x) {
		this.x = x;
		this.ptr = 0;
		this.cap = 0;
	}

	// write copies b into the input buffer, growing it when b does not fit.
	write(b) {
		if (b.length > this.cap || this.cap === 0) {
			this.cap = Math.max(b.length, 2 * this.cap, 16384);
			this.ptr = this.x.skilledge_alloc(this.cap) >>> 0;
		}
		new Uint8Array(this.x.memory.buffer, this.ptr, b.length).set(b);
		return this.ptr;
	}

	// call runs skilledge_configure or skilledge_load with input b.
	call(name, b) {
		const ptr = this.write(b);
		if (name === "skilledge_load") this.cap = 0; // the plugin keeps that buffer
		if (this.x[name](ptr, b.length) !== 0) throw new Error(`${name}: ${this.error()}`);
	}

	// http answers one request frame with a response frame of its own.
	http(frame) {
		const out = this.x.skilledge_http(this.write(frame), frame.length);
		if (out === 0n) throw new Error(this.error());
		return bytesAt(this.x, out).slice();
	}

	error() {
		return decoder.decode(bytesAt(this.x, this.x.skilledge_error()));
	}
}

// bytesAt is the linear memory a packed (ptr<<32 | len) result names.
function bytesAt(x, packed) {
	return new Uint8Array(x.memory.buffer, Number(packed >> 32n), Number(packed & 0xffffffffn));
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// requestFrame is the request as a frame, with at most limit+1 bytes of its body: enough
// for the plugin to see that a body is over the limit (413) without the host holding all
// of it. The head and the body's chunks are copied once, into the frame.
async function requestFrame(request, limit) {
	const url = request.url; // absolute: scheme://authority/path?query
	let head = `${request.method} ${url.slice(url.indexOf("/", url.indexOf("//") + 2))}\n`;
	for (const [name, value] of request.headers) head += `${name}: ${value}\n`;
	head = encoder.encode(head + "\n");
	if (request.body === null) return head;
	const length = request.headers.get("Content-Length");
	if (length !== null && Number(length) <= limit) {
		// The length is known and allowed: one read of the whole body (the runtime holds the
		// body to that length), cheaper than reading chunk by chunk.
		const body = new Uint8Array(await request.arrayBuffer());
		const frame = new Uint8Array(head.byteLength + Math.min(body.byteLength, limit + 1));
		frame.set(head);
		frame.set(body.subarray(0, frame.byteLength - head.byteLength), head.byteLength);
		return frame;
	}
	const parts = [head];
	let size = 0; // of the body read so far
	const reader = request.body.getReader();
	while (size <= limit) {
		const { done, value } = await reader.read();
		if (done) break;
		parts.push(value);
		size += value.byteLength;
	}
	if (size > limit) await reader.cancel();
	const frame = new Uint8Array(head.byteLength + Math.min(size, limit + 1));
	let at = 0;
	for (const p of parts) {
		const n = Math.min(p.byteLength, frame.byteLength - at);
		frame.set(p.subarray(0, n), at);
		at += n;
	}
	return frame;
}

// storeDir is where the content store's objects are in the assets (catalog.StoreDir).
const storeDir = "/sha256/";

// assembleMax is the largest answer put together in memory rather than streamed.
const assembleMax = 64 * 1024;

// response turns a response frame into a Response, splicing in the store objects its "@"
// lines name, fetched from env.ASSETS and streamed, never buffered.
async function response(frame, env, ctx) {
	let end = 0; // the blank line that ends the head
	while (end + 1 < frame.length && !(frame[end] === 10 && frame[end + 1] === 10)) end++;
	const lines = decoder.decode(frame.subarray(0, end)).split("\n");
	const headers = new Headers();
	const refs = [];
	for (const line of lines.slice(1)) {
		if (line.startsWith("@")) {
			const [at, size, name] = line.slice(1).split(" ");
			refs.push({ at: Number(at), size: Number(size), name });
			continue;
		}
		const colon = line.indexOf(": ");
		headers.append(line.slice(0, colon), line.slice(colon + 2));
	}
	const status = Number(lines[0]);
	const body = frame.subarray(end + 2);
	if (refs.length === 0) return new Response(body.length > 0 ? body : null, { status, headers });
	if (!env.ASSETS) return storeFailure("the Worker has no ASSETS binding: wrangler.toml's [assets] must bind OUT/assets as ASSETS");
	let total = body.length;
	for (const r of refs) total += r.size;
	if (total <= assembleMax) return assembled(env, status, headers, body, refs, total);
	// Every object is asked for before the first byte goes out, so that a missing object
	// or one of the wrong size (where the assets say its length) is a 500 rather than a
	// truncated body.
	const objects = await fetchObjects(env, refs);
	for (const [i, o] of objects.entries()) {
		const failure = objectFailure(refs[i], o);
		if (failure) return storeFailure(failure);
	}
	if (refs.length === 1 && refs[0].at === 0 && body.length === 0) {
		return new Response(objects[0].body, { status, headers }); // a file as it is: the asset's own stream
	}
	const { readable, writable } = new FixedLengthStream(total);
	ctx.waitUntil(splice(writable, body, refs, objects));
	return new Response(readable, { status, headers });
}

// objectFailure says what is wrong with the assets' answer o for reference r, or "".
function objectFailure(r, o) {
	if (!o.ok) return `content store object ${r.name} answered ${o.status} from the assets`;
	const length = o.headers.get("Content-Length");
	if (length !== null && Number(length) !== r.size) return `content store object ${r.name} has ${length} bytes, not ${r.size}`;
	return "";
}

// The isolate's cache of small store objects (at most cachedMax bytes each, cacheBudget
// in all, least recently used dropped first): objects are named by their SHA-256, so a
// name's bytes never change and a cached copy is never stale. A small read then costs no
// subrequest to the assets, which is most of its CPU time (BENCHMARKS.md, the load
// section). An isolate has 128 MB; the budget is a small part of it.
const cachedMax = assembleMax;
const cacheBudget = 8 * 1024 * 1024;
const cache = new Map(); // name -> Uint8Array, oldest use first
let cached = 0; // bytes in cache

// cachedObject returns the cached bytes of name, or undefined, and marks them used.
function cachedObject(name) {
	const b = cache.get(name);
	if (b !== undefined) {
		cache.delete(name);
		cache.set(name, b);
	}
	return b;
}

function cacheObject(name, b) {
	if (b.length > cachedMax || cache.has(name)) return;
	cache.set(name, b);
	cached += b.length;
	for (const [old, ob] of cache) {
		if (cached <= cacheBudget) break;
		cache.delete(old);
		cached -= ob.length;
	}
}

// assembled answers a response of at most assembleMax bytes, put together in memory
// (cheaper than a stream for a few KiB) from body and the objects of refs, taken from
// the isolate's cache or fetched (and then cached).
async function assembled(env, status, headers, body, refs, total) {
	const objs = refs.map((r) => cachedObject(r.name));
	const missing = refs.filter((r, i) => objs[i] === undefined);
	if (missing.length > 0) {
		const fetched = await fetchObjects(env, missing);
		const got = new Map();
		for (const [i, o] of fetched.entries()) {
			const r = missing[i];
			const failure = objectFailure(r, o);
			if (failure) return storeFailure(failure);
			const b = new Uint8Array(await o.arrayBuffer());
			if (b.length !== r.size) return storeFailure(`content store object ${r.name} has ${b.length} bytes, not ${r.size}`);
			got.set(r.name, b);
			cacheObject(r.name, b);
		}
		for (const [i, r] of refs.entries()) objs[i] ??= got.get(r.name);
	}
	const out = new Uint8Array(total);
	let at = 0, from = 0;
	for (const [i, r] of refs.entries()) {
		out.set(body.subarray(from, r.at), at);
		at += r.at - from;
		from = r.at;
		out.set(objs[i], at);
		at += r.size;
	}
	out.set(body.subarray(from), at);
	return new Response(out, { status, headers });
}

// fetchObjects asks the assets for the object of every reference, at most 6 at a time,
// and returns the responses in order.
async function fetchObjects(env, refs) {
	const out = new Array(refs.length);
	let next = 0;
	const fetcher = async () => {
		while (next < refs.length) {
			const i = next++;
			out[i] = await env.ASSETS.fetch(new Request("https://assets.invalid" + storeDir + refs[i].name));
		}
	};
	await Promise.all(Array.from({ length: Math.min(6, refs.length) }, fetcher));
	return out;
}

// splice writes body with each object's stream inserted at its offset, then closes.
async function splice(writable, body, refs, objects) {
	const write = async (bytes) => {
		if (bytes.length === 0) return;
		const w = writable.getWriter();
		await w.write(bytes);
		w.releaseLock();
	};
	try {
		let at = 0;
		for (const [i, r] of refs.entries()) {
			await write(body.subarray(at, r.at));
			await objects[i].body.pipeTo(writable, { preventClose: true });
			at = r.at;
		}
		await write(body.subarray(at));
		await writable.close();
	} catch (err) {
		console.error("skilledge: splicing a store object:", err);
		await writable.abort(err).catch(() => {});
	}
}

// The shim's own answers (the plugin's carry their own headers) are never sniffed either.
const noSniff = { "X-Content-Type-Options": "nosniff" };

function storeFailure(reason) {
	console.error("skilledge:", reason);
	const body = JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32603, message: "Internal error: the server's content store is incomplete or damaged" } });
	return new Response(body, { status: 500, headers: { "Content-Type": "application/json", "Cache-Control": "no-store", ...noSniff } });
}

export default {
	async fetch(request, env, ctx) {
		plugin ??= start(env);
		const ready = plugin;
		let instance;
		try {
			instance = await ready;
		} catch (err) {
			if (plugin === ready) plugin = null; // try again on the next request
			console.error("skilledge: the plugin did not start:", err);
			return new Response(`skilledge: the plugin did not start: ${err.message}\n`, { status: 500, headers: noSniff });
		}
		const frame = await requestFrame(request, instance.maxBody);
		let out;
		try {
			out = instance.http(frame);
		} catch (err) {
			// The instance trapped (a panic, out of memory): it is unusable. Only this request
			// fails; the next one gets a fresh instance.
			if (plugin === ready) plugin = null;
			console.error("skilledge: the plugin trapped:", err);
			return new Response("skilledge: internal error\n", { status: 500, headers: noSniff });
		}
		try {
			return await response(out, env, ctx);
		} catch (err) {
			return storeFailure(`reading the content store: ${err}`);
		}
	},
};
