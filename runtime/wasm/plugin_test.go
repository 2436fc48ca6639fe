package wasm

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
)

// The tests below run the real plugin, built from this module's source once per test
// binary (and cached across runs by pluginbuild.Ensure), with the example catalog.
var shared struct {
	once   sync.Once
	wasm   []byte
	plugin *Plugin
	cat    Catalog
	err    error
}

// testPlugin returns the compiled plugin and the example catalog (its index, and its
// store held in memory).
func testPlugin(t testing.TB) (*Plugin, Catalog) {
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
		if shared.plugin, err = Compile(ctx, shared.wasm, Config{}); err != nil {
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
		shared.cat = Catalog{Index: enc.Index, Store: enc.Store}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.plugin, shared.cat
}

// resolved is the response frame out with its references resolved from store.
func resolved(t testing.TB, out []byte, store wire.Store) wire.Response {
	t.Helper()
	r := parseResponse(t, out)
	b, err := wire.ResolveResponse(nil, &r, store)
	require.NoError(t, err)
	return parseResponse(t, b)
}

func testPool(t testing.TB, opt Options) *Pool {
	t.Helper()
	_, cat := testPlugin(t)
	return testPoolOf(t, cat, opt)
}

// testPoolOf is testPool serving cat.
func testPoolOf(t testing.TB, cat Catalog, opt Options) *Pool {
	t.Helper()
	p, _ := testPlugin(t)
	pool, err := p.NewPool(context.Background(), cat, opt)
	require.NoError(t, err)
	t.Cleanup(func() { pool.Close(context.Background()) })
	return pool
}

// frame returns a request frame; headers alternate names and values.
func frame(method, target, body string, headers ...string) []byte {
	r := &wire.Request{Method: method, Target: target, Body: []byte(body)}
	r.Header = append(r.Header, wire.Field{Name: "Host", Value: "localhost:8787"})
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header = append(r.Header, wire.Field{Name: headers[i], Value: headers[i+1]})
	}
	return wire.AppendRequest(nil, r)
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

func postFrame(body string) []byte {
	return frame("POST", "/mcp", body, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
}

func parseResponse(t testing.TB, b []byte) wire.Response {
	t.Helper()
	r, err := wire.ParseResponse(b)
	require.NoError(t, err, fmt.Sprintf("frame %q", b))
	return r
}

func requireInitialized(t testing.TB, body []byte) {
	t.Helper()
	if !strings.Contains(string(body), `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("not an initialize result: %s", body)
	}
}
