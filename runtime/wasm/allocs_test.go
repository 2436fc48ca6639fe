package wasm

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/skilledge/skilledge/runtime/internal/require"
)

// TestPluginRequestsDoNotAllocate holds the plugin to answering common requests without
// allocating inside the wasm: every allocation there grows the instance's Go heap and
// brings the collector, which runs inside the call, into the request's time. Natively the
// same code may not allocate while it does in wasm (a conversion the native compiler keeps
// on the stack), so this counts calls to the plugin's runtime.mallocgc itself, with a
// wazero function listener, after a warm-up request of each kind. The listener finds it
// by name, so the plugin is the one built with its name section (runawayPlugin: the full
// plugin and the test-only exports, which answer no request), not the shipped one.
func TestPluginRequestsDoNotAllocate(t *testing.T) {
	_, cat := testPlugin(t)
	wasm, err := runawayPlugin()
	require.NoError(t, err)
	var mallocs allocCounter
	ctx := experimental.WithFunctionListenerFactory(context.Background(), &mallocs)
	in := rawInstanceOf(t, ctx, wazero.NewRuntimeConfig(), wasm, cat.Index)
	defer in.close()
	if mallocs.hooked == 0 {
		t.Fatal("no function of the plugin is named runtime.mallocgc: the count below would prove nothing")
	}
	require.NoError(t, in.callStatus(ctx, in.configure, (&Options{MaxBody: DefaultMaxBody}).configJSON()))

	modern := func(method, name, params string) []byte {
		body := `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{` + params +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/skills":{}}}}}}`
		h := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream",
			"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", method, "User-Agent", "test/1"}
		if name != "" {
			h = append(h, "Mcp-Name", name)
		}
		return frame("POST", "/mcp", body, h...)
	}
	const file = "skill://git-workflow/SKILL.md"
	for _, c := range []struct {
		name string
		call func() ([]byte, error)
	}{
		{"resources/read", func() ([]byte, error) {
			return in.callOutput(ctx, in.http, modern("resources/read", file, `"uri":"`+file+`",`), nil)
		}},
		{"skills/list", func() ([]byte, error) { return in.callOutput(ctx, in.http, modern("skills/list", "", ""), nil) }},
		{"resources/list", func() ([]byte, error) { return in.callOutput(ctx, in.http, modern("resources/list", "", ""), nil) }},
		{"initialize, 2025-06-18", func() ([]byte, error) { return in.callOutput(ctx, in.http, postFrame(initialize), nil) }},
		{"ping on stdio", func() ([]byte, error) { return in.callOutput(ctx, in.rpc, tinyRPC, nil) }},
	} {
		out, err := c.call() // warm-up: buffers grow to their size here
		require.NoError(t, err)
		if !strings.HasPrefix(string(out), "200\n") && !strings.HasPrefix(string(out), "2025-06-18\n") {
			t.Fatalf("%s: not answered: %.300s", c.name, out)
		}
		mallocs.n, mallocs.first = 0, ""
		for range 3 {
			_, err := c.call()
			require.NoError(t, err)
		}
		if mallocs.n != 0 {
			t.Errorf("%s: %d allocations in 3 requests inside the plugin, first from %s", c.name, mallocs.n, mallocs.first)
		}
	}
}

// allocCounter counts calls to the plugin's runtime.mallocgc and keeps the call stack
// of the first.
type allocCounter struct {
	hooked int
	n      int
	first  string
}

func (a *allocCounter) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	if !strings.HasSuffix(def.DebugName(), ".runtime.mallocgc") {
		return nil
	}
	a.hooked++
	return a
}

func (a *allocCounter) Before(_ context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64, stack experimental.StackIterator) {
	a.n++
	if a.first != "" {
		return
	}
	var names []string
	for stack.Next() {
		names = append(names, stack.Function().Definition().DebugName())
	}
	a.first = fmt.Sprint(names)
}

func (*allocCounter) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}

func (*allocCounter) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}
