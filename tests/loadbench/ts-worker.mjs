// ts-worker.mjs: the official TS SDK v2 skills server as a Cloudflare Workers ES module,
// for the load benchmark: the same handler as ts-server.mjs (ts-handler.mjs: ext-skills
// registered on @modelcontextprotocol/server's per-request McpServer, served by
// createMcpHandler for 2026-07-28 and by WebStandardStreamableHTTPServerTransport for the
// 2025 era, stateless, JSON answers) at /mcp.
//
// The skills come from ./ts-worker-skills.mjs, written beforehand by
//	node embed-skills.mjs SKILLS_DIR ts-worker-skills.mjs
// (ext-skills' discoverSkills snapshot of the folder). Bundle with wrangler.ts-worker.toml.
// It takes Node.js compatibility (ext-skills' server module imports node:fs, node:path
// and node:crypto at its top, and serves file contents with Buffer#toString), which is
// on by default from compatibility date 2026-08-04.
import { Buffer } from "node:buffer";
import embedded from "./ts-worker-skills.mjs";
import { makeHandler, parseBody } from "./ts-handler.mjs";

// The Map discoverSkills returned, with the supporting files' bytes as Buffers again.
const skillMap = new Map(
  embedded.skills.map((skill) => [
    skill.skillPath,
    { ...skill, documents: skill.documents.map((d) => ({ ...d, bytes: Buffer.from(d.bytes, "base64") })) },
  ]),
);
const handle = makeHandler(skillMap, embedded.skillsDir);

export default {
  async fetch(request) {
    if (new URL(request.url).pathname !== "/mcp") return new Response(null, { status: 404 });
    if (request.method !== "POST") return handle(request);
    // Read the body once and hand the SDK the parsed JSON; a body that is not JSON goes
    // back into the request for the SDK to answer the error.
    const text = await request.text();
    const parsed = parseBody(text);
    return parsed === undefined ? handle(new Request(request, { body: text })) : handle(request, parsed);
  },
};
