// @ts-check

// What an entry does with every answer (the host's Observed records): one JSON log line,
// in the shape `skilledge serve --log json` writes (log/slog's JSON, the OpenTelemetry
// attribute names); an Analytics Engine data point; and, where an OTLP endpoint is
// configured, a span per request sent over fetch as OTLP/HTTP JSON. None of them ever
// holds a token, a body or a file's contents: only the plugin's facts and what the host
// knows. The caller (and the client's address) only when the auth option named one, and
// only while callers are logged (SKILLEDGE_LOG_CALLERS, default true).
//
// Why do the entries write OTLP as JSON with `fetch`, not with the OpenTelemetry JS SDK?
// The host imports nothing, so that every runtime's entry can use it (Workers, Deno, Bun
// and Node resolve modules differently), and the SDK is dozens of modules. OTLP/HTTP with
// JSON is part of the OTLP specification and every Collector takes it; a span is a small
// object, sent in batches with the runtime's fetch. The samplers are the specification's,
// read from OTEL_TRACES_SAMPLER. The entries send no OTLP metrics: their log lines and, on
// Workers, Analytics Engine carry the counts, and skilledge stats reads the lines.
//
// Why does the Worker log a JSON line and write to Analytics Engine, and nothing else? A
// Worker has no listener for a scrape and no process to keep a batch in. Workers Logs and
// Logpush ingest what the Worker writes on the console, and a JSON object becomes fields
// to query; Analytics Engine takes a data point per request without a round trip the
// request waits for, and answers SQL over three months, which is what "most used skills
// this week" and "unused for a month" need. Both are Cloudflare's, bound in wrangler.toml,
// with no secret to keep.

/** @typedef {import("./frame.mjs").HeadersLike} HeadersLike */
/** @typedef {import("./facts.mjs").Facts} Facts */

/**
 * Observed is an answer as the host saw it, for an entry's logs, metrics and traces
 * (host.mjs's HostInit.observe): the request's method, path (without the query) and
 * header fields; the answer's status and body length as sent; the request body's length;
 * whether a kept answer was given again (replayed), and the request body itself; the
 * host's own failure ("instance", "store", "body", "start", "auth"; "" when the plugin
 * answered); the plugin's facts (null for none); and when it began and how long it took,
 * in milliseconds (Date.now(): in a Worker, time stands still while the isolate computes).
 * @typedef {object} Observed
 * @property {string} method
 * @property {string} path
 * @property {HeadersLike} headers
 * @property {number} status
 * @property {number} bytes
 * @property {number} bodyBytes
 * @property {Uint8Array} body the request body, valid only while the observer runs
 * @property {boolean} replayed
 * @property {string} failure
 * @property {Facts | null} facts
 * @property {number} start
 * @property {number} duration
 */

/**
 * AnalyticsEngine is a Workers Analytics Engine dataset binding.
 * @typedef {{ writeDataPoint(point: { blobs?: string[], doubles?: number[], indexes?: string[] }): void }} AnalyticsEngine
 */

/**
 * TelemetryInit says what a Telemetry does (telemetryFrom reads it from the environment).
 * @typedef {object} TelemetryInit
 * @property {boolean} [log] one JSON line per answer, written with write
 * @property {(line: string) => void} [write] default console.log
 * @property {boolean} [callers] the caller, its client and address in lines, points and spans (default true)
 * @property {AnalyticsEngine | null} [analytics] a data point per answer
 * @property {OTLPInit | null} [otlp] spans over OTLP
 */

// errorType is the error.type of an answer: the host's own failure, else the JSON-RPC
// error code, else a 5xx status; "" for none (a 404 is an answer, not an error).
/** @type {(r: Observed) => string} */
export function errorType(r) {
	if (r.failure !== "") return r.failure;
	if (r.facts !== null && r.facts.code !== 0) return String(r.facts.code);
	return r.status >= 500 ? String(r.status) : "";
}

// logRecord is the JSON log line of r (without its time, level and msg), the keys in the
// order `skilledge serve --log json` writes them, a key without a value left out.
/**
 * @param {Observed} r
 * @param {boolean} callers
 * @param {string} [address] the client's address, when the runtime says it
 * @returns {Record<string, string | number | boolean>}
 */
export function logRecord(r, callers, address = "") {
	/** @type {Record<string, string | number | boolean>} */
	const o = {
		"http.request.method": r.method,
		"url.path": r.path,
		"http.response.status_code": r.status,
		"http.response.body.size": r.bytes,
		"http.request.body.size": r.bodyBytes,
		duration_ms: Math.round(r.duration * 1000) / 1000,
	};
	const f = r.facts;
	/** @type {(k: string, v: string | number | boolean) => void} */
	const put = (k, v) => {
		if (v !== "" && v !== 0 && v !== false) o[k] = v;
	};
	if (f !== null) {
		put("skilledge.route", f.route);
		put("mcp.method.name", f.method);
		put("mcp.protocol.version", f.version);
		put("skilledge.read", f.read);
		put("skilledge.skill.path", f.skill);
		put("skilledge.skill.name", f.skillName);
		put("mcp.resource.uri", f.uri);
		if (f.code !== 0) put("rpc.response.status_code", String(f.code));
	}
	put("error.type", errorType(r));
	put("skilledge.replayed", r.replayed);
	put("skilledge.failure", r.failure);
	if (callers && f !== null && f.caller !== "") {
		put("user.id", f.caller);
		put("skilledge.client_id", f.client);
		put("client.address", address);
	}
	return o;
}

// logLine is the whole line: {"time", "level", "msg": "request", …logRecord}.
/**
 * @param {Observed} r
 * @param {boolean} callers
 * @returns {string}
 */
export function logLine(r, callers) {
	return JSON.stringify({ time: new Date(r.start).toISOString(), level: "INFO", msg: "request", ...logRecord(r, callers) });
}

// dataPoint is the Analytics Engine data point of r: the index is the skill's path (""
// for none), blobs and doubles in the order the README's SQL reads them:
//
//	blob1 skill path, blob2 skill name, blob3 what was read, blob4 MCP method,
//	blob5 route, blob6 error type, blob7 caller, blob8 client_id, blob9 protocol revision
//	double1 HTTP status, double2 bytes sent, double3 duration (ms), double4 replayed (0/1)
/**
 * @param {Observed} r
 * @param {boolean} callers
 */
export function dataPoint(r, callers) {
	const f = r.facts;
	const who = callers && f !== null;
	return {
		indexes: [f?.skill ?? ""],
		blobs: [f?.skill ?? "", f?.skillName ?? "", f?.read ?? "", f?.method ?? "", f?.route ?? "", errorType(r),
			who ? f.caller : "", who ? f.client : "", f?.version ?? ""],
		doubles: [r.status, r.bytes, r.duration, r.replayed ? 1 : 0],
	};
}

// Telemetry tells, of every answer, what its init asks for.
export class Telemetry {
	/** @param {TelemetryInit} init */
	constructor({ log = false, write = (line) => console.log(line), callers = true, analytics = null, otlp = null }) {
		this.log = log;
		this.write = write;
		this.callers = callers;
		this.analytics = analytics;
		this.otlp = otlp === null ? null : new OTLP(otlp, callers);
	}

	// observe is the host's observe (HostInit.observe); ctx.waitUntil, when the runtime has
	// one, keeps it alive while spans go out.
	/**
	 * @param {Observed} r
	 * @param {{ waitUntil(p: Promise<unknown>): void }} [ctx]
	 */
	observe(r, ctx) {
		if (this.log) this.write(logLine(r, this.callers));
		if (this.analytics !== null) this.analytics.writeDataPoint(dataPoint(r, this.callers));
		if (this.otlp !== null) this.otlp.span(r, ctx);
	}

	// enabled says whether it does anything at all: an entry that gets false gives the host
	// no observer, which then asks the plugin for no facts.
	get enabled() {
		return this.log || this.analytics !== null || this.otlp !== null;
	}
}

// telemetryFrom reads what an entry's environment asks for: SKILLEDGE_LOG=json (a line per
// answer), SKILLEDGE_LOG_CALLERS=false (no caller anywhere), an Analytics Engine binding
// (analytics), and OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (spans;
// OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER and its _ARG as the
// OpenTelemetry specification reads them; OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none
// send none). get reads a variable, undefined for none.
/**
 * @param {(name: string) => string | undefined} get
 * @param {AnalyticsEngine | null} [analytics]
 * @param {typeof fetch} [send]
 * @returns {Telemetry}
 */
export function telemetryFrom(get, analytics = null, send = fetch) {
	const log = (get("SKILLEDGE_LOG") ?? "").trim().toLowerCase();
	if (log !== "" && log !== "json" && log !== "text") throw new Error(`SKILLEDGE_LOG is ${JSON.stringify(log)}: give json (a line per request) or text (none)`);
	const callers = (get("SKILLEDGE_LOG_CALLERS") ?? "true").trim().toLowerCase() !== "false";
	return new Telemetry({ log: log === "json", callers, analytics, otlp: otlpFrom(get, send) });
}

/**
 * OTLPInit is where spans go, and which.
 * @typedef {object} OTLPInit
 * @property {string} url the traces endpoint (…/v1/traces)
 * @property {Record<string, string>} headers
 * @property {string} service
 * @property {(traceID: string, parentSampled: boolean | null) => boolean} sample
 * @property {typeof fetch} send
 */

// otlpFrom is the OTLP configuration of the environment, or null for none.
/**
 * @param {(name: string) => string | undefined} get
 * @param {typeof fetch} send
 * @returns {OTLPInit | null}
 */
function otlpFrom(get, send) {
	if ((get("OTEL_SDK_DISABLED") ?? "").toLowerCase() === "true" || (get("OTEL_TRACES_EXPORTER") ?? "otlp").toLowerCase() === "none") return null;
	let url = get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") ?? "";
	if (url === "") {
		const base = get("OTEL_EXPORTER_OTLP_ENDPOINT") ?? "";
		if (base === "") return null;
		url = base.replace(/\/+$/, "") + "/v1/traces";
	}
	/** @type {Record<string, string>} */
	const headers = {};
	for (const part of (get("OTEL_EXPORTER_OTLP_TRACES_HEADERS") ?? get("OTEL_EXPORTER_OTLP_HEADERS") ?? "").split(",")) {
		const i = part.indexOf("=");
		if (i > 0) headers[decodeURIComponent(part.slice(0, i).trim())] = decodeURIComponent(part.slice(i + 1).trim());
	}
	return { url, headers, service: get("OTEL_SERVICE_NAME") || "skilledge", sample: sampler(get("OTEL_TRACES_SAMPLER"), get("OTEL_TRACES_SAMPLER_ARG")), send };
}

// sampler is the OTEL_TRACES_SAMPLER named (default parentbased_always_on): a function of
// a new span's trace id and its parent's sampled flag (null for no parent).
/**
 * @param {string | undefined} name
 * @param {string | undefined} arg
 * @returns {(traceID: string, parentSampled: boolean | null) => boolean}
 */
export function sampler(name, arg) {
	const ratio = Math.min(Math.max(Number(arg ?? "1"), 0), 1);
	/** @type {(id: string) => boolean} */
	const byRatio = (id) => parseInt(id.slice(18), 16) < ratio * 2 ** 56; // the id's last 56 bits, its randomness (W3C Trace Context level 2)
	switch ((name ?? "parentbased_always_on").trim().toLowerCase()) {
		case "always_on":
			return () => true;
		case "always_off":
			return () => false;
		case "traceidratio":
			return (id) => byRatio(id);
		case "parentbased_always_off":
			return (_, p) => p ?? false;
		case "parentbased_traceidratio":
			return (id, p) => p ?? byRatio(id);
		default:
			return (_, p) => p ?? true;
	}
}

// spanName is "{mcp.method.name} {target}" for an MCP request (the target the URI read,
// else the skill's path, else none), else "{http.request.method} {route}".
/** @type {(r: Observed) => string} */
export function spanName(r) {
	const f = r.facts;
	if (f !== null && f.method !== "") {
		const target = f.uri || f.skill;
		return target === "" ? f.method : `${f.method} ${target}`;
	}
	return `${r.method} ${f?.route || "other"}`;
}

const traceparent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

// OTLP sends a span per sampled request, in batches, as OTLP/HTTP JSON.
class OTLP {
	/**
	 * @param {OTLPInit} init
	 * @param {boolean} callers
	 */
	constructor(init, callers) {
		this.init = init;
		this.callers = callers;
		/** @type {object[]} */
		this.spans = [];
		/** @type {ReturnType<typeof setTimeout> | null} */
		this.timer = null;
		this.failed = false; // the last export failed, and the log said so
	}

	/**
	 * @param {Observed} r
	 * @param {{ waitUntil(p: Promise<unknown>): void }} [ctx]
	 */
	span(r, ctx) {
		const m = traceparent.exec(r.headers.get("traceparent") ?? "");
		const traceID = m !== null && !/^0+$/.test(m[1]) ? m[1] : randomHex(16);
		const parent = m !== null && !/^0+$/.test(m[2]) ? m[2] : "";
		if (!this.init.sample(traceID, parent === "" ? null : (parseInt(m?.[3] ?? "0", 16) & 1) === 1)) return;
		/** @type {{ key: string, value: object }[]} */
		const attributes = [];
		/** @type {(k: string, v: string | number | boolean) => void} */
		const put = (k, v) => {
			if (v === "" || v === false) return;
			attributes.push({ key: k, value: typeof v === "number" ? { intValue: String(v) } : typeof v === "boolean" ? { boolValue: v } : { stringValue: v } });
		};
		const rec = logRecord(r, this.callers);
		for (const [k, v] of Object.entries(rec)) if (k !== "duration_ms") put(k, v);
		const id = r.facts === null || r.facts.method === "" ? "" : jsonrpcID(r);
		put("jsonrpc.request.id", id);
		put("network.protocol.name", "http");
		const failed = errorType(r) !== "";
		const start = BigInt(r.start) * 1000000n;
		this.spans.push({
			traceId: traceID, spanId: randomHex(8), parentSpanId: parent, name: spanName(r), kind: 2,
			startTimeUnixNano: String(start), endTimeUnixNano: String(start + BigInt(Math.round(r.duration * 1e6))),
			attributes, status: failed ? { code: 2 } : {},
		});
		if (this.spans.length >= 256) this.flush(ctx);
		else if (ctx !== undefined) ctx.waitUntil(this.flush(ctx)); // a Worker ends with its request
		else this.timer ??= setTimeout(() => this.flush(), 1000);
	}

	/**
	 * @param {{ waitUntil(p: Promise<unknown>): void }} [ctx]
	 * @returns {Promise<void>}
	 */
	async flush(ctx) {
		if (this.timer !== null) clearTimeout(this.timer);
		this.timer = null;
		const spans = this.spans;
		this.spans = [];
		if (spans.length === 0) return;
		const body = JSON.stringify({
			resourceSpans: [{
				resource: { attributes: [{ key: "service.name", value: { stringValue: this.init.service } }] },
				scopeSpans: [{ scope: { name: "skilledge" }, spans }],
			}],
		});
		const sent = this.init.send(this.init.url, { method: "POST", headers: { ...this.init.headers, "Content-Type": "application/json" }, body }).then(
			(resp) => {
				if (!resp.ok && !this.failed) console.error(`skilledge: OTLP export to ${this.init.url}: HTTP ${resp.status}`);
				this.failed = !resp.ok;
				return resp.body?.cancel();
			},
			(err) => {
				if (!this.failed) console.error(`skilledge: OTLP export to ${this.init.url}: ${err.message}`);
				this.failed = true;
			},
		);
		if (ctx !== undefined) ctx.waitUntil(sent);
		return sent;
	}
}

// jsonrpcID is the JSON-RPC id of an MCP request (its JSON text, as a string), "" for
// none: read from the body only for a span that is sampled.
/** @type {(r: Observed) => string} */
function jsonrpcID(r) {
	try {
		const id = JSON.parse(decoder.decode(r.body))?.id;
		return typeof id === "string" ? id : typeof id === "number" ? String(id) : "";
	} catch {
		return "";
	}
}

const decoder = new TextDecoder();

/** @type {(n: number) => string} */
function randomHex(n) {
	const b = crypto.getRandomValues(new Uint8Array(n));
	let s = "";
	for (const x of b) s += x.toString(16).padStart(2, "0");
	return s;
}
