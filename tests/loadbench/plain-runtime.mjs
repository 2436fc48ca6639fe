// plain-runtime.mjs: the floor of a JavaScript runtime, for the runtimes benchmark
// (tests/runtimes_bench_test.go): a plain server on Deno, Bun or Node that answers each
// request with skilledge's own bytes, the request's id in place, and does nothing else.
//
//	node plain-runtime.mjs ANSWERS.json PORT
//	bun plain-runtime.mjs ANSWERS.json PORT
//	deno run -A plain-runtime.mjs ANSWERS.json PORT
//
// ANSWERS.json maps "METHOD NAME" (the request's Mcp-Method and Mcp-Name header fields) to
// skilledge's answer to that request with id 424242. Each runtime serves with its own
// plain server: Deno.serve, Bun.serve, node:http. It listens on 127.0.0.1:PORT.
import { readFileSync } from "node:fs";

const args = globalThis.Deno ? Deno.args : process.argv.slice(2);
const [file, port] = args;
const enc = new TextEncoder();
const idAt = '{"jsonrpc":"2.0","id":'.length; // every request body starts so; the id follows
const answers = new Map();
for (const [key, text] of Object.entries(JSON.parse(readFileSync(file, "utf8")))) {
	const [before, after] = text.split('"id":424242');
	answers.set(key, [enc.encode(before + '"id":'), enc.encode(after)]);
}

// answer is the bytes answering body, a request for key, or null.
function answer(key, body) {
	const parts = answers.get(key);
	if (!parts) return null;
	let end = idAt;
	while (end < body.length && body[end] >= 48 && body[end] <= 57) end++;
	const [before, after] = parts;
	const out = new Uint8Array(before.length + end - idAt + after.length);
	out.set(before);
	out.set(body.subarray(idAt, end), before.length);
	out.set(after, before.length + end - idAt);
	return out;
}

async function fetch(request) {
	const key = request.headers.get("mcp-method") + " " + (request.headers.get("mcp-name") ?? "");
	const out = answer(key, new Uint8Array(await request.arrayBuffer()));
	if (out === null) return new Response("not found", { status: 404 });
	return new Response(out, { headers: { "Content-Type": "application/json" } });
}

const hostname = "127.0.0.1";
if (globalThis.Deno) {
	Deno.serve({ hostname, port: Number(port), onListen() {} }, fetch);
} else if (globalThis.Bun) {
	Bun.serve({ hostname, port: Number(port), fetch });
} else {
	const { createServer } = await import("node:http");
	createServer((req, res) => {
		const chunks = [];
		req.on("data", (c) => chunks.push(c));
		req.on("end", () => {
			const out = answer(`${req.headers["mcp-method"]} ${req.headers["mcp-name"] ?? ""}`, Buffer.concat(chunks));
			if (out === null) return res.writeHead(404).end("not found");
			res.writeHead(200, { "Content-Type": "application/json" }).end(out);
		});
	}).listen(Number(port), hostname);
}
