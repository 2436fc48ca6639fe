// Package front serves a wasm.Pool to clients, over HTTP (Server.ServeHTTP, a net/http
// Handler) and over the MCP stdio transport (Server.ServeStdio, with Server.Notify for
// notifications between replies). It frames each request (edge/wire), has the pool answer
// it, and writes the answer with the content objects it names spliced in from the pool's
// store; it turns the pool's failures into the host's own answers (wire.Failure); and it
// keeps the answers the plugin says may be given again for another JSON-RPC id, so that a
// request repeating one is answered without calling an instance (the replay cache: one per
// pool, so that a pool swapped in with Server.Swap starts with none).
//
// It also fetches the signing key sets an auth option names by URL (KeySets, which a pool
// is given as its wasm.Keys), on the schedule edge/wire's contract sets.
//
// It owns the connections, the reading of request bodies up to the pool's cap, the replay
// cache, and the key set fetches. It may not touch an instance but through the Pool, open a content store
// (it is given one with the pool), or make a protocol decision: those are the plugin's. It
// imports the contract (edge/wire) and runtime/wasm, never the server (edge) outside
// tests.
package front
