// @ts-check

// The plugin's raw exports (edge/plugin/main.go), as the host calls them: the options,
// the index, each request and each key set go in with one copy, and what the plugin
// answers is read from its memory.
//
// Why does the worker serve requests through the raw export, not the Extism `http`
// export? The Extism JS SDK instantiates the plugin (it supplies WASI and
// extism:host/env); the host then applies the options and the index through
// skilledge_configure and skilledge_load (one copy each, where the Extism exports read
// their input 8 bytes per call), and answers through skilledge_http on the same instance:
// one copy of the frame in, one out, and a synchronous call, so no queue is needed to
// keep requests of one isolate from interleaving inside the instance. With the Extism http
// export (the first shim's), go-pdk crossed into JavaScript once per 8 bytes, and the
// plugin's share of a skills/list in workerd, over the plain-Worker floor, was up to twice
// what it is through the raw export (BENCHMARKS.md, "Why the Worker calls the raw export";
// the workerd section has the current run). The Extism contract stays proven by an
// official host: the Extism Go SDK test in tests/extism.
//
// Why does the Worker write the request into the plugin's memory, and hand the Response
// header pairs? A CPU profile of workerd serving small reads at 16 clients (perf with V8's
// perf map, checked against the inspector's profiler) put under a tenth of its time in the
// plugin, about a fifth in the shim and the built-ins it calls (Headers, Response,
// TextEncoder and TextDecoder, typed arrays), about an eighth in garbage collection, and
// the rest in workerd's own per-request work. So the host encodes the request head with
// encodeInto straight into the plugin's input buffer and copies the body after it (Raw),
// reads the answer from the plugin's memory instead of copying it out first (copying only
// what an await must keep), parses the head with indexOf instead of split (frame.mjs), and
// gives the Response [name, value] pairs instead of a Headers object it would copy. Those
// changes alone moved a Worker A/B less than its noise (rounds of one bundle differ by as
// much as a fifth). What did show was the number of awaits, each a turn of workerd's event
// loop: a small read now awaits only the body, as the plain Worker does (the started
// instance is kept, and an answer that needs no fetch is returned as it is). Interleaved
// rounds of each bundle gave a few percent less workerd CPU per small read and a few
// percent more requests per second (BENCHMARKS.md, "Why the Worker writes into the
// plugin's memory").

import { parseFacts } from "./facts.mjs";
import { keysFrame } from "./keys.mjs";
import { parseHint } from "./replay.mjs";

const encoder = new TextEncoder();
const decoder = new TextDecoder(); // for the plugin's own text (errors, field names)

/** @typedef {import("./replay.mjs").Hint} Hint */
/** @typedef {import("./facts.mjs").Facts} Facts */

/**
 * Exports are the plugin's raw exports (edge/plugin/main.go): an input of (ptr, len) in
 * the buffer skilledge_alloc gave; a status (0: done, else skilledge_error says why), or
 * a packed ptr<<32 | len of the answer in linear memory (0: none). The exports a plugin
 * older than them lacks are optional.
 * @typedef {object} Exports
 * @property {WebAssembly.Memory} memory
 * @property {(size: number) => number} skilledge_alloc
 * @property {(ptr: number, len: number) => number} skilledge_configure
 * @property {(ptr: number, len: number) => number} skilledge_load
 * @property {(ptr: number, len: number) => bigint} skilledge_http
 * @property {() => bigint} skilledge_fields
 * @property {() => bigint} skilledge_error
 * @property {() => bigint} [skilledge_replay]
 * @property {() => bigint} [skilledge_facts]
 * @property {() => bigint} [skilledge_keys_wanted]
 * @property {(ptr: number, len: number) => number} skilledge_keys
 * @property {(ptr: number, len: number) => number} [skilledge_give]
 */

// Raw calls the plugin's raw exports (see edge/plugin/main.go). It keeps the input buffer
// skilledge_alloc gave, valid until the next alloc or load, so a request is one call.
export class Raw {
	/** @param {Exports} x */
	constructor(x) {
		this.x = x;
		this.ptr = 0;
		this.cap = 0;
		this.headBytes = 0; // the UTF-8 length of the last http call's head
	}

	// room returns the input buffer as a view of at least size bytes, growing it first
	// when it is smaller.
	/**
	 * @param {number} size
	 * @returns {Uint8Array<ArrayBuffer>}
	 */
	room(size) {
		if (size > this.cap || this.cap === 0) {
			this.cap = Math.max(size, 2 * this.cap, 16384);
			this.ptr = this.x.skilledge_alloc(this.cap) >>> 0;
		}
		return new Uint8Array(this.x.memory.buffer, this.ptr, this.cap);
	}

	// configure gives skilledge_configure options (an object): null when the plugin takes
	// them, else its reason.
	/**
	 * @param {object} options
	 * @returns {string | null}
	 */
	configure(options) {
		const b = encoder.encode(JSON.stringify(options));
		this.room(b.length).set(b);
		return this.x.skilledge_configure(this.ptr, b.length) === 0 ? null : `skilledge_configure: ${this.error()}`;
	}

	// call runs skilledge_load (or another export of the same kind) with input b.
	/**
	 * @param {"skilledge_load"} name
	 * @param {Uint8Array} b
	 */
	call(name, b) {
		this.room(b.length).set(b);
		if (name === "skilledge_load") this.cap = 0; // the plugin keeps that buffer
		if (this.x[name](this.ptr, b.length) !== 0) throw new Error(`${name}: ${this.error()}`);
	}

	// http answers the request frame made of head (a string, the frame up to and with the
	// blank line) and body (a Uint8Array). The frame is written straight into the plugin's
	// input buffer: a head of n UTF-16 units is at most 3n bytes of UTF-8. The response
	// frame returned is a view of the plugin's memory, valid until the next call into it:
	// callers copy what they keep across an await.
	/**
	 * @param {string} head
	 * @param {Uint8Array} body
	 * @returns {Uint8Array<ArrayBuffer>}
	 */
	http(head, body) {
		const room = this.room(3 * head.length + body.length);
		const { written } = encoder.encodeInto(head, room);
		if (body.length > 0) room.set(body, written);
		this.headBytes = written;
		const out = this.x.skilledge_http(this.ptr, written + body.length);
		if (out === 0n) throw new Error(this.error());
		return bytesAt(this.x, out);
	}

	// fields is the request header fields the plugin reads (skilledge_fields), lowercase,
	// in its order: only these are framed.
	/** @returns {string[]} */
	fields() {
		return decoder.decode(bytesAt(this.x, this.x.skilledge_fields())).split("\n");
	}

	// replay is the hint of the last http answer (parseHint), or null.
	/** @returns {Hint | null} */
	replay() {
		if (typeof this.x.skilledge_replay !== "function") return null;
		const packed = this.x.skilledge_replay();
		return packed === 0n ? null : parseHint(bytesAt(this.x, packed));
	}

	// facts is what the last http answer was (skilledge_facts, parseFacts): null when the
	// plugin says nothing (a plugin older than the export) or gives facts that do not parse,
	// which the host counts as none.
	/** @returns {Facts | null} */
	facts() {
		if (typeof this.x.skilledge_facts !== "function") return null;
		const packed = this.x.skilledge_facts();
		return packed === 0n ? null : parseFacts(bytesAt(this.x, packed));
	}

	// wanted is the URLs of the key sets the plugin wants (skilledge_keys_wanted): [] for
	// none, and from a plugin older than the export.
	/** @returns {string[]} */
	wanted() {
		if (typeof this.x.skilledge_keys_wanted !== "function") return [];
		const packed = this.x.skilledge_keys_wanted();
		return packed === 0n ? [] : decoder.decode(bytesAt(this.x, packed)).split("\n");
	}

	// keys gives the plugin the key set doc (a Uint8Array) fetched from url
	// (skilledge_keys); it throws KeysRefused with the plugin's reason when the plugin
	// refuses it.
	/**
	 * @param {string} url
	 * @param {Uint8Array} doc
	 */
	keys(url, doc) {
		const frame = keysFrame(url, doc);
		this.room(frame.length).set(frame);
		if (this.x.skilledge_keys(this.ptr, frame.length) !== 0) throw new KeysRefused(this.error());
	}

	// give hands the plugin b, the bytes of the store object name a NEED answer named (a
	// shard of its sharded index: skilledge_give, "NAME LF BYTES"), which the host has
	// checked against name; it throws with the plugin's reason when it refuses it.
	/** @param {string} name @param {Uint8Array} b */
	give(name, b) {
		if (typeof this.x.skilledge_give !== "function") throw new Error("the plugin asks for index shards but has no skilledge_give");
		const room = this.room(65 + b.length);
		encoder.encodeInto(name + "\n", room);
		room.set(b, 65);
		this.cap = 0; // the plugin keeps that buffer as the shard
		if (this.x.skilledge_give(this.ptr, 65 + b.length) !== 0) throw new Error(`skilledge_give: ${this.error()}`);
	}

	// error is the plugin's reason for the last call that failed (skilledge_error).
	/** @returns {string} */
	error() {
		return decoder.decode(bytesAt(this.x, this.x.skilledge_error()));
	}
}

// KeysRefused is thrown for a key set the plugin refuses: a document that is no key set.
export class KeysRefused extends Error {}

// bytesAt is the linear memory a packed (ptr<<32 | len) result names.
/** @type {(x: Exports, packed: bigint) => Uint8Array<ArrayBuffer>} */
function bytesAt(x, packed) {
	return new Uint8Array(x.memory.buffer, Number(packed >> 32n), Number(packed & 0xffffffffn));
}
