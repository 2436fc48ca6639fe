// @ts-check

// Splicing (edge/wire's package doc, "References"): a parsed response frame made an
// answer, with the store objects its references name put in at their offsets, assembled
// in memory from the objects the isolate keeps (ObjectCache) or streamed from the store.

import { failureResponse } from "./failure.mjs";
import { sha256Hex } from "./need.mjs";

/** @typedef {import("./failure.mjs").Answer} Answer */
/** @typedef {import("./failure.mjs").ResponseClass} ResponseClass */
/** @typedef {import("./frame.mjs").Parsed} Parsed */
/** @typedef {import("./frame.mjs").Ref} Ref */

/**
 * Store is the content store an entry gives the host: object(name) answers the object's
 * bytes (404 when missing); packed(pack, offset, length), for a catalog whose objects are
 * packed (catalog/packs.go), answers those bytes of the pack (404 when missing); bytes(name),
 * when the store can read an object whole at less cost than through a Response (a file on
 * Deno or Node), answers its bytes (null when missing), which the host uses for the
 * index's shards (need.mjs); stream(length), when the runtime has one, is a stream it sends
 * with that Content-Length (default: a TransformStream).
 * @typedef {object} Store
 * @property {(name: string) => Promise<Response>} object
 * @property {(pack: string, offset: number, length: number) => Promise<Response>} [packed]
 * @property {(name: string) => Promise<Uint8Array<ArrayBuffer> | null>} [bytes]
 * @property {(length: number) => { readable: ReadableStream<Uint8Array>, writable: WritableStream<Uint8Array> }} [stream]
 */

/**
 * Context is the runtime's context of a request, when it has one: waitUntil(promise)
 * keeps the runtime alive until promise settles.
 * @typedef {{ waitUntil?(promise: Promise<unknown>): void }} Context
 */

// assembleMax is the largest answer put together in memory rather than streamed.
const assembleMax = 64 * 1024;

// respond turns a parsed response frame into a Response, splicing in the store objects its
// references name: assembled in memory for an answer of at most assembleMax bytes, from
// cache's objects or fetched (and then cached), else streamed from the store. body may be
// a view of the plugin's memory (Raw.http): what is kept across an await, or answered, is
// copied first, unless owned says body is the caller's to give (Replays.lookup's is).
// It returns the Response itself when nothing need be awaited (no objects, or all in the
// cache), else a promise of it: every await costs the runtime a turn. R makes the
// answers (Host's Response option).
/**
 * @param {Parsed} parsed
 * @param {Store} store
 * @param {ObjectCache} cache
 * @param {Context} [ctx]
 * @param {ResponseClass} [R]
 * @returns {Answer | Promise<Answer>}
 */
export function respond({ status, headers, refs, body, owned }, store, cache, ctx, R = Response) {
	if (refs.length === 0) return new R(body.length === 0 ? null : owned ? body : body.slice(), { status, headers });
	let total = body.length;
	for (let i = 0; i < refs.length; i++) total += refs[i].size;
	if (total > assembleMax) return streamed(store, ctx, status, headers, body.slice(), refs, total, R);
	const objs = new Array(refs.length);
	let missing = null;
	for (let i = 0; i < refs.length; i++) {
		objs[i] = cache.get(refs[i].name);
		if (objs[i] === undefined) (missing ??= []).push(refs[i]);
	}
	if (missing === null) return new R(splice(body, refs, objs, total), { status, headers });
	return fetchMissing(store, cache, status, headers, body.slice(), refs, objs, missing, total, R);
}

// fetchMissing fetches the objects of missing (those of refs not in the cache), caches
// them, and assembles the answer.
async function fetchMissing(store, cache, status, headers, body, refs, objs, missing, total, R) {
	const fetched = await fetchObjects(store, missing);
	const got = new Map();
	try {
		for (const [i, o] of fetched.entries()) {
			const r = missing[i];
			let failure = objectFailure(r, o);
			const b = failure ? null : new Uint8Array(await o.arrayBuffer());
			if (b !== null && b.length !== r.size) failure = `content store object ${r.name} has ${b.length} bytes, not ${r.size}`;
			if (failure) {
				release(fetched);
				return storeFailure(failure, R);
			}
			got.set(r.name, b);
			cache.put(r.name, b);
		}
	} catch (err) {
		release(fetched);
		throw err;
	}
	for (const [i, r] of refs.entries()) objs[i] ??= got.get(r.name);
	return new R(splice(body, refs, objs, total), { status, headers });
}

// splice is body with objs (the bytes of refs, in order) put in at their offsets: total
// bytes (wire.AppendResolved).
/**
 * @param {Uint8Array<ArrayBuffer>} body
 * @param {Ref[]} refs
 * @param {Uint8Array<ArrayBuffer>[]} objs
 * @param {number} total
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function splice(body, refs, objs, total) {
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
	return out;
}

// streamed answers a response of more than assembleMax bytes: body (a copy of the
// frame's) with the objects of refs streamed from the store into it. Every object is asked
// for before the first byte goes out, so that a missing object or one of the wrong size
// (where the store says its length) is a failure rather than a truncated body.
async function streamed(store, ctx, status, headers, body, refs, total, R) {
	const objects = await fetchObjects(store, refs);
	for (const [i, o] of objects.entries()) {
		const failure = objectFailure(refs[i], o);
		if (failure) {
			release(objects);
			return storeFailure(failure, R);
		}
	}
	if (refs.length === 1 && refs[0].at === 0 && body.length === 0) {
		return new R(objects[0].body, { status, headers }); // a file as it is: the store's own stream
	}
	const { readable, writable } = store.stream ? store.stream(total) : new TransformStream();
	const done = pipeSpliced(writable, body, refs, objects);
	if (ctx?.waitUntil) ctx.waitUntil(done);
	return new R(readable, { status, headers });
}

// objectFailure says what is wrong with the store's answer o for reference r, or "".
function objectFailure(r, o) {
	if (!o.ok) return `content store object ${r.name} answered ${o.status}${o.statusText ? ` (${o.statusText})` : ""}`;
	const length = o.headers.get("Content-Length");
	if (length !== null && Number(length) !== r.size) return `content store object ${r.name} has ${length} bytes, not ${r.size}`;
	return "";
}

// ObjectCache keeps small store objects (at most assembleMax bytes each, budget in all):
// objects are named by their SHA-256, so a name's bytes never change and a kept copy is
// never stale. A small read then costs no fetch from the store, which is most of its CPU
// time on Workers (BENCHMARKS.md). Over budget, the oldest object not used since it was
// kept, or since it last had a second chance, is dropped (the "clock" approximation of
// least recently used): a hit only marks its object used, where reordering the map would
// cost every hit two map writes.
//
// Why does the Worker keep small store objects in the isolate? Once file contents left the
// script, every resources/read cost the Worker a subrequest to its assets, even for a
// 10-byte file: in the load benchmark it served a small read at about a third of the plain
// Worker's rate, with nearly three times its CPU per request. Keeping objects of at most
// 64 KiB (the answers it assembles in memory anyway), 8 MiB in all, and reading a body of
// known length in one arrayBuffer() instead of chunk by chunk, about doubled that rate, to
// over two thirds of the plain Worker's; later changes moved it by about as much as load
// runs of the same code differ, and with replays a repeated read skips the plugin as well
// (BENCHMARKS.md, "Why the Worker keeps small objects"). Rejected: the Cache API
// (caches.default) costs a lookup per object about as dear as the assets' own, and is not
// shared across a colo's isolates anyway; putting small files back into the index would
// make the script grow with file contents again, which the content store exists to
// prevent. TestWorkerStoreObjects holds the behaviour: a file read once is served again
// after every object is deleted, a file not yet read is a 500.
//
// Why does the object cache give a second chance rather than keep exact recency? Exact
// order, deleting and setting a hit's map entry again, was two map writes on every hit, the
// hot path of a small read on every host (a visible cost in the Node entry's profile:
// BENCHMARKS.md, "Why a second chance"). The clock drops what has not been used since its
// last chance, which is what the budget is for; the order among objects all in use is what
// it gives up, which no answer depends on (the bytes are the same whenever they are
// fetched). build/host.test.mjs ("object cache") holds the order.
export class ObjectCache {
	/** @param {number} [budget] */
	constructor(budget = 8 * 1024 * 1024) {
		this.budget = budget;
		/** @type {Map<string, { b: Uint8Array<ArrayBuffer>, used: boolean }>} */
		this.map = new Map(); // name -> {b: Uint8Array<ArrayBuffer>, used}, oldest (or last given a second chance) first
		this.bytes = 0;
	}

	// get returns the kept bytes of name, or undefined, and marks them used.
	/**
	 * @param {string} name
	 * @returns {Uint8Array<ArrayBuffer> | undefined}
	 */
	get(name) {
		const e = this.map.get(name);
		if (e === undefined) return undefined;
		e.used = true;
		return e.b;
	}

	// put keeps b, the bytes of name, unless it is larger than assembleMax or kept already.
	/**
	 * @param {string} name
	 * @param {Uint8Array<ArrayBuffer>} b
	 */
	put(name, b) {
		if (b.length > assembleMax || this.map.has(name)) return;
		this.map.set(name, { b, used: false });
		this.bytes += b.length;
		// Each turn drops an object or takes a used mark away, and none is set meanwhile.
		while (this.bytes > this.budget) {
			const [old, e] = this.map.entries().next().value;
			this.map.delete(old);
			if (e.used) {
				e.used = false;
				this.map.set(old, e); // its second chance: now the newest
			} else {
				this.bytes -= e.b.length;
			}
		}
	}
}

// fetchObjects asks the store for the object of every reference, at most 6 at a time,
// and returns the responses in order. When the store throws, it asks for no more, and
// throws that once those asked for are in, their bodies released.
async function fetchObjects(store, refs) {
	const out = new Array(refs.length);
	let next = 0;
	/** @type {{ err: unknown } | null} */
	let failed = null; // {err}: the first the store threw
	const fetcher = async () => {
		while (next < refs.length && failed === null) {
			const i = next++;
			try {
				const r = refs[i];
				out[i] = r.pack === undefined ? await store.object(r.name) : await fetchPacked(store, r);
			} catch (err) {
				failed ??= { err };
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(6, refs.length) }, fetcher));
	if (failed !== null) {
		release(out);
		throw failed.err;
	}
	return out;
}

// fetchPacked answers the bytes of the packed reference r (edge/wire, "References"): read
// from its pack by range, and checked against its name before any of them goes out, since
// the packs live in storage that is not deployed with the host (R2). Bytes that are not
// r's are answered as a store failure (a 500 that objectFailure reports).
/** @param {Store} store @param {Ref} r @returns {Promise<Response>} */
async function fetchPacked(store, r) {
	if (!store.packed) throw new Error(`content store object ${r.name} is packed, and this host's store reads no packs`);
	const o = await store.packed(/** @type {string} */ (r.pack), /** @type {number} */ (r.offset), r.size);
	if (!o.ok) return o;
	const b = new Uint8Array(await o.arrayBuffer());
	if (b.length !== r.size || (await sha256Hex(b)) !== r.name) return new Response(null, { status: 502, statusText: `the bytes at ${r.offset} of pack ${r.pack} are not object ${r.name}` });
	return new Response(b, { headers: { "Content-Length": String(b.length) } });
}

// release cancels the bodies of the store's answers that were not read, when a failure
// ends the answer they were for: a store that holds something for each (the Node entry's
// file handles) lets go of it now, not when it is collected.
function release(objects) {
	for (const o of objects) {
		if (o?.body && !o.bodyUsed && !o.body.locked) o.body.cancel().catch(() => {});
	}
}

// pipeSpliced writes body with each object's stream inserted at its offset, then closes.
async function pipeSpliced(writable, body, refs, objects) {
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
		release(objects);
		await writable.abort(err).catch(() => {});
	}
}

// storeFailure logs reason, what is wrong with the content store, and is the answer for the
// failure "store", made with R.
function storeFailure(reason, R) {
	console.error("skilledge:", reason);
	return failureResponse("store", undefined, R);
}

