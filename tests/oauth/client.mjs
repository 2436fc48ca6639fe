// client.mjs: the official TypeScript SDK v2 client (@modelcontextprotocol/client, pinned in
// build/package.json) with its own OAuth support, against a skilledge server that is an
// OAuth resource server, for the end-to-end tests.
//
//	node client.mjs URL SPEC
//
// SPEC is a JSON object:
//
//	{"flow": "client_credentials", "clientId": "reader", "clientSecret": "…",
//	 "issuer": "http://127.0.0.1:PORT",   the authorization server the credentials are for
//	 "scope": "skills:finance",           optional: asked for besides the SDK's own choice
//	 "era": "default" | "modern",         the legacy initialize handshake, or pinned 2026-07-28
//	 "probes": [{"read": URI} | {"get": URI} | {"call": TOOL, "arguments": {…}}, …]}
//
//	{"flow": "authorization_code", "clientId": "app", "issuer": …,
//	 "redirectUrl": "http://127.0.0.1/callback", "login": "alice", …}
//
// Nothing of OAuth is done here by hand: the transport gets the 401, and the SDK reads its
// WWW-Authenticate, fetches the RFC 9728 metadata it names, discovers the authorization
// server (RFC 8414, else OpenID Connect discovery), asks for a token for the resource the
// metadata names (RFC 8707) and retries. The scopes it asks for are its own choice (the
// 401's scope, else the metadata's scopes_supported), with SPEC's scope added: a client
// that may hold more than a server's challenge names asks for it, as a host configured with
// the scopes it wants does. For the authorization code flow (PKCE S256), the provider's
// redirectToAuthorization plays the user's browser: it follows the redirects with a cookie
// jar, signs in on the authorization server's page with SPEC's login and consents, and
// stops at the redirect to redirectUrl, whose parameters go to transport.finishAuth; then
// the client connects again with the token, as a host does after its callback.
//
// Then it lists the skills (skills/list, every page) and the resources, reads every file
// of every skill listed (resources/read) and checks its bytes against the digest and size
// the listing gives, and runs the probes, recording each one's error. It prints one JSON
// object on stdout: {connected, version, http, token, skills, skillUris, resources, files,
// probes} (see report below), or {connected: false, error, http} when the client could not
// connect. http is every request the client made, in order, with its answer's status (and
// for a token request its grant, resource and scope): never a secret or a token. The test
// decides what is right; this script only drives the client.
import { createHash, randomBytes } from "node:crypto";
import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  computeScopeUnion,
} from "../../build/node_modules/@modelcontextprotocol/client/dist/index.mjs";

const [urlArg, specJSON] = process.argv.slice(2);
if (!urlArg || !specJSON) {
  process.stderr.write("usage: node client.mjs URL SPEC\n");
  process.exit(2);
}
const url = new URL(urlArg);
const spec = JSON.parse(specJSON);
const deadline = AbortSignal.timeout((spec.timeoutSeconds ?? 60) * 1000);

// http records every request of the client (the MCP requests, discovery, the token
// requests) and of the sign-in, without credentials.
const http = [];
const log = (entry) => http.push(entry);
function describe(input, init, res) {
  const u = new URL(input instanceof Request ? input.url : String(input));
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  const e = { method: (init?.method ?? "GET").toUpperCase(), url: u.origin + u.pathname, status: res.status };
  if (headers.has("authorization")) e.authorization = headers.get("authorization").split(" ")[0]; // the scheme only
  const challenge = res.headers.get("www-authenticate");
  if (challenge) e.challenge = challenge;
  if (init?.body instanceof URLSearchParams) {
    for (const k of ["grant_type", "resource", "scope"]) if (init.body.has(k)) e[k] = init.body.get(k);
  }
  return e;
}
async function loggingFetch(input, init) {
  const res = await fetch(input, { ...init, signal: init?.signal ?? deadline });
  log(describe(input, init, res));
  return res;
}

// A client_credentials provider that asks for SPEC's scope besides the SDK's choice.
class ClientCredentials extends ClientCredentialsProvider {
  constructor(opts, extra) {
    super(opts);
    this.extra = extra;
  }
  prepareTokenRequest(scope) {
    return super.prepareTokenRequest(computeScopeUnion(scope, this.extra));
  }
}

// An authorization code + PKCE provider for a public client registered beforehand, whose
// user agent is signIn below. Everything is kept in memory: one run is one session.
class AuthorizationCode {
  constructor({ clientId, issuer, redirectUrl, login }) {
    this._clientInfo = { client_id: clientId, issuer };
    this._redirectUrl = redirectUrl;
    this._login = login;
  }
  get redirectUrl() {
    return this._redirectUrl;
  }
  get clientMetadata() {
    return {
      client_name: "skilledge-oauth-test",
      redirect_uris: [this._redirectUrl],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this._clientInfo;
  }
  tokens() {
    return this._tokens;
  }
  saveTokens(t) {
    this._tokens = t;
  }
  state() {
    this._state = randomBytes(16).toString("base64url");
    return this._state;
  }
  saveCodeVerifier(v) {
    this._verifier = v;
  }
  codeVerifier() {
    return this._verifier;
  }
  saveDiscoveryState(s) {
    this._discovery = s;
  }
  discoveryState() {
    return this._discovery;
  }
  async redirectToAuthorization(authorizationUrl) {
    const q = authorizationUrl.searchParams;
    log({
      method: "GET",
      url: authorizationUrl.origin + authorizationUrl.pathname,
      status: 0,
      authorize: Object.fromEntries(["response_type", "client_id", "redirect_uri", "scope", "resource", "code_challenge_method"].filter((k) => q.has(k)).map((k) => [k, q.get(k)])),
    });
    this.callback = await signIn(authorizationUrl, this._redirectUrl, this._login);
    if (this.callback.get("state") !== this._state) throw new Error("sign-in: the callback's state is not the one sent");
  }
}

// signIn plays the user's browser from the authorization URL: it follows redirects with a
// cookie jar, fills and posts the page's form (the login and a password on the sign-in
// page; the consent page has nothing to fill), and returns the parameters of the redirect
// to redirectUrl, which it does not follow.
async function signIn(start, redirectUrl, login) {
  const jar = new Map();
  let target = start;
  let method = "GET";
  let body;
  for (let step = 0; step < 20; step++) {
    if (target.href.startsWith(redirectUrl)) return target.searchParams;
    const headers = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") };
    if (body) headers["content-type"] = "application/x-www-form-urlencoded";
    const res = await fetch(target, { method, body, headers, redirect: "manual", signal: deadline });
    const entry = { method, url: target.origin + target.pathname, status: res.status };
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(";");
      const name = pair.slice(0, pair.indexOf("=")).trim();
      const value = pair.slice(pair.indexOf("=") + 1).trim();
      if (value === "" || attrs.some((a) => /^\s*expires=.*1970/i.test(a))) jar.delete(name);
      else jar.set(name, value);
    }
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      log(entry);
      target = new URL(location, target);
      method = "GET";
      body = undefined;
      continue;
    }
    const html = await res.text();
    const form = /<form[^>]*\baction="([^"]*)"[^>]*\bmethod="post"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
    if (res.status !== 200 || !form) throw new Error(`sign-in: ${res.status} at ${target.pathname} and no form to post: ${html.slice(0, 400)}`);
    const fields = new URLSearchParams();
    for (const [input] of form[2].matchAll(/<input\b[^>]*>/gi)) {
      const attr = (a) => new RegExp(`\\b${a}="([^"]*)"`, "i").exec(input)?.[1];
      const name = attr("name");
      if (!name) continue;
      fields.set(name, name === "login" ? login : attr("type") === "password" ? "not-checked-by-the-test-server" : unescapeHTML(attr("value") ?? ""));
    }
    entry.form = fields.get("prompt") ?? "?";
    log(entry);
    target = new URL(unescapeHTML(form[1]), target);
    method = "POST";
    body = fields;
  }
  throw new Error("sign-in: more than 20 steps");
}

function unescapeHTML(s) {
  return s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&#x27;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

let provider;
switch (spec.flow) {
  case "client_credentials":
    provider = new ClientCredentials({ clientId: spec.clientId, clientSecret: spec.clientSecret, expectedIssuer: spec.issuer }, spec.scope);
    break;
  case "authorization_code":
    provider = new AuthorizationCode(spec);
    break;
  default:
    process.stderr.write(`client.mjs: flow ${spec.flow} is neither client_credentials nor authorization_code\n`);
    process.exit(2);
}

const clientOptions = spec.era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : undefined;
async function connect() {
  const client = new Client({ name: "skilledge-oauth-test", version: "1.0.0" }, clientOptions);
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: loggingFetch });
  try {
    await client.connect(transport);
  } catch (err) {
    err.transport = transport;
    throw err;
  }
  return client;
}

function errorOf(err) {
  let code = err?.code;
  const body = /\{"jsonrpc".*\}$/.exec(String(err?.message));
  if (typeof code !== "number" && body) code = JSON.parse(body[0]).error?.code;
  return { name: err?.name ?? null, code: typeof code === "number" ? code : null, status: err?.data?.status ?? null, message: String(err?.message ?? err) };
}

let client;
try {
  try {
    client = await connect();
  } catch (err) {
    // The authorization code flow leaves connect with UnauthorizedError once the SDK has
    // sent the user to the authorization server: the callback finishes it.
    if (spec.flow !== "authorization_code" || !UnauthorizedError.isInstance(err) || !provider.callback) throw err;
    await err.transport.finishAuth(provider.callback);
    client = await connect();
  }
} catch (err) {
  process.stdout.write(JSON.stringify({ connected: false, error: errorOf(err), http }) + "\n");
  process.exit(0);
}

// The payload of the access token the SDK holds, for the report (not verified here: the
// server does that).
function claims(jwt) {
  try {
    const [h, p] = jwt.split(".");
    const header = JSON.parse(Buffer.from(h, "base64url"));
    const payload = JSON.parse(Buffer.from(p, "base64url"));
    return { typ: header.typ, alg: header.alg, iss: payload.iss, aud: payload.aud, sub: payload.sub, client_id: payload.client_id, scope: payload.scope ?? null };
  } catch {
    return null;
  }
}

// Any result: skills/list is an extension method, which the SDK has no schema for.
const anyResult = { "~standard": { version: 1, vendor: "skilledge-tests", validate: (value) => ({ value }) } };
const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

const report = {
  connected: true,
  version: client.getNegotiatedProtocolVersion(),
  http,
  token: claims(provider.tokens()?.access_token ?? ""),
  grantedScope: provider.tokens()?.scope ?? null,
  skills: [],
  skillUris: [],
  resources: [],
  files: {},
  probes: [],
};
try {
  const entries = [];
  let cursor;
  for (let page = 0; page < 1000; page++) {
    const r = await client.request({ method: "skills/list", params: cursor ? { cursor } : {} }, anyResult);
    entries.push(...r.skills);
    cursor = r.nextCursor;
    if (!cursor) break;
  }
  report.skills = entries.map((s) => s.name);
  report.skillUris = entries.map((s) => s.uri);
  report.resources = (await client.listResources()).resources.map((r) => r.uri);
  for (const s of entries) {
    for (const f of s.resources) {
      const r = await client.readResource({ uri: f.uri });
      const c = r.contents.find((x) => x.uri === f.uri) ?? r.contents[0];
      const bytes = c.text !== undefined ? Buffer.from(c.text, "utf8") : Buffer.from(c.blob, "base64");
      const got = "sha256:" + sha256(bytes);
      report.files[f.uri] = { ok: got === f.digest && bytes.length === f.size, digest: f.digest, got, size: bytes.length };
    }
  }
  for (const p of spec.probes ?? []) {
    try {
      if (p.read) await client.readResource({ uri: p.read });
      else if (p.get) await client.request({ method: "skills/get", params: { uri: p.get } }, anyResult);
      else if (p.call) {
        const r = await client.callTool({ name: p.call, arguments: p.arguments ?? {} });
        if (r.isError) {
          report.probes.push({ probe: p, failed: true, toolError: r.content.map((c) => c.text).join("\n") });
          continue;
        }
      }
      report.probes.push({ probe: p, failed: false });
    } catch (err) {
      report.probes.push({ probe: p, failed: true, ...errorOf(err) });
    }
  }
} catch (err) {
  report.error = errorOf(err);
}
report.token = claims(provider.tokens()?.access_token ?? "");
await client.close();
process.stdout.write(JSON.stringify(report) + "\n");
