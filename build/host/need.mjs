// @ts-check

// A sharded index (edge/wire need.go): the plugin of a large catalog holds the root of its
// index and reads shards when a request needs them. A request that reads shards it does
// not hold is answered NEED, naming them; the host fetches each from the store, gives it
// (skilledge_give: the plugin checks it against its name) and asks again.

import { limits } from "./limits.mjs";

// sha256Hex is the SHA-256 of b in lowercase hex, the name of the store object b is: the
// runtime's own (crypto.subtle), natively, where the plugin's would run as WebAssembly.
/** @param {Uint8Array<ArrayBuffer>} b @returns {Promise<string>} */
export async function sha256Hex(b) {
	const sum = new Uint8Array(await crypto.subtle.digest("SHA-256", b));
	let hex = "";
	for (const x of sum) hex += (x < 16 ? "0" : "") + x.toString(16);
	return hex;
}

const decoder = new TextDecoder();

/** @typedef {import("./plugin.mjs").Raw} Raw */
/** @typedef {import("./splice.mjs").Store} ObjectStore */

// needOf is the names of the store objects a NEED output names, or null for an answer. A
// NEED that does not parse throws: the instance is unusable.
/**
 * @param {Uint8Array} out
 * @returns {string[] | null}
 */
export function needOf(out) {
	if (out.length < 5 || out[0] !== 0x4e || out[1] !== 0x45 || out[2] !== 0x45 || out[3] !== 0x44 || out[4] !== 0x0a) return null;
	const lines = decoder.decode(out.subarray(5)).split("\n");
	if (lines.pop() !== "" || lines.length === 0) throw new Error("the plugin answered a malformed NEED");
	return lines.map((line) => {
		const m = /^(0|[1-9][0-9]{0,15}) ([0-9a-f]{64})$/.exec(line);
		if (m === null) throw new Error("the plugin answered a malformed NEED");
		return m[2];
	});
}

// giveNeeded fetches the shards wanted from store, gives them to raw, and calls ask (the
// plugin's export again, with the same input) until it answers, at most
// limits.MaxNeedRounds rounds of giving in all; then it returns finish(a copy of the
// answer), finish called at once, before any other request can call into the instance,
// so that it may ask the plugin what it says of that answer (its replay hint, its
// facts). alive() says the instance is still the one to give to once the fetches are
// done. A shard the store cannot give, or the plugin refuses, throws: the request fails
// as an instance's failure does.
/**
 * @template T
 * @param {Raw} raw
 * @param {ObjectStore} store
 * @param {string[]} wanted
 * @param {() => Uint8Array<ArrayBuffer>} ask
 * @param {() => boolean} alive
 * @param {(out: Uint8Array<ArrayBuffer>) => T} finish
 * @returns {Promise<Awaited<T>>}
 */
export async function giveNeeded(raw, store, wanted, ask, alive, finish) {
	for (let round = 1; ; round++) {
		const shards = await Promise.all(wanted.map(async (name) => {
			const b = await shardBytes(store, name);
			if ((await sha256Hex(b)) !== name) throw new Error(`index shard ${name}: the store's bytes do not hash to its name`);
			return b;
		}));
		if (!alive()) throw new Error("the instance was made again while index shards were fetched");
		for (const [i, b] of shards.entries()) raw.give(wanted[i], b);
		const out = ask();
		const more = needOf(out);
		if (more === null) return await finish(out.slice());
		if (round >= limits.MaxNeedRounds) throw new Error(`the plugin still needed index shards after ${round} rounds`);
		wanted = more;
	}
}

// shardBytes reads the store object name, a shard, whole: through the store's bytes where
// it has one, else its object's Response.
//
// Why may a store read a shard other than as a Response? On Node a Response of a file is a
// web stream over a file stream, read in 64 KiB chunks, each a promise: a shard of 230 KB
// took 1.2 ms so, most of a cache-cold read at 10,000 skills (0.12× the 1,000-skill
// catalog's), where one readFile is a single call. Measured by hand on that catalog, reads
// spread over 2,000 skills, one client: Node from 1,371 to 2,240 a second, Deno from 2,340
// to 3,022 (Deno.readFile); Bun's Response of a Bun.file is read natively, and a bytes of
// its own was no faster (3,328 before, 2,914 after), so Bun's store has none. Answers
// stream as before: they are sent, not held, and a Response is what a runtime sends.
/** @param {ObjectStore} store @param {string} name @returns {Promise<Uint8Array<ArrayBuffer>>} */
async function shardBytes(store, name) {
	if (store.bytes) {
		const b = await store.bytes(name);
		if (b === null) throw new Error(`index shard ${name}: the store answered 404`);
		return b;
	}
	const r = await store.object(name);
	if (!r.ok) throw new Error(`index shard ${name}: the store answered ${r.status}`);
	return new Uint8Array(await r.arrayBuffer());
}
