// The JavaScript host of plugin.wasm, for any runtime with WebAssembly and the web APIs
// (workerd, Deno, Bun, Node): a pipe between a Request and the plugin. It imports nothing,
// so an entry module (worker.mjs for Cloudflare Workers) hands it what only the platform
// has: the Extism SDK's createPlugin, the compiled module, the index, the options, and a
// content store to fetch objects from.
//
// Every HTTP and MCP decision is the plugin's (edge/). What a host does is the contract
// of edge/wire (its package doc), which this file follows and which the vectors in
// edge/wire/testdata check, here (build/host.test.mjs, node --test) as in the Go hosts:
//
//   - frame a request: "METHOD SP TARGET LF *(NAME: VALUE LF) LF BODY", only the fields
//     the plugin names (skilledge_fields), in its order, a repeated field's values joined
//     by ", " (requestHead); read at most maxBody+1 bytes of body (requestBody);
//   - parse the answer: "STATUS LF *(NAME: VALUE LF) *(@AT SIZE NAME LF) LF BODY", refusing
//     a frame that does not follow the grammar (parseFrame), and splice the SIZE bytes of
//     store object NAME in at offset AT of BODY: streamed, or for an answer of at most
//     64 KiB assembled in memory, from objects the isolate keeps (small ones, 8 MiB in all)
//     so that a repeated small read fetches nothing. File contents never enter the plugin.
//     Every object is checked (present, of its size) before the first byte goes out;
//   - replay the answers the plugin marks replayable (skilledge_replay) to requests that
//     repeat one but for their JSON-RPC id, without a call into the plugin (Replays);
//   - answer on its own, in one shape, when the plugin cannot (failure);
//   - fetch the signing key sets the plugin names (KeySets), give them to the instance, and
//     after a 401 that wants one, fetch it and ask the plugin again once.
//
// The Extism JS SDK instantiates the plugin (WASI and the extism:host/env imports); the
// options, the index and every request then go through the raw exports (skilledge_configure,
// skilledge_load, skilledge_http), which move their input with one copy instead of go-pdk's
// host call per 8 bytes (BENCHMARKS.md, RATIONALE.md). One instance, with the index loaded,
// serves every request; calls into it are synchronous, so they never interleave. When it
// traps, only that request fails, and the next request gets a new instance.

// limits are edge/wire's (limits.go); testdata/limits.json holds both to the same numbers.
export const limits = {
	DefaultMaxBody: 1048576, // the body cap when the options do not set maxBody
	MaxBatch: 64,
	HintSize: 16, // a replay hint without an expiry
	HintSizeExpiring: 20, // and with one
	ReplayEntries: 1024,
	ReplayEntryMax: 256 * 1024,
	ReplayBudget: 16 * 1024 * 1024,
	ReplayShapesMax: 16,
	KeySetMax: 256 * 1024,
	KeysRedirects: 3,
	KeysTimeout: 5, // seconds, as the other durations
	KeysRefetch: 30,
	KeysRetry: 1,
	KeysMinAge: 60,
	KeysMaxAge: 24 * 60 * 60,
	KeysDefaultAge: 10 * 60,
};

// storeDir is where the content store's objects are in `skilledge build`'s assets
// (catalog.StoreDir).
export const storeDir = "/sha256/";

// optionsFrom is the plugin's options (edge/wire Options) as an entry module is given
// them: options, an object or its JSON text (SKILLEDGE_OPTIONS: a wrangler.toml table, or
// an environment variable), or undefined for none; and auth, the JSON text of an auth
// option that replaces options.auth when it is given (SKILLEDGE_AUTH, a Worker secret or
// an environment variable; authName says which in errors). Text that is not a JSON object
// throws OptionsRefused, which names it and says nothing of its content, as the plugin
// refuses bad options: never a server without the authorization it was given.
export function optionsFrom(options, auth, authName = "SKILLEDGE_AUTH") {
	const object = (text, name, what, isAuth) => {
		let v = null;
		try {
			v = JSON.parse(text);
		} catch {}
		if (v === null || typeof v !== "object" || Array.isArray(v)) throw new OptionsRefused(`the ${name} is not a JSON object (${what})`, isAuth);
		return v;
	};
	let o = options ?? {};
	if (typeof o === "string") o = object(o, "SKILLEDGE_OPTIONS", "the plugin's options", false);
	if (auth === undefined) return o;
	return { ...o, auth: object(auth, authName, "the auth option", true) };
}

// OptionsRefused is why the options cannot be used: text that is not a JSON object
// (optionsFrom), or options the plugin refuses (Host). auth says that the auth option is
// what was refused: then a request is answered with the failure "auth", which says nothing
// of it, because the reason (the message) may quote its values, a secret even when they
// are wrong; the reason goes to the log, or to the terminal of an entry that is a process.
// Any other refusal is answered with the failure "start" and the reason (startFailure).
export class OptionsRefused extends Error {
	constructor(message, auth) {
		super(message);
		this.auth = auth;
	}
}

// assembleMax is the largest answer put together in memory rather than streamed.
const assembleMax = 64 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder(); // for the plugin's own text (errors, field names)
const frameDecoder = new TextDecoder("utf-8", { ignoreBOM: true }); // a frame's head: a BOM is a byte like any other
const empty = new Uint8Array(0);

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
// where name is always 64 lowercase hex digits (parseFrame refuses any other), so a store
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
	constructor({ createPlugin, module, pack, options, fetch, Response: R }) {
		this.createPlugin = createPlugin;
		this.Response = R ?? Response;
		this.module = module;
		this.pack = pack;
		this.options = options ?? {};
		this.starting = null; // Promise of the instance, made once
		this.instance = null; // what starting resolved to, once it has
		this.refused = null; // the OptionsRefused that start threw, once it has: options never change
		this.replays = new Replays();
		this.objects = new ObjectCache();
		this.keys = fetch ? new KeySets(fetch) : null;
	}

	// ready makes the instance now rather than on the first request, and throws what went
	// wrong when it cannot (options the plugin refuses, an index it cannot load, a key set
	// it cannot have): an entry that is a process serves only once it can answer.
	async ready() {
		this.starting ??= this.start();
		this.instance = await this.starting;
	}

	// start makes the instance: {raw, fields, keyURLs, keyVersions}, with the key
	// sets the plugin names fetched (those not in hand yet: a new instance finds them).
	async start() {
		// enableWasiOutput: the plugin writes to stderr only when it crashes; let that reach the logs.
		const p = await this.createPlugin({ wasm: [{ module: this.module }] }, { useWasi: true, enableWasiOutput: true });
		const x = (await p.getInstance()).exports;
		// Options and index go in through the raw exports too: one copy each, where the Extism
		// exports read their input 8 bytes per call into JavaScript (the index of a large
		// catalog is hundreds of KB: milliseconds of the first request).
		const raw = new Raw(x);
		this.configure(raw);
		raw.call("skilledge_load", new Uint8Array(this.pack));
		// The request header fields the plugin reads: only these are framed.
		const fields = decoder.decode(bytesAt(x, x.skilledge_fields())).split("\n");
		const instance = { raw, fields, keyURLs: raw.wanted(), keyVersions: new Map() };
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
	// again once: then the result is a promise. An error is the instance's failure.
	answer(instance, head, body, ctx) {
		if (this.keys !== null && instance.keyURLs.length > 0) {
			for (const url of instance.keyURLs) this.keys.refresh(url, ctx);
			this.giveKeys(instance);
		}
		const out = instance.raw.http(head, body);
		const parsed = parseFrame(out);
		if (parsed.status === 401 && this.keys !== null && instance.keyURLs.length > 0) {
			const wanted = instance.raw.wanted();
			if (wanted.length > 0) return this.answerAgain(instance, head, body, out.slice(), wanted);
		}
		return { out, parsed, hint: instance.raw.replay(), headBytes: instance.raw.headBytes };
	}

	// answerAgain has the key sets wanted fetched and, when a new one came, the plugin
	// answer again. first is a copy of the first answer (the instance's memory serves other
	// requests while this one waits), which stands when nothing new came. Every answer it
	// gives is a copy, for the same reason; none is replayed (a 401 never is).
	async answerAgain(instance, head, body, first, wanted) {
		await this.keys.wantAll(wanted);
		const newer = wanted.some((u) => this.keys.version(u) !== (instance.keyVersions.get(u) ?? 0));
		if (!newer || this.instance !== instance) {
			return { out: first, parsed: parseFrame(first), hint: null, headBytes: 0 };
		}
		this.giveKeys(instance);
		const out = instance.raw.http(head, body).slice();
		const parsed = parseFrame(out);
		const hint = instance.raw.replay();
		return { out, parsed, hint, headBytes: instance.raw.headBytes };
	}

	// maxBody is the longest request body the plugin takes (its option maxBody; 0 or none
	// is the default, as the plugin reads it): a longer one is answered 413 once maxBody+1
	// bytes of it are read.
	get maxBody() {
		const m = this.options.maxBody;
		return m > 0 ? m : limits.DefaultMaxBody;
	}

	// started makes the instance, or throws why it cannot (logged once a start): the next
	// request tries again, unless the plugin refused the options, which never change: then
	// every request is refused at once, and nothing more is logged.
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
	async fetch(request, store, ctx) {
		let instance = this.instance;
		if (instance === null) {
			try {
				instance = await this.started();
			} catch (err) {
				return startFailure(err, this.Response);
			}
		}
		const url = request.url; // absolute: scheme://authority/path?query
		const target = url.slice(url.indexOf("/", url.indexOf("//") + 2));
		const head = requestHead(request.method, target, request.headers, instance.fields);
		let body;
		try {
			const read = await requestBody(request, this.maxBody);
			body = read === null ? empty : read instanceof Uint8Array ? read : new Uint8Array(read);
		} catch (err) {
			return this.bodyFailed(err);
		}
		return this.reply(instance, head, body, store, ctx);
	}

	// respondTo answers, as fetch does, a request whose body the entry has read whole:
	// target is the request target (path and query, as it came), headers has get as a
	// Request's headers do, body is a Uint8Array (empty for none) of at most maxBody bytes.
	// It returns the answer, and a promise of it only when something must be awaited (the
	// instance made again, a key set, objects not in the cache): a server that is not
	// Fetch-based (node:http) so spares itself a Request and an async call's turns.
	respondTo(method, target, headers, body, store, ctx) {
		const instance = this.instance;
		if (instance === null) {
			return this.started().then(
				(i) => this.reply(i, requestHead(method, target, headers, i.fields), body, store, ctx),
				(err) => startFailure(err, this.Response),
			);
		}
		return this.reply(instance, requestHead(method, target, headers, instance.fields), body, store, ctx);
	}

	// reply answers the request of head and body with instance: from a kept answer
	// (Replays), else the plugin's. It returns the answer or a promise of it.
	reply(instance, head, body, store, ctx) {
		const parsed = this.replays.lookup(head, body);
		if (parsed !== null) return this.respondParsed(parsed, store, ctx);
		let answered;
		try {
			answered = this.answer(instance, head, body, ctx);
		} catch (err) {
			return this.failed(instance, err);
		}
		if (answered instanceof Promise) { // only when it fetched a key set
			return answered.then((a) => this.replied(instance, head, body, a, store, ctx), (err) => this.failed(instance, err));
		}
		return this.replied(instance, head, body, answered, store, ctx);
	}

	// replied keeps the plugin's answer (answer's result) when its hint allows, and
	// answers with it.
	replied(instance, head, body, { out, parsed, hint, headBytes }, store, ctx) {
		try {
			if (hint !== null) this.replays.keep(head, headBytes, body, out, parsed, hint);
		} catch (err) {
			return this.failed(instance, err);
		}
		return this.respondParsed(parsed, store, ctx);
	}

	// failed answers a request whose instance trapped (a panic, out of memory) or answered
	// a frame that does not parse: it is unusable. Only this request fails; the next one
	// gets a new instance.
	failed(instance, err) {
		if (this.instance === instance) this.instance = this.starting = null;
		console.error("skilledge: the plugin failed:", err);
		return failureResponse("instance", undefined, this.Response);
	}

	// respondParsed is respond's answer to parsed, or the store's failure.
	respondParsed(parsed, store, ctx) {
		try {
			const answer = respond(parsed, store, this.objects, ctx, this.Response);
			return answer instanceof Promise ? answer.catch((err) => this.storeFailed(err)) : answer;
		} catch (err) {
			return this.storeFailed(err);
		}
	}

	// bodyFailed answers a request whose body could not be read (the client went away, or
	// sent less than it said).
	bodyFailed(err) {
		console.error("skilledge: reading the request body:", err);
		return failureResponse("body", undefined, this.Response);
	}

	storeFailed(err) {
		console.error("skilledge: reading the content store:", err);
		return failureResponse("store", undefined, this.Response);
	}
}

// startHost makes the Host of init() (a function, so that what it throws, bad options
// among them, is caught too) and its instance (ready), or says on the console what is
// wrong and calls exit(1): an entry that is a process serves only once it can answer.
export async function startHost(init, exit) {
	try {
		const host = new Host(init());
		await host.ready();
		return host;
	} catch (err) {
		console.error(`skilledge: ${err.message}`);
		exit(1);
	}
}

// Raw calls the plugin's raw exports (see edge/plugin/main.go). It keeps the input buffer
// skilledge_alloc gave, valid until the next alloc or load, so a request is one call.
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

	// configure gives skilledge_configure options (an object): null when the plugin takes
	// them, else its reason.
	configure(options) {
		const b = encoder.encode(JSON.stringify(options));
		this.room(b.length).set(b);
		return this.x.skilledge_configure(this.ptr, b.length) === 0 ? null : `skilledge_configure: ${this.error()}`;
	}

	// call runs skilledge_load (or another export of the same kind) with input b.
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
	http(head, body) {
		const room = this.room(3 * head.length + body.length);
		const { written } = encoder.encodeInto(head, room);
		if (body.length > 0) room.set(body, written);
		this.headBytes = written;
		const out = this.x.skilledge_http(this.ptr, written + body.length);
		if (out === 0n) throw new Error(this.error());
		return bytesAt(this.x, out);
	}

	// replay is the hint of the last http answer (parseHint), or null.
	replay() {
		if (typeof this.x.skilledge_replay !== "function") return null;
		const packed = this.x.skilledge_replay();
		return packed === 0n ? null : parseHint(bytesAt(this.x, packed));
	}

	// wanted is the URLs of the key sets the plugin wants (skilledge_keys_wanted): [] for
	// none, and from a plugin older than the export.
	wanted() {
		if (typeof this.x.skilledge_keys_wanted !== "function") return [];
		const packed = this.x.skilledge_keys_wanted();
		return packed === 0n ? [] : decoder.decode(bytesAt(this.x, packed)).split("\n");
	}

	// keys gives the plugin the key set doc (a Uint8Array) fetched from url
	// (skilledge_keys); it throws KeysRefused with the plugin's reason when the plugin
	// refuses it.
	keys(url, doc) {
		const frame = keysFrame(url, doc);
		this.room(frame.length).set(frame);
		if (this.x.skilledge_keys(this.ptr, frame.length) !== 0) throw new KeysRefused(this.error());
	}

	error() {
		return decoder.decode(bytesAt(this.x, this.x.skilledge_error()));
	}
}

// KeysRefused is thrown for a key set the plugin refuses: a document that is no key set.
export class KeysRefused extends Error {}

// bytesAt is the linear memory a packed (ptr<<32 | len) result names.
function bytesAt(x, packed) {
	return new Uint8Array(x.memory.buffer, Number(packed >> 32n), Number(packed & 0xffffffffn));
}

// requestHead is the head of a request's frame (wire.AppendRequestHead), as a string: the
// request line, a line for each of fields (lowercase names, in their order) that headers
// holds (its get gives a repeated field's values joined by ", ", as the Fetch API's
// Headers do; null for a field the request lacks; host is framed always, empty when
// missing), and the blank line. Looking fields up
// by name, not iterating the headers, spares the runtime a sorted, lowercased copy of
// every field, most of which the plugin never reads.
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
function requestBody(request, limit) {
	if (request.body === null) return null;
	if (readsWhole(request.headers.get("Content-Length"), limit)) return request.arrayBuffer();
	return bodyInChunks(request, limit);
}

// readsWhole says whether a body whose Content-Length field is length (null for none) is
// read whole at once, for a plugin that takes limit bytes: its length is known and
// allowed. Any other body is read chunk by chunk, only as far as the plugin needs.
export function readsWhole(length, limit) {
	return length !== null && Number(length) <= limit;
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

// FrameError is thrown for a response frame that does not follow the grammar.
export class FrameError extends Error {}

// lastHead is a copy of the status line and fields of the last response frame read, and
// lastRead what statusAndFields read from them. Answers of a kind repeat them, so most
// requests compare bytes rather than decode, check and split a string. A Response copies
// the pairs it is given, so one array serves many.
let lastHead = null;
let lastRead = null;

// statusAndFields reads the status and the header fields, as [name, value] pairs, from
// the first n bytes of frame (the status line and the field lines, without the LF after
// the last), as wire.ParseResponse does: a final status, 200 to 599, then NAME ": " VALUE
// lines whose name is an HTTP token.
function statusAndFields(frame, n) {
	if (lastHead !== null && lastHead.length === n) {
		let i = 0;
		while (i < n && frame[i] === lastHead[i]) i++;
		if (i === n) return lastRead;
	}
	const head = frameDecoder.decode(frame.subarray(0, n));
	const nl = head.indexOf("\n");
	const line = nl < 0 ? head : head.slice(0, nl);
	if (!/^[2-5][0-9][0-9]$/.test(line)) throw new FrameError("malformed status line: a final status, 200 to 599");
	const headers = [];
	for (let at = nl + 1; nl >= 0 && at <= head.length;) {
		let next = head.indexOf("\n", at);
		if (next < 0) next = head.length;
		const colon = head.indexOf(": ", at);
		if (colon <= at || colon >= next || !fieldName.test(head.slice(at, colon))) throw new FrameError("malformed field line");
		headers.push([head.slice(at, colon), head.slice(colon + 2, next)]);
		at = next + 1;
	}
	lastHead = frame.slice(0, n);
	lastRead = { status: Number(line), headers };
	return lastRead;
}

// fieldName is an HTTP token (RFC 9110 §5.6.2), as wire's token.
const fieldName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

// decimal reads a canonical decimal (no sign, no leading zero) of at most 16 digits from
// frame at i, ending at a space, into decimalValue, and returns the index of the space, or
// -1. (A module variable rather than a pair: this runs for every reference of every answer.)
let decimalValue = 0;
function decimal(frame, i, end) {
	let n = 0;
	const from = i;
	while (i < end && i - from < 17 && frame[i] >= 48 && frame[i] <= 57) n = n * 10 + frame[i++] - 48;
	const digits = i - from;
	if (digits === 0 || digits > 16 || (frame[from] === 48 && digits > 1) || frame[i] !== 32 || n >= 2 ** 53) return -1;
	decimalValue = n;
	return i;
}

// parseFrame reads a response frame (wire.ParseResponse): its status, its header fields as
// [name, value] pairs, the references of its "@" lines, and its body, a view of frame. It
// throws FrameError for a frame that does not follow the grammar: the plugin's failure.
export function parseFrame(frame) {
	// The head: the status line, the fields, the "@" lines, a blank line.
	let end = 0, refsAt = -1;
	for (; end + 1 < frame.length; end++) {
		if (frame[end] !== 10) continue;
		if (frame[end + 1] === 10) break;
		if (frame[end + 1] === 64 && refsAt < 0) refsAt = end + 1;
	}
	if (end + 1 >= frame.length) throw new FrameError("no blank line ends the head");
	const { status, headers } = statusAndFields(frame, refsAt < 0 ? end : refsAt - 1);
	const body = frame.subarray(end + 2);
	const refs = [];
	let last = 0;
	for (let i = refsAt; i >= 0 && i < end; i++) { // "@AT SIZE NAME"
		const atEnd = decimal(frame, i + 1, end);
		const at = decimalValue;
		const sizeEnd = atEnd < 0 ? -1 : decimal(frame, atEnd + 1, end);
		if (sizeEnd < 0) throw new FrameError("malformed reference");
		const size = decimalValue;
		const from = sizeEnd + 1;
		i = from;
		while (i < end && frame[i] !== 10) {
			const c = frame[i++];
			if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) throw new FrameError("malformed object name");
		}
		if (i - from !== 64) throw new FrameError("malformed object name");
		if (i < end && frame[i + 1] !== 64) throw new FrameError("a field after a reference");
		if (at < last || at > body.length) throw new FrameError("references out of order or past the body");
		last = at;
		refs.push({ at, size, name: String.fromCharCode.apply(null, frame.subarray(from, i)) });
	}
	if ((status === 204 || status === 205 || status === 304) && (body.length > 0 || refs.length > 0)) {
		throw new FrameError("a body with a status that has none");
	}
	return { status, headers, refs, body };
}

// respond turns a parsed response frame into a Response, splicing in the store objects its
// references name: assembled in memory for an answer of at most assembleMax bytes, from
// cache's objects or fetched (and then cached), else streamed from the store. body may be
// a view of the plugin's memory (Raw.http): what is kept across an await, or answered, is
// copied first, unless owned says body is the caller's to give (Replays.lookup's is).
// It returns the Response itself when nothing need be awaited (no objects, or all in the
// cache), else a promise of it: every await costs the runtime a turn. R makes the
// answers (Host's Response option).
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
	if (!o.ok) return `content store object ${r.name} answered ${o.status}`;
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
export class ObjectCache {
	constructor(budget = 8 * 1024 * 1024) {
		this.budget = budget;
		this.map = new Map(); // name -> {b: Uint8Array, used}, oldest (or last given a second chance) first
		this.bytes = 0;
	}

	// get returns the kept bytes of name, or undefined, and marks them used.
	get(name) {
		const e = this.map.get(name);
		if (e === undefined) return undefined;
		e.used = true;
		return e.b;
	}

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
	let failed = null; // {err}: the first the store threw
	const fetcher = async () => {
		while (next < refs.length && failed === null) {
			const i = next++;
			try {
				out[i] = await store.object(refs[i].name);
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

// Replays: the answers the plugin says may be given again to a request that repeats one
// but for its JSON-RPC id (wire.Hint states the promise), so that such a request is
// answered without calling the plugin, as `serve` does. An entry is the request's head and
// body around the id, and the answer around it (wire.ReplayEntry); entries are found by a
// hash of the head and of the body around the id, for each shape (the lengths around the
// id) seen. Bounds are the contract's (limits). An entry whose promise expires (an answer
// to an authenticated caller, whose credential is in the head) answers nothing from then
// on, by the host's clock, and is dropped.
export class Replays {
	constructor(max = limits.ReplayEntries) {
		this.max = max;
		this.entries = new Map(); // hash -> entry, oldest first
		this.shapes = []; // [before, after]: body bytes around the id
		this.bytes = 0;
		// heads maps each kept entry's head to {hash: headHash(head), n: the entries with it},
		// so that a head repeated is hashed by the runtime's own string hashing (Map.get),
		// not character by character in JavaScript.
		this.heads = new Map();
		this.scratch = new Uint8Array(0); // the answers of lookup that are not owned
	}

	// add and drop keep entries, bytes and heads in step.
	add(key, e) {
		this.entries.set(key, e);
		this.bytes += e.size;
		const k = this.heads.get(e.head);
		if (k === undefined) this.heads.set(e.head, { hash: e.headHash, n: 1 });
		else k.n++;
	}

	drop(key, e) {
		this.entries.delete(key);
		this.bytes -= e.size;
		const k = this.heads.get(e.head);
		if (--k.n === 0) this.heads.delete(e.head);
	}

	// lookup answers the request of head and body from a kept answer, as respond's input,
	// or gives null; now is the host's clock (milliseconds, as Date.now()). The answer's
	// body is the caller's (owned) when it names no objects; else it is valid only until
	// the next lookup, as the plugin's answers are until its next call (respond copies
	// what it keeps): one allocation a replay, not two, where each costs more than the
	// copying (a typed array of more than 64 bytes lies outside V8's heap).
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
			const refs = e.refs.map((r) => ({ at: r.at + shift, size: r.size, name: r.name }));
			return { status: e.status, headers: e.headers, refs, body: out, owned };
		}
		return null;
	}

	// keep keeps the answer parsed (of the response frame frame) to the request of head
	// (headBytes long in the frame) and body, as hint (parseHint) says, unless it is not
	// what the plugin may promise (wire.NewReplayEntry), holds more than
	// limits.ReplayEntryMax (ReplayEntry.Size), its shape is one too many, or it has
	// expired by now (the host's clock, milliseconds, as Date.now()). It says whether it
	// kept it.
	keep(head, headBytes, body, frame, parsed, hint, now = Date.now()) {
		const idAt = hint.idAt - headBytes, n = hint.idLen;
		const at = hint.answerAt - (frame.length - parsed.body.length); // the body ends the frame
		if (n === 0 || expired(hint.expires, now) || idAt < 0 || idAt + n > body.length || headBytes + body.length > hint.maxFrame ||
			at < 0 || at + n > parsed.body.length) return false;
		const id = body.subarray(idAt, idAt + n);
		const kind = idKind(id);
		if (kind === "" || !sameBytes(id, parsed.body, at)) return false;
		const refs = [];
		for (const r of parsed.refs) {
			if (r.at < at + n) return false; // the echo would move a reference before it
			refs.push({ at: r.at - at - n, size: r.size, name: r.name });
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
			answerBefore: parsed.body.slice(0, at), answerAfter: parsed.body.slice(at + n), refs, size,
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
function expired(expires, now) {
	return expires > 0 && now >= expires * 1000;
}

// idKind is wire.ReplayableID: "n" for an integer of at most 15 digits without sign of
// zero or leading zeros, "s" for a string of at most 62 printable ASCII characters
// without '"' or '\', "" for any other token.
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

// Key sets (edge/wire's package doc, "Key sets"): the signing keys the plugin's options
// name by URL, which the plugin cannot fetch. The plugin validates what it is given and
// checks every token; a host fetches bytes on one schedule, the same on every host
// (KeysState; testdata/keys.json holds this file to it).

// keysAccept is the Accept field of a key set fetch.
export const keysAccept = "application/jwk-set+json, application/json";

// emptyKeySet is the set a host gives the plugin for a set it gave up (KeysState.expired).
export const emptyKeySet = '{"keys":[]}';

// keysFrame is the input of the keys export (wire.AppendKeys): url, LF, and doc, the key
// set fetched from it (a Uint8Array), as it came.
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
function deltaSeconds(s, quoted) {
	if (quoted && s.length >= 2 && s[0] === '"' && s[s.length - 1] === '"') s = s.slice(1, -1);
	if (!/^[0-9]+$/.test(s)) return null;
	let n = 0;
	for (let i = 0; i < s.length; i++) n = Math.min(n * 10 + s.charCodeAt(i) - 48, 2 ** 31);
	return n;
}

// keysRedirect says whether a key set fetch of the URL from follows a redirect to the URL
// to (wire.KeysRedirect): to is https, or http to a loopback host when from is too.
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
export const keysURL = (u) => keysRedirect(u, u);

// loopbackHost says whether a URL's hostname (as the URL parser normalizes it) is
// localhost or a loopback address.
function loopbackHost(h) {
	return h === "localhost" || h === "[::1]" || /^127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/.test(h);
}

// KeysState is the schedule of one key set URL (wire.KeysState), times in milliseconds.
export class KeysState {
	constructor() {
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
	due(now) {
		return (!this.held || now >= this.fresh) && this.refetch(now);
	}

	begin(now) {
		this.tried = now;
	}

	// done records a set fetched at now, fresh for age seconds.
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
	expired(now) {
		return this.held && now >= this.fresh + limits.KeysMaxAge * 1000;
	}

	drop() {
		this.held = false;
	}
}

// KeySets fetches the key sets, keeps each as its KeysState says, and logs failures, sets
// given up and sets the plugin refused (console.error) and sets that changed (console.log).
// fetch is the Host's (url, init, {urgent}); now gives the time in milliseconds.
export class KeySets {
	constructor(fetch, now = () => Date.now()) {
		this.fetchFn = fetch;
		this.now = now;
		this.sets = new Map(); // url -> {state, doc, version, fetching, refused, retry}
	}

	entry(url) {
		let e = this.sets.get(url);
		if (e === undefined) {
			e = { state: new KeysState(), doc: null, version: 0, fetching: null, refused: 0, retry: undefined };
			this.sets.set(url, e);
		}
		return e;
	}

	// current is the set in hand for url and its version (0 and null before the first).
	current(url) {
		const e = this.entry(url);
		return { doc: e.doc, version: e.version };
	}

	version(url) {
		return this.entry(url).version;
	}

	// refresh starts a fetch of url's set in the background when it is due; ctx.waitUntil,
	// when the runtime has it, keeps the runtime alive until it ends.
	refresh(url, ctx) {
		const e = this.entry(url);
		if (e.fetching !== null || !e.state.due(this.now())) return;
		e.fetching = this.run(e, url, false);
		ctx?.waitUntil?.(e.fetching);
	}

	// want fetches url's set unless it was fetched within limits.KeysRefetch, and resolves
	// once that fetch, or one under way, has ended. With a set in hand, the plugin wants it
	// again because it lacked a key: the fetch is urgent.
	async want(url) {
		const e = this.entry(url);
		if (e.fetching === null && e.state.refetch(this.now())) e.fetching = this.run(e, url, e.doc !== null);
		if (e.fetching !== null) await e.fetching;
	}

	// wantAll is want for each of urls.
	async wantAll(urls) {
		await Promise.all(urls.map((u) => this.want(u)));
	}

	refused(url, version, err) {
		const e = this.entry(url);
		if (e.refused === version) return;
		e.refused = version;
		console.error(`skilledge: the key set at ${url}: the plugin refused it: ${err.message}`);
	}

	// run fetches url's set into e; urgent says the plugin wants it. It never throws: a
	// failure keeps the set in hand (unless it is given up), is logged, and is tried again
	// on the schedule's pause (retryLater).
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
	retryLater(e, url) {
		const now = this.now();
		if (e.state.held && now < e.state.fresh) return; // a token's fetch: the next such token asks again
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
		for (const e of this.sets.values()) clearTimeout(e.retry);
	}

	// get fetches the document at url: {doc (a Uint8Array), age (seconds fresh)}. It follows
	// redirects itself, each one keysRedirect allows, and reads at most limits.KeySetMax
	// bytes, all within limits.KeysTimeout.
	async get(url, urgent) {
		if (!keysURL(url)) throw new Error("not https (nor http to a loopback address): not fetched");
		const fetch = this.fetchFn;
		const signal = AbortSignal.timeout(limits.KeysTimeout * 1000);
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

// The host's own answers (wire.Failure): one shape on every host, a JSON-RPC -32603 whose
// message names the kind of failure only, and whose data names the failure
// ({"failure": name}). What went wrong in detail goes to the log.
export const failures = {
	instance: [500, "the server instance failed"],
	timeout: [500, "request timed out"],
	busy: [503, "server busy, retry later"],
	store: [500, "the server's content store is incomplete or damaged"],
	body: [400, "could not read the request body"],
	other: [500, "the server could not handle the request"],
	auth: [500, "the server's auth option is invalid; see its log"],
};

// failure is the answer for the failure named name ("start" with detail, the plugin's
// own error): {status, headers as [name, value] pairs, body}.
export function failure(name, detail) {
	const [status] = kindOf(name, detail);
	const headers = [["Content-Type", "application/json"], ["Cache-Control", "no-store"], ["X-Content-Type-Options", "nosniff"]];
	if (status === 503) headers.push(["Retry-After", "1"]);
	return { status, headers, body: failureReply(name, null, detail) };
}

// failureReply is the JSON-RPC error of the failure named name answering a message whose
// raw JSON id is id (null for none).
export function failureReply(name, id, detail) {
	const [, reason] = kindOf(name, detail);
	return `{"jsonrpc":"2.0","id":${id ?? "null"},"error":{"code":-32603,"message":${JSON.stringify("Internal error: " + reason)},"data":{"failure":${JSON.stringify(name)}}}}`;
}

// kindOf is the [status, reason] of the failure named name (wire.StartFailure for "start").
function kindOf(name, detail) {
	return name === "start" ? [500, `the plugin did not start: ${detail}`] : failures[name];
}

// failureResponse is the answer for the failure named name, made with R (Host's Response).
export function failureResponse(name, detail, R = Response) {
	const f = failure(name, detail);
	return new R(f.body, { status: f.status, headers: f.headers });
}

// startFailure is the answer, made with R, of a host that could not start for err: the
// failure "auth" for a refused auth option (OptionsRefused.auth), which says nothing of it,
// else "start" with err's message.
export function startFailure(err, R = Response) {
	return err instanceof OptionsRefused && err.auth ? failureResponse("auth", undefined, R) : failureResponse("start", err.message, R);
}

function storeFailure(reason, R) {
	console.error("skilledge:", reason);
	return failureResponse("store", undefined, R);
}
