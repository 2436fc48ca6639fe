// Package build holds what `skilledge build` writes for a Cloudflare Workers deployment
// beside plugin.wasm, catalog.pack and assets/: the worker entry module. The directory
// also holds the Node tooling manifest (package.json and its lock) and the test script.
package build

import _ "embed"

// WorkerName is the file name the entry module is written under; the root wrangler.toml's
// main points at it.
const WorkerName = "worker.mjs"

// Worker is worker.mjs: the Workers entry module that pipes fetch events into the plugin
// and splices content-store objects from the ASSETS binding into the responses. It
// imports "./plugin.wasm", "./catalog.pack" and "@extism/extism".
//
//go:embed worker.mjs
var Worker []byte
