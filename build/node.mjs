// The Node entry module (Node ≥ 22): plugin.wasm behind the platform-neutral host
// (host.mjs) on node:http, with the content store read from the assets folder beside it.
//
// `skilledge build DIR -o OUT` writes this file to OUT/node.mjs beside OUT/host.mjs,
// OUT/plugin.wasm, OUT/catalog.pack, OUT/assets/ and OUT/package.json, which names the
// Extism JS SDK (`npm install --prefix OUT` installs it); then `node OUT/node.mjs` serves
// OUT on $PORT (default 8787; $HOST, default every address) with the plugin's options
// from $SKILLEDGE_OPTIONS (the JSON object the Worker's SKILLEDGE_OPTIONS is) and an auth
// option from $SKILLEDGE_AUTH. The plugin and the index are loaded once per process. The
// SDK's browser build is the one loaded, as on every platform: it needs only WebAssembly
// and the web APIs, where its Node build would use the experimental node:wasi.
//
// Everything a host does is host.mjs's. This file turns node:http's request into what
// Host.fetch reads (url, method, headers.get, body, arrayBuffer: a Request's members, made
// without the cost of a Request) and the Response it gives back into node:http's answer.
import { createServer } from "node:http";
import { open, readFile } from "node:fs/promises";
import { Readable } from "node:stream";
import { Host, optionsFrom, storeDir } from "./host.mjs";

const here = (name) => new URL(name, import.meta.url);
const { default: createPlugin } = await import(new URL("../browser/mod.js", import.meta.resolve("@extism/extism")));
const options = optionsFrom(process.env.SKILLEDGE_OPTIONS, process.env.SKILLEDGE_AUTH);
const [module, pack] = await Promise.all([readFile(here("plugin.wasm")).then((b) => WebAssembly.compile(b)), readFile(here("catalog.pack"))]);
const host = new Host({ createPlugin, module, pack, options, fetch });

// store reads the content store's objects from OUT/assets/sha256/, each streamed from
// its file with its length (a missing one is a 404).
const store = {
	async object(name) {
		if (!/^[0-9a-f]{64}$/.test(name)) return new Response(null, { status: 404 });
		let file;
		try {
			file = await open(here("assets" + storeDir + name));
		} catch (err) {
			if (err.code === "ENOENT") return new Response(null, { status: 404 });
			throw err;
		}
		const { size } = await file.stat();
		return new Response(Readable.toWeb(file.createReadStream()), { headers: { "Content-Length": String(size) } });
	},
};

// NodeRequest gives Host.fetch the members of a Request it reads.
class NodeRequest {
	constructor(req) {
		this.req = req;
		this.method = req.method;
		// The target as it came: node:http, like a plain server, resolves nothing in it.
		this.url = "http://host" + (req.url.startsWith("/") ? req.url : "/" + req.url);
		this.headers = { get: (name) => req.headersDistinct[name]?.join(", ") ?? null };
		const length = req.headers["content-length"];
		this.body = length === "0" || (length === undefined && req.headers["transfer-encoding"] === undefined) ? null : Readable.toWeb(req);
	}

	async arrayBuffer() {
		const parts = [];
		for await (const part of this.body) parts.push(part);
		return Buffer.concat(parts);
	}
}

const server = createServer(async (req, res) => {
	let response;
	try {
		response = await host.fetch(new NodeRequest(req), store);
	} catch (err) {
		console.error("skilledge:", err);
		res.writeHead(500).end();
		return;
	}
	const headers = [];
	for (const [name, value] of response.headers) headers.push(name, value);
	res.writeHead(response.status, headers);
	if (response.body === null) return res.end();
	try {
		for await (const chunk of response.body) res.write(chunk);
	} catch (err) {
		console.error("skilledge: sending an answer:", err);
		res.destroy(err);
		return;
	}
	res.end();
});
server.keepAliveTimeout = 65_000;
const port = Number(process.env.PORT ?? 8787);
server.listen(port, process.env.HOST, () => {
	const { address, port } = server.address();
	console.log(`skilledge: serving ${new URL("catalog.pack", import.meta.url).pathname} at http://${address.includes(":") ? `[${address}]` : address}:${port}/mcp`);
});
