package wasm

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/skilledge/skilledge/runtime/internal/require"
	"github.com/skilledge/skilledge/runtime/pluginbuild"
)

// testModule is a WebAssembly module written out by hand, importing WASI's sched_yield
// as the plugin does: "spin" loops forever, "count" counts to 1000 in a loop and returns
// it, and "nested" runs a loop inside a block inside a loop (with an if, a br_table and a
// call) and returns 7. withGlobal adds a global section of its own (the instrumenter
// appends to it); otherwise it creates one.
func testModule(withGlobal bool) []byte {
	var b []byte
	b = append(b, "\x00asm\x01\x00\x00\x00"...)
	section := func(id byte, body ...byte) {
		b = append(b, id)
		b = appendU32(b, uint32(len(body)))
		b = append(b, body...)
	}
	section(1, 2, 0x60, 0, 0, 0x60, 0, 1, 0x7f) // types: () -> (), () -> i32
	imp := []byte{1, 22}
	imp = append(imp, "wasi_snapshot_preview1"...)
	imp = append(imp, 11)
	imp = append(imp, "sched_yield"...)
	section(2, append(imp, 0x00, 1)...) // function 0: sched_yield () -> i32
	section(3, 3, 0, 1, 1)              // functions 1, 2, 3: spin, count, nested
	if withGlobal {
		section(6, 1, 0x7f, 0x01, 0x41, 0x05, 0x0b) // a mutable i32 = 5
	}
	exports := []byte{3}
	for i, name := range []string{"spin", "count", "nested"} {
		exports = append(exports, byte(len(name)))
		exports = append(exports, name...)
		exports = append(exports, 0x00, byte(i+1))
	}
	section(7, exports...)
	spin := []byte{0, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b} // loop br 0 end end
	count := []byte{1, 1, 0x7f,                           // one i32 local
		0x03, 0x40, // loop
		0x20, 0x00, 0x41, 0x01, 0x6a, 0x22, 0x00, // local.get 0; i32.const 1; i32.add; local.tee 0
		0x41, 0xe8, 0x07, 0x48, 0x0d, 0x00, // i32.const 1000; i32.lt_s; br_if 0
		0x0b, 0x20, 0x00, 0x0b} // end; local.get 0; end
	nested := []byte{0,
		0x03, 0x40, 0x02, 0x40, 0x03, 0x40, // loop block loop
		0x41, 0x00, 0x04, 0x40, 0x01, 0x0b, // i32.const 0; if nop end
		0x41, 0x00, 0x0e, 0x01, 0x01, 0x01, // i32.const 0; br_table [1] 1 (out of the block)
		0x0b, 0x0b, 0x0b, // end end end
		0x10, 0x02, 0x1a, // call count; drop
		0x41, 0x07, 0x0b} // i32.const 7; end
	code := []byte{3}
	for _, body := range [][]byte{spin, count, nested} {
		code = appendU32(code, uint32(len(body)))
		code = append(code, body...)
	}
	section(10, code...)
	return b
}

func TestInstrumentDeadline(t *testing.T) {
	for _, withGlobal := range []bool{false, true} {
		ctx := context.Background()
		out, err := instrumentDeadline(testModule(withGlobal))
		require.NoError(t, err)
		rt := wazero.NewRuntime(ctx)
		defer rt.Close(ctx)
		wasi_snapshot_preview1.MustInstantiate(ctx, rt)
		mod, err := rt.Instantiate(ctx, out)
		require.NoError(t, err)
		g, ok := mod.ExportedGlobal(deadlineGlobal).(api.MutableGlobal)
		require.Equal(t, true, ok)

		res, err := mod.ExportedFunction("count").Call(ctx)
		require.NoError(t, err)
		require.Equal(t, uint64(1000), res[0])
		res, err = mod.ExportedFunction("nested").Call(ctx)
		require.NoError(t, err)
		require.Equal(t, uint64(7), res[0])

		// Setting the global stops a loop that would never end.
		time.AfterFunc(50*time.Millisecond, func() { g.Set(1) })
		start := time.Now()
		_, err = mod.ExportedFunction("spin").Call(ctx)
		require.Contains(t, err.Error(), "unreachable")
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("stopped after %v", d)
		}
	}

	// Instrumenting is deterministic, and refuses what it cannot read.
	a, _ := instrumentDeadline(testModule(true))
	b, _ := instrumentDeadline(testModule(true))
	require.Equal(t, string(a), string(b))
	// Rewritten in runs on several goroutines, the same bytes.
	defer func(n int) { instrumentRun = n }(instrumentRun)
	instrumentRun = 1
	c, _ := instrumentDeadline(testModule(true))
	require.Equal(t, string(a), string(c))
	noYield := strings.Replace(string(testModule(true)), "sched_yield", "sched_yielt", 1)
	for _, bad := range [][]byte{nil, []byte("\x00asm\x02\x00\x00\x00"), testModule(true)[:40], []byte(noYield)} {
		_, err := instrumentDeadline(bad)
		require.ErrorIs(t, err, errInstrument)
	}
	simd := testModule(false)
	i := strings.Index(string(simd), "\x0c\x00\x0b\x0b")         // spin's br 0
	simd = append(append(simd[:i:i], 0xfd, 0x0c), simd[i+2:]...) // an opcode it does not know
	_, err := instrumentDeadline(simd)
	require.ErrorIs(t, err, errInstrument)
}

// FuzzInstrumentDeadline: no input makes the instrumenter panic, and whatever wazero
// compiles, instrumented, still compiles.
func FuzzInstrumentDeadline(f *testing.F) {
	f.Add(testModule(false))
	f.Add(testModule(true))
	f.Fuzz(func(t *testing.T, wasm []byte) {
		out, err := instrumentDeadline(wasm)
		if err != nil {
			return
		}
		ctx := context.Background()
		rt := wazero.NewRuntime(ctx)
		defer rt.Close(ctx)
		wasi_snapshot_preview1.MustInstantiate(ctx, rt)
		if _, err := rt.CompileModule(ctx, wasm); err != nil {
			return
		}
		if _, err := rt.CompileModule(ctx, out); err != nil {
			t.Fatalf("the module compiles, instrumented it does not: %v", err)
		}
	})
}

// runawayPlugin builds plugin.wasm with the test-only exports (edge/plugin/testexports.go,
// build tag skilledge_test), once per test binary. It keeps its name section
// (pluginbuild.Flags(true)), by which TestPluginRequestsDoNotAllocate and
// TestAnswersRunWithoutWriteBarrier find the Go runtime's functions.
var runawayPlugin = sync.OnceValues(func() ([]byte, error) {
	src, err := pluginbuild.SourceDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "skilledge-runaway-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "plugin.wasm")
	cmd := exec.Command("go", append(append([]string{"build"}, pluginbuild.Flags(true)...), "-tags", "skilledge_test", "-o", out, pluginbuild.Package)...)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, errors.New(string(msg))
	}
	return os.ReadFile(out)
})

// TestRunawayCall: a call that never returns (the test-only export skilledge_spin) is
// stopped at the deadline; only that request fails, its instance is discarded and the
// next request gets a new one, and requests running meanwhile on the other instance are
// not disturbed. A collection, which stops the world, completes while it runs.
func TestRunawayCall(t *testing.T) {
	wasm, err := runawayPlugin()
	require.NoError(t, err)
	ctx := context.Background()
	p, err := Compile(ctx, wasm, Config{})
	require.NoError(t, err)
	defer p.Close(ctx)
	require.Equal(t, true, p.instrumented)
	_, cat := testPlugin(t)
	// Long enough that a collection started 50 ms in finishes well before it, however
	// busy the machine: what is checked is the order, the collection ending while the
	// runaway call still runs (with the world unable to stop, it would end only after).
	const deadline = 2 * time.Second
	pool, err := p.NewPool(ctx, cat, Options{Size: 2, Timeout: deadline})
	require.NoError(t, err)
	defer pool.Close(ctx)

	// Other requests, one at a time, for as long as the runaway runs.
	stop := make(chan struct{})
	var served, failed atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			out, err := pool.HTTP(ctx, postFrame(initialize), nil)
			if err != nil || parseResponse(t, out).Status != 200 {
				failed.Add(1)
				continue
			}
			served.Add(1)
		}
	}()
	time.Sleep(50 * time.Millisecond) // both instances made, one serving

	start := time.Now()
	gcDone := make(chan time.Duration, 1)
	time.AfterFunc(50*time.Millisecond, func() {
		runtime.GC()
		gcDone <- time.Since(start)
	})
	err = pool.do(ctx, func(ctx context.Context, in *instance) error {
		fn := in.mod.ExportedFunction("skilledge_spin")
		if fn == nil {
			t.Fatal("the test plugin has no skilledge_spin export")
		}
		return instanceFailureOf(fn.CallWithStack(ctx, in.stack[:]))
	})
	took := time.Since(start)
	close(stop)
	wg.Wait()

	require.ErrorIs(t, err, ErrInstance)
	require.ErrorIs(t, err, ErrTimeout) // which the fronts answer as wire.FailTimeout
	if gc := <-gcDone; gc >= took {
		t.Fatalf("a collection started during the runaway call ended at %v, after the call was stopped at %v: the world could not stop", gc, took)
	}
	if took < deadline || took > deadline+5*time.Second {
		t.Fatalf("the runaway call was stopped after %v, the deadline is %v", took, deadline)
	}
	require.Equal(t, int64(0), failed.Load())
	if served.Load() < 5 {
		t.Fatalf("only %d other requests were served meanwhile", served.Load())
	}
	created, discarded := pool.Stats()
	require.Equal(t, int64(1), discarded)
	out, err := pool.HTTP(ctx, postFrame(initialize), nil)
	require.NoError(t, err)
	requireInitialized(t, parseResponse(t, out).Body)
	t.Logf("stopped after %v; %d requests served meanwhile; %d instances made", took, served.Load(), created)
}

// instanceFailureOf wraps a wazero call error as calls into the plugin do.
func instanceFailureOf(err error) error {
	if err != nil {
		return instanceError(err)
	}
	return nil
}

// A call wazero stopped at its deadline (the fallback for a module without the deadline
// global) fails with ErrTimeout, as one stopped through the global does; other failures
// do not.
func TestInstanceErrorTimeout(t *testing.T) {
	err := instanceError(sys.NewExitError(sys.ExitCodeDeadlineExceeded))
	require.ErrorIs(t, err, ErrInstance)
	require.ErrorIs(t, err, ErrTimeout)
	require.Equal(t, "wasm: plugin instance failed: request timed out", err.Error())
	err = instanceError(errors.New("wasm error: unreachable\nwasm stack trace: ..."))
	require.ErrorIs(t, err, ErrInstance)
	require.Equal(t, false, errors.Is(err, ErrTimeout))
}
