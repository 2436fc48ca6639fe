// Command plugin is skilledge's server as a WebAssembly module: edge.Server behind two sets
// of exports, one for any Extism host and one raw set for hosts we write. Build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o plugin.wasm ./edge/plugin
//
// (skilledge builds it so with -trimpath -buildvcs=false -ldflags=-s: runtime/pluginbuild),
// and, for catalogs served without the auth option, the public plugin, a quarter lighter,
// with the tag skilledge_public (edge/authz_public.go): it leaves out edge/auth and refuses
// the auth option, and answers everything else as this build does.
//
// Why two ABIs in one module? Any Extism host SDK (Go, JS in workerd, Python, Rust, …)
// must be able to embed the server, so the Extism exports are the public contract. But
// go-pdk moves input and output 8 bytes per host call: a 1 MiB response costs tens of
// times as much through it as through the raw exports (BENCHMARKS.md, "Why two ABIs"; its
// boundary section measures both on every run). Our own hosts therefore use the raw
// exports of the same module: one file, one build, nothing to keep in sync. The cost is
// two small export files.
//
// The result is a WASI reactor: a host instantiates it with wasi_snapshot_preview1, calls
// the export _initialize once, then any of the exports below, one call at a time. Exports
// are not reentrant and an instance is not safe for concurrent calls; hosts run one
// instance per concurrent request. An instance holds no per-connection state: the only
// state is the loaded catalog index, the options and, in the Extism ABI, the store
// objects it was given. The module needs no files, arguments or network; it writes only
// to stderr (fd 2), and only when it crashes. A host that caps the instance's memory
// should also set GOMEMLIMIT in its WASI environment a little below the cap (the runtime
// harness uses 90%), so that the Go GC inside collects harder as memory fills up instead
// of growing into the cap. The plugin collects at the end of a call, never in the
// background (gc.go): a host need not give it idle time.
//
// # The catalog: an index and a content store
//
// `skilledge build` writes the catalog as OUT/catalog.pack, the index (metadata, rendered
// JSON, digests; no file contents), and OUT/assets/sha256/, the content store: one file
// per object, named by the lowercase hex SHA-256 of its bytes (package catalog). The
// plugin loads only the index. Where a response carries contents (resources/read, the
// SEP-2076 instructions, well-known files, archives and indexes) it names the store
// object instead, and whoever holds the store splices the object's bytes in.
//
// # Framing (both ABIs)
//
// HTTP requests and responses, and stream-transport messages, cross as edge/wire frames.
// The grammar, the references to store objects, the replay hint and everything a host
// does with them are written down once, in edge/wire's package doc, with the vectors
// every host runs.
//
// Options are a JSON object decoded by wire.ParseOptions, every key optional; an unknown
// key or a wrongly typed value is an error, and each call replaces all options (absent
// keys take the defaults):
//
//	{"endpoint":"/mcp", "allowOrigins":["*"], "allowHosts":["*"], "maxBody":1048576,
//	 "pageSize":100, "instructions":"...", "name":"skilledge", "version":"0.1.0",
//	 "tools":false, "prompts":false, "listChanged":false, "auth":{…}}
//
// auth (edge/auth.Config) makes every request over HTTP carry a credential; the rpc export,
// for local stream transports, never asks for one: a host that puts rpc on a network must
// not serve a private catalog through it.
//
// # Key sets (both ABIs)
//
// auth may name signing key sets by URL (auth.jwt.jwksUri, auth.access.certsUrl), which
// the module cannot fetch (it has no network). The host fetches them and gives them to
// the plugin, which validates them and checks every token itself; edge/wire's package doc
// ("Key sets") states what a host does, and when, once for every host. In short: after
// load, ask keys_wanted for the URLs (none with an inline key set or without auth); fetch
// each (https, 5 s, 256 KiB) and give it with keys (input: the URL, LF, the document as
// fetched); fetch again when the set is no longer fresh (Cache-Control max-age, clamped to
// [1 min, 1 day], default 10 min); and after an http answer with status 401, ask
// keys_wanted again: a URL it names is a set that lacked the key a token named (a
// rotation), named once for each such miss. Fetch it, if not fetched within the last 30 s,
// give it when it differs from the set given, and then call http again once with the same
// request; the client gets that answer. A failed fetch is tried again after 1 s, doubling
// up to 30 s. Until a set is given, the
// tokens it would verify are refused (401), and the host's log says why. Key sets given
// survive a later load or configure, for the URLs the new options still name.
//
// An Extism host does the same with the keys and keys_wanted exports: for example, with
// the Extism Go SDK,
//
//	plugin.Call("configure", options)
//	plugin.Call("load", index)
//	_, wanted, _ := plugin.Call("keys_wanted", nil)
//	for _, url := range strings.Fields(string(wanted)) {
//		doc := fetch(url) // GET with Accept: application/jwk-set+json, application/json
//		if _, _, err := plugin.Call("keys", append([]byte(url+"\n"), doc...)); err != nil {
//			log.Printf("the key set at %s: %v", url, err)
//		}
//	}
//	_, resp, _ := plugin.Call("http", request)
//	if bytes.HasPrefix(resp, []byte("401")) {
//		// keys_wanted; fetch what it names (at most once per 30 s a URL), keys, http again once
//	}
//
// A host that runs several instances gives every set to each, instances made later
// included.
//
// # Extism ABI (extism.go): self-contained
//
// Each export is func() i32, reads its input with the Extism input functions, writes its
// output with output_set, and on failure sets the error with error_set and returns 1
// (0 on success). The module imports extism:host/env, as go-pdk does. An Extism host has
// no way to splice, so in this ABI the plugin holds the store objects itself and answers
// complete frames, without REF lines.
//
//	load       input: the index (catalog.pack). Opens it (validated; the input is the
//	           plugin's own copy) and builds the server. May be called again to replace
//	           the catalog; on error the previous one stays. Objects put earlier that the
//	           new index refers to stay (they need not be put again); the others are
//	           dropped.
//	configure  input: options JSON. May come before or after load.
//	put        input: one store object (a file of OUT/assets/sha256/). After load. The
//	           plugin names it by its SHA-256 and keeps it; an object the index does not
//	           refer to is an error. Putting an object again is harmless (it is the same
//	           bytes, kept once).
//	http       input: request frame; output: response frame with every object spliced in.
//	           Before load, 503 with a text/plain body saying no catalog is loaded; a
//	           response needing an object that was not put is a text/plain 500 that
//	           names the object, what it holds, and to put every file of the store.
//	rpc        input: rpc frame; output: rpc frame, objects spliced in. Before load, or
//	           when an object was not put, it fails naming it.
//	facts      output: the facts of the last http answer (edge/wire, "Facts"); empty
//	           when there are none.
//	keys_wanted  output: the URLs of the key sets the plugin wants (above), one a line;
//	           empty when it wants none, and before load.
//	keys       input: a URL, LF, and the key set fetched from it. After load. Fails,
//	           keeping the set the plugin had, for a URL the options do not name or a
//	           document that is no JWKS.
//
// Each instance holds its own copy of every object put, so a host running one instance
// per concurrent request holds the store's contents that many times; a host that keeps
// the store once and splices uses the raw ABI instead.
//
// Without configure, the server answers only requests whose Host is a loopback name and
// browsers only from loopback origins (DNS rebinding). A request frame with no host line
// is answered too: no browser sends a request without Host, so it cannot be a rebinding
// attack (allowHosts set to names, without "*", refuses it).
//
// # Raw ABI (raw.go): references
//
// The same operations without host functions in the data path: the host writes the input
// into the module's linear memory and reads the output from it, and the output frames
// carry REF lines for the host to resolve from the store it holds once for all its
// instances (so an instance's memory does not grow with file contents). Pointers are
// linear-memory addresses; a "packed" result is ptr<<32 | len.
//
//	skilledge_alloc(size u32) u32          a buffer of at least size bytes for inputs; valid
//	                                       until the next skilledge_alloc or skilledge_load
//	skilledge_load(ptr, size u32) u32      0 ok, 1 error; the plugin keeps that buffer as
//	                                       the index (the host must not write to it again)
//	skilledge_configure(ptr, size u32) u32 0 ok, 1 error
//	skilledge_http(ptr, size u32) u64      packed response frame; 0 on error
//	skilledge_rpc(ptr, size u32) u64       packed rpc output; 0 on error
//	skilledge_error() u64                  packed message of the last error
//	skilledge_fields() u64                 packed names of the request header fields the
//	                                       server reads, lowercase, one a line; they depend
//	                                       on the options, so ask after configure
//	skilledge_replay() u64                 packed replay of the last skilledge_http answer:
//	                                       16 bytes, four u32 little-endian (below), or 20
//	                                       with a fifth, the expiry; 0 when that answer
//	                                       may not be replayed
//	skilledge_facts() u64                  packed facts of the last skilledge_http answer
//	                                       (wire.AppendFacts: what it was, for the host's
//	                                       telemetry); 0 when there are none; ask before
//	                                       the next input, to which they refer
//	skilledge_keys_wanted() u64            packed URLs of the key sets wanted, one a line
//	                                       (keys_wanted); 0 when none
//	skilledge_keys(ptr, size u32) u32      0 ok, 1 error; input as for keys
//	skilledge_give(ptr, size u32) u32      0 ok, 1 error; input: a store object a NEED
//	                                       output named (below); the plugin keeps that
//	                                       buffer, as for load
//
// So a host allocates an input buffer once and writes each input into it, calling
// skilledge_alloc again only for an input that does not fit, and after skilledge_load;
// (ptr, size) must be that buffer, or a prefix of it; anything else is an error. Each
// request is then one call. Outputs are valid until the next skilledge_* call, so the host
// copies them out first. A successful output is never empty, so 0 unambiguously means an
// error. skilledge_error keeps the last message until the next error (0 if there was
// none). A request frame need carry only the fields skilledge_fields names (the answer
// depends on no other), which saves a host where reading every field costs.
//
// # A sharded index
//
// The index of a large catalog is a root (catalog.pack) and shards, store objects the
// plugin reads when a request needs them and keeps within its budget (shardBudget). A
// request that reads a shard the plugin does not hold is answered, through skilledge_http
// or skilledge_rpc, with a NEED output naming the shards (edge/wire, "Need"): the host
// gives each with skilledge_give and calls again with the same input. In the Extism ABI,
// shards are objects like any other: put them, and http and rpc read them from what was
// put; a request that needs one that was not is answered as for any missing object.
//
// A host may keep answers and give them again (wire.Hint states the promise). After a
// skilledge_http call, skilledge_replay's four numbers (wire.AppendHint) are: where the
// request's id token starts in the request frame, its length, where the answer echoes it
// in the response frame, and the longest request frame the promise holds for; a fifth,
// when there is one, is when the promise expires, in unix seconds (an answer to an
// authenticated caller: its credential's expiry). A request frame that equals the one
// answered except for another id token of the same kind (wire.ReplayableID) at that place,
// and is no longer than that, gets the same response frame with its token at the echo's
// place and every REF after it moved by the difference in length, until the expiry.
//
// # Failure
//
// A Go panic or fatal error (such as running out of memory) inside an export is not
// recovered: the Go runtime prints it on stderr and executes the wasm unreachable
// instruction, which the host sees as a trap. The instance is then unusable, and the host
// discards it; only the request it was serving is affected (500 / -32603).
//
// Why does the plugin not recover panics? A half-run export can leave globals
// inconsistent, and recover plus a 500 would keep serving from a possibly broken instance.
// The one panic it recovers is not a failure: a sharded index's *catalog.Missing, raised
// by a read of a shard the plugin does not hold, which leaves nothing half done (the index
// is only read, and the answer under way is dropped) and becomes a NEED output.
// The next request gets a fresh instance, a matter of milliseconds with a warm compilation
// cache (BENCHMARKS.md, "Why the plugin does not recover panics").
package main

import (
	"bytes"
	"errors"
	"strings"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge"
	"github.com/skilledge/skilledge/edge/wire"
)

// state is everything an instance holds between calls.
var (
	pack *catalog.Pack
	srv  *edge.Server
	opts wire.Options
	// keySets are the key sets the host gave (keys), by URL: a server made again (load,
	// configure) gets them at once, so that no token is refused until the host's next fetch.
	keySets = map[string][]byte{}
)

// reqHeader is the room request frames' header fields are parsed into, reused.
var reqHeader wire.Header

// lastFacts are the facts of the last http answer (edge.Facts), which refer to its
// request frame: the facts exports encode them, and the next http call replaces them.
var lastFacts edge.Facts

var errNoCatalog = errors.New("skilledge: no catalog loaded; call load first")

// noCatalog is the response to HTTP requests before load.
var noCatalog = wire.AppendResponse(nil, &wire.Response{
	Status: 503,
	Header: wire.Header{
		{Name: "Content-Type", Value: "text/plain; charset=utf-8"},
		{Name: "Cache-Control", Value: "no-store"},
	},
	Body: []byte("skilledge: no catalog is loaded\n"),
})

func main() {}

// loadPack opens b, the index, which the plugin owns from now on, and rebuilds the server.
func loadPack(b []byte) error {
	p, err := catalog.OpenWith(b, heldShard, shardBudget)
	if err != nil {
		return err
	}
	if err := edge.Check(opts); err != nil {
		return errors.New("skilledge: load: " + err.Error())
	}
	pack = p
	newServer()
	return nil
}

// newServer makes the server for pack and opts, with the key sets the host gave that the
// options still name.
func newServer() {
	srv = edge.New(pack, opts)
	for url, doc := range keySets {
		if srv.SetKeys(url, doc) != nil {
			delete(keySets, url)
		}
	}
}

// setKeys gives the server the key set in b, a keys input (wire.AppendKeys), and keeps a
// copy for the servers made later.
func setKeys(b []byte) error {
	if srv == nil {
		return errors.New("skilledge: keys: no catalog loaded; call load first")
	}
	url, doc, err := wire.ParseKeys(b)
	if err == nil {
		err = srv.SetKeys(url, doc)
	}
	if err != nil {
		return errors.New("skilledge: keys: " + err.Error())
	}
	keySets[url] = bytes.Clone(doc)
	return nil
}

// keysWanted is edge.Server.KeysWanted, one URL a line; empty before load.
func keysWanted() []byte {
	if srv == nil {
		return nil
	}
	return []byte(strings.Join(srv.KeysWanted(), "\n"))
}

// configure replaces the options with those in the JSON object b.
func configure(b []byte) error {
	o, err := wire.ParseOptions(b)
	if err == nil {
		err = edge.Check(o)
	}
	if err != nil {
		return errors.New("skilledge: configure: " + err.Error())
	}
	opts = o
	if pack != nil {
		newServer()
	}
	return nil
}

// serveHTTP answers one request frame, appending the response frame (with references)
// to dst, and says how the answer may be replayed (wire.Hint).
func serveHTTP(dst, frame []byte) (out []byte, h wire.Hint) {
	lastFacts = edge.Facts{}
	if srv == nil {
		return append(dst, noCatalog...), wire.Hint{}
	}
	pack.Tick()
	defer func() {
		if refs := missing(recover()); refs != nil {
			lastFacts, out, h = edge.Facts{}, wire.AppendNeed(dst[:0], refs), wire.Hint{}
		}
	}()
	req, err := wire.ParseRequestInto(frame, reqHeader)
	reqHeader = req.Header[:0]
	if err != nil {
		return wire.AppendResponse(dst, &wire.Response{
			Status: 400,
			Header: wire.Header{{Name: "Content-Type", Value: "text/plain; charset=utf-8"}},
			Body:   []byte("skilledge: malformed request frame from the host\n"),
		}), wire.Hint{}
	}
	dst, replay, facts := srv.AppendHTTPFacts(dst, &req)
	lastFacts = facts
	return dst, replay.Hint(len(frame) - len(req.Body)) // the body ends the frame
}

// handleRPC answers one rpc input frame, appending the rpc output frame (with
// references) to dst.
func handleRPC(dst, frame []byte) (out []byte, err error) {
	if srv == nil {
		return nil, errNoCatalog
	}
	in, err := wire.ParseRPCInput(frame)
	if err != nil {
		return nil, errors.New("skilledge: rpc input has no version line")
	}
	pack.Tick()
	defer func() {
		if refs := missing(recover()); refs != nil {
			out, err = wire.AppendNeed(dst[:0], refs), nil
		}
	}()
	return srv.AppendRPC(dst, in.Version, in.Message), nil
}

// shardBudget is how many bytes of index shards an instance keeps (catalog.OpenWith).
const shardBudget = wire.ShardBudget

// heldShard is the Loader of a sharded index: the objects an Extism host put, and
// otherwise catalog.ErrMissing, which has the request answered NEED (raw.go, give).
func heldShard(r catalog.Ref) ([]byte, error) {
	if b, ok := objects.byName[r.Name]; ok {
		return b, nil
	}
	return nil, catalog.ErrMissing
}

// missing returns the shards a recovered panic value asks for (a *catalog.Missing: the
// request read a shard of a sharded index the plugin does not hold), or nil for no panic;
// any other panic goes on, and traps (see Failure).
func missing(r any) []catalog.Ref {
	if r == nil {
		return nil
	}
	if m, ok := r.(*catalog.Missing); ok {
		return m.Refs
	}
	panic(r)
}
