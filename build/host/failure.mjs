// @ts-check

// The host's own answers (wire.Failure): one shape on every host, a JSON-RPC -32603 whose
// message names the kind of failure only, and whose data names the failure
// ({"failure": name}). What went wrong in detail goes to the log.

/**
 * ResponseClass is a constructor called as the Fetch API's Response is: Response, or what
 * an entry gives the Host in its place (its option Response), whose answers the host
 * hands back as they are (Answer). headers are not to be changed: they may be shared.
 * @typedef {new (body: Uint8Array<ArrayBuffer> | string | ReadableStream<Uint8Array> | null, init: { status: number, headers: [string, string][] }) => Answer} ResponseClass
 */

/**
 * Answer is what a ResponseClass makes: a Response, unless an entry gave its own
 * constructor (node.mjs's Answer).
 * @typedef {any} Answer
 */

/**
 * The [status, reason] of each failure by name.
 * @type {Record<string, [number, string]>}
 */
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
/**
 * @param {string} name
 * @param {string} [detail]
 * @returns {{ status: number, headers: [string, string][], body: string }}
 */
export function failure(name, detail) {
	const [status] = kindOf(name, detail);
	/** @type {[string, string][]} */
	const headers = [["Content-Type", "application/json"], ["Cache-Control", "no-store"], ["X-Content-Type-Options", "nosniff"]];
	if (status === 503) headers.push(["Retry-After", "1"]);
	return { status, headers, body: failureReply(name, null, detail) };
}

// failureReply is the JSON-RPC error of the failure named name answering a message whose
// raw JSON id is id (null for none).
/**
 * @param {string} name
 * @param {string | null} id
 * @param {string} [detail]
 * @returns {string}
 */
export function failureReply(name, id, detail) {
	const [, reason] = kindOf(name, detail);
	return `{"jsonrpc":"2.0","id":${id ?? "null"},"error":{"code":-32603,"message":${JSON.stringify("Internal error: " + reason)},"data":{"failure":${JSON.stringify(name)}}}}`;
}

// kindOf is the [status, reason] of the failure named name (wire.StartFailure for "start").
/** @type {(name: string, detail?: string) => [number, string]} */
function kindOf(name, detail) {
	return name === "start" ? [500, `the plugin did not start: ${detail}`] : failures[name];
}

// failureResponse is the answer for the failure named name, made with R (Host's Response).
/**
 * @param {string} name
 * @param {string | undefined} detail
 * @param {ResponseClass} [R]
 * @returns {Answer}
 */
export function failureResponse(name, detail, R = Response) {
	const f = failure(name, detail);
	return new R(f.body, { status: f.status, headers: f.headers });
}
