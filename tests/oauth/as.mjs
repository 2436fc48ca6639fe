// as.mjs: a real OAuth 2.1 / OpenID Connect authorization server for the end-to-end tests,
// oidc-provider (pinned in build/package.json) on 127.0.0.1, issuing RFC 9068 JWT access
// tokens for the resource (RFC 8707) each token request names.
//
//	node as.mjs CONFIG        CONFIG: a JSON object, or @FILE holding one
//
//	{"clients": [
//	   {"id": "reader",  "secret": "…", "scope": "skills:read"},
//	   {"id": "finance", "secret": "…", "scope": "skills:read skills:finance", "alg": "RS256"},
//	   {"id": "app", "grant": "authorization_code", "redirectUris": ["http://127.0.0.1/callback"],
//	    "scope": "skills:read"}],
//	 "alg": "ES256", "ttl": 300, "resources": ["http://127.0.0.1:8787/mcp"], "maxSeconds": 600}
//
// A client's grant is "client_credentials" (the default; a confidential client
// authenticating as its authMethod says, client_secret_basic by default) or "authorization_code"
// (a public client, token_endpoint_auth_method none, PKCE S256 required; the user signs in
// and consents on oidc-provider's own development pages, which any login passes). scope is
// what the client may be granted: a token holds the scopes requested that it allows, and
// drops the others (RFC 6749 §3.3; the token response says which were granted). alg (per
// client, else the top-level one, else ES256) signs its access tokens: RS256, PS256, ES256
// or EdDSA; the key set holds one key of each kind. resources, when given, are the only
// resource indicators accepted (others: invalid_target); by default any absolute http(s)
// URI is. ttl is the access tokens' lifetime in seconds (default 300).
//
// Every access token issued for a resource is a JWT: typ at+jwt, iss the issuer, aud the
// resource, sub the client (client credentials) or the account (authorization code),
// client_id, scope, iat, exp, jti. A token request naming no resource gets an opaque token
// (no audience), which no resource server here accepts.
//
// When listening it prints one JSON line on stdout:
//
//	{"issuer", "jwksUri", "tokenEndpoint", "authorizationEndpoint", "metadata", "openidConfiguration", "algs"}
//
// and serves until its stdin ends, SIGTERM or SIGINT, or maxSeconds (default 600) pass.
// It listens on 127.0.0.1 only, on a port the system picks (or "port" in CONFIG).
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import Provider from "../../build/node_modules/oidc-provider/lib/index.js";

const arg = process.argv[2];
if (!arg) {
  process.stderr.write("usage: node as.mjs CONFIG (a JSON object, or @FILE)\n");
  process.exit(2);
}
const config = JSON.parse(arg.startsWith("@") ? readFileSync(arg.slice(1), "utf8") : arg);
const algs = ["RS256", "PS256", "ES256", "EdDSA"];
const defaultAlg = config.alg ?? "ES256";
const ttl = config.ttl ?? 300;
const maxSeconds = config.maxSeconds ?? 600;
const fail = (msg) => {
  process.stderr.write(`as.mjs: ${msg}\n`);
  process.exit(2);
};
if (!algs.includes(defaultAlg)) fail(`alg ${defaultAlg} is not one of ${algs.join(", ")}`);
if (!Number.isInteger(ttl) || ttl < 1) fail("ttl must be a whole number of seconds");
if (!Array.isArray(config.clients) || config.clients.length === 0) fail("clients must be a non-empty list");

// The clients, as oidc-provider registers them, and what each may be granted. The scopes a
// client may be granted are not its registered scope: oidc-provider would then refuse a
// request naming any other (invalid_scope) instead of granting the allowed part, and
// would want every scope listed in its own scopes_supported. They are the resource
// server's scope for that client (getResourceServerInfo), which filters the request.
const allowed = new Map(); // client_id -> {scope, alg}
const clients = config.clients.map((c) => {
  const grant = c.grant ?? "client_credentials";
  if (typeof c.id !== "string" || !c.id) fail("every client needs an id");
  if (allowed.has(c.id)) fail(`client ${c.id} is listed twice`);
  if (c.alg !== undefined && !algs.includes(c.alg)) fail(`client ${c.id}: alg ${c.alg} is not one of ${algs.join(", ")}`);
  allowed.set(c.id, { scope: c.scope ?? "", alg: c.alg ?? defaultAlg });
  switch (grant) {
    case "client_credentials":
      if (typeof c.secret !== "string" || c.secret.length < 16) fail(`client ${c.id}: a client_credentials client needs a secret of 16 characters or more`);
      return {
        client_id: c.id,
        client_secret: c.secret,
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: c.authMethod ?? "client_secret_basic",
      };
    case "authorization_code":
      if (!Array.isArray(c.redirectUris) || c.redirectUris.length === 0) fail(`client ${c.id}: an authorization_code client needs redirectUris`);
      return {
        client_id: c.id,
        application_type: "native", // loopback http redirect URIs (RFC 8252 §7.3)
        grant_types: ["authorization_code"],
        response_types: ["code"],
        redirect_uris: c.redirectUris,
        token_endpoint_auth_method: "none",
      };
    default:
      fail(`client ${c.id}: grant ${grant} is neither client_credentials nor authorization_code`);
  }
});

// One signing key of each kind, made for this run; the private halves never leave it.
function signingKey(alg) {
  const [type, opts] = {
    RS256: ["rsa", { modulusLength: 2048 }],
    PS256: ["rsa", { modulusLength: 2048 }],
    ES256: ["ec", { namedCurve: "P-256" }],
    EdDSA: ["ed25519", {}],
  }[alg];
  const { privateKey } = generateKeyPairSync(type, opts);
  return { ...privateKey.export({ format: "jwk" }), kid: `${alg.toLowerCase()}-${randomBytes(6).toString("hex")}`, alg, use: "sig" };
}
const jwks = { keys: algs.map(signingKey) };

function resourceAllowed(indicator) {
  if (config.resources) return config.resources.includes(indicator);
  const u = URL.parse(indicator);
  return u !== null && (u.protocol === "https:" || u.protocol === "http:") && u.hash === "";
}

// The listener comes first: the issuer names its port.
const server = createServer();
await new Promise((resolve, reject) => {
  server.once("error", reject);
  server.listen(config.port ?? 0, "127.0.0.1", resolve);
});
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients,
  jwks,
  cookies: { keys: [randomBytes(32).toString("hex")] },
  clientBasedCORS: () => false, // servers and Node clients only: no browser calls it
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  pkce: { required: () => true },
  ttl: { AccessToken: ttl, ClientCredentials: ttl, AuthorizationCode: 60, Interaction: 300, Session: 600, Grant: 600 },
  features: {
    clientCredentials: { enabled: true },
    devInteractions: { enabled: true }, // oidc-provider's sign-in and consent pages
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator, client) => {
        if (!resourceAllowed(indicator)) throw new Provider.errors.InvalidTarget(`resource ${indicator} is not served here`);
        const a = allowed.get(client.clientId);
        return {
          scope: a.scope,
          audience: indicator,
          accessTokenFormat: "jwt",
          accessTokenTTL: ttl,
          jwt: { sign: { alg: a.alg } },
        };
      },
    },
  },
});
provider.on("server_error", (_ctx, err) => process.stderr.write(`as.mjs: server error: ${err.stack ?? err}\n`));
server.on("request", provider.callback());

const u = (p) => new URL(p, issuer + "/").href;
process.stdout.write(
  JSON.stringify({
    issuer,
    jwksUri: u("jwks"),
    tokenEndpoint: u("token"),
    authorizationEndpoint: u("auth"),
    metadata: u(".well-known/oauth-authorization-server"),
    openidConfiguration: u(".well-known/openid-configuration"),
    algs: Object.fromEntries([...allowed].map(([id, a]) => [id, a.alg])),
  }) + "\n",
);

let stopping = false;
function stop(why) {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`as.mjs: stopping (${why})\n`);
  server.closeAllConnections();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
}
process.stdin.on("end", () => stop("stdin closed"));
process.stdin.on("error", () => stop("stdin closed"));
process.stdin.resume();
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
setTimeout(() => stop(`${maxSeconds} s passed`), maxSeconds * 1000).unref();
