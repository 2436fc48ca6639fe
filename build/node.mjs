// @ts-check

// The Node entry module (Node ≥ 22): plugin.wasm behind the platform-neutral host
// (host.mjs) on node:http, with the content store read from the assets folder beside it.
//
// `skilledge build DIR -o OUT` writes this file to OUT/node.mjs beside OUT/host.mjs (with
// its modules, OUT/host/), OUT/plugin.wasm, OUT/catalog.pack, OUT/assets/ and
// OUT/package.json, which names the Extism JS SDK (`npm ci --prefix OUT` installs it from
// OUT/package-lock.json); then `node OUT/node.mjs` serves OUT on $PORT (default 8787;
// $HOST, default every address) with the plugin's options from $SKILLEDGE_OPTIONS (the
// JSON object the Worker's SKILLEDGE_OPTIONS is) and an auth option from $SKILLEDGE_AUTH.
// The plugin and the index are loaded once per process. The SDK's browser build is the
// one loaded, as on every platform: it needs only WebAssembly and the web APIs, where its
// Node build would use the experimental node:wasi.
//
// Everything a host does is host.mjs's. This file serves as a plain node:http server
// does: it reads a body of known length from the request's events and hands it whole to
// Host.respondTo, with the header fields (NodeHeaders), and the host answers with plain
// objects (Answer) that it writes to node:http's response, with no promise to wait for
// when the answer needs none. A Request and a Response for every request, and an async
// call's turns, would cost Node more than the plugin's answer does (BENCHMARKS.md,
// below). Only a body without a length, or longer than the plugin takes, goes through
// Host.fetch as a stream (NodeRequest).
//
// Why does the Node entry not use `Request` and `Response`? node:http is not a Fetch
// server: a Request made from each request and a Response read back for each answer cost
// more CPU than the plugin's whole answer. Measured with the runtimes benchmark's small
// read, the entry answered about a third of the Node floor's rate with both, and two
// thirds to three quarters without (BENCHMARKS.md, "Why the Node entry does without
// Request and Response"). The host's Response option makes its answers plain objects
// (Answer), written in one go with their Content-Length (of a stream too: the store says
// each object's length, as FixedLengthStream does on Workers). The rest of the gap was the
// shape of a request's path, not its work: Host.fetch is an async call that awaits the
// body, so a request cost two promises and their turns, where the floor answers from the
// request's end event. So the host has a second door, Host.respondTo, for a body the entry
// has read whole; it returns a promise only when something must be awaited (objects not
// in the cache, a key set, a new instance). Rejected: making fetch itself synchronous when
// the body is in hand (a Request's body never is, so it would only move the branch).
// Header values come from req.headers, which node:http makes for every request, unless a
// field name repeats: it keeps only the first Authorization or Host, so then they come
// from headersDistinct, every value joined with ", " as the Fetch API does, and a request
// with two Host fields is refused as on workerd. With these and the host's own savings (a
// replay allocates its answer once; the object cache marks hits), the runtimes benchmark
// measured it at about nine tenths of its floor.
//
// Why do the Node and Deno entries not turn on V8's lazy validation? V8 compiles wasm
// lazily in Node and Deno already, but validates every function first;
// --wasm-lazy-validation leaves that to each function's first call, and takes
// WebAssembly.compile of the public plugin in Node 22 from about 9 ms to about 3 ms
// (BENCHMARKS.md, "Why not lazy validation"). The flag is experimental (off by default,
// and V8 may drop it); Node can set it only from the command line or with
// v8.setFlagsFromString after the VM has started, which Node's own documentation says may
// do nothing or misbehave; Deno would need it in every user's command line (--v8-flags);
// Bun is not V8; the Worker cannot set V8 flags at all. A few milliseconds on a start of
// the entries, which are not where the start-up targets are, do not pay for that.
import { createServer } from "node:http";
import { open, readFile } from "node:fs/promises";
import { Readable } from "node:stream";
import { optionsFrom, readsWhole, startHost, storeDir, telemetryFrom } from "./host.mjs";

/** @typedef {import("node:http").IncomingMessage} IncomingMessage */
/** @typedef {import("node:http").ServerResponse} ServerResponse */
/** @typedef {import("./host.mjs").Store} Store */
/** @typedef {Uint8Array | string | ReadableStream<Uint8Array> | null} Body */

/** @type {(name: string) => URL} */
const here = (name) => new URL(name, import.meta.url);
const { default: createPlugin } = await import(new URL("../browser/mod.js", import.meta.resolve("@extism/extism")).href);
const [module, pack] = await Promise.all([readFile(here("plugin.wasm")).then((b) => WebAssembly.compile(b)), readFile(here("catalog.pack"))]);

// Answer is an answer of the host (its Response option): the body, the status and the
// header fields as [name, value] pairs.
class Answer {
	/**
	 * @param {Body} body
	 * @param {{ status: number, headers: [string, string][] }} init
	 */
	constructor(body, { status, headers }) {
		this.body = body ?? null;
		this.status = status;
		this.headers = headers;
	}
}

// observed is the host's observer: what SKILLEDGE_LOG, SKILLEDGE_LOG_CALLERS and the
// OTEL_* variables ask for (telemetryFrom: a JSON line per answer on stdout, spans over
// OTLP), or none.
function observed() {
	const telemetry = telemetryFrom((name) => process.env[name]);
	return telemetry.enabled ? { observe: (r) => telemetry.observe(r) } : {};
}

// host is the host, its instance made: bad options (SKILLEDGE_OPTIONS, SKILLEDGE_AUTH),
// a private catalog without SKILLEDGE_AUTH, or a bad build stop the process here, saying
// what is wrong.
const host = await startHost(
	() => ({ ...observed(), createPlugin, module, pack, options: optionsFrom(process.env.SKILLEDGE_OPTIONS, process.env.SKILLEDGE_AUTH), fetch, Response: Answer }),
	process.exit,
	here("catalog.pack").pathname,
);

// lengths holds the length of each stream the store gives (a file's, or one it makes for
// a spliced answer), sent as the Content-Length, as the Workers runtime does.
/** @type {WeakMap<object, number>} */
const lengths = new WeakMap();

// store reads the content store's objects from OUT/assets/sha256/, each streamed from
// its file with its length (a missing one is a 404).
/** @type {Store} */
const store = {
	async object(name) {
		let file;
		try {
			file = await open(here("assets" + storeDir + name));
		} catch (err) {
			if (err.code === "ENOENT") return new Response(null, { status: 404 });
			throw err;
		}
		let size;
		try {
			({ size } = await file.stat());
		} catch (err) {
			await file.close().catch(() => {});
			throw err;
		}
		const body = Readable.toWeb(file.createReadStream());
		lengths.set(body, size);
		return new Response(body, { headers: { "Content-Length": String(size) } });
	},
	// bytes reads an object whole, in one call (an index shard: host/need.mjs).
	async bytes(name) {
		try {
			const b = await readFile(here("assets" + storeDir + name));
			return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
		} catch (err) {
			if (err.code === "ENOENT") return null;
			throw err;
		}
	},
	// packed reads length bytes at offset of a pack, from OUT/packs/sha256/.
	async packed(pack, offset, length) {
		let file;
		try {
			file = await open(here("packs" + storeDir + pack));
		} catch (err) {
			if (err.code === "ENOENT") return new Response(null, { status: 404 });
			throw err;
		}
		try {
			const b = new Uint8Array(length);
			const { bytesRead } = await file.read(b, 0, length, offset);
			return bytesRead === length ? new Response(b) : new Response(null, { status: 416 });
		} finally {
			await file.close();
		}
	},
	stream(length) {
		const t = new TransformStream();
		lengths.set(t.readable, length);
		return t;
	},
};

// NodeRequest gives Host.fetch the members of a Request it reads, for a body that comes
// without a length, or longer than the plugin takes: read as a stream, only as far as the
// host needs.
class NodeRequest {
	/**
	 * @param {IncomingMessage} req
	 * @param {NodeHeaders} headers
	 */
	constructor(req, headers) {
		this.req = req;
		this.method = req.method;
		this.url = "http://host" + targetOf(req);
		this.headers = headers;
		this.body = { getReader: () => Readable.toWeb(req).getReader() };
	}

	// arrayBuffer is not called for the bodies serve hands over (the host reads a body so
	// only when readsWhole, which serve answers itself), but a Request has it.
	arrayBuffer() {
		return new Promise((resolve, reject) => readBody(this.req, resolve, reject));
	}
}

// targetOf is req's target as it came: node:http, like a plain server, resolves nothing
// in it.
/** @param {IncomingMessage} req */
function targetOf(req) {
	return req.url.startsWith("/") ? req.url : "/" + req.url;
}

// readBody reads req's body whole and calls done with it as a plain Uint8Array over the
// Buffer's bytes (the host copies what it keeps with slice, which on a Buffer would give a
// view), or calls failed.
/**
 * @param {IncomingMessage} req
 * @param {(body: Uint8Array) => void} done
 * @param {(err: Error) => void} failed
 */
function readBody(req, done, failed) {
	/** @type {Buffer[]} */
	const parts = [];
	req.on("data", (part) => parts.push(part));
	req.on("end", () => {
		const b = parts.length === 1 ? parts[0] : Buffer.concat(parts);
		done(new Uint8Array(b.buffer, b.byteOffset, b.length));
	});
	req.on("error", failed);
}

// NodeHeaders gives a request's header fields as the Fetch API's Headers.get does: a
// repeated field's values joined by ", ", null for a field the request lacks. req.headers
// (which node:http makes for every request anyway) is that when no field repeats; when
// one does, it keeps only the first of some (Authorization, Host, …), and the fields are
// read from req.headersDistinct instead.
class NodeHeaders {
	/** @param {IncomingMessage} req */
	constructor(req) {
		this.req = req;
		/** @type {Record<string, string | string[] | undefined> | null} */
		this.fields = null; // req.headers, or req.headersDistinct when a field repeats
		this.distinct = false;
	}

	/**
	 * @param {string} name
	 * @returns {string | null}
	 */
	get(name) {
		if (this.fields === null) {
			const h = this.req.headers;
			this.distinct = this.req.rawHeaders.length !== 2 * Object.keys(h).length;
			this.fields = this.distinct ? this.req.headersDistinct : h;
		}
		const v = this.fields[name] ?? this.fields[name.toLowerCase()];
		if (v === undefined) return null;
		if (!this.distinct && !Array.isArray(v)) return v;
		return v.length === 1 ? v[0] : /** @type {string[]} */ (v).join(", "); // distinct: every value is an array
	}
}

// fieldsOf is a's header fields, and then Content-Length: length when it is known, as
// node:http takes them (name, value, …).
/**
 * @param {Answer} a
 * @param {number | undefined} length
 * @returns {string[]}
 */
function fieldsOf(a, length) {
	const h = a.headers;
	const f = new Array(2 * h.length + (length === undefined ? 0 : 2));
	for (let i = 0; i < h.length; i++) {
		f[2 * i] = h[i][0];
		f[2 * i + 1] = h[i][1];
	}
	if (length !== undefined) {
		f[2 * h.length] = "Content-Length";
		f[2 * h.length + 1] = String(length);
	}
	return f;
}

// send writes answer a to res: a body in memory at once, with its length; a stream as it
// comes, with its length when the store said it (then it returns a promise).
/**
 * @param {Answer} a
 * @param {ServerResponse} res
 * @returns {Promise<void> | undefined}
 */
function send(a, res) {
	const body = typeof a.body === "string" ? Buffer.from(a.body) : a.body;
	if (body === null || body instanceof Uint8Array) {
		const bytes = /** @type {Uint8Array | null} */ (body); // the check is not strict: body === null narrows nothing
		res.writeHead(a.status, fieldsOf(a, bytes?.length));
		res.end(bytes);
		return;
	}
	res.writeHead(a.status, fieldsOf(a, lengths.get(body)));
	return sendStream(body, res);
}

/**
 * @param {ReadableStream<Uint8Array>} body
 * @param {ServerResponse} res
 */
async function sendStream(body, res) {
	for await (const chunk of body) {
		if (!res.write(chunk)) await new Promise((resolve) => res.once("drain", resolve));
	}
	res.end();
}

// answerOf sends res the answer f gives: what it throws is a 500, as for an answer that
// fails, never an exception that would stop the process (serve runs in node:http's
// events, with no promise to catch it).
/**
 * @param {() => Answer | Promise<Answer>} f
 * @param {ServerResponse} res
 */
function answerOf(f, res) {
	let a;
	try {
		a = f();
	} catch (err) {
		return failed(err, res);
	}
	answer(a, res);
}

// answer sends res the host's answer a (or a promise of it).
/**
 * @param {Answer | Promise<Answer>} a
 * @param {ServerResponse} res
 */
function answer(a, res) {
	if (a instanceof Promise) {
		a.then((x) => send(x, res)).catch((err) => failed(err, res));
		return;
	}
	try {
		send(a, res)?.catch((err) => failed(err, res));
	} catch (err) {
		failed(err, res);
	}
}

/**
 * @param {unknown} err
 * @param {ServerResponse} res
 */
function failed(err, res) {
	console.error("skilledge:", err);
	if (res.headersSent) res.destroy(err);
	else res.writeHead(500).end();
}

// serve answers a request as a plain node:http server does, with no promise to wait for
// when the answer needs none: a body of known length the plugin takes is read from the
// request's events and handed to the host whole (Host.respondTo); any other body is read
// by the host as a stream (Host.fetch), as far as it needs.
/**
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 */
function serve(req, res) {
	const headers = new NodeHeaders(req);
	let length, chunked;
	try {
		length = headers.get("content-length");
		chunked = headers.get("transfer-encoding") !== null;
	} catch (err) {
		return failed(err, res);
	}
	if (length === "0" || (length === null && !chunked)) {
		return answerOf(() => host.respondTo(req.method, targetOf(req), headers, empty, store), res);
	}
	if (readsWhole(length, host.maxBody)) {
		return readBody(
			req,
			(body) => answerOf(() => host.respondTo(req.method, targetOf(req), headers, body, store), res),
			(err) => answer(host.bodyFailed(err), res),
		);
	}
	answerOf(() => host.fetch(new NodeRequest(req, headers), store), res);
}

const empty = new Uint8Array(0);

// The server reads a request head of up to 64 KiB, as `skilledge serve` does (Node's own
// default is 16 KiB, less than a large access token needs).
//
// Why does the Node entry read a 64 KiB head and close gently after `node:http`'s own
// errors? When node:http refuses a request on its own (a malformed one, a head over the
// limit), it writes its 400 or 431 and destroys the socket at once, so a client still
// sending its head gets a reset connection instead of the answer. The entry writes the
// same answer, ends its side and reads what the client still sends for up to a second, as
// Go's net/http does. The hostile suite runs against the three entries: where a runtime's
// HTTP layer answers on its own (Deno refuses two Host fields and a thousand fields with
// 400, Bun a thousand fields with 431, and Bun closes the connection on a method it does
// not know), the case file says so for that runtime, and the server must be healthy
// after it.
const server = createServer({ maxHeaderSize: 64 * 1024 }, serve);
server.keepAliveTimeout = 65_000;
// A request node:http cannot parse gets its 400, or 431 for a head over the limit, as
// Node answers by itself; but the connection is closed gently, reading what the client
// still sends for a second, so that a client still sending its head reads the answer
// rather than a reset connection.
server.on("clientError", (err, socket) => {
	if (err.code === "ECONNRESET" || !socket.writable) return socket.destroy();
	const status = err.code === "HPE_HEADER_OVERFLOW" ? "431 Request Header Fields Too Large" : "400 Bad Request";
	socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
	socket.on("data", () => {}).resume();
	// (Node's setTimeout gives a Timeout; the DOM's types the check uses, a number.)
	/** @type {any} */ (setTimeout(() => socket.destroy(), 1000)).unref();
});
server.listen(Number(process.env.PORT ?? 8787), process.env.HOST, () => {
	const { address, port } = server.address();
	console.log(`skilledge: serving ${here("catalog.pack").pathname} at http://${address.includes(":") ? `[${address}]` : address}:${port}/mcp`);
});
