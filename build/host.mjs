// @ts-check

// The JavaScript host of plugin.wasm, for any runtime with WebAssembly and the web APIs
// (workerd, Deno, Bun, Node): a pipe between a Request and the plugin. This module is the
// API of the entry modules (Host, startHost, optionsFrom, startFailure, storeDir, limits,
// readsWhole, telemetryFrom, and OptionsRefused, what optionsFrom and a Host throw for
// options they cannot use); each of the host's roles is a module of its own in host/,
// which imports nothing but its neighbours there. So the host imports nothing of a
// platform: an entry module (worker.mjs for Cloudflare Workers) hands it what only the
// platform has: the Extism SDK's createPlugin, the compiled module, the index, the
// options, and a content store to fetch objects from.
//
// Every HTTP and MCP decision is the plugin's (edge/). What a host does is the contract
// of edge/wire (its package doc), which these modules follow and which the vectors in
// edge/wire/testdata check, here (build/host.test.mjs, node --test) as in the Go hosts:
//
//   - frame a request: "METHOD SP TARGET LF *(NAME: VALUE LF) LF BODY", only the fields
//     the plugin names (skilledge_fields), in its order, a repeated field's values joined
//     by ", " (requestHead); read at most maxBody+1 bytes of body (requestBody): host/frame.mjs;
//   - parse the answer: "STATUS LF *(NAME: VALUE LF) *(@AT SIZE NAME LF) LF BODY", refusing
//     a frame that does not follow the grammar (FrameParser, host/frame.mjs), and splice the
//     SIZE bytes of store object NAME in at offset AT of BODY: streamed, or for an answer of
//     at most 64 KiB assembled in memory, from objects the isolate keeps (small ones, 8 MiB
//     in all) so that a repeated small read fetches nothing (respond, host/splice.mjs). File
//     contents never enter the plugin. Every object is checked (present, of its size) before
//     the first byte goes out;
//   - replay the answers the plugin marks replayable (skilledge_replay) to requests that
//     repeat one but for their JSON-RPC id, without a call into the plugin (Replays,
//     host/replay.mjs);
//   - answer on its own, in one shape, when the plugin cannot (failure, host/failure.mjs);
//   - fetch the signing key sets the plugin names (KeySets, host/keys.mjs), give them to the
//     instance, and after a 401 that wants one, fetch it and ask the plugin again once.
//
// The contract's limits are host/limits.mjs's; the options an entry gives and the refusal
// of a host that cannot start, host/start.mjs's; what an entry makes of each answer it is
// told of (Observed), host/telemetry.mjs's. The Extism JS SDK instantiates the plugin (WASI
// and the extism:host/env imports); the options, the index and every request then go
// through the raw exports (skilledge_configure, skilledge_load, skilledge_http: Raw,
// host/plugin.mjs), which move their input with one copy instead of go-pdk's host call per
// 8 bytes (BENCHMARKS.md, RATIONALE.md). One instance, with the index loaded, serves every
// request; calls into it are synchronous, so they never interleave. When it traps, only
// that request fails, and the next request gets a new instance (Host).
//
// Why is the JavaScript host split into modules by role, typed in JSDoc rather than
// written in TypeScript? One file of 1,300 lines held framing, splicing, replays, key sets,
// failure answers and the calls into the plugin, and exported 30 names. Now each role is a
// module of host/ (frame, splice, replay, keys, failure, plugin, limits, facts, telemetry,
// start), as runtime/front has a file for each in Go: a reader finds the rule next to the
// contract's section it follows, the tests import the role they check, and a test holds
// this file to 600 lines (TestHostLength). The modules import each other by relative paths
// with .mjs, which wrangler's bundler, Deno, Bun and Node all resolve; skilledge build
// writes them beside host.mjs, and a test holds what it writes to what the entries import.
// The JSDoc types, under @ts-check, are checked by the pinned TypeScript compiler in
// build/test (tsc --noEmit --checkJs, over these modules and every entry, node.mjs too,
// with build/platforms.d.ts declaring what the entries use of Workers, Deno, Bun and Node).
// TypeScript sources would need a build step between the repository and every runtime
// (compiled by skilledge build or carried compiled, types stripped by wrangler, Deno and
// Bun each their own way, a loader for Node): the files a deployment runs would no longer
// be the files the tests ran. The check is not --strict: the boundaries (what an entry
// gives the host, what crosses a module's edge) are typed, the helpers where it needs it.

import { failure, failureResponse } from "./host/failure.mjs";
import { FrameParser, requestBody, requestHead } from "./host/frame.mjs";
import { KeySets } from "./host/keys.mjs";
import { limits } from "./host/limits.mjs";
import { giveNeeded, needOf } from "./host/need.mjs";
import { KeysRefused, Raw } from "./host/plugin.mjs";
import { wasiFunctions } from "./host/poll.mjs";
import { Replays } from "./host/replay.mjs";
import { ObjectCache, respond } from "./host/splice.mjs";
import { OptionsRefused, refusePrivate, startFailure, startNote, withoutWasiDebug } from "./host/start.mjs";

export { limits } from "./host/limits.mjs";
export { telemetryFrom } from "./host/telemetry.mjs";
export { readsWhole } from "./host/frame.mjs";
export { OptionsRefused, optionsFrom, startFailure } from "./host/start.mjs";

/** @typedef {import("./host/failure.mjs").Answer} Answer */
/** @typedef {import("./host/failure.mjs").ResponseClass} ResponseClass */
/** @typedef {import("./host/frame.mjs").HeadersLike} HeadersLike */
/** @typedef {import("./host/frame.mjs").Parsed} Parsed */
/** @typedef {import("./host/frame.mjs").RequestLike} RequestLike */
/** @typedef {import("./host/keys.mjs").KeysFetch} KeysFetch */
/** @typedef {import("./host/plugin.mjs").Exports} Exports */
/** @typedef {import("./host/replay.mjs").Hint} Hint */
/** @typedef {import("./host/splice.mjs").Context} Context */
/** @typedef {import("./host/splice.mjs").Store} Store */
/** @typedef {import("./host/facts.mjs").Facts} Facts */
/** @typedef {import("./host/telemetry.mjs").Observed} Observed */

/**
 * Note is what reply gathers of one answer for the observer.
 * @typedef {{ start: number, facts: Facts | null, replayed: boolean, bytes: number, failure: string }} Note
 */

/**
 * CreatePlugin is the Extism SDK's default export (createPlugin), as the host calls it.
 * @typedef {(manifest: { wasm: { module: WebAssembly.Module }[] }, options: { useWasi: boolean, enableWasiOutput: boolean, functions: Record<string, Record<string, (ctx: any, ...args: any[]) => any>> }) => Promise<{ getInstance(): Promise<WebAssembly.Instance> }>} CreatePlugin
 */

/**
 * HostInit is what an entry gives a Host (see Host).
 * @typedef {object} HostInit
 * @property {CreatePlugin} createPlugin
 * @property {WebAssembly.Module} module the compiled plugin.wasm
 * @property {ArrayBuffer | Uint8Array} pack the bytes of catalog.pack
 * @property {Record<string, any>} [options] the plugin's options (edge/wire Options)
 * @property {KeysFetch} [fetch] fetches the key sets the options name by URL
 * @property {ResponseClass} [Response] makes every answer, in the Fetch API's Response's place
 * @property {(record: Observed) => void} [observe] is told of every answer once it is made
 */

/**
 * Instance is a plugin instance as a Host keeps it (Host.start): its raw exports, the
 * request header fields it reads, the URLs of the key sets it names, and the version of
 * each set it was given.
 * @typedef {{ raw: Raw, fields: string[], keyURLs: string[], keyVersions: Map<string, number> }} Instance
 */

/**
 * Answered is the plugin's answer to a request (Host.answer): the response frame, it
 * parsed, its replay hint (or null), the head's length in the request frame, and its facts
 * (null when the host observes nothing, or the plugin says nothing).
 * @typedef {{ out: Uint8Array<ArrayBuffer>, parsed: Parsed, hint: Hint | null, headBytes: number, facts: Facts | null }} Answered
 */

const empty = new Uint8Array(0);

// storeDir is where the content store's objects are in `skilledge build`'s assets
// (catalog.StoreDir).
export const storeDir = "/sha256/";

// Host serves requests with one plugin instance, made on the first request.
//
//	new Host({ createPlugin, module, pack, options, fetch })
//
// createPlugin is the Extism SDK's default export, module the compiled plugin.wasm (a
// WebAssembly.Module), pack the bytes of catalog.pack (an ArrayBuffer or Uint8Array),
// options the plugin's options object (edge/wire Options: the Worker's
// SKILLEDGE_OPTIONS). fetch(url, init, {urgent}) fetches a key set the options name by URL
// (KeySets): the runtime's fetch, or one that adds its own cache policy (urgent: the plugin
// wants the set because a token named a key the set in hand lacks, so no cache may answer
// with the old one); without it, no key set is ever fetched and the tokens those sets would
// verify are refused. host.fetch(request, store, ctx) answers a Request; store is
//
//	{ object(name) → Promise<Response>,    the object's bytes (404 when missing)
//	  stream?(length) → {readable, writable} } a stream the runtime sends with that
//	                                       Content-Length (default: a TransformStream)
//
// where name is always 64 lowercase hex digits (FrameParser refuses any other), so a store
// may join it to a path or URL as it is.
//
// and ctx, when the runtime has one, its context: ctx.waitUntil(promise) keeps the
// runtime alive while a body streams (Workers', Deno's and Netlify's contexts have it).
//
// The request need not be a Request: host.fetch reads only its url, method, headers.get,
// body (null for none, else something with getReader()) and arrayBuffer(). Nor need the
// answer be a Response: with the option Response, a constructor called as the Fetch
// API's, new Response(body, {status, headers}), every answer is made with it instead, body
// a Uint8Array, a string, a ReadableStream or null and headers [name, value] pairs (not to
// be changed: they may be shared). A server that is not Fetch-based (node:http) so
// spares itself a Request and a Response for every request (node.mjs), and with
// host.respondTo an async call's turns too, for a body it has read whole.
export class Host {
	/** @param {HostInit} init */
	constructor({ createPlugin, module, pack, options, fetch, Response: R, observe }) {
		this.createPlugin = createPlugin;
		/** @type {ResponseClass} */
		this.Response = R ?? Response;
		this.module = module;
		this.pack = pack;
		this.options = options ?? {};
		/** @type {Promise<Instance> | null} */
		this.starting = null; // Promise of the instance, made once
		/** @type {Instance | null} */
		this.instance = null; // what starting resolved to, once it has
		/** @type {OptionsRefused | null} */
		this.refused = null; // the OptionsRefused that start threw, once it has: options never change
		this.frames = new FrameParser(); // this host's: it keeps what it read of the last frame
		this.replays = new Replays();
		this.objects = new ObjectCache();
		this.keys = fetch ? new KeySets(fetch) : null;
		/** @type {((record: Observed) => void) | null} */
		this.observer = observe ?? null;
	}

	// ready makes the instance now rather than on the first request, and throws what went
	// wrong when it cannot (options the plugin refuses, an index it cannot load, a key set
	// it cannot have): an entry that is a process serves only once it can answer.
	/** @returns {Promise<void>} */
	async ready() {
		this.starting ??= this.start();
		this.instance = await this.starting;
	}

	// start makes the instance: {raw, fields, keyURLs, keyVersions}, with the key
	// sets the plugin names fetched (those not in hand yet: a new instance finds them).
	/** @returns {Promise<Instance>} */
	async start() {
		// enableWasiOutput: the plugin writes to stderr only when it crashes; let that reach the logs.
		const wasi = wasiFunctions(); // a poll_oneoff in place of the SDK's: host/poll.mjs says why
		const x = await withoutWasiDebug(async () => {
			const p = await this.createPlugin({ wasm: [{ module: this.module }] }, { useWasi: true, enableWasiOutput: true, functions: wasi.functions });
			return wasi.made((await p.getInstance()).exports);
		});
		// Options and index go in through the raw exports too: one copy each, where the Extism
		// exports read their input 8 bytes per call into JavaScript (the index of a large
		// catalog is hundreds of KB: milliseconds of the first request).
		const raw = new Raw(/** @type {Exports} */ (x));
		this.configure(raw);
		raw.call("skilledge_load", new Uint8Array(this.pack));
		/** @type {Instance} */
		const instance = { raw, fields: raw.fields(), keyURLs: raw.wanted(), keyVersions: new Map() };
		if (this.keys !== null && instance.keyURLs.length > 0) {
			await Promise.all(instance.keyURLs.filter((u) => this.keys.version(u) === 0).map((u) => this.keys.want(u)));
			this.giveKeys(instance);
		} else if (instance.keyURLs.length > 0) {
			console.error(`skilledge: the auth option names the key set at ${instance.keyURLs.join(" and ")}, and this host was given no fetch: every token it would verify is refused`);
		}
		return instance;
	}

	// configure gives the plugin the options, or throws OptionsRefused when it refuses them.
	// When they hold an auth option and the plugin takes them without it, the auth option is
	// what it refused (OptionsRefused.auth); otherwise the refusal is that of the options
	// without it, so that what a caller is told never comes from the auth option. The
	// instance, last configured without its auth option, goes with the error: it never
	// serves.
	/** @param {Raw} raw */
	configure(raw) {
		const why = raw.configure(this.options);
		if (why === null) return;
		if (this.options.auth === undefined) throw new OptionsRefused(why, false);
		const { auth, ...others } = this.options;
		const without = raw.configure(others);
		throw without === null ? new OptionsRefused(why, true) : new OptionsRefused(without, false);
	}

	// giveKeys gives instance every key set in hand that it does not have. A set the plugin
	// refuses (no key set) is logged, once a version; the instance keeps the one it had.
	/** @param {Instance} instance */
	giveKeys(instance) {
		for (const url of instance.keyURLs) {
			const { doc, version } = this.keys.current(url);
			if (version === (instance.keyVersions.get(url) ?? 0)) continue;
			instance.keyVersions.set(url, version);
			try {
				instance.raw.keys(url, doc);
			} catch (err) {
				if (!(err instanceof KeysRefused)) throw err;
				this.keys.refused(url, version, err);
			}
		}
	}

	// answer has the plugin answer the request of head and body: {out, parsed, hint,
	// headBytes}, the response frame, it parsed, its replay hint (or null) and the head's
	// length in the request frame. A 401 that wants a key set (a token named a key the set
	// in hand lacks) has the set fetched, when the schedule allows, and the plugin asked
	// again once, and a NEED (a sharded index: host/need.mjs) has the shards it names given
	// (given is then the answer once they are): then the result is a promise. An error is
	// the instance's failure.
	/**
	 * @param {Instance} instance
	 * @param {string} head
	 * @param {Uint8Array} body
	 * @param {Store} store
	 * @param {Context} [ctx]
	 * @param {Uint8Array<ArrayBuffer> | null} [given]
	 * @returns {Answered | Promise<Answered>}
	 */
	answer(instance, head, body, store, ctx, given = null) {
		if (this.keys !== null && instance.keyURLs.length > 0 && given === null) {
			for (const url of instance.keyURLs) this.keys.refresh(url, ctx);
			this.giveKeys(instance);
		}
		const out = given ?? instance.raw.http(head, body);
		const wanted = given === null ? needOf(out) : null;
		if (wanted !== null) {
			const alive = () => this.instance === instance;
			return giveNeeded(instance.raw, store, wanted, () => instance.raw.http(head, body), alive, (o) => this.answer(instance, head, body, store, ctx, o));
		}
		const parsed = this.frames.parse(out);
		if (parsed.status === 401 && this.keys !== null && instance.keyURLs.length > 0) {
			const wanted = instance.raw.wanted();
			if (wanted.length > 0) return this.answerAgain(instance, head, body, out.slice(), wanted);
		}
		const facts = this.observer === null ? null : instance.raw.facts();
		return { out, parsed, hint: instance.raw.replay(), headBytes: instance.raw.headBytes, facts };
	}

	// answerAgain has the key sets wanted fetched and, when a new one came, the plugin
	// answer again. first is a copy of the first answer (the instance's memory serves other
	// requests while this one waits), which stands when nothing new came. Every answer it
	// gives is a copy, for the same reason; none is replayed (a 401 never is).
	/**
	 * @param {Instance} instance
	 * @param {string} head
	 * @param {Uint8Array} body
	 * @param {Uint8Array<ArrayBuffer>} first
	 * @param {string[]} wanted
	 * @returns {Promise<Answered>}
	 */
	async answerAgain(instance, head, body, first, wanted) {
		await this.keys.wantAll(wanted);
		const newer = wanted.some((u) => this.keys.version(u) !== (instance.keyVersions.get(u) ?? 0));
		if (!newer || this.instance !== instance) {
			return { out: first, parsed: this.frames.parse(first), hint: null, headBytes: 0, facts: null };
		}
		this.giveKeys(instance);
		const out = instance.raw.http(head, body).slice();
		const parsed = this.frames.parse(out);
		const hint = instance.raw.replay();
		const facts = this.observer === null ? null : instance.raw.facts();
		return { out, parsed, hint, headBytes: instance.raw.headBytes, facts };
	}

	// maxBody is the longest request body the plugin takes (its option maxBody; 0 or none
	// is the default, as the plugin reads it): a longer one is answered 413 once maxBody+1
	// bytes of it are read.
	/** @returns {number} */
	get maxBody() {
		const m = this.options.maxBody;
		return m > 0 ? m : limits.DefaultMaxBody;
	}

	// started makes the instance, or throws why it cannot (logged once a start): the next
	// request tries again, unless the plugin refused the options, which never change: then
	// every request is refused at once, and nothing more is logged.
	/** @returns {Promise<Instance>} */
	async started() {
		if (this.refused !== null) throw this.refused;
		this.starting ??= this.start();
		const ready = this.starting;
		try {
			const instance = await ready;
			if (this.starting === ready) this.instance = instance;
			return instance;
		} catch (err) {
			if (this.starting === ready) {
				this.starting = null;
				if (err instanceof OptionsRefused) this.refused = err;
				console.error("skilledge: the plugin did not start:", err);
			}
			throw err;
		}
	}

	// fetch answers request. Once the instance is up, a request awaits only its body (and
	// objects not in the cache), as a plain server does.
	/**
	 * @param {RequestLike} request
	 * @param {Store} store
	 * @param {Context} [ctx]
	 * @returns {Promise<Answer>}
	 */
	async fetch(request, store, ctx) {
		const url = request.url; // absolute: scheme://authority/path?query
		const target = url.slice(url.indexOf("/", url.indexOf("//") + 2));
		const start = Date.now();
		let instance = this.instance;
		if (instance === null) {
			try {
				instance = await this.started();
			} catch (err) {
				return this.noted(startFailure(err, this.Response), request.method, target, request.headers, empty, startNote(err, start));
			}
		}
		const head = requestHead(request.method, target, request.headers, instance.fields);
		let body;
		try {
			const read = await requestBody(request, this.maxBody);
			body = read === null ? empty : read instanceof Uint8Array ? read : new Uint8Array(read);
		} catch (err) {
			return this.noted(this.bodyFailed(err), request.method, target, request.headers, empty, { ...startNote(null, start), failure: "body" });
		}
		return this.reply(instance, head, body, store, ctx, request.method, target, request.headers, start);
	}

	// respondTo answers, as fetch does, a request whose body the entry has read whole:
	// target is the request target (path and query, as it came), headers has get as a
	// Request's headers do, body is a Uint8Array (empty for none) of at most maxBody bytes.
	// It returns the answer, and a promise of it only when something must be awaited (the
	// instance made again, a key set, objects not in the cache): a server that is not
	// Fetch-based (node:http) so spares itself a Request and an async call's turns.
	/**
	 * @param {string} method
	 * @param {string} target
	 * @param {HeadersLike} headers
	 * @param {Uint8Array} body
	 * @param {Store} store
	 * @param {Context} [ctx]
	 * @returns {Answer | Promise<Answer>}
	 */
	respondTo(method, target, headers, body, store, ctx) {
		const instance = this.instance;
		const start = Date.now();
		if (instance === null) {
			return this.started().then(
				(i) => this.reply(i, requestHead(method, target, headers, i.fields), body, store, ctx, method, target, headers, start),
				(err) => this.noted(startFailure(err, this.Response), method, target, headers, body, startNote(err, start)),
			);
		}
		return this.reply(instance, requestHead(method, target, headers, instance.fields), body, store, ctx, method, target, headers, start);
	}

	// reply answers the request of head and body with instance: from a kept answer
	// (Replays), else the plugin's. It returns the answer or a promise of it. method,
	// target, headers and start (Date.now() when the request came) are for the observer.
	/**
	 * @param {Instance} instance
	 * @param {string} head
	 * @param {Uint8Array} body
	 * @param {Store} store
	 * @param {Context | undefined} ctx
	 * @param {string} method
	 * @param {string} target
	 * @param {HeadersLike} headers
	 * @param {number} start
	 * @returns {Answer | Promise<Answer>}
	 */
	reply(instance, head, body, store, ctx, method, target, headers, start) {
		if (this.observer === null) return this.replyTo(instance, head, body, store, ctx, null);
		/** @type {Note} */
		const note = { start, facts: null, replayed: false, bytes: 0, failure: "" };
		const a = this.replyTo(instance, head, body, store, ctx, note);
		if (a instanceof Promise) return a.then((x) => this.noted(x, method, target, headers, body, note));
		return this.noted(a, method, target, headers, body, note);
	}

	// replyTo is reply, noting on note (when not null) what the observer is told.
	/**
	 * @param {Instance} instance
	 * @param {string} head
	 * @param {Uint8Array} body
	 * @param {Store} store
	 * @param {Context | undefined} ctx
	 * @param {Note | null} note
	 * @returns {Answer | Promise<Answer>}
	 */
	replyTo(instance, head, body, store, ctx, note) {
		const parsed = this.replays.lookup(head, body);
		if (parsed !== null) {
			if (note !== null) {
				note.replayed = true;
				note.facts = parsed.facts;
			}
			return this.respondParsed(parsed, store, ctx, note);
		}
		let answered;
		try {
			answered = this.answer(instance, head, body, store, ctx);
		} catch (err) {
			return this.failed(instance, err, note);
		}
		if (answered instanceof Promise) { // only when it fetched a key set or index shards
			return answered.then((a) => this.replied(instance, head, body, a, store, ctx, note), (err) => this.failed(instance, err, note));
		}
		return this.replied(instance, head, body, answered, store, ctx, note);
	}

	// noted tells the observer of the answer a, as note says, and returns a.
	/**
	 * @param {Answer} a
	 * @param {string} method
	 * @param {string} target
	 * @param {HeadersLike} headers
	 * @param {Uint8Array} body
	 * @param {Note} note
	 * @returns {Answer}
	 */
	noted(a, method, target, headers, body, note) {
		if (this.observer === null) return a;
		const q = target.indexOf("?");
		const bytes = note.failure === "" ? note.bytes : failure(note.failure === "start" ? "start" : note.failure).body.length;
		try {
			this.observer({
				method, path: q < 0 ? target : target.slice(0, q), headers, status: a.status, bytes, bodyBytes: body.length, body,
				replayed: note.replayed, failure: note.failure, facts: note.facts, start: note.start, duration: Date.now() - note.start,
			});
		} catch (err) {
			console.error("skilledge: telemetry:", err); // never the request's failure
		}
		return a;
	}

	// replied keeps the plugin's answer (answer's result) when its hint allows, and
	// answers with it.
	/**
	 * @param {Instance} instance
	 * @param {string} head
	 * @param {Uint8Array} body
	 * @param {Answered} answered
	 * @param {Store} store
	 * @param {Context | undefined} ctx
	 * @param {Note | null} note
	 * @returns {Answer | Promise<Answer>}
	 */
	replied(instance, head, body, { out, parsed, hint, headBytes, facts }, store, ctx, note) {
		try {
			if (hint !== null) this.replays.keep(head, headBytes, body, out, parsed, hint, undefined, facts);
		} catch (err) {
			return this.failed(instance, err, note);
		}
		if (note !== null) note.facts = facts;
		return this.respondParsed(parsed, store, ctx, note);
	}

	// failed answers a request whose instance trapped (a panic, out of memory) or answered
	// a frame that does not parse: it is unusable. Only this request fails; the next one
	// gets a new instance.
	/**
	 * @param {Instance} instance
	 * @param {unknown} err
	 * @param {Note | null} [note]
	 * @returns {Answer}
	 */
	failed(instance, err, note = null) {
		if (this.instance === instance) this.instance = this.starting = null;
		console.error("skilledge: the plugin failed:", err);
		if (note !== null) {
			note.failure = "instance";
			note.facts = null;
		}
		return failureResponse("instance", undefined, this.Response);
	}

	// respondParsed is respond's answer to parsed, or the store's failure.
	/**
	 * @param {Parsed} parsed
	 * @param {Store} store
	 * @param {Context | undefined} ctx
	 * @param {Note | null} [note]
	 * @returns {Answer | Promise<Answer>}
	 */
	respondParsed(parsed, store, ctx, note = null) {
		if (note !== null) {
			let n = parsed.body.length;
			for (const r of parsed.refs) n += r.size;
			note.bytes = n;
		}
		try {
			const answer = respond(parsed, store, this.objects, ctx, this.Response);
			return answer instanceof Promise ? answer.catch((err) => this.storeFailed(err, note)) : answer;
		} catch (err) {
			return this.storeFailed(err, note);
		}
	}

	// bodyFailed answers a request whose body could not be read (the client went away, or
	// sent less than it said).
	/**
	 * @param {unknown} err
	 * @returns {Answer}
	 */
	bodyFailed(err) {
		console.error("skilledge: reading the request body:", err);
		return failureResponse("body", undefined, this.Response);
	}

	// storeFailed answers a request whose objects the content store could not give (it
	// threw).
	/**
	 * @param {unknown} err
	 * @param {Note | null} [note]
	 * @returns {Answer}
	 */
	storeFailed(err, note = null) {
		console.error("skilledge: reading the content store:", err);
		if (note !== null) {
			note.failure = "store";
			note.facts = null;
		}
		return failureResponse("store", undefined, this.Response);
	}
}

// startHost makes the Host of init() (a function, so that what it throws, bad options
// among them, is caught too) and its instance (ready), or says on the console what is
// wrong and calls exit(1): an entry that is a process serves only once it can answer. A
// private catalog without an auth option is refused so (refusePrivate, host/start.mjs),
// where naming the catalog (the entry's catalog.pack).
/**
 * @param {() => HostInit} init
 * @param {(code: number) => never} exit
 * @param {string} [where]
 * @returns {Promise<Host>}
 */
export async function startHost(init, exit, where = "the catalog") {
	try {
		const host = new Host(init());
		refusePrivate(host.options, host.pack, where);
		await host.ready();
		return host;
	} catch (err) {
		console.error(`skilledge: ${err.message}`);
		exit(1);
	}
}
