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
// An answer the plugin marks replayable (skilledge_replay) is kept, and a request that
// repeats it but for its JSON-RPC id gets it again with its own id, without a call into
// the plugin (see "Replays" below).
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

let plugin = null; // Promise of {raw, fields, maxBody}, made once per isolate
let started = null; // what plugin resolved to, once it has

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
	// The request header fields the plugin reads: only these are framed.
	const fields = decoder.decode(bytesAt(x, x.skilledge_fields())).split("\n");
	return { raw, fields, maxBody: options.maxBody ?? defaultMaxBody };
}

// Raw calls the plugin's raw exports (see edge/plugin/main.go). It keeps the input buffer
// skilledge_alloc gave, valid until the next alloc or load, so a request is one call.
// Calls are synchronous, so calls into the instance never interleave.
class Raw {
	constructor(x) {
		this.x = x;
		this.ptr = 0;
		this.cap = 0;
		this.headBytes = 0; // the UTF-8 length of the last http call's head
	}

	// room returns the input buffer as a view of at least size bytes, growing it first
	// when it is smaller.
	room(size) {
		if (size > this.cap || this.cap === 0) {
			this.cap = Math.max(size, 2 * this.cap, 16384);
			this.ptr = this.x.skilledge_alloc(this.cap) >>> 0;
		}
		return new Uint8Array(this.x.memory.buffer, this.ptr, this.cap);
	}

	// write copies b into the input buffer, growing it when b does not fit.
	write(b) {
		this.room(b.length).set(b);
		return this.ptr;
	}

	// call runs skilledge_configure or skilledge_load with input b.
	call(name, b) {
		const ptr = this.write(b);
		if (name === "skilledge_load") this.cap = 0; // the plugin keeps that buffer
		if (this.x[name](ptr, b.length) !== 0) throw new Error(`${name}: ${this.error()}`);
	}

	// http answers the request frame made of head (a string, the frame up to and with the
	// blank line) and body (a Uint8Array or ArrayBuffer, or null). The frame is written straight into the
	// plugin's input buffer: a head of n UTF-16 units is at most 3n bytes of UTF-8. The
	// response frame returned is a view of the plugin's memory, valid until the next call
	// into it: callers copy what they keep across an await.
	http(head, body) {
		const size = body === null ? 0 : body.byteLength;
		const room = this.room(3 * head.length + size);
		const { written } = encoder.encodeInto(head, room);
		if (size > 0) room.set(body instanceof Uint8Array ? body : new Uint8Array(body), written);
		this.headBytes = written;
		const out = this.x.skilledge_http(this.ptr, written + size);
		if (out === 0n) throw new Error(this.error());
		return bytesAt(this.x, out);
	}

	// replay is how the last http answer may be replayed (skilledge_replay): where the id
	// lies in the request frame, its length, where the answer echoes it, and the longest
	// request frame the promise holds for; null when it may not be (or the plugin does not
	// say).
	replay() {
		if (typeof this.x.skilledge_replay !== "function") return null;
		const packed = this.x.skilledge_replay();
		if (packed === 0n) return null;
		const b = bytesAt(this.x, packed);
		if (b.length !== 16) return null;
		const v = new DataView(b.buffer, b.byteOffset, 16);
		return { idAt: v.getUint32(0, true), idLen: v.getUint32(4, true), answerAt: v.getUint32(8, true), maxFrame: v.getUint32(12, true) };
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
const empty = new Uint8Array(0);

// requestHead is the head of the request's frame (request line, the header fields named in
// fields, the blank line), as a string; Raw.http writes it and the body into the plugin's
// memory. The fields are looked up by name: iterating the headers would cost the runtime a
// sorted, lowercased copy of every field, most of which the plugin never reads. A repeated
// field comes as its values joined by ", ", as iterating would give it.
function requestHead(request, fields) {
	const url = request.url; // absolute: scheme://authority/path?query
	let head = `${request.method} ${url.slice(url.indexOf("/", url.indexOf("//") + 2))}\n`;
	const h = request.headers;
	for (let i = 0; i < fields.length; i++) {
		const value = h.get(fields[i]);
		if (value !== null) head += `${fields[i]}: ${value}\n`;
	}
	return head + "\n";
}

// requestBody reads at most limit+1 bytes of the request's body, or gives null for none:
// enough for the plugin to see that a body is over the limit (413) without the host
// holding all of it. A body of known, allowed length is read at once (the runtime holds
// it to that length), cheaper than chunk by chunk; the caller awaits exactly what it
// would await for that read, as a plain Worker does.
function requestBody(request, limit) {
	if (request.body === null) return null;
	const length = request.headers.get("Content-Length");
	if (length !== null && Number(length) <= limit) return request.arrayBuffer();
	return bodyInChunks(request, limit);
}

async function bodyInChunks(request, limit) {
	const parts = [];
	let size = 0; // of the body read so far
	const reader = request.body.getReader();
	while (size <= limit) {
		const { done, value } = await reader.read();
		if (done) break;
		parts.push(value);
		size += value.byteLength;
	}
	if (size > limit) await reader.cancel();
	const body = new Uint8Array(Math.min(size, limit + 1));
	let at = 0;
	for (const p of parts) {
		const n = Math.min(p.byteLength, body.byteLength - at);
		body.set(p.subarray(0, n), at);
		at += n;
	}
	return body;
}

// lastHead is a copy of the status line and fields of the last response frame, and
// lastRead what statusAndFields read from them. Answers of a kind repeat them, so most
// requests compare bytes rather than decode and split a string. The Response copies the
// pairs it is given, so one array serves many.
let lastHead = null;
let lastRead = null;

// statusAndFields reads the status and the header fields, as [name, value] pairs, from the
// first n bytes of frame.
function statusAndFields(frame, n) {
	if (lastHead !== null && lastHead.length === n) {
		let i = 0;
		while (i < n && frame[i] === lastHead[i]) i++;
		if (i === n) return lastRead;
	}
	const head = decoder.decode(frame.subarray(0, n));
	const headers = [];
	let line = head.indexOf("\n") + 1; // after the status line
	const status = Number(line === 0 ? head : head.slice(0, line - 1));
	while (line > 0 && line < head.length) {
		let next = head.indexOf("\n", line);
		if (next < 0) next = head.length;
		const colon = head.indexOf(": ", line);
		headers.push([head.slice(line, colon), head.slice(colon + 2, next)]);
		line = next + 1;
	}
	lastHead = frame.slice(0, n);
	lastRead = { status, headers };
	return lastRead;
}

// storeDir is where the content store's objects are in the assets (catalog.StoreDir).
const storeDir = "/sha256/";

// assembleMax is the largest answer put together in memory rather than streamed.
const assembleMax = 64 * 1024;

// parseFrame reads a response frame: its status, its header fields as [name, value]
// pairs, the references of its "@" lines, and its body, a view of frame.
function parseFrame(frame) {
	// The head: the status line, the fields, the "@" lines, a blank line.
	let end = 0, refsAt = -1;
	for (; end + 1 < frame.length; end++) {
		if (frame[end] !== 10) continue;
		if (frame[end + 1] === 10) break;
		if (frame[end + 1] === 64 && refsAt < 0) refsAt = end + 1;
	}
	const { status, headers } = statusAndFields(frame, refsAt < 0 ? end : refsAt - 1);
	const refs = [];
	for (let i = refsAt; i >= 0 && i < end; i++) { // "@AT SIZE NAME", ASCII digits and hex
		let at = 0, size = 0;
		for (i++; i < end && frame[i] !== 32; i++) at = at * 10 + frame[i] - 48;
		for (i++; i < end && frame[i] !== 32; i++) size = size * 10 + frame[i] - 48;
		const from = ++i;
		while (frame[i] !== 10) i++;
		refs.push({ at, size, name: String.fromCharCode.apply(null, frame.subarray(from, i)) });
	}
	return { status, headers, refs, body: frame.subarray(end + 2) };
}

// respond turns a parsed response frame into a Response, splicing in the store objects
// its references name, fetched from env.ASSETS and streamed, never buffered. body may be a
// view of the plugin's memory (Raw.http): what is kept across an await is copied first. It
// returns the Response itself when nothing need be awaited (no objects, or all in the
// isolate's cache), else a promise of it: every await costs the runtime a turn.
function respond({ status, headers, refs, body }, env, ctx) {
	if (refs.length === 0) return new Response(body.length > 0 ? body.slice() : null, { status, headers });
	if (!env.ASSETS) return storeFailure("the Worker has no ASSETS binding: wrangler.toml's [assets] must bind OUT/assets as ASSETS");
	let total = body.length;
	for (let i = 0; i < refs.length; i++) total += refs[i].size;
	if (total <= assembleMax) return assembled(env, status, headers, body, refs, total);
	return streamed(env, ctx, status, headers, body.slice(), refs, total);
}

// Replays: the answers the plugin says may be given again to a request that repeats one
// but for its JSON-RPC id (skilledge_replay; edge.Replay in the Go code states the
// promise), so that such a request is answered without calling the plugin, as `serve`
// does (runtime/front/replay.go). An entry is the request's head and body around the id, and
// the answer around it; entries are found by a hash of the head and of the body around
// the id, for each shape (the lengths around the id) seen, at most replayShapesMax.
const replayMax = 1024; // entries
const replayBudget = 4 * 1024 * 1024; // bytes in all
const replayShapesMax = 16;
const replays = new Map(); // hash -> entry, oldest first
const replayShapes = []; // [before, after]: body bytes around the id
let replayBytes = 0;

// idKind is edge.ReplayableID: "n" for an integer of at most 15 digits without sign of
// zero or leading zeros, "s" for a string of at most 62 printable ASCII characters
// without '"' or '\', "" for any other token.
function idKind(t) {
	const n = t.length;
	if (n === 0 || n > 64) return "";
	if (t[0] === 34) {
		if (n < 2 || t[n - 1] !== 34) return "";
		for (let i = 1; i < n - 1; i++) if (t[i] < 0x20 || t[i] > 0x7e || t[i] === 34 || t[i] === 92) return "";
		return "s";
	}
	const from = t[0] === 45 ? 1 : 0; // "-"
	const digits = n - from;
	if (digits === 0 || digits > 15 || (t[from] === 48 && n > 1)) return "";
	for (let i = from; i < n; i++) if (t[i] < 48 || t[i] > 57) return "";
	return "n";
}

// headHash is a 32-bit FNV-1a hash of head, which replayHash goes on from.
function headHash(head) {
	let h = 0x811c9dc5;
	for (let i = 0; i < head.length; i++) h = Math.imul(h ^ head.charCodeAt(i), 0x01000193);
	return h;
}

// replayHash goes on from h, headHash of the request's head, over body without its bytes
// from..to.
function replayHash(h, body, from, to) {
	for (let i = 0; i < from; i++) h = Math.imul(h ^ body[i], 0x01000193);
	h = Math.imul(h ^ 0x100, 0x01000193);
	for (let i = to; i < body.length; i++) h = Math.imul(h ^ body[i], 0x01000193);
	return h >>> 0;
}

function sameBytes(a, b, at) {
	for (let i = 0; i < a.length; i++) if (a[i] !== b[at + i]) return false;
	return true;
}

// replayed answers the request of head and body from a kept answer, as respond's input,
// or gives null.
function replayed(head, body) {
	if (replayShapes.length === 0) return null;
	const h = headHash(head); // once: it is the same for every shape
	for (let s = 0; s < replayShapes.length; s++) {
		const [before, after] = replayShapes[s];
		const to = body.length - after;
		if (to - before <= 0 || to - before > 64) continue;
		const e = replays.get(replayHash(h, body, before, to));
		if (e === undefined || e.head !== head || e.before.length !== before || e.after.length !== after ||
			e.headBytes + body.length > e.maxFrame || !sameBytes(e.before, body, 0) || !sameBytes(e.after, body, to)) continue;
		const id = body.subarray(before, to);
		if (idKind(id) !== e.kind) continue;
		const out = new Uint8Array(e.answerBefore.length + id.length + e.answerAfter.length);
		out.set(e.answerBefore);
		out.set(id, e.answerBefore.length);
		out.set(e.answerAfter, e.answerBefore.length + id.length);
		const shift = e.answerBefore.length + id.length;
		const refs = e.refs.map((r) => ({ at: r.at + shift, size: r.size, name: r.name }));
		return { status: e.status, headers: e.headers, refs, body: out };
	}
	return null;
}

// keepReplay keeps the answer parsed (of the response frame frame) to the request of head
// (headBytes long in the frame) and body, as hint (Raw.replay) says, unless it is larger
// than an answer assembled in memory or its shape is one too many.
function keepReplay(head, headBytes, body, frame, parsed, hint) {
	const idAt = hint.idAt - headBytes, n = hint.idLen;
	const at = hint.answerAt - (frame.length - parsed.body.length); // the body ends the frame
	if (n === 0 || idAt < 0 || idAt + n > body.length || headBytes + body.length > hint.maxFrame ||
		at < 0 || at + n > parsed.body.length || parsed.body.length > assembleMax) return;
	const id = body.subarray(idAt, idAt + n);
	const kind = idKind(id);
	if (kind === "" || !sameBytes(id, parsed.body, at)) return;
	const refs = [];
	for (const r of parsed.refs) {
		if (r.at < at + n) return; // the echo would move a reference before it
		refs.push({ at: r.at - at - n, size: r.size, name: r.name });
	}
	const before = body.slice(0, idAt), after = body.slice(idAt + n);
	let known = false;
	for (const [b, a] of replayShapes) known ||= b === before.length && a === after.length;
	if (!known) {
		if (replayShapes.length === replayShapesMax) return;
		replayShapes.push([before.length, after.length]);
	}
	const e = {
		head, headBytes, before, after, kind, maxFrame: hint.maxFrame,
		status: parsed.status, headers: parsed.headers,
		answerBefore: parsed.body.slice(0, at), answerAfter: parsed.body.slice(at + n), refs,
		size: 2 * head.length + body.length + parsed.body.length + 64 * refs.length,
	};
	const key = replayHash(headHash(head), body, idAt, idAt + n);
	const old = replays.get(key);
	if (old !== undefined) {
		replays.delete(key);
		replayBytes -= old.size;
	}
	for (const [k, o] of replays) {
		if (replays.size < replayMax && replayBytes + e.size <= replayBudget) break;
		replays.delete(k);
		replayBytes -= o.size;
	}
	replays.set(key, e);
	replayBytes += e.size;
}

// streamed answers a response of more than assembleMax bytes: body (a copy of the
// frame's) with the objects of refs streamed from the assets into it.
async function streamed(env, ctx, status, headers, kept, refs, total) {
	// Every object is asked for before the first byte goes out, so that a missing object
	// or one of the wrong size (where the assets say its length) is a 500 rather than a
	// truncated body.
	const objects = await fetchObjects(env, refs);
	for (const [i, o] of objects.entries()) {
		const failure = objectFailure(refs[i], o);
		if (failure) return storeFailure(failure);
	}
	if (refs.length === 1 && refs[0].at === 0 && kept.length === 0) {
		return new Response(objects[0].body, { status, headers }); // a file as it is: the asset's own stream
	}
	const { readable, writable } = new FixedLengthStream(total);
	ctx.waitUntil(splice(writable, kept, refs, objects));
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
function assembled(env, status, headers, body, refs, total) {
	const objs = new Array(refs.length);
	let missing = null;
	for (let i = 0; i < refs.length; i++) {
		objs[i] = cachedObject(refs[i].name);
		if (objs[i] === undefined) (missing ??= []).push(refs[i]);
	}
	if (missing === null) return assemble(status, headers, body, refs, objs, total);
	// body is a view of the plugin's memory, which the next request reuses.
	return fetchMissing(env, status, headers, body.slice(), refs, objs, missing, total);
}

// fetchMissing fetches the objects of missing (those of refs not in the cache), caches
// them, and assembles the answer.
async function fetchMissing(env, status, headers, body, refs, objs, missing, total) {
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
	return assemble(status, headers, body, refs, objs, total);
}

// assemble puts body and objs (the bytes of refs, in order) together into the answer.
function assemble(status, headers, body, refs, objs, total) {
	const out = new Uint8Array(total);
	let at = 0, from = 0;
	for (let i = 0; i < refs.length; i++) {
		const r = refs[i];
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
		// Once the instance is up, a request awaits only its body, as a plain Worker does.
		let instance = started;
		if (instance === null) {
			plugin ??= start(env);
			const ready = plugin;
			try {
				instance = await ready;
			} catch (err) {
				if (plugin === ready) plugin = null; // try again on the next request
				console.error("skilledge: the plugin did not start:", err);
				return new Response(`skilledge: the plugin did not start: ${err.message}\n`, { status: 500, headers: noSniff });
			}
			if (plugin === ready) started = instance;
		}
		const head = requestHead(request, instance.fields);
		const read = await requestBody(request, instance.maxBody);
		const body = read === null ? empty : read instanceof Uint8Array ? read : new Uint8Array(read);
		let parsed = replayed(head, body);
		if (parsed === null) {
			try {
				const out = instance.raw.http(head, body);
				parsed = parseFrame(out);
				const hint = instance.raw.replay();
				if (hint !== null) keepReplay(head, instance.raw.headBytes, body, out, parsed, hint);
			} catch (err) {
				// The instance trapped (a panic, out of memory): it is unusable. Only this request
				// fails; the next one gets a fresh instance.
				if (started === instance) started = plugin = null;
				console.error("skilledge: the plugin trapped:", err);
				return new Response("skilledge: internal error\n", { status: 500, headers: noSniff });
			}
		}
		try {
			const answer = respond(parsed, env, ctx);
			return answer instanceof Response ? answer : await answer;
		} catch (err) {
			return storeFailure(`reading the content store: ${err}`);
		}
	},
};
