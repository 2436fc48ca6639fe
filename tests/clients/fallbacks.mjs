// fallbacks.mjs: the official TypeScript SDK v2 client (@modelcontextprotocol/client,
// pinned in build/package.json) against a skilledge server, for tests/fallbacks_e2e_test.go.
//
//	node fallbacks.mjs URL ERA PLAN
//
// ERA is "default" (the client's default options: the legacy initialize handshake) or
// "modern" (pinned to 2026-07-28). PLAN is a JSON object:
//
//	{"load": [{"name": …} | {"uri": …}, …], "read": [uri, …], "list": bool}
//
// It connects, then prints one JSON report on stdout: the negotiated version, the server
// capabilities, the tools and prompts listed (each list call's result, or its error code),
// every load_skill and read_skill_file result (file contents as the SHA-256 of their bytes),
// every prompts/get, and with "list" the URIs listResources() returns with default options.
// The test decides what is right; this script only drives the client.
import { createHash } from "node:crypto";
import { Client, StreamableHTTPClientTransport } from "../../build/node_modules/@modelcontextprotocol/client/dist/index.mjs";

const [url, era, planJSON] = process.argv.slice(2);
const plan = JSON.parse(planJSON);
const options = era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : undefined;
const client = new Client({ name: "skilledge-fallbacks-test", version: "1.0.0" }, options);
await client.connect(new StreamableHTTPClientTransport(new URL(url)));

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

// attempt returns {result} or {code, message} for a call that may fail with a JSON-RPC
// error. On 2026-07-28 an unknown method is an HTTP 404 whose body is the JSON-RPC error,
// which the client reports as an HTTP error quoting the body: code is then the body's.
async function attempt(f) {
	try {
		return { result: await f() };
	} catch (err) {
		let code = err.code;
		const body = /\{"jsonrpc".*\}$/.exec(String(err.message));
		if (typeof code !== "number" && body) code = JSON.parse(body[0]).error?.code;
		return { code: typeof code === "number" ? code : null, message: String(err.message) };
	}
}

// The list methods through request(), which sends whatever the capabilities say: the
// listTools()/listPrompts() helpers return an empty list without asking a server that
// declares no tools or prompts.
const report = {
	version: client.getNegotiatedProtocolVersion(),
	capabilities: client.getServerCapabilities(),
	tools: await attempt(() => client.request({ method: "tools/list", params: {} })),
	prompts: await attempt(() => client.request({ method: "prompts/list", params: {} })),
	loads: [],
	reads: [],
	promptGets: [],
};
if (report.tools.result) {
	// callTool validates structuredContent against the tool's outputSchema (and caches the
	// tool list to do so): listTools() first, as a host does.
	await client.listTools();
	for (const args of plan.load ?? []) {
		const r = await client.callTool({ name: "load_skill", arguments: args });
		report.loads.push({ args, isError: r.isError ?? false, texts: r.content.map((c) => c.text) });
	}
	for (const uri of plan.read ?? []) {
		const r = await client.callTool({ name: "read_skill_file", arguments: { uri } });
		const c = r.content[0];
		const bytes = c.type === "text" ? Buffer.from(c.text, "utf8") : Buffer.from(c.resource.blob, "base64");
		report.reads.push({ uri, isError: r.isError ?? false, type: c.type, mimeType: c.resource?.mimeType ?? null, sha256: sha256(bytes) });
	}
	const listed = await client.callTool({ name: "list_skills", arguments: {} });
	report.listSkills = { text: listed.content[0].text, structured: listed.structuredContent ?? null };
	const found = await client.callTool({ name: "search_skills", arguments: { query: "deploy a service", limit: 1 } });
	report.searchSkills = { isError: found.isError ?? false, types: found.content.map((c) => c.type), links: found.content.filter((c) => c.type === "resource_link").map((c) => c.uri), structured: found.structuredContent ?? null };
}
if (report.prompts.result) {
	for (const p of report.prompts.result.prompts) {
		const r = await client.getPrompt({ name: p.name });
		report.promptGets.push({ name: p.name, role: r.messages[0].role, sha256: sha256(Buffer.from(r.messages[0].content.text, "utf8")) });
	}
}
if (plan.list) {
	const r = await client.listResources();
	report.resources = r.resources.map((x) => x.uri);
}
await client.close();
process.stdout.write(JSON.stringify(report));
