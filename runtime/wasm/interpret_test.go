package wasm

import (
	"context"
	"testing"

	"github.com/skilledge/skilledge/runtime/internal/require"
)

// TestInterpret: the plugin compiled for wazero's interpreter gives the same frames as
// the machine code, byte for byte, for a request of each route.
func TestInterpret(t *testing.T) {
	compiled, cat := testPlugin(t)
	ctx := context.Background()
	interp, err := Compile(ctx, shared.wasm, Config{Interpret: true})
	require.NoError(t, err)
	defer interp.Close(ctx)
	pools := make([]*Pool, 2)
	for i, p := range []*Plugin{compiled, interp} {
		pools[i], err = p.NewPool(ctx, cat, Options{Size: 1})
		require.NoError(t, err)
		defer pools[i].Close(ctx)
	}
	for _, f := range [][]byte{
		postFrame(initialize),
		postFrame(`{"jsonrpc":"2.0","id":2,"method":"resources/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`),
		postFrame(`{"jsonrpc":"2.0","id":3,"method":"skills/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`),
		postFrame(`{"jsonrpc":"2.0","id":4,"method":"nope"}`),
		frame("GET", "/.well-known/agent-skills/index.json", ""),
		frame("GET", "/mcp", ""),
	} {
		want, err := pools[0].HTTP(ctx, f, nil)
		require.NoError(t, err)
		got, err := pools[1].HTTP(ctx, f, nil)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), string(f))
	}
}

// TestCompiled: the mark says a module was compiled with this cache, and only that
// module, only that cache, and only a compilation to machine code.
func TestCompiled(t *testing.T) {
	testPlugin(t) // shared.wasm
	ctx := context.Background()
	dir := t.TempDir()
	other := append([]byte(nil), shared.wasm...)
	other[len(other)-1] ^= 1 // in the last custom section's bytes: another module
	require.Equal(t, false, Compiled(shared.wasm, dir))
	p, err := Compile(ctx, shared.wasm, Config{CacheDir: dir, Interpret: true})
	require.NoError(t, err)
	p.Close(ctx)
	require.Equal(t, false, Compiled(shared.wasm, dir)) // the interpreter leaves no machine code
	p, err = Compile(ctx, shared.wasm, Config{CacheDir: dir})
	require.NoError(t, err)
	p.Close(ctx)
	require.Equal(t, true, Compiled(shared.wasm, dir))
	require.Equal(t, false, Compiled(other, dir))
	require.Equal(t, false, Compiled(shared.wasm, t.TempDir()))
	require.Equal(t, false, Compiled(shared.wasm, "-"))
}
