// @ts-check

// A host's start: the plugin's options as an entry is given them (optionsFrom) and why
// they cannot be used (OptionsRefused), the answer of a host that could not start
// (startFailure), the refusal of a private catalog without an auth option, told by its
// index (refusePrivate, isPrivate), and the plugin made without the debug lines of the
// Extism SDK's WASI shim (withoutWasiDebug). host.mjs gives the entries the first three as
// its own; its startHost refuses with refusePrivate.

import { failureResponse } from "./failure.mjs";

/** @typedef {import("./failure.mjs").Answer} Answer */
/** @typedef {import("./failure.mjs").ResponseClass} ResponseClass */

// optionsFrom is the plugin's options (edge/wire Options) as an entry module is given
// them: options, an object or its JSON text (SKILLEDGE_OPTIONS: a wrangler.toml table, or
// an environment variable), or undefined for none; and auth, the JSON text of an auth
// option that replaces options.auth when it is given (SKILLEDGE_AUTH, a Worker secret or
// an environment variable; authName says which in errors). Text that is not a JSON object
// throws OptionsRefused, which names it and says nothing of its content, as the plugin
// refuses bad options: never a server without the authorization it was given.
/**
 * @param {Record<string, any> | string | undefined} options
 * @param {string | undefined} auth
 * @param {string} [authName]
 * @returns {Record<string, any>}
 */
export function optionsFrom(options, auth, authName = "SKILLEDGE_AUTH") {
	/** @type {(text: string, name: string, what: string, isAuth: boolean) => Record<string, any>} */
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
	/**
	 * @param {string} message
	 * @param {boolean} auth
	 */
	constructor(message, auth) {
		super(message);
		this.auth = auth;
	}
}

// startFailure is the answer, made with R, of a host that could not start for err: the
// failure "auth" for a refused auth option (OptionsRefused.auth), which says nothing of it,
// else "start" with err's message.
/**
 * @param {Error} err
 * @param {ResponseClass} [R]
 * @returns {Answer}
 */
export function startFailure(err, R = Response) {
	return err instanceof OptionsRefused && err.auth ? failureResponse("auth", undefined, R) : failureResponse("start", err.message, R);
}

// withoutWasiDebug runs make, which makes a plugin instance with the Extism SDK, with
// console.log filtered of the debug lines of the SDK's WASI shim. The shim
// (@bjorn3/browser_wasi_shim, in the SDK's browser build) turns its debug log on when made
// without a debug option, which the SDK does not give, and binds console.log, as it is
// then, to print them: "wasi: 0 0", twice, as the plugin starts. So console.log is, while
// make runs, a function that drops exactly the shim's debug calls (console.log("%c%s",
// "color: #265BA0", "wasi:", …)) and passes every other on; the shim keeps that function
// for the instance's life, and console.log is what it was again once make is done.
//
// Why filter console.log while the plugin is made, to drop "wasi: 0 0"? The shim prints
// those lines for args_sizes_get and environ_sizes_get in every runtime and the Worker, the
// SDK (1.0.3) has no option to pass the shim, and node_modules is not ours to patch. Since
// the shim binds whatever console.log is when it is made, the filter lives only in what
// the shim bound. Rejected: a filter in each entry for the whole process (it would sit over
// every log line the process prints), and patching or replacing the SDK's WASI (a fork of
// the SDK to keep).
/**
 * @template T
 * @param {() => Promise<T>} make
 * @returns {Promise<T>}
 */
export async function withoutWasiDebug(make) {
	const log = console.log;
	/** @param {...any} args */
	console.log = function (...args) {
		if (args[0] === "%c%s" && args[1] === "color: #265BA0" && args[2] === "wasi:") return;
		return log.apply(this, args);
	};
	try {
		return await make();
	} finally {
		console.log = log;
	}
}

// privateMagic opens the index of a private catalog, one whose skills folder has an
// access policy (catalog.MagicPrivate). The plugin answers such a catalog over HTTP only
// with an auth option, and without one answers every request 503.
const privateMagic = "SKLPACK\x82";

// refusePrivate throws, for startHost, when pack (the bytes of catalog.pack) is a private
// catalog's index and options hold no auth option, with what `skilledge serve` says of one
// without --auth (SKILLEDGE_AUTH for --auth FILE): the host would answer nobody. where
// names the catalog in the message (the entry's catalog.pack).
//
// Why do the Deno, Bun and Node entries refuse a private catalog without SKILLEDGE_AUTH?
// skilledge serve refuses a catalog with an access policy and no --auth: it could tell
// nobody apart, so it would answer nobody. The process entries started anyway, printed
// "serving", and answered every request 503 (the plugin's answer to such a catalog over
// HTTP). Now startHost refuses, before the instance is made, and exits 1, as it does for
// options it cannot use. The host tells a private catalog by the first bytes of
// catalog.pack: the build opens a private index with catalog.MagicPrivate, so that readers
// that know no access tables refuse it, and a Go test holds privateMagic to it. Rejected:
// asking the plugin (a probe request and its 503, or a new export: the first reads a policy
// out of an error answer, the second changes the host contract in three places for one bit
// the index's first eight bytes already give); refusing in the Worker too (a Worker has no
// start to refuse: its 503, which says why, is what its log and its callers see).
/**
 * @param {Record<string, any>} options
 * @param {ArrayBuffer | Uint8Array} pack
 * @param {string} where
 */
export function refusePrivate(options, pack, where) {
	if (options.auth !== undefined || !isPrivate(pack)) return;
	throw new Error(
		`${where} has an access policy (skilledge.yaml): serve it with SKILLEDGE_AUTH, which says who is asking (README, "Private catalogs");\n` +
			"  without it nobody could be told apart over HTTP. skilledge stdio serves it to a local process without one.",
	);
}

// isPrivate reports whether pack, the bytes of catalog.pack, is a private catalog's index.
/**
 * @param {ArrayBuffer | Uint8Array} pack
 * @returns {boolean}
 */
export function isPrivate(pack) {
	const b = pack instanceof Uint8Array ? pack : new Uint8Array(pack);
	if (b.length < privateMagic.length) return false;
	for (let i = 0; i < privateMagic.length; i++) if (b[i] !== privateMagic.charCodeAt(i)) return false;
	return true;
}

// startNote is the note (what an observer is told: host.mjs's Note) of a request that
// failed before it reached the plugin: at start, with err (the failure "auth" for a
// refused auth option, else "start"), or reading the body.
/**
 * @param {unknown} err
 * @param {number} start
 * @returns {import("../host.mjs").Note}
 */
export function startNote(err, start) {
	return { start, facts: null, replayed: false, bytes: 0, failure: err instanceof OptionsRefused && err.auth ? "auth" : "start" };
}
