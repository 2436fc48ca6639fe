package front

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/internal/require"
	"github.com/skilledge/skilledge/runtime/pluginbuild"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// The tests below serve the real plugin, built from this module's source once per test
// binary (and cached across runs by pluginbuild.Ensure), with the example catalog.
var shared struct {
	once   sync.Once
	wasm   []byte
	plugin *wasm.Plugin
	cat    wasm.Catalog
	err    error
}

// testPlugin returns the compiled plugin and the example catalog (its index, and its
// store held in memory).
func testPlugin(t testing.TB) (*wasm.Plugin, wasm.Catalog) {
	t.Helper()
	shared.once.Do(func() {
		ctx := context.Background()
		path, err := pluginbuild.Ensure(ctx, pluginbuild.Full, os.Stderr)
		if err != nil {
			shared.err = err
			return
		}
		if shared.wasm, err = os.ReadFile(path); err != nil {
			shared.err = err
			return
		}
		if shared.plugin, err = wasm.Compile(ctx, shared.wasm, wasm.Config{}); err != nil {
			shared.err = err
			return
		}
		c, problems, err := compile.LoadDir("../../catalog/examples/skills", compile.Options{})
		if err != nil || compile.HasErrors(problems) {
			shared.err = fmt.Errorf("example catalog: %v %v", err, problems)
			return
		}
		enc, err := compile.Encode(c)
		if err != nil {
			shared.err = err
			return
		}
		shared.cat = wasm.Catalog{Index: enc.Index, Store: enc.Store}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.plugin, shared.cat
}

func testPool(t testing.TB, opt wasm.Options) *wasm.Pool {
	t.Helper()
	p, pack := testPlugin(t)
	pool, err := p.NewPool(context.Background(), pack, opt)
	require.NoError(t, err)
	t.Cleanup(func() { pool.Close(context.Background()) })
	return pool
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

// postFrame returns the request frame of a POST of body to /mcp.
func postFrame(body string) []byte {
	r := &wire.Request{Method: "POST", Target: "/mcp", Body: []byte(body)}
	for _, h := range [][2]string{{"Host", "localhost:8787"}, {"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"}} {
		r.Header = append(r.Header, wire.Field{Name: h[0], Value: h[1]})
	}
	return wire.AppendRequest(nil, r)
}

func requireInitialized(t testing.TB, body []byte) {
	t.Helper()
	if !strings.Contains(string(body), `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("not an initialize result: %s", body)
	}
}
