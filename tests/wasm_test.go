package tests

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/pluginbuild"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// compiledPlugin builds (or reuses) plugin.wasm and compiles it once per test binary.
var compiledPlugin = sync.OnceValues(func() (*wasm.Plugin, error) {
	ctx := context.Background()
	path, err := pluginbuild.Locate(ctx, "", os.Stderr)
	if err != nil {
		return nil, err
	}
	module, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return wasm.Compile(ctx, module, wasm.Config{})
})

// wasmTarget is plugin.wasm in the wazero harness: the same bytes `skilledge serve` runs,
// with the references in its answers resolved from the pool's store as the fronts do.
type wasmTarget struct{ pool *wasm.Pool }

func newWasm(t *testing.T, options []byte) target { return newWasmFor(t, options, nil) }

// newWasmFor is newWasm serving the case folder skills (nil: the examples).
func newWasmFor(t *testing.T, options []byte, skills *caseSkills) target {
	p, err := compiledPlugin()
	if err != nil {
		t.Fatal(err)
	}
	enc, err := buildCase(skills)
	if err != nil {
		t.Fatal(err)
	}
	o, err := wire.ParseOptions(options)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := p.NewPool(context.Background(), wasm.Catalog{Index: enc.Index, Store: enc.Store}, wasm.Options{Size: 1, MaxBody: o.MaxBody, Server: o})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close(context.Background()) })
	return wasmTarget{pool}
}

func (w wasmTarget) HTTP(t *testing.T, frame []byte) []byte {
	out, err := w.pool.HTTP(context.Background(), frame, nil)
	if err != nil {
		t.Fatal(err)
	}
	return resolveFrame(t, out, w.pool.Store())
}

func (w wasmTarget) Message(t *testing.T, version string, line []byte) ([]byte, string) {
	out, err := w.pool.RPC(context.Background(), version, line)
	if err != nil {
		t.Fatal(err)
	}
	return resolveReply(t, out.Message, out.Refs, w.pool.Store()), out.Version
}

// TestCasesWasm runs the protocol cases against the plugin in the wazero harness. The
// expected output is the in-process target's: the two must agree byte for byte.
func TestCasesWasm(t *testing.T) { runCases(t, newWasmFor, false) }
