// plain-runtime.mjs: the floor of a JavaScript runtime, for the runtimes benchmark
// (tests/runtimes_bench_test.go): a plain server on Deno, Bun or Node that answers each
// request with skilledge's own bytes, the request's id in place, and does nothing else.
//
//	node plain-runtime.mjs ANSWERS.json PORT
//	bun plain-runtime.mjs ANSWERS.json PORT
//	deno run -A plain-runtime.mjs ANSWERS.json PORT
//
// ANSWERS.json maps "METHOD NAME" (the request's Mcp-Method and Mcp-Name header fields) to
// skilledge's answer to that request with id 424242: {headers: [[name, value], …], body}.
// The floor answers with those header fields and that body, the request's id in place:
// the same bytes. Each runtime serves with its own plain server: Deno.serve, Bun.serve,
// node:http. It listens on 127.0.0.1:PORT.
import { readFileSync } from "node:fs";

const args = globalThis.Deno ? Deno.args : process.argv.slice(2);
const [file, port] = args;
const enc = new TextEncoder();
const idAt = '{"jsonrpc":"2.0","id":'.length; // every request body starts so; the id follows
const answers = new Map();
for (const [key, { headers, body }] of Object.entries(JSON.parse(readFileSync(file, "utf8")))) {
	const [before, after] = body.split('"id":424242');
	answers.set(key, { headers, flat: headers.flat(), before: enc.encode(before + '"id":'), after: enc.encode(after) });
}

// answer is the answer to a request for key with body: {headers, flat, out}, or null.
function answer(key, body) {
	const a = answers.get(key);
	if (!a) return null;
	let end = idAt;
	while (end < body.length && body[end] >= 48 && body[end] <= 57) end++;
	const { before, after } = a;
	const out = new Uint8Array(before.length + end - idAt + after.length);
	out.set(before);
	out.set(body.subarray(idAt, end), before.length);
	out.set(after, before.length + end - idAt);
	return { headers: a.headers, flat: a.flat, out };
}

async function fetch(request) {
	const key = request.headers.get("mcp-method") + " " + (request.headers.get("mcp-name") ?? "");
	const a = answer(key, new Uint8Array(await request.arrayBuffer()));
	if (a === null) return new Response("not found", { status: 404 });
	return new Response(a.out, { headers: a.headers });
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
			const a = answer(`${req.headers["mcp-method"]} ${req.headers["mcp-name"] ?? ""}`, Buffer.concat(chunks));
			if (a === null) return res.writeHead(404).end("not found");
			res.writeHead(200, [...a.flat, "Content-Length", String(a.out.length)]).end(a.out);
		});
	}).listen(Number(port), hostname);
}
