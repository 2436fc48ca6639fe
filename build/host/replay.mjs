// @ts-check

// Replays (edge/wire's package doc, "Replays"): the plugin's answers kept, as its replay
// hints allow, and given again to requests that repeat one but for their JSON-RPC id.

import { FrameError } from "./frame.mjs";
import { limits } from "./limits.mjs";

/** @typedef {import("./frame.mjs").Parsed} Parsed */
/** @typedef {import("./frame.mjs").Ref} Ref */
/** @typedef {import("./facts.mjs").Facts} Facts */

/**
 * Hint is a replay hint (parseHint): where the id lies in the request frame, its length,
 * where the answer echoes it, the longest request frame the promise holds for, and when
 * it expires (unix seconds; 0: never).
 * @typedef {{ idAt: number, idLen: number, answerAt: number, maxFrame: number, expires: number }} Hint
 */

/**
 * ReplayEntry is a kept answer (wire.ReplayEntry): the request's head and body around
 * the id, the id's kind, and the answer around the id.
 * @typedef {object} ReplayEntry
 * @property {string} head
 * @property {number} headHash
 * @property {number} headBytes
 * @property {Uint8Array} before
 * @property {Uint8Array} after
 * @property {string} kind
 * @property {number} maxFrame
 * @property {number} expires
 * @property {number} status
 * @property {[string, string][]} headers
 * @property {Uint8Array} answerBefore
 * @property {Uint8Array} answerAfter
 * @property {Ref[]} refs
 * @property {number} size
 * @property {Facts | null} facts the answer's facts, which every replay is counted with
 */

// Replays: the answers the plugin says may be given again to a request that repeats one
// but for its JSON-RPC id (wire.Hint states the promise), so that such a request is
// answered without calling the plugin, as `serve` does. An entry is the request's head and
// body around the id, and the answer around it (wire.ReplayEntry); entries are found by a
// hash of the head and of the body around the id, for each shape (the lengths around the
// id) seen. Bounds are the contract's (limits). An entry whose promise expires (an answer
// to an authenticated caller, whose credential is in the head) answers nothing from then
// on, by the host's clock, and is dropped.
export class Replays {
	/** @param {number} [max] the most entries kept */
	constructor(max = limits.ReplayEntries) {
		this.max = max;
		/** @type {Map<number, ReplayEntry>} */
		this.entries = new Map(); // hash -> entry, oldest first
		/** @type {[number, number][]} */
		this.shapes = []; // [before, after]: body bytes around the id
		this.bytes = 0;
		// heads maps each kept entry's head to {hash: headHash(head), n: the entries with it},
		// so that a head repeated is hashed by the runtime's own string hashing (Map.get),
		// not character by character in JavaScript.
		/** @type {Map<string, { hash: number, n: number }>} */
		this.heads = new Map();
		this.scratch = new Uint8Array(0); // the answers of lookup that are not owned
	}

	// add and drop keep entries, bytes and heads in step.
	/**
	 * @param {number} key
	 * @param {ReplayEntry} e
	 */
	add(key, e) {
		this.entries.set(key, e);
		this.bytes += e.size;
		const k = this.heads.get(e.head);
		if (k === undefined) this.heads.set(e.head, { hash: e.headHash, n: 1 });
		else k.n++;
	}

	/**
	 * @param {number} key
	 * @param {ReplayEntry} e
	 */
	drop(key, e) {
		this.entries.delete(key);
		this.bytes -= e.size;
		const k = /** @type {{ hash: number, n: number }} */ (this.heads.get(e.head));
		if (--k.n === 0) this.heads.delete(e.head);
	}

	// lookup answers the request of head and body from a kept answer, as respond's input,
	// or gives null; now is the host's clock (milliseconds, as Date.now()). The answer's
	// body is the caller's (owned) when it names no objects; else it is valid only until
	// the next lookup, as the plugin's answers are until its next call (respond copies
	// what it keeps): one allocation a replay, not two, where each costs more than the
	// copying (a typed array of more than 64 bytes lies outside V8's heap).
	/**
	 * @param {string} head
	 * @param {Uint8Array} body
	 * @param {number} [now]
	 * @returns {(Parsed & { facts: Facts | null }) | null}
	 */
	lookup(head, body, now = Date.now()) {
		if (this.shapes.length === 0) return null;
		const h = this.heads.get(head)?.hash ?? headHash(head); // once: it is the same for every shape
		for (let s = 0; s < this.shapes.length; s++) {
			const [before, after] = this.shapes[s];
			const to = body.length - after;
			if (to - before <= 0 || to - before > 64) continue;
			const key = replayHash(h, body, before, to);
			const e = this.entries.get(key);
			if (e !== undefined && expired(e.expires, now)) {
				this.drop(key, e);
				continue;
			}
			if (e === undefined || e.head !== head || e.before.length !== before || e.after.length !== after ||
				e.headBytes + body.length > e.maxFrame || !sameBytes(e.before, body, 0) || !sameBytes(e.after, body, to)) continue;
			const id = body.subarray(before, to);
			if (idKind(id) !== e.kind) continue;
			const n = e.answerBefore.length + id.length + e.answerAfter.length;
			const owned = e.refs.length === 0;
			if (!owned && this.scratch.length < n) this.scratch = new Uint8Array(Math.max(n, 2 * this.scratch.length, 1024));
			const out = owned ? new Uint8Array(n) : this.scratch.subarray(0, n);
			out.set(e.answerBefore);
			out.set(id, e.answerBefore.length);
			out.set(e.answerAfter, e.answerBefore.length + id.length);
			const shift = e.answerBefore.length + id.length;
			const refs = e.refs.map((r) => ({ ...r, at: r.at + shift })); // a packed one keeps its pack and offset
			return { status: e.status, headers: e.headers, refs, body: out, owned, facts: e.facts };
		}
		return null;
	}

	// keep keeps the answer parsed (of the response frame frame) to the request of head
	// (headBytes long in the frame) and body, and its facts (or null), as hint (parseHint) says, unless it is not
	// what the plugin may promise (wire.NewReplayEntry), holds more than
	// limits.ReplayEntryMax (ReplayEntry.Size), its shape is one too many, or it has
	// expired by now (the host's clock, milliseconds, as Date.now()). It says whether it
	// kept it.
	/**
	 * @param {string} head
	 * @param {number} headBytes
	 * @param {Uint8Array} body
	 * @param {Uint8Array} frame
	 * @param {Parsed} parsed
	 * @param {Hint} hint
	 * @param {number} [now]
	 * @param {Facts | null} [facts]
	 * @returns {boolean}
	 */
	keep(head, headBytes, body, frame, parsed, hint, now = Date.now(), facts = null) {
		const idAt = hint.idAt - headBytes, n = hint.idLen;
		const at = hint.answerAt - (frame.length - parsed.body.length); // the body ends the frame
		if (n === 0 || expired(hint.expires, now) || idAt < 0 || idAt + n > body.length || headBytes + body.length > hint.maxFrame ||
			at < 0 || at + n > parsed.body.length) return false;
		const id = body.subarray(idAt, idAt + n);
		const kind = idKind(id);
		if (kind === "" || !sameBytes(id, parsed.body, at)) return false;
		/** @type {Ref[]} */
		const refs = [];
		for (const r of parsed.refs) {
			if (r.at < at + n) return false; // the echo would move a reference before it
			refs.push({ ...r, at: r.at - at - n });
		}
		let size = headBytes + body.length - n + parsed.body.length - n + 64 * refs.length;
		for (const [name, value] of parsed.headers) size += name.length + value.length;
		if (size > limits.ReplayEntryMax) return false;
		const before = body.slice(0, idAt), after = body.slice(idAt + n);
		let known = false;
		for (const [b, a] of this.shapes) known ||= b === before.length && a === after.length;
		if (!known) {
			if (this.shapes.length === limits.ReplayShapesMax) return false;
			this.shapes.push([before.length, after.length]);
		}
		const hh = headHash(head);
		const e = {
			head, headHash: hh, headBytes, before, after, kind, maxFrame: hint.maxFrame, expires: hint.expires,
			status: parsed.status, headers: parsed.headers,
			answerBefore: parsed.body.slice(0, at), answerAfter: parsed.body.slice(at + n), refs, size, facts,
		};
		const key = replayHash(hh, body, idAt, idAt + n);
		const old = this.entries.get(key);
		if (old !== undefined) this.drop(key, old);
		for (const [k, o] of this.entries) {
			if (this.entries.size < this.max && this.bytes + size <= limits.ReplayBudget) break;
			this.drop(k, o);
		}
		this.add(key, e);
		return true;
	}
}

// parseHint reads skilledge_replay's bytes (wire.ParseHint): where the id lies in the
// request frame, its length, where the answer echoes it, the longest request frame the
// promise holds for, and, in a hint limits.HintSizeExpiring long, when it expires (unix
// seconds; 0: never). Bytes neither limits.HintSize nor limits.HintSizeExpiring long are
// the plugin's failure (FrameError), as in the Go hosts.
/**
 * @param {Uint8Array} b
 * @returns {Hint}
 */
export function parseHint(b) {
	if (b.length !== limits.HintSize && b.length !== limits.HintSizeExpiring) throw new FrameError(`a replay hint of ${b.length} bytes`);
	const v = new DataView(b.buffer, b.byteOffset, b.length);
	return {
		idAt: v.getUint32(0, true), idLen: v.getUint32(4, true), answerAt: v.getUint32(8, true), maxFrame: v.getUint32(12, true),
		expires: b.length === limits.HintSizeExpiring ? v.getUint32(16, true) : 0,
	};
}

// expired says whether a promise that expires at expires (unix seconds; 0: never) has by
// now (milliseconds, as Date.now()) (wire.ReplayEntry.Expired).
/** @type {(expires: number, now: number) => boolean} */
function expired(expires, now) {
	return expires > 0 && now >= expires * 1000;
}

// idKind is wire.ReplayableID: "n" for an integer of at most 15 digits without sign of
// zero or leading zeros, "s" for a string of at most 62 printable ASCII characters
// without '"' or '\', "" for any other token.
/**
 * @param {Uint8Array} t
 * @returns {"n" | "s" | ""}
 */
export function idKind(t) {
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
/** @type {(head: string) => number} */
function headHash(head) {
	let h = 0x811c9dc5;
	for (let i = 0; i < head.length; i++) h = Math.imul(h ^ head.charCodeAt(i), 0x01000193);
	return h;
}

// replayHash goes on from h, headHash of the request's head, over body without its bytes
// from..to.
/** @type {(h: number, body: Uint8Array, from: number, to: number) => number} */
function replayHash(h, body, from, to) {
	for (let i = 0; i < from; i++) h = Math.imul(h ^ body[i], 0x01000193);
	h = Math.imul(h ^ 0x100, 0x01000193);
	for (let i = to; i < body.length; i++) h = Math.imul(h ^ body[i], 0x01000193);
	return h >>> 0;
}

// sameBytes says whether b holds a's bytes at at.
/** @type {(a: Uint8Array, b: Uint8Array, at: number) => boolean} */
function sameBytes(a, b, at) {
	for (let i = 0; i < a.length; i++) if (a[i] !== b[at + i]) return false;
	return true;
}
