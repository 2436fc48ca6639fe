package wasm

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/internal/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// The cost of one call across the plugin boundary for a tiny message (a ping on a
// stdio connection), through the raw ABI and through the Extism ABI, on one instance.
// BenchmarkPoolRPC adds what every request pays on top: lending an instance and the
// deadline.

var tinyRPC = []byte("2025-06-18\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`)

func benchInstance(b *testing.B) *instance {
	pool := testPool(b, Options{Size: 1})
	in, err := pool.acquire(context.Background())
	require.NoError(b, err)
	b.Cleanup(func() { pool.release(in, nil) })
	return in
}

func BenchmarkBoundaryRaw(b *testing.B) {
	in := benchInstance(b)
	ctx := context.Background()
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = in.callOutput(ctx, in.rpc, tinyRPC, buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBoundaryExtism(b *testing.B) {
	in := benchInstance(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := in.callExtism(ctx, "rpc", tinyRPC); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPoolRPC(b *testing.B) {
	pool := testPool(b, Options{Size: 1})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pool.RPC(ctx, "2025-06-18", tinyRPC[11:]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPoolHTTP(b *testing.B) {
	pool := testPool(b, Options{Size: 1})
	ctx := context.Background()
	req := postFrame(initialize)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = pool.HTTP(ctx, req, buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompile measures compiling plugin.wasm from scratch and with a warm on-disk
// compilation cache. Each op is a whole compile; run with -benchtime=3x.
func BenchmarkCompile(b *testing.B) {
	testPlugin(b)
	ctx := context.Background()
	for _, bc := range []struct{ name, dir string }{{"cold", "-"}, {"cached", b.TempDir()}} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.dir != "-" { // warm the cache
				p, err := Compile(ctx, shared.wasm, Config{CacheDir: bc.dir})
				require.NoError(b, err)
				p.Close(ctx)
			}
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				p, err := Compile(ctx, shared.wasm, Config{CacheDir: bc.dir})
				require.NoError(b, err)
				b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms/compile")
				p.Close(ctx)
			}
		})
	}
}

// BenchmarkPreemption measures what WithCloseOnContextDone (which the per-request
// deadline needs) costs: wazero then calls a check at every loop header, and every Go
// function compiled to wasm starts with a loop. "native" is edge itself, for scale.
func BenchmarkPreemption(b *testing.B) {
	_, cat := testPlugin(b)
	ctx := context.Background()
	http := postFrame(initialize)
	calls := []struct {
		name string
		call func(in *instance)
	}{
		{"empty-call", func(in *instance) { in.lastErr.CallWithStack(ctx, in.stack[:]) }},
		{"rpc-ping", func(in *instance) { in.callOutput(ctx, in.rpc, tinyRPC, nil) }},
		{"rpc-ping-extism", func(in *instance) { in.callExtism(ctx, "rpc", tinyRPC) }},
		{"http-initialize", func(in *instance) { in.callOutput(ctx, in.http, http, nil) }},
	}
	for _, on := range []bool{false, true} {
		for _, c := range calls {
			b.Run(map[bool]string{false: "off/", true: "on/"}[on]+c.name, func(b *testing.B) {
				in := instanceWithPreemption(b, on, cat.Index)
				for b.Loop() {
					c.call(in)
				}
			})
		}
	}
	b.Run("native/rpc-ping", func(b *testing.B) {
		p, err := catalog.Open(cat.Index)
		require.NoError(b, err)
		s := edge.New(p, wire.Options{})
		for b.Loop() {
			s.HandleMessage("2025-06-18", tinyRPC[11:])
		}
	})
}

// instanceWithPreemption returns an instance holding pack, from a runtime of its own with
// WithCloseOnContextDone set to on (the shipped runtime has it on).
func instanceWithPreemption(tb testing.TB, on bool, pack []byte) *instance {
	return rawInstance(tb, context.Background(), wazero.NewRuntimeConfig().
		WithCloseOnContextDone(on).WithCompilationCache(compilationCache(cacheDir(""))), pack)
}

// rawInstance returns an instance of the plugin as built (not instrumented) holding pack,
// from a runtime of its own made with rc and ctx (which may carry a wazero function
// listener factory: it must be there when the module is compiled).
func rawInstance(tb testing.TB, ctx context.Context, rc wazero.RuntimeConfig, pack []byte) *instance {
	testPlugin(tb)
	return rawInstanceOf(tb, ctx, rc, shared.wasm, pack)
}

// rawInstanceOf is rawInstance of the module wasm.
func rawInstanceOf(tb testing.TB, ctx context.Context, rc wazero.RuntimeConfig, wasm, pack []byte) *instance {
	rt := wazero.NewRuntimeWithConfig(ctx, rc.WithMemoryLimitPages(DefaultMemoryLimit/pageSize))
	tb.Cleanup(func() { rt.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	_, err := instantiateHostModule(ctx, rt)
	require.NoError(tb, err)
	compiled, err := rt.CompileModule(ctx, wasm)
	require.NoError(tb, err)
	p := &Plugin{rt: rt, compiled: compiled, cfg: Config{Stderr: io.Discard}, pages: DefaultMemoryLimit / pageSize}
	in, err := p.bareInstance(ctx, nil)
	require.NoError(tb, err)
	require.NoError(tb, in.callStatus(ctx, in.load, pack))
	return in
}

// BenchmarkPoolHTTPFacts: what asking the plugin for an answer's facts adds to a read of a
// SKILL.md (the plugin works the skill out of the URI when asked).
func BenchmarkPoolHTTPFacts(b *testing.B) {
	pool := testPool(b, Options{Size: 1})
	frame := postFrame(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://git-workflow/SKILL.md"}}`)
	for _, c := range []struct {
		name string
		ask  Ask
	}{{"none", 0}, {"hint", AskHint}, {"hint and facts", AskHint | AskFacts}} {
		b.Run(c.name, func(b *testing.B) {
			var out []byte
			for b.Loop() {
				var err error
				out, _, _, _, err = pool.HTTPAnswer(context.Background(), frame, out[:0], nil, nil, c.ask)
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPoolHTTPCold: a cache-cold read, each request a file of a catalog of 6,000 at
// random with an id of its own, through the raw ABI on one instance: the plugin's whole
// per-request path (parse, lookups, splice, copies across the boundary) as `serve
// --replays 0` runs it, without the network. Loading that catalog starts a collection; a
// plugin that left it marking shows here at twice the time (TestAnswersRunWithoutWriteBarrier).
func BenchmarkPoolHTTPCold(b *testing.B) {
	pool := testPoolOf(b, coldCatalog(b), Options{Size: 1})
	frames := coldReads(4096)
	var out []byte
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if out, err = pool.HTTP(context.Background(), frames[i%len(frames)], out[:0]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
