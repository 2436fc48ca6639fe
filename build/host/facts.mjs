// @ts-check

// The facts of an answer (edge/wire's package doc, "Facts"): what the plugin says each
// answer was, for the host's logs, metrics and traces.

/**
 * Facts are wire.Facts: the route, the MCP method and revision, what was read of which
 * skill (its path; its name, the path's last segment; the URI read), the JSON-RPC error code (0 for
 * none), and the caller and client_id under the auth option. A fact the plugin did not
 * give is "" (or 0).
 * @typedef {object} Facts
 * @property {string} route
 * @property {string} method
 * @property {string} version
 * @property {string} read
 * @property {string} skill
 * @property {string} skillName
 * @property {string} uri
 * @property {number} code
 * @property {string} caller
 * @property {string} client
 */

/** @type {readonly string[]} */
const names = ["route", "method", "version", "read", "skill", "uri", "code", "caller", "client"];

const decoder = new TextDecoder();

/** @returns {Facts} */
export function noFacts() {
	return { route: "", method: "", version: "", read: "", skill: "", skillName: "", uri: "", code: 0, caller: "", client: "" };
}

// parseFacts reads the facts the plugin gave (wire.ParseFacts): lines "NAME SP VALUE", a
// value percent-encoded where it holds a control character or "%". A name it does not
// know is skipped; anything else that is not the encoding (a line without a space, an
// empty name or value, a malformed escape or code, a name twice, no final LF) gives null:
// the answer is counted with no facts, and never fails.
/**
 * @param {Uint8Array} b
 * @returns {Facts | null}
 */
export function parseFacts(b) {
	const f = noFacts();
	/** @type {Set<string>} */
	const seen = new Set();
	let at = 0;
	while (at < b.length) {
		const end = b.indexOf(10, at);
		if (end < 0) return null;
		const sp = b.indexOf(32, at);
		if (sp < 0 || sp >= end || sp === at || sp + 1 === end) return null;
		const name = decoder.decode(b.subarray(at, sp));
		const raw = b.subarray(sp + 1, end);
		at = end + 1;
		if (!names.includes(name)) continue; // a fact of a later plugin
		if (seen.has(name)) return null;
		seen.add(name);
		const value = unescape(raw);
		if (value === null) return null;
		if (name === "code") {
			if (!/^-?[1-9][0-9]{0,14}$/.test(value)) return null;
			f.code = Number(value);
		} else {
			/** @type {Record<string, any>} */ (f)[name] = value;
		}
	}
	f.skillName = f.skill.slice(f.skill.lastIndexOf("/") + 1);
	return f;
}

// unescape decodes a percent-encoded value, or gives null for a malformed escape (not "%"
// and two uppercase hex digits) or a raw control character.
/**
 * @param {Uint8Array} raw
 * @returns {string | null}
 */
function unescape(raw) {
	let plain = true;
	for (let i = 0; i < raw.length; i++) {
		const c = raw[i];
		if (c < 0x20 || c === 0x7f) return null;
		if (c === 37) plain = false;
	}
	if (plain) return decoder.decode(raw);
	const out = new Uint8Array(raw.length);
	let n = 0;
	for (let i = 0; i < raw.length; i++) {
		let c = raw[i];
		if (c === 37) {
			const hi = unhex(raw[i + 1]), lo = unhex(raw[i + 2]);
			if (i + 2 >= raw.length || hi < 0 || lo < 0) return null;
			c = (hi << 4) | lo;
			i += 2;
		}
		out[n++] = c;
	}
	return decoder.decode(out.subarray(0, n));
}

/** @type {(c: number | undefined) => number} */
function unhex(c) {
	if (c === undefined) return -1;
	if (c >= 48 && c <= 57) return c - 48;
	if (c >= 65 && c <= 70) return c - 55;
	return -1;
}
