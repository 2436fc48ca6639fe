// Package wire is the contract between the plugin and its hosts: everything a host must do
// the same way as every other host, written down once here and checked by the vectors in
// testdata/, which the Go tests and the JavaScript host's tests (build/host.test.mjs) both
// run. A host rule changes here, in a vector, and in the JavaScript host (build/host.mjs
// and the modules of its roles, build/host/), or not at all.
//
// The plugin (edge/plugin) decides every answer. A host moves bytes and owns only what a
// host can: sockets, the body cap, the wait for an instance, deadlines, the content store
// and splicing, replays, and its own failure answers. This package imports no server code:
// a host imports it and never edge.
//
// # Frames (wire.go)
//
// HTTP requests and responses, and stream-transport messages, cross the boundary as plain
// text any host can write:
//
//	request:    METHOD SP TARGET LF *(NAME ":" SP VALUE LF) LF BODY
//	response:   STATUS LF *(NAME ":" SP VALUE LF) *(REF) LF BODY
//	rpc input:  VERSION LF MESSAGE
//	rpc output: VERSION LF *(REF) REPLY
//	REF:        "@" AT SP SIZE SP NAME LF
//
// TARGET is the request path with its query. A host frames the fields the plugin reads
// (the raw ABI's skilledge_fields) in that order, lowercase, a repeated
// field's values joined by ", " (AppendRequestHead), so that one request is always the
// same bytes. The plugin compares names case-insensitively (ASCII only: EqualFold). Names
// and values never contain LF (HTTP forbids it). A response's STATUS is three digits, 200
// to 599 (a final status), with no BODY and no REF for 204, 205 and 304; its header names
// are HTTP tokens, which never start with "@". BODY runs to the
// end of the frame. An rpc frame carries one JSON-RPC message (or batch) of a stream
// transport: VERSION is the protocol version negotiated so far on the connection (empty
// before initialize) going in, and the one to remember coming out; an empty REPLY means
// nothing is to be sent. Decoding copies nothing: every string or slice aliases the frame.
//
// # References (ref.go)
//
// File contents never cross the boundary: a response's REF lines name content-store
// objects (by the hex SHA-256 of their bytes) that the host splices into the body. AT and
// SIZE are canonical decimals below 2^53, offsets never decrease and never pass the body's
// end, and objects at one offset go in the order listed. A host checks every object of an
// answer (present, of the size named) before the first byte goes out, and answers
// FailStore otherwise, so that a client never gets a truncated body. A response frame that
// does not parse is the plugin's failure: the host answers FailInstance and discards the
// instance.
//
// So a resources/read answer is framed as
//
//	200
//	Content-Type: application/json
//	@75 14 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
//
//	{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"…","mimeType":"…","text":}]}}
//
// and the client receives the body with the 14 bytes of that object (a JSON string) at
// offset 75, and a Content-Length of the body's length plus the objects' sizes.
//
// # Replays (replay.go)
//
// The plugin marks the answers a host may give again to a request that differs only in
// its JSON-RPC id (Replay, Hint), and says where the id lies in both frames; a host that
// keeps them (ReplayEntry) answers such a request without calling the plugin. An entry
// keeps the answer's references whole (a packed one with its pack and offset) and as its
// own copies: the frame they were read from is the plugin's memory, which its next answer
// overwrites. A promise may carry an expiry (Hint.Expires), after which the host keeps
// and answers nothing.
// Answers to callers the auth option let in are replayed too, and never to another
// caller or after the credential expires: the request frame holds the credential verbatim
// (Authorization, and the access field), so an entry is keyed by the credential that
// earned it, and its expiry is the credential's (a token's exp; earlier by the ttlMs the
// answer carries, so that an answer given again is kept by the caller no longer than the
// credential holds), or a minute after the answer when that comes first, so that a key
// withdrawn or a static key taken out is heeded within a minute.
//
// # Facts (facts.go)
//
// With each answer the plugin says what it was (Facts: the route, the MCP method and
// revision, the skill concerned and what of it was read, the JSON-RPC error code, and,
// under the auth option, the caller), for the host's metrics, logs and traces; the raw
// ABI's skilledge_facts gives them after skilledge_http, as lines "NAME SP VALUE"
// (AppendFacts, ParseFacts). A host adds what it knows itself (the status, the bytes, the
// time, whether a replay answered), keeps the facts with an answer it keeps to replay and
// counts each replay with them, and asks for none when it records nothing. Facts never
// hold a token, a body or a file's contents, name only a skill the caller may see, and
// name only methods and revisions the server knows; facts that do not parse are counted
// as none (telemetry never fails a request).
//
// # Key sets (keys.go)
//
// The auth option may name signing key sets (JWKS documents, RFC 7517 §5) by URL
// (auth.jwt.jwksUri, auth.access.certsUrl), which the plugin cannot fetch. The plugin
// names them, validates what it is given and checks every token itself; a host only
// brings bytes, on one schedule on every host (KeysState), and with an inline key set
// (auth.jwt.jwks) or none at all it fetches nothing.
//
// The plugin's side (edge/plugin), after load: the keys-wanted export lists the URLs of
// the sets it wants, one a line: every URL the options name, until the host gives it a
// set from there, and, once, a URL from which a token named a key (a kid) that the set
// lacks since the export last listed it, as when the issuer rotated its keys. A miss is
// listed once because the host's fetch answers it, even when the fetch brings the set
// the plugin has (the host then gives nothing): only another token naming a key the set
// lacks asks again, never a request with no credential or a bad one. The keys
// export takes a set, framed as the URL, LF, and the document as fetched (AppendKeys); it
// fails, keeping the previous set, for a URL the options do not name or a document that is
// no key set, and the host logs that. Without a set, every token it would verify is
// refused like any invalid credential (401, nothing said about why): the plugin fails
// closed.
//
// The host's side, for each URL the plugin names after load:
//
//   - It fetches the set at once, and again in the background once the set is no longer
//     fresh (Due). A failed fetch of a set that is due (none in hand, or a stale one) is
//     tried again in the background, without waiting for a request, after KeysRetry,
//     doubling for each failure in a row up to KeysRefetch (KeysState.Pause), and the log
//     says when a set arrives. A set is fresh for KeysAge of its response's Cache-Control and Age
//     fields: max-age between KeysMinAge and KeysMaxAge, KeysDefaultAge without one. A set
//     that no fetch refreshed for KeysMaxAge after it went stale is given up (Expired): the
//     host gives the plugin EmptyKeySet, and says so in its log.
//   - When the plugin answers a request 401, the host asks for the URLs wanted. It fetches
//     each it may fetch now (Refetch), and if that brought a set other than the one the
//     plugin has, gives it and asks the plugin once more, with the same request frame; the
//     client gets that second answer. A host never fetches one URL twice within
//     KeysState.Pause, whatever the reason (KeysRefetch after a fetch that brought a set),
//     so tokens with made-up kids cost the issuer one request per KeysRefetch, and a
//     request at most one fetch and one retry.
//   - Every instance gets the set in hand before its next request, instances created
//     later included.
//   - A fetch is a GET with Accept: KeysAccept (and Cache-Control: no-cache when the
//     plugin wants a set again because the one it has lacked a key, so that no cache on
//     the way answers with that one), ended after
//     KeysTimeout; it fails for a status other than 200 or a body over KeySetMax bytes, and
//     follows at most KeysRedirects redirects, each one KeysRedirect allows (never away
//     from https). A failed fetch keeps the set in hand, if any, and goes to the host's
//     log (stderr) with why.
//
// The raw ABI has skilledge_keys_wanted and skilledge_keys, the Extism ABI keys_wanted and
// keys (edge/plugin's doc).
//
// # Index shards (need.go)
//
// The index of a large catalog is sharded (package catalog, shards.go): the plugin loads
// its root, and the rest are store objects it reads when a request needs them. Instead of
// an answer, skilledge_http and skilledge_rpc may then output
//
//	NEED LF 1*(SIZE SP NAME LF)
//
// naming the shards the request reads and the plugin does not hold. The host reads each
// from its store, checks that it hashes to NAME, gives it with skilledge_give ("NAME LF
// BYTES"), and calls the same export again with the same input, at most MaxNeedRounds
// rounds; an object it cannot read, one that does not match NAME, one the plugin refuses,
// or a plugin still in need is FailInstance, and only the request fails. NEED is never replayed and has no facts. An instance keeps at most
// ShardBudget bytes of shards, so a host sizes its memory for the root and that much. The
// Extism ABI has no NEED: shards are objects a host puts, and one not put is answered as
// any missing object is.
//
// # Options, limits, failures, notifications
//
// Options (options.go) are the JSON object of the configure export. The limits (limits.go)
// bound a request's work and size an instance's memory (MaxReply), and bound a host's
// replays. Failure (failure.go) is a host's own answer when the plugin cannot give one,
// one shape on every host. ListChangedNotifications (notify.go) are what a host that swaps
// catalogs sends on its stream connections.
package wire
