// Command plugin is skilledge's server as a WebAssembly module: edge.Server behind two sets
// of exports, one for any Extism host and one raw set for hosts we write. Build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o plugin.wasm ./edge/plugin
//
// The result is a WASI reactor: a host instantiates it with wasi_snapshot_preview1, calls
// the export _initialize once, then any of the exports below, one call at a time. Exports
// are not reentrant and an instance is not safe for concurrent calls; hosts run one
// instance per concurrent request. An instance holds no per-connection state: the only
// state is the loaded pack and the options. The module needs no files, arguments or
// network; it writes only to stderr (fd 2), and only when it crashes. A host that caps
// the instance's memory should also set GOMEMLIMIT in its WASI environment a little below
// the cap (the runtime harness uses 90%), so that the Go GC inside collects harder as
// memory fills up instead of growing into the cap.
//
// # Framing (both ABIs)
//
// HTTP requests and responses cross as wire frames (package edge/wire):
//
//	request:  METHOD SP TARGET LF *(NAME ":" SP VALUE LF) LF BODY
//	response: STATUS LF *(NAME ":" SP VALUE LF) LF BODY
//
// A JSON-RPC message from a stream transport (stdio) crosses as
//
//	rpc input:  VERSION LF MESSAGE
//	rpc output: VERSION LF [REPLY]
//
// where the input VERSION is the protocol version negotiated earlier on the connection
// (empty before initialize), MESSAGE is one JSON-RPC message or batch, the output VERSION
// is the one to remember for the next message, and REPLY is empty when nothing is to be
// sent (notifications, responses). Neither MESSAGE nor REPLY has a trailing newline.
//
// Options are a JSON object decoded by edge.ParseOptions, every key optional; an unknown
// key or a wrongly typed value is an error, and each call replaces all options (absent
// keys take edge's defaults):
//
//	{"endpoint":"/mcp", "allowOrigins":["*"], "allowHosts":["*"], "maxBody":1048576,
//	 "pageSize":100, "instructions":"...", "name":"skilledge", "version":"0.1.0"}
//
// # Extism ABI (extism.go)
//
// Each export is func() i32, reads its input with the Extism input functions, writes its
// output with output_set, and on failure sets the error with error_set and returns 1
// (0 on success). The module imports extism:host/env, as go-pdk does.
//
//	load       input: pack bytes. Opens the pack (validated; the input is the plugin's own
//	           copy) and builds the server.
//	           May be called again to replace the catalog; on error the previous one stays.
//	configure  input: options JSON. May come before or after load.
//	http       input: request frame; output: response frame. Before load the response is
//	           503 with a text/plain body saying no catalog is loaded.
//	rpc        input: rpc frame; output: rpc frame. Before load it fails.
//
// # Raw ABI (raw.go)
//
// The same operations without host functions in the data path: the host writes the input
// into the module's linear memory and reads the output from it. Pointers are linear-memory
// addresses; a "packed" result is ptr<<32 | len.
//
//	skilledge_alloc(size u32) u32          a buffer of size bytes for the next input; valid
//	                                       until the next call of any skilledge_* export
//	skilledge_load(ptr, size u32) u32      0 ok, 1 error; the plugin keeps that buffer as
//	                                       the pack (the host must not write to it again)
//	skilledge_configure(ptr, size u32) u32 0 ok, 1 error
//	skilledge_http(ptr, size u32) u64      packed response frame; 0 on error
//	skilledge_rpc(ptr, size u32) u64       packed rpc output; 0 on error
//	skilledge_error() u64                  packed message of the last error
//
// So each call that takes input is preceded by its own skilledge_alloc, and (ptr, size)
// must be the buffer that call returned, or a prefix of it; anything else is an error.
// Outputs are valid until the next skilledge_* call, so the host copies them out first. A
// successful output is never empty, so 0 unambiguously means an error. skilledge_error
// keeps the last message until the next error (0 if there was none).
//
// # Failure
//
// A Go panic or fatal error (such as running out of memory) inside an export is not
// recovered: the Go runtime prints it on stderr and executes the wasm unreachable
// instruction, which the host sees as a trap. The instance is then unusable, and the host
// discards it; only the request it was serving is affected. Recovering instead would keep
// an instance whose state a half-run export may have left inconsistent.
package main

import (
	"bytes"
	"errors"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge"
	"github.com/skilledge/skilledge/edge/wire"
)

// state is everything an instance holds between calls.
var (
	pack *catalog.Pack
	srv  *edge.Server
	opts edge.Options
)

// rpcBuf is reused for rpc replies, which are written after the version line.
var rpcBuf []byte

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

// loadPack opens b, which the plugin owns from now on, and rebuilds the server.
func loadPack(b []byte) error {
	p, err := catalog.Open(b)
	if err != nil {
		return err
	}
	pack = p
	srv = edge.New(pack, opts)
	return nil
}

// configure replaces the options with those in the JSON object b.
func configure(b []byte) error {
	o, err := edge.ParseOptions(b)
	if err != nil {
		return errors.New("skilledge: configure: " + err.Error())
	}
	opts = o
	if pack != nil {
		srv = edge.New(pack, opts)
	}
	return nil
}

// serveHTTP answers one request frame, appending the response frame to dst.
func serveHTTP(dst, frame []byte) []byte {
	if srv == nil {
		return append(dst, noCatalog...)
	}
	req, err := wire.ParseRequest(frame)
	if err != nil {
		return wire.AppendResponse(dst, &wire.Response{
			Status: 400,
			Header: wire.Header{{Name: "Content-Type", Value: "text/plain; charset=utf-8"}},
			Body:   []byte("skilledge: malformed request frame from the host\n"),
		})
	}
	return srv.AppendHTTP(dst, &req)
}

// handleRPC answers one rpc frame, appending the output frame to dst.
func handleRPC(dst, frame []byte) ([]byte, error) {
	if srv == nil {
		return nil, errNoCatalog
	}
	i := bytes.IndexByte(frame, '\n')
	if i < 0 {
		return nil, errors.New("skilledge: rpc input has no version line")
	}
	reply, negotiated := srv.AppendMessage(rpcBuf[:0], string(frame[:i]), frame[i+1:])
	if reply != nil {
		rpcBuf = reply
	}
	dst = append(dst, negotiated...)
	dst = append(dst, '\n')
	return append(dst, reply...), nil
}
