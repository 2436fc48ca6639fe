// Package auth says who is asking: it checks the credential a request carries and gives
// the scopes it grants. It is the server's (the plugin decides every answer); hosts only
// bring it the bytes it cannot fetch itself, the signing key sets.
//
// Three kinds of credential:
//
//   - JWT access tokens from an OAuth 2.1 / OIDC authorization server (RFC 9068 in shape,
//     RFC 8725 in practice): a JWS in compact form, signed with RS256, PS256, ES256 or
//     EdDSA by a key of the issuer's key set (RFC 7517), found by its kid. The issuer must
//     be the one configured, exactly; the audience must hold the configured resource
//     (RFC 8707); exp is required and nbf honoured, each with a bounded skew. Never "none",
//     never an HMAC (a key set is public: an HMAC keyed with it is a forgery anyone can
//     make). Scopes come from "scope" (space-separated), "scp", or a claim the
//     configuration names (such as "groups").
//   - The same tokens as Cloudflare Access sends them, in its own header, signed by the
//     team's certificates, with the application's AUD tag as the audience. They carry no
//     scopes of their own (Access decided who may reach the application): the
//     configuration names the scopes every one grants, and may name a claim as for JWTs.
//   - Static API keys, for CI and agents without OAuth: the configuration holds the
//     SHA-256 of each key (never the key), with a name and scopes.
//
// Every failure is an error wrapping ErrInvalid, and says what was wrong for the log; the
// server answers every one alike (401, invalid_token), so a caller learns nothing from it.
// Nothing here allocates in proportion to anything but the token, which is bounded
// (MaxToken).
package auth
