package tests

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/pluginbuild"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// compiledPlugins build (or reuse) each plugin.wasm, the full one and the public one, and
// compile it once per test binary.
var compiledPlugins = map[pluginbuild.Variant]func() (*wasm.Plugin, error){
	pluginbuild.Full:   compileVariant(pluginbuild.Full),
	pluginbuild.Public: compileVariant(pluginbuild.Public),
}

// compiledPlugin is the full plugin, compiled (compiledPlugins).
var compiledPlugin = compiledPlugins[pluginbuild.Full]

func compileVariant(v pluginbuild.Variant) func() (*wasm.Plugin, error) {
	return sync.OnceValues(func() (*wasm.Plugin, error) {
		ctx := context.Background()
		path, err := pluginbuild.Locate(ctx, "", v, os.Stderr)
		if err != nil {
			return nil, err
		}
		module, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return wasm.Compile(ctx, module, wasm.Config{})
	})
}

// wasmTarget is plugin.wasm in the wazero harness: the same bytes `skilledge serve` runs,
// with the references in its answers resolved from the pool's store as the fronts do.
type wasmTarget struct{ pool *wasm.Pool }

func newWasm(t *testing.T, options []byte) target { return newWasmFor(t, options, nil) }

// newWasmFor is newWasm serving the case folder skills (nil: the examples).
func newWasmFor(t *testing.T, options []byte, skills *caseSkills) target {
	return newWasmOf(pluginbuild.Full)(t, options, skills)
}

// newWasmOf is newWasmFor on the plugin of variant v.
func newWasmOf(v pluginbuild.Variant) func(t *testing.T, options []byte, skills *caseSkills) target {
	return func(t *testing.T, options []byte, skills *caseSkills) target {
		return newWasmPlugin(t, v, options, skills)
	}
}

func newWasmPlugin(t *testing.T, v pluginbuild.Variant, options []byte, skills *caseSkills) target {
	enc, err := buildCase(skills)
	if err != nil {
		t.Fatal(err)
	}
	return wasmTargetOf(t, v, options, enc)
}

// wasmTargetOf is plugin variant v in the harness, with options, serving the build enc.
func wasmTargetOf(t *testing.T, v pluginbuild.Variant, options []byte, enc *compile.Encoded) target {
	p, err := compiledPlugins[v]()
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

// TestCasesWasm runs the protocol cases against both plugins, the full one and the public
// one, in the wazero harness. The expected output is the in-process target's: each must
// agree with it byte for byte.
func TestCasesWasm(t *testing.T) {
	for _, v := range pluginbuild.Variants {
		t.Run(v.String(), func(t *testing.T) { runCases(t, newWasmOf(v), false) })
	}
}

// TestPublicPluginRefusesAuth: the public plugin refuses, when configured, an auth option
// the full plugin takes, saying which plugin serves it; without the option both start.
func TestPublicPluginRefusesAuth(t *testing.T) {
	auth := `{"auth":{"resource":"https://skills.example/mcp","tokens":[{"name":"ci","sha256":"` + strings.Repeat("ab", 32) + `","scopes":["skills:read"]}]}}`
	for _, c := range []struct {
		v       pluginbuild.Variant
		options string
		refused string
	}{
		{pluginbuild.Full, auth, ""},
		{pluginbuild.Public, auth, "skilledge's public build, which checks no credentials"},
		{pluginbuild.Public, `{}`, ""},
	} {
		p, err := compiledPlugins[c.v]()
		if err != nil {
			t.Fatal(err)
		}
		enc, err := buildCase(nil)
		if err != nil {
			t.Fatal(err)
		}
		o, err := wire.ParseOptions([]byte(c.options))
		if err != nil {
			t.Fatal(err)
		}
		pool, err := p.NewPool(context.Background(), wasm.Catalog{Index: enc.Index, Store: enc.Store}, wasm.Options{Size: 1, Server: o})
		if pool != nil {
			pool.Close(context.Background())
		}
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s plugin, %s: %v", c.v, c.options, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("%s plugin, %s: %v; want a refusal saying %q", c.v, c.options, err, c.refused)
		}
	}
}
