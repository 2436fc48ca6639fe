// Package build holds the JavaScript host `skilledge build` writes beside plugin.wasm,
// catalog.pack and assets/: the platform-neutral host (host.mjs, the entries' API, and
// the modules of its roles in host/), the entry modules that use it on each platform
// (Cloudflare Workers, Deno, Bun, Node), and the package.json and deno.json that name the
// Extism JS SDK they import. The directory also holds the Node tooling manifest
// (package.json and its lock) and the test script.
package build

import (
	"embed"
	"fmt"

	"github.com/tidwall/gjson"
)

// WorkerName is the file name the Workers entry module is written under; the root
// wrangler.toml's main points at it.
const WorkerName = "worker.mjs"

// Worker is worker.mjs: the Workers entry module. It imports "@extism/extism" (which the
// root wrangler.toml aliases to the SDK's browser build), "./catalog.pack",
// "./plugin.wasm" and "./host.mjs", and gives the host the ASSETS binding as its
// content store and the Workers fetch (through Cloudflare's cache but when the plugin
// wants a key set again) for the key sets an auth option names.
//
//go:embed worker.mjs
var Worker []byte

// HostName is the file name the host module is written under, beside the entry modules.
const HostName = "host.mjs"

// Host is host.mjs: the platform-neutral JavaScript host's API for the entry modules (the
// Host, which sets up the instance and serves requests with it, startHost, optionsFrom,
// startFailure, storeDir, limits, readsWhole). It imports the modules of the host's roles
// (HostModules), which follow the contract of edge/wire and run its vectors
// (host.test.mjs), and nothing else.
//
//go:embed host.mjs
var Host []byte

// hostFiles holds the modules of build/host/.
//
//go:embed host/*.mjs
var hostFiles embed.FS

// HostModules are the modules host.mjs imports, each written under its Name (a path
// relative to host.mjs, with "/") and importing only the others: the host's roles, as
// runtime/front's files are in Go. Every entry needs them all, and nothing more.
func HostModules() []Entry {
	return []Entry{
		hostModule("frame.mjs", "the host's framing: requests framed, response frames read"),
		hostModule("splice.mjs", "the host's splicing: store objects put into answers"),
		hostModule("replay.mjs", "the host's replays of the answers the plugin marks"),
		hostModule("keys.mjs", "the host's fetches of the key sets an auth option names"),
		hostModule("failure.mjs", "the host's own failure answers"),
		hostModule("plugin.mjs", "the host's calls into the plugin's raw exports"),
		hostModule("need.mjs", "the host's fetches of the index shards the plugin asks for"),
		hostModule("limits.mjs", "the host contract's limits"),
		hostModule("start.mjs", "the host's start: the options an entry gives, a refused start's answer"),
		hostModule("poll.mjs", "the host's poll_oneoff for the plugin, in place of the SDK's WASI shim's"),
		hostModule("facts.mjs", "the facts the plugin gives of each answer"),
		hostModule("telemetry.mjs", "what an entry tells of each answer: log lines, data points, spans"),
	}
}

// hostModule is the Entry of the module named name in build/host/.
func hostModule(name, what string) Entry {
	b, err := hostFiles.ReadFile("host/" + name)
	if err != nil {
		panic(err) // the embed pattern holds every module
	}
	return Entry{"host/" + name, what, b}
}

var (
	//go:embed deno.mjs
	deno []byte
	//go:embed bun.mjs
	bun []byte
	//go:embed node.mjs
	node []byte
	//go:embed package.json
	tooling []byte
	//go:embed package-lock.json
	toolingLock []byte
)

// An Entry is a file build writes beside host.mjs: a module of the host, an entry module
// or a manifest the entries need.
type Entry struct {
	Name, What string
	Data       []byte
}

// Entries are the files build writes beside host.mjs and its modules, in the order it
// reports them: worker.mjs, the entries for Deno, Bun and Node, which each read
// plugin.wasm, catalog.pack and the content store (assets/sha256/) from the folder they
// are in, and take the plugin's options from $SKILLEDGE_OPTIONS; then package.json, which
// names the Extism JS SDK they import, package-lock.json, which pins it at the version
// and integrity build/package-lock.json has (so `npm ci --prefix OUT` installs the bytes
// the tests ran), and deno.json, the configuration `deno serve --config OUT/deno.json`
// reads to resolve it from OUT/node_modules.
//
// Why do the entries load the SDK's browser build on every runtime? The Extism JS SDK's
// package has a build per platform: bun, node (which uses node:wasi, experimental in Node
// 22, and prints a warning on start) and default, the browser build, which needs nothing
// but WebAssembly and the web APIs and which the Worker already runs. Deno resolves the
// package's node condition, and its node:wasi does not run the plugin. One build
// everywhere is one set of behaviours, the one workerd tests. The package's exports name
// only ".", so the entries find the package's entry with
// import.meta.resolve("@extism/extism") (which all three runtimes have) and import
// ../browser/mod.js beside it by URL, which no exports check applies to. The SDK's layout
// is pinned with its version; entries_test.go checks the entries do this, and every e2e
// run would fail at the first request if the file moved.
//
// Why does `build` write `package.json` and `package-lock.json` into `dist/`? The Deno,
// Bun and Node entries import the Extism SDK by name; something must put it where the
// runtime finds it from dist/. Both are read from build/package.json and its lock when
// skilledge is built, so npm ci --prefix dist installs exactly the bytes the tests ran, and
// any platform that installs a package.json (a container, a Node function, Deno Deploy)
// does too. Rejected: npm: specifiers (Deno only; Node and Bun have none), copying the
// SDK into dist/ from the Go binary (a third party's code vendored into ours, unpinned by
// any lockfile), and documenting npm install @extism/extism@1.0.3 (a version to keep in
// step by hand). TestREADMERuntimes runs the README's npm ci --prefix dist (served from
// npm's cache that build/test's install filled, or the registry); the protocol cases' many
// deployments link build/node_modules instead.
func Entries() []Entry {
	return []Entry{
		{WorkerName, "the Cloudflare Workers entry module", Worker},
		{"deno.mjs", "the Deno entry module (deno serve)", deno},
		{"bun.mjs", "the Bun entry module", bun},
		{"node.mjs", "the Node entry module (Node 22 or later)", node},
		{"package.json", "names the Extism JS SDK the entries import", distPackage()},
		{"package-lock.json", "pins it, with its integrity (npm ci --prefix OUT)", distLock()},
		{"deno.json", "Deno's configuration: the SDK from node_modules", []byte("{\n  \"nodeModulesDir\": \"manual\"\n}\n")},
	}
}

// SDKVersion is the version of the Extism JS SDK build/package.json pins.
func SDKVersion() string {
	return gjson.GetBytes(tooling, `dependencies.\@extism/extism`).Str
}

// sdkLock is the Extism JS SDK's entry in build/package-lock.json.
func sdkLock() gjson.Result {
	return gjson.GetBytes(toolingLock, `packages.node_modules/\@extism/extism`)
}

// distLock is OUT/package-lock.json: the SDK, and nothing else (it depends on nothing).
func distLock() []byte {
	sdk := sdkLock()
	return fmt.Appendf(nil, `{
  "name": "skilledge-catalog",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
    "": {
      "name": "skilledge-catalog",
      "dependencies": {
        "@extism/extism": %q
      },
      "engines": {
        "node": ">=22"
      }
    },
    "node_modules/@extism/extism": {
      "version": %q,
      "integrity": %q,
      "license": %q
    }
  }
}
`, SDKVersion(), sdk.Get("version").Str, sdk.Get("integrity").Str, sdk.Get("license").Str)
}

// distPackage is OUT/package.json.
func distPackage() []byte {
	return fmt.Appendf(nil, `{
  "name": "skilledge-catalog",
  "private": true,
  "description": "A skills catalog built by skilledge build: node.mjs, bun.mjs and deno.mjs serve it; worker.mjs is its Cloudflare Worker.",
  "scripts": {
    "start": "node node.mjs"
  },
  "dependencies": {
    "@extism/extism": %q
  },
  "engines": {
    "node": ">=22"
  }
}
`, SDKVersion())
}
