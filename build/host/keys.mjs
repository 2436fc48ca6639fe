// @ts-check

// Key sets (edge/wire's package doc, "Key sets"): the signing keys the plugin's options
// name by URL, which the plugin cannot fetch. The plugin validates what it is given and
// checks every token; a host fetches bytes on one schedule, the same on every host
// (KeysState; testdata/keys.json holds this file to it).

import { limits } from "./limits.mjs";

const encoder = new TextEncoder();

/**
 * KeysFetch fetches a key set for the host (the Host's option fetch): the runtime's
 * fetch, or one that adds its own cache policy. urgent says the plugin wants the set
 * because a token named a key the set in hand lacks, so no cache may answer with the old
 * one.
 * @typedef {(url: string, init: RequestInit, options: { urgent: boolean }) => Promise<Response>} KeysFetch
 */

/**
 * KeySet is what KeySets keeps of one URL: its schedule, the set in hand (null before
 * the first) and its version (0 before the first), the fetch under way, the version the
 * plugin last refused (0: none), and the timer of a fetch after a failure.
 * @typedef {object} KeySet
 * @property {KeysState} state
 * @property {Uint8Array | null} doc
 * @property {number} version
 * @property {Promise<void> | null} fetching
 * @property {number} refused
 * @property {any} retry the timer (a number, or on Node and Bun an object with unref)
 */

// keysAccept is the Accept field of a key set fetch.
export const keysAccept = "application/jwk-set+json, application/json";

// emptyKeySet is the set a host gives the plugin for a set it gave up (KeysState.expired).
export const emptyKeySet = '{"keys":[]}';

// keysFrame is the input of the keys export (wire.AppendKeys): url, LF, and doc, the key
// set fetched from it (a Uint8Array), as it came.
/**
 * @param {string} url
 * @param {Uint8Array} doc
 * @returns {Uint8Array}
 */
export function keysFrame(url, doc) {
	const u = encoder.encode(url + "\n");
	const out = new Uint8Array(u.length + doc.length);
	out.set(u);
	out.set(doc, u.length);
	return out;
}

// keysAge is how many seconds a key set fetched with these Cache-Control and Age field
// values ("" when absent) is fresh (wire.KeysAge): the first valid max-age less Age,
// between limits.KeysMinAge and limits.KeysMaxAge; KeysDefaultAge without one; KeysMinAge
// with no-cache or no-store.
/**
 * @param {string} cacheControl
 * @param {string} age
 * @returns {number}
 */
export function keysAge(cacheControl, age) {
	let maxAge = -1;
	let found = false;
	for (const d of cacheControl.split(",")) {
		const t = d.trim();
		const eq = t.indexOf("=");
		const name = (eq < 0 ? t : t.slice(0, eq)).trim().toLowerCase();
		if (name === "no-cache" || name === "no-store") return limits.KeysMinAge;
		if (name === "max-age" && !found) {
			const n = deltaSeconds(eq < 0 ? "" : t.slice(eq + 1).trim(), true);
			if (n !== null) [maxAge, found] = [n, true];
		}
	}
	if (!found) return limits.KeysDefaultAge;
	const a = deltaSeconds(age.trim(), false);
	if (a !== null) maxAge -= a;
	return Math.min(Math.max(maxAge, limits.KeysMinAge), limits.KeysMaxAge);
}

// deltaSeconds reads digits (in quotes when quoted allows), capped at 2^31, or gives null.
/** @type {(s: string, quoted: boolean) => number | null} */
function deltaSeconds(s, quoted) {
	if (quoted && s.length >= 2 && s[0] === '"' && s[s.length - 1] === '"') s = s.slice(1, -1);
	if (!/^[0-9]+$/.test(s)) return null;
	let n = 0;
	for (let i = 0; i < s.length; i++) n = Math.min(n * 10 + s.charCodeAt(i) - 48, 2 ** 31);
	return n;
}

// keysRedirect says whether a key set fetch of the URL from follows a redirect to the URL
// to (wire.KeysRedirect): to is https, or http to a loopback host when from is too.
/**
 * @param {string} from
 * @param {string} to
 * @returns {boolean}
 */
export function keysRedirect(from, to) {
	let t, f;
	try {
		t = new URL(to);
		f = new URL(from);
	} catch {
		return false;
	}
	if (t.host === "" || t.username !== "" || t.password !== "") return false;
	if (t.protocol === "https:") return true;
	return t.protocol === "http:" && f.protocol === "http:" && loopbackHost(f.hostname) && loopbackHost(t.hostname);
}

// keysURL says whether a host fetches a key set from u at all (wire.KeysURL).
/** @type {(u: string) => boolean} */
export const keysURL = (u) => keysRedirect(u, u);

// loopbackHost says whether a URL's hostname (as the URL parser normalizes it) is
// localhost or a loopback address.
/** @type {(h: string) => boolean} */
function loopbackHost(h) {
	return h === "localhost" || h === "[::1]" || /^127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/.test(h);
}

// KeysState is the schedule of one key set URL (wire.KeysState), times in milliseconds.
export class KeysState {
	constructor() {
		/** @type {number | null} */
		this.tried = null; // when the last fetch began
		this.failed = 0; // fetches failed since the last that brought a set
		this.held = false; // a set is in hand
		this.fresh = 0; // until when it is fresh
	}

	// pause is the least time, in milliseconds, from the last fetch's beginning to the
	// next (wire.KeysState.Pause): limits.KeysRefetch, or after n failed fetches in a row
	// limits.KeysRetry·2ⁿ⁻¹, at most limits.KeysRefetch.
	pause() {
		if (this.failed === 0 || this.failed > 5) return limits.KeysRefetch * 1000;
		return Math.min(limits.KeysRetry * 2 ** (this.failed - 1), limits.KeysRefetch) * 1000;
	}

	// refetch: a fetch may begin at now (none within pause()).
	/** @param {number} now */
	refetch(now) {
		return this.tried === null || now >= this.tried + this.pause();
	}

	// next is when due() first holds, counting only the pause (wire.KeysState.Next).
	next() {
		let t = this.tried === null ? 0 : this.tried + this.pause();
		if (this.held && this.fresh > t) t = this.fresh;
		return t;
	}

	// due: the host fetches at now on its own (no set, or a stale one, and it may).
	/** @param {number} now */
	due(now) {
		return (!this.held || now >= this.fresh) && this.refetch(now);
	}

	// begin records that a fetch begins at now.
	/** @param {number} now */
	begin(now) {
		this.tried = now;
	}

	// done records a set fetched at now, fresh for age seconds.
	/**
	 * @param {number} now
	 * @param {number} age
	 */
	done(now, age) {
		this.held = true;
		this.fresh = now + age * 1000;
		this.failed = 0;
	}

	// fail records that the fetch begun last failed.
	fail() {
		this.failed++;
	}

	// expired: the set held is given up (no fetch refreshed it for limits.KeysMaxAge after
	// it went stale).
	/** @param {number} now */
	expired(now) {
		return this.held && now >= this.fresh + limits.KeysMaxAge * 1000;
	}

	// drop gives the set held up.
	drop() {
		this.held = false;
	}
}

// KeySets fetches the key sets, keeps each as its KeysState says, and logs failures, sets
// given up and sets the plugin refused (console.error) and sets that changed (console.log).
// fetch is the Host's (url, init, {urgent}); now gives the time in milliseconds.
export class KeySets {
	/**
	 * @param {KeysFetch} fetch
	 * @param {() => number} [now]
	 */
	constructor(fetch, now = () => Date.now()) {
		this.fetchFn = fetch;
		this.now = now;
		/** @type {Map<string, KeySet>} */
		this.sets = new Map(); // url -> {state, doc, version, fetching, refused, retry}
		this.closed = false; // close() was called: no fetch is started on a timer any more
	}

	// entry is what is kept of url, made on first use.
	/**
	 * @param {string} url
	 * @returns {KeySet}
	 */
	entry(url) {
		let e = this.sets.get(url);
		if (e === undefined) {
			e = { state: new KeysState(), doc: null, version: 0, fetching: null, refused: 0, retry: undefined };
			this.sets.set(url, e);
		}
		return e;
	}

	// current is the set in hand for url and its version (0 and null before the first).
	/**
	 * @param {string} url
	 * @returns {{ doc: Uint8Array | null, version: number }}
	 */
	current(url) {
		const e = this.entry(url);
		return { doc: e.doc, version: e.version };
	}

	// version is the version of the set in hand for url (0 before the first).
	/**
	 * @param {string} url
	 * @returns {number}
	 */
	version(url) {
		return this.entry(url).version;
	}

	// refresh starts a fetch of url's set in the background when it is due; ctx.waitUntil,
	// when the runtime has it, keeps the runtime alive until it ends.
	/**
	 * @param {string} url
	 * @param {{ waitUntil?(promise: Promise<unknown>): void }} [ctx]
	 */
	refresh(url, ctx) {
		const e = this.entry(url);
		if (e.fetching !== null || !e.state.due(this.now())) return;
		e.fetching = this.run(e, url, false);
		ctx?.waitUntil?.(e.fetching);
	}

	// want fetches url's set unless it was fetched within limits.KeysRefetch, and resolves
	// once that fetch, or one under way, has ended. With a set in hand, the plugin wants it
	// again because it lacked a key: the fetch is urgent.
	/**
	 * @param {string} url
	 * @returns {Promise<void>}
	 */
	async want(url) {
		const e = this.entry(url);
		if (e.fetching === null && e.state.refetch(this.now())) e.fetching = this.run(e, url, e.doc !== null);
		if (e.fetching !== null) await e.fetching;
	}

	// wantAll is want for each of urls.
	/**
	 * @param {string[]} urls
	 * @returns {Promise<void>}
	 */
	async wantAll(urls) {
		await Promise.all(urls.map((u) => this.want(u)));
	}

	// refused logs, once a version, that the plugin refused the set of url (err says why).
	/**
	 * @param {string} url
	 * @param {number} version
	 * @param {Error} err
	 */
	refused(url, version, err) {
		const e = this.entry(url);
		if (e.refused === version) return;
		e.refused = version;
		console.error(`skilledge: the key set at ${url}: the plugin refused it: ${err.message}`);
	}

	// run fetches url's set into e; urgent says the plugin wants it. It never throws: a
	// failure keeps the set in hand (unless it is given up), is logged, and is tried again
	// on the schedule's pause (retryLater).
	/**
	 * @param {KeySet} e
	 * @param {string} url
	 * @param {boolean} urgent
	 * @returns {Promise<void>}
	 */
	async run(e, url, urgent) {
		e.state.begin(this.now());
		try {
			const { doc, age } = await this.get(url, urgent);
			const failed = e.state.failed;
			e.state.done(this.now(), age);
			const after = failed === 0 ? "" : failed === 1 ? ", after a failed fetch" : `, after ${failed} failed fetches`;
			if (e.doc === null || e.doc.length !== doc.length || !sameBytes(e.doc, doc, 0)) {
				[e.doc, e.version] = [doc, e.version + 1];
				console.log(`skilledge: the key set at ${url}: fetched (${doc.length} bytes, fresh for ${age} s)${after}`);
			} else if (failed > 0) {
				console.log(`skilledge: the key set at ${url}: fetched again, unchanged (fresh for ${age} s)${after}`);
			}
		} catch (err) {
			e.state.fail();
			this.retryLater(e, url);
			const why = err?.name === "TimeoutError" ? `no answer within ${limits.KeysTimeout} s` : err?.message ?? String(err);
			if (e.state.expired(this.now())) {
				e.state.drop();
				[e.doc, e.version] = [encoder.encode(emptyKeySet), e.version + 1];
				console.error(`skilledge: the key set at ${url}: ${why}; no fetch has refreshed it for ${limits.KeysMaxAge} s after it went stale, so it is given up: every token it would verify is refused until a fetch brings it`);
			} else if (e.state.held) {
				console.error(`skilledge: the key set at ${url}: ${why}; the set in hand stays in use until ${new Date(e.state.fresh + limits.KeysMaxAge * 1000).toISOString()}`);
			} else {
				console.error(`skilledge: the key set at ${url}: ${why}; every token it would verify is refused until a fetch brings it`);
			}
		} finally {
			e.fetching = null;
		}
	}

	// retryLater, after a failed fetch, has url's set fetched again at its schedule's next
	// time when it is due (none in hand, or a stale one), without waiting for a request, and
	// so on until a fetch brings one. The timer does not keep a process alive (unref where
	// the runtime has it); where a runtime runs no timer between requests (Workers), the
	// next request past the pause fetches it (refresh).
	/**
	 * @param {KeySet} e
	 * @param {string} url
	 */
	retryLater(e, url) {
		const now = this.now();
		if (this.closed || (e.state.held && now < e.state.fresh)) return; // closed, or a token's fetch: the next such token asks again
		clearTimeout(e.retry);
		e.retry = setTimeout(() => {
			e.retry = undefined;
			if (e.fetching === null && e.state.due(this.now())) e.fetching = this.run(e, url, false);
			else if (e.fetching === null) this.retryLater(e, url);
		}, Math.max(e.state.next() - now, 0));
		e.retry?.unref?.();
	}

	// close stops the fetches made on their own after a failure.
	close() {
		this.closed = true;
		for (const e of this.sets.values()) clearTimeout(e.retry);
	}

	// get fetches the document at url: {doc (a Uint8Array), age (seconds fresh)}. It follows
	// redirects itself, each one keysRedirect allows, and reads at most limits.KeySetMax
	// bytes, all within limits.KeysTimeout.
	/**
	 * @param {string} url
	 * @param {boolean} urgent
	 * @returns {Promise<{ doc: Uint8Array, age: number }>}
	 */
	async get(url, urgent) {
		if (!keysURL(url)) throw new Error("not https (nor http to a loopback address): not fetched");
		const fetch = this.fetchFn;
		const signal = AbortSignal.timeout(limits.KeysTimeout * 1000);
		/** @type {Record<string, string>} */
		const headers = { accept: keysAccept };
		if (urgent) headers["cache-control"] = "no-cache";
		for (let at = url, hops = 0; ; hops++) {
			const r = await fetch(at, { headers, redirect: "manual", signal }, { urgent });
			const location = r.status >= 300 && r.status < 400 ? r.headers.get("location") : null;
			if (location !== null) {
				await r.body?.cancel();
				if (hops === limits.KeysRedirects) throw new Error(`more than ${limits.KeysRedirects} redirects`);
				const to = new URL(location, at).href;
				if (!keysRedirect(at, to)) throw new Error(`a redirect to ${to}, which is not https`);
				at = to;
				continue;
			}
			if (r.status !== 200) {
				await r.body?.cancel();
				throw new Error(`HTTP ${r.status}${r.statusText ? " " + r.statusText : ""}`);
			}
			const length = r.headers.get("content-length");
			if (length !== null && Number(length) > limits.KeySetMax) {
				await r.body?.cancel();
				throw new Error(`${length} bytes, more than ${limits.KeySetMax}`);
			}
			const doc = await bodyAtMost(r, limits.KeySetMax);
			if (doc === null) throw new Error(`more than ${limits.KeySetMax} bytes`);
			return { doc, age: keysAge(r.headers.get("cache-control") ?? "", r.headers.get("age") ?? "") };
		}
	}
}

// bodyAtMost reads a response's body, or gives null when it has more than limit bytes.
/** @type {(r: Response, limit: number) => Promise<Uint8Array | null>} */
async function bodyAtMost(r, limit) {
	if (r.body === null) return new Uint8Array(0);
	const parts = [];
	let size = 0;
	const reader = r.body.getReader();
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		size += value.byteLength;
		if (size > limit) {
			await reader.cancel();
			return null;
		}
		parts.push(value);
	}
	const out = new Uint8Array(size);
	let at = 0;
	for (const p of parts) {
		out.set(p, at);
		at += p.byteLength;
	}
	return out;
}

// sameBytes says whether b holds a's bytes at at.
/** @type {(a: Uint8Array, b: Uint8Array, at: number) => boolean} */
function sameBytes(a, b, at) {
	for (let i = 0; i < a.length; i++) if (a[i] !== b[at + i]) return false;
	return true;
}
