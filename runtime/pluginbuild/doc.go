// Package pluginbuild finds the plugin.wasm a harness runs without a binary committed to
// git: a file named on the command line or in $SKILLEDGE_PLUGIN, or else one built from
// the skilledge module's own source with the go command (GOOS=wasip1 GOARCH=wasm
// -buildmode=c-shared), once per distinct source, into the user cache directory.
//
// It owns that build and its cache (<user cache>/skilledge/plugin-<hash>.wasm), and only
// produces a file: it never compiles or runs the module (runtime/wasm does), and imports
// nothing of skilledge beyond the harness's cache folder names.
//
// Why build `plugin.wasm` from source on first run? No binary sits in git, and go run
// ./runtime/cmd/skilledge serve must work on a fresh clone. Committing the wasm would put
// a generated binary under review; go generate would add a step to the quickstart. The
// cache is keyed by a hash of every input of the build (Ensure), since mtimes lie across
// checkouts and a content hash does not. An installed binary without the source takes
// --plugin FILE or $SKILLEDGE_PLUGIN.
//
// Why is the plugin not run through wasm-opt? Measured with binaryen 132 on the full
// plugin (with its name section, as it was built then): -Oz takes the code section down
// 12% and the file 10% (about a fifth of that is the name section, which the build now
// leaves out itself: -ldflags=-s), the gzipped module 1–3%;
// wazero's cold compilation 3–5% faster, its warm one no faster; V8's WebAssembly.compile
// in Node no faster (it compiles lazily); requests no faster (BENCHMARKS.md, "Why not
// wasm-opt"). It needs three feature flags to accept Go's output, and takes about 35 s of
// one core and 320 MB per module, two modules per build: every first run of a clone, every
// release and every test run that builds the plugin would wait for it, and every one would
// need Node and a 104 MB package first. Not worth it for what it gains.
//
// Why is the plugin not pre-initialised with Wizer? Snapshotting the module after
// _initialize would take instantiating in the Worker from tens of milliseconds to under
// one. But the snapshot holds the Go runtime's random state: every instance would start
// with the same generator, hence the same sequence of map seeds, and the same hash key,
// which feeds every map's hash on wasm and is read from the public binary; maps made
// during package initialisation keep their seeds forever. Reseeding is possible only by
// reaching into the runtime's private structures (-checklinkname=0, tied to one Go
// release's layout), and even then the hash key stays as it was. The environment read at
// initialisation (GOMEMLIMIT, which the harness sets) would be frozen too, and the
// monotonic clock's epoch would be Wizer's (BENCHMARKS.md, "Why not Wizer"). No request
// path today puts chosen keys into a map, but that is one change away, and hash flooding
// is the class of bug a server must not be one edit from. Not shipped.
package pluginbuild
