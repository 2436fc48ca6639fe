// Package build holds the JavaScript host `skilledge build` writes beside plugin.wasm,
// catalog.pack and assets/: the platform-neutral host module and the Cloudflare Workers
// entry module that uses it. The directory also holds the Node tooling manifest
// (package.json and its lock) and the test script.
package build

import _ "embed"

// WorkerName is the file name the Workers entry module is written under; the root
// wrangler.toml's main points at it.
const WorkerName = "worker.mjs"

// Worker is worker.mjs: the Workers entry module. It imports "@extism/extism" (which the
// root wrangler.toml aliases to the SDK's browser build), "./plugin.wasm",
// "./catalog.pack" and "./host.mjs", and gives the host the ASSETS binding as its
// content store and the Workers fetch (through Cloudflare's cache but when the plugin
// wants a key set again) for the key sets an auth option names.
//
//go:embed worker.mjs
var Worker []byte

// HostName is the file name the host module is written under, beside the entry modules.
const HostName = "host.mjs"

// Host is host.mjs: the platform-neutral JavaScript host (instance set-up, request
// framing, response parsing, splicing store objects, replays, its own failure answers),
// which follows the contract of edge/wire and runs its vectors (host.test.mjs). It
// imports nothing.
//
//go:embed host.mjs
var Host []byte
