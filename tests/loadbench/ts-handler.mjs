// The "official TS SDK v2 skills server" of the load benchmark, as a web-standard fetch
// handler shared by ts-server.mjs (Node) and ts-worker.mjs (Cloudflare Workers): the
// reference Skills-extension SDK (@olaservo/ext-skills 0.14.0) registered on the v2 MCP
// TypeScript SDK (@modelcontextprotocol/server 2.3.1), served statelessly over Streamable
// HTTP with plain JSON answers.
//
// Module resolution: the packages live in build/node_modules, which is not on
// the lookup path of files under tests/ (Node's ESM ignores NODE_PATH). So this file
// imports them by paths relative to itself (../../build/node_modules/...), which Node
// and wrangler's esbuild both resolve without a symlink, an import map or a flag. The
// server package is imported by the very file its "exports" map gives for `import`
// (dist/index.mjs), so ext-skills' own bare `@modelcontextprotocol/server` import lands
// on the same module instance (McpServer instanceof checks in the SDK depend on it).
import {
  McpServer,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
} from "../../build/node_modules/@modelcontextprotocol/server/dist/index.mjs";
import { registerSkillResources } from "../../build/node_modules/@olaservo/ext-skills/dist/server/index.js";

// makeHandler returns fetch(request, parsedBody?) → Response serving skillMap (what
// ext-skills' discoverSkills returns) for skillsDir (only used by ext-skills' disk
// fallbacks, which a discoverSkills snapshot never reaches).
export function makeHandler(skillMap, skillsDir) {
  // One fresh McpServer per HTTP request, as both SDK entry points require: the README
  // of ext-skills' "Protocol versions" section builds the server in such a factory. The
  // options match what skilledge serves: resources/directory/read, and the SEP-2549
  // cache hints skilledge puts on modern-era skills/list (ttlMs 300000, public).
  const factory = () => {
    const server = new McpServer(
      { name: "ext-skills-reference", version: "0.14.0" },
      { capabilities: { resources: {} } },
    );
    registerSkillResources(server, skillMap, skillsDir, {
      directoryRead: true,
      ttlMs: 300_000,
      cacheScope: "public",
    });
    return server;
  };

  // The 2026-07-28 ("modern") era: the SDK's createMcpHandler, answering with a single
  // JSON body (responseMode "json"; it logs one warning that mid-call notifications are
  // dropped, which no skills method sends). 2025-era requests are routed below instead.
  const modern = createMcpHandler(factory, { legacy: "reject", responseMode: "json" });

  // The 2025 era, stateless: createMcpHandler's own legacy fallback (legacy:
  // "stateless") builds its WebStandardStreamableHTTPServerTransport with only
  // sessionIdGenerator: undefined, so it answers every request as an SSE stream. This
  // is that fallback (createLegacyStatelessFallback in the SDK's dist/index.mjs) with
  // enableJsonResponse: true, routed with the SDK's isLegacyRequest predicate as its
  // documentation shows for a custom legacy leg.
  async function legacy(request, parsedBody) {
    if (request.method !== "POST") {
      return Response.json(
        { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed." }, id: null },
        { status: 405 },
      );
    }
    const server = factory();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
    } finally {
      transport.close().catch(() => {});
      server.close().catch(() => {});
    }
  }

  // parsedBody: the request's JSON body when the caller already parsed it (then
  // neither leg reads the request's body again), else undefined.
  return async function fetch(request, parsedBody) {
    if (await isLegacyRequest(request, parsedBody)) return legacy(request, parsedBody);
    return modern.fetch(request, parsedBody === undefined ? undefined : { parsedBody });
  };
}

// parseBody returns the JSON value of a POST body's text, or undefined when there is
// none or it is not JSON (the SDK then reads the body itself and answers the error).
export function parseBody(text) {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
