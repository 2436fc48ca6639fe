// @ts-check

// Framing (edge/wire's package doc, "Frames"): a request framed for the plugin, and the
// plugin's response frame read, as wire.AppendRequestHead and wire.ParseResponse do.

/**
 * HeadersLike is what the host reads of a request's header fields: get, as the Fetch
 * API's Headers has it (a repeated field's values joined by ", ", null for a field the
 * request lacks).
 * @typedef {{ get(name: string): string | null }} HeadersLike
 */

/**
 * RequestLike is what the host reads of a request (Host.fetch): a Request, or what stands
 * for one (node.mjs's NodeRequest). body is null for none.
 * @typedef {object} RequestLike
 * @property {string} url absolute: scheme://authority/path?query
 * @property {string} method
 * @property {HeadersLike} headers
 * @property {{ getReader(): ReadableStreamDefaultReader<Uint8Array> } | null} body
 * @property {() => Promise<ArrayBuffer | Uint8Array>} arrayBuffer
 */

/**
 * Ref is a reference of a response frame ("@AT SIZE NAME [PACK OFFSET]"): the SIZE bytes
 * of the store object NAME (64 lowercase hex digits) go in at offset AT of the body; a
 * packed object's are the SIZE bytes at OFFSET of the store object PACK.
 * @typedef {{ at: number, size: number, name: string, pack?: string, offset?: number }} Ref
 */

/**
 * Parsed is a response frame read (FrameParser.parse), or a replay (Replays.lookup):
 * the status, the header fields as [name, value] pairs (not to be changed: they may be
 * shared), the references, and the body. owned says the body is the caller's to give
 * away (a replay's, when it names no objects); else it may be a view of the plugin's
 * memory, valid until the next call into it.
 * @typedef {object} Parsed
 * @property {number} status
 * @property {[string, string][]} headers
 * @property {Ref[]} refs
 * @property {Uint8Array<ArrayBuffer>} body
 * @property {boolean} [owned]
 */

// requestHead is the head of a request's frame (wire.AppendRequestHead), as a string: the
// request line, a line for each of fields (lowercase names, in their order) that headers
// holds (its get gives a repeated field's values joined by ", ", as the Fetch API's
// Headers do; null for a field the request lacks; host is framed always, empty when
// missing), and the blank line. Looking fields up
// by name, not iterating the headers, spares the runtime a sorted, lowercased copy of
// every field, most of which the plugin never reads.
/**
 * @param {string} method
 * @param {string} target
 * @param {HeadersLike} headers
 * @param {string[]} fields
 * @returns {string}
 */
export function requestHead(method, target, headers, fields) {
	let head = `${method} ${target}\n`;
	for (let i = 0; i < fields.length; i++) {
		const value = headers.get(fields[i]) ?? (fields[i] === "host" ? "" : null); // host always (wire.AppendRequestHead)
		if (value !== null) head += `${fields[i]}: ${value}\n`;
	}
	return head + "\n";
}

// requestBody reads at most limit+1 bytes of the request's body, or gives null for none:
// enough for the plugin to see that a body is over the limit (413) without the host
// holding all of it. A body of known, allowed length (readsWhole) is read at once (the
// runtime holds it to that length), cheaper than chunk by chunk.
/**
 * @param {RequestLike} request
 * @param {number} limit
 * @returns {Promise<ArrayBuffer | Uint8Array> | null}
 */
export function requestBody(request, limit) {
	if (request.body === null) return null;
	if (readsWhole(request.headers.get("Content-Length"), limit)) return request.arrayBuffer();
	return bodyInChunks(request, limit);
}

// readsWhole says whether a body whose Content-Length field is length (null for none) is
// read whole at once, for a plugin that takes limit bytes: its length is known and
// allowed. Any other body is read chunk by chunk, only as far as the plugin needs.
/**
 * @param {string | null} length
 * @param {number} limit
 * @returns {boolean}
 */
export function readsWhole(length, limit) {
	return length !== null && Number(length) <= limit;
}

// bodyInChunks reads request's body (not null) as requestBody does, chunk by chunk.
/** @type {(request: RequestLike, limit: number) => Promise<Uint8Array>} */
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

// FrameError is thrown for a response frame that does not follow the grammar.
export class FrameError extends Error {}

const frameDecoder = new TextDecoder("utf-8", { ignoreBOM: true }); // a frame's head: a BOM is a byte like any other

// fieldName is an HTTP token (RFC 9110 §5.6.2), as wire's token.
const fieldName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

// FrameParser reads response frames (parse). It keeps what it read of the last one, so
// each Host has its own (Host.frames): the frames of one host's plugin never stand in
// for another's, and no state is shared by hosts in one isolate.
export class FrameParser {
	constructor() {
		/** @type {Uint8Array<ArrayBuffer> | null} */
		// lastHead is a copy of the status line and fields of the last response frame read,
		// and lastRead what statusAndFields read from them. Answers of a kind repeat them,
		// so most requests compare bytes rather than decode, check and split a string. A
		// Response copies the pairs it is given, so one array serves many.
		this.lastHead = null;
		/** @type {{ status: number, headers: [string, string][] } | null} */
		this.lastRead = null;
		// decimalValue is what decimal read last. (A field rather than a pair: decimal
		// runs for every reference of every answer.)
		this.decimalValue = 0;
	}

	// parse reads a response frame (wire.ParseResponse): its status, its header fields as
	// [name, value] pairs, the references of its "@" lines, and its body, a view of frame.
	// It throws FrameError for a frame that does not follow the grammar: the plugin's
	// failure.
	/**
	 * @param {Uint8Array<ArrayBuffer>} frame
	 * @returns {Parsed}
	 */
	parse(frame) {
		// The head: the status line, the fields, the "@" lines, a blank line.
		let end = 0, refsAt = -1;
		for (; end + 1 < frame.length; end++) {
			if (frame[end] !== 10) continue;
			if (frame[end + 1] === 10) break;
			if (frame[end + 1] === 64 && refsAt < 0) refsAt = end + 1;
		}
		if (end + 1 >= frame.length) throw new FrameError("no blank line ends the head");
		const { status, headers } = this.statusAndFields(frame, refsAt < 0 ? end : refsAt - 1);
		const body = frame.subarray(end + 2);
		/** @type {Ref[]} */
		const refs = [];
		let last = 0;
		for (let i = refsAt; i >= 0 && i < end; i++) { // "@AT SIZE NAME [PACK OFFSET]"
			const atEnd = this.decimal(frame, i + 1, end);
			const at = this.decimalValue;
			const sizeEnd = atEnd < 0 ? -1 : this.decimal(frame, atEnd + 1, end);
			if (sizeEnd < 0) throw new FrameError("malformed reference");
			const size = this.decimalValue;
			const from = sizeEnd + 1;
			i = this.objectName(frame, from, end);
			/** @type {Ref} */
			const ref = { at, size, name: String.fromCharCode.apply(null, frame.subarray(from, i)) };
			if (i < end && frame[i] === 32) { // a packed object: " PACK OFFSET"
				const packFrom = i + 1;
				i = this.objectName(frame, packFrom, end);
				const offsetEnd = i < end && frame[i] === 32 ? this.decimal(frame, i + 1, end, 10) : -1;
				if (offsetEnd < 0) throw new FrameError("malformed packed reference");
				ref.pack = String.fromCharCode.apply(null, frame.subarray(packFrom, i));
				ref.offset = this.decimalValue;
				i = offsetEnd;
			}
			if (i < end && frame[i + 1] !== 64) throw new FrameError("a field after a reference");
			if (at < last || at > body.length) throw new FrameError("references out of order or past the body");
			last = at;
			refs.push(ref);
		}
		if ((status === 204 || status === 205 || status === 304) && (body.length > 0 || refs.length > 0)) {
			throw new FrameError("a body with a status that has none");
		}
		return { status, headers, refs, body };
	}

	// objectName checks the 64 lowercase hex digits of an object's name at from in frame,
	// ended by a space or LF, and returns the index after them.
	/**
	 * @param {Uint8Array<ArrayBuffer>} frame
	 * @param {number} from
	 * @param {number} end
	 * @returns {number}
	 */
	objectName(frame, from, end) {
		let i = from;
		while (i < end && frame[i] !== 10 && frame[i] !== 32) {
			const c = frame[i++];
			if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) throw new FrameError("malformed object name");
		}
		if (i - from !== 64) throw new FrameError("malformed object name");
		return i;
	}

	// statusAndFields reads the status and the header fields, as [name, value] pairs, from
	// the first n bytes of frame (the status line and the field lines, without the LF after
	// the last), as wire.ParseResponse does: a final status, 200 to 599, then NAME ": " VALUE
	// lines whose name is an HTTP token.
	/**
	 * @param {Uint8Array<ArrayBuffer>} frame
	 * @param {number} n
	 * @returns {{ status: number, headers: [string, string][] }}
	 */
	statusAndFields(frame, n) {
		const lastHead = this.lastHead;
		if (lastHead !== null && lastHead.length === n) {
			let i = 0;
			while (i < n && frame[i] === lastHead[i]) i++;
			if (i === n) return this.lastRead;
		}
		const head = frameDecoder.decode(frame.subarray(0, n));
		const nl = head.indexOf("\n");
		const line = nl < 0 ? head : head.slice(0, nl);
		if (!/^[2-5][0-9][0-9]$/.test(line)) throw new FrameError("malformed status line: a final status, 200 to 599");
		/** @type {[string, string][]} */
		const headers = [];
		for (let at = nl + 1; nl >= 0 && at <= head.length;) {
			let next = head.indexOf("\n", at);
			if (next < 0) next = head.length;
			const colon = head.indexOf(": ", at);
			if (colon <= at || colon >= next || !fieldName.test(head.slice(at, colon))) throw new FrameError("malformed field line");
			headers.push([head.slice(at, colon), head.slice(colon + 2, next)]);
			at = next + 1;
		}
		this.lastHead = frame.slice(0, n);
		this.lastRead = { status: Number(line), headers };
		return this.lastRead;
	}

	// decimal reads a canonical decimal (no sign, no leading zero) of at most 16 digits
	// from frame at i, ending at a space (or the byte stop), into decimalValue, and returns
	// the index of the space, or -1.
	/**
	 * @param {Uint8Array<ArrayBuffer>} frame
	 * @param {number} i
	 * @param {number} end
	 * @param {number} [stop]
	 * @returns {number}
	 */
	decimal(frame, i, end, stop = 32) {
		let n = 0;
		const from = i;
		while (i < end && i - from < 17 && frame[i] >= 48 && frame[i] <= 57) n = n * 10 + frame[i++] - 48;
		const digits = i - from;
		if (digits === 0 || digits > 16 || (frame[from] === 48 && digits > 1) || frame[i] !== stop || n >= 2 ** 53) return -1;
		this.decimalValue = n;
		return i;
	}
}
