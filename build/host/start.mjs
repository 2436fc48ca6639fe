// @ts-check

// A host's start: the plugin's options as an entry is given them (optionsFrom) and why
// they cannot be used (OptionsRefused), the answer of a host that could not start
// (startFailure), a private catalog told by its index (isPrivate), and the plugin made
// without the debug lines of the Extism SDK's WASI shim (withoutWasiDebug). host.mjs
// gives the entries the first three as its own.

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
