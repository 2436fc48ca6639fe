package wasm

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/skilledge/skilledge/runtime/internal/require"
)

// polls counts the plugin's calls of WASI poll_oneoff (a wazero function listener on the
// import) and the sleeps they ask of the clock.
type polls struct {
	mu     sync.Mutex
	calls  int
	sleeps []int64
}

func (p *polls) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	if def.DebugName() == "wasi_snapshot_preview1.poll_oneoff" {
		return pollListener{p}
	}
	return nil
}

type pollListener struct{ p *polls }

func (l pollListener) Before(context.Context, api.Module, api.FunctionDefinition, []uint64, experimental.StackIterator) {
	l.p.mu.Lock()
	l.p.calls++
	l.p.mu.Unlock()
}
func (pollListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}
func (pollListener) Abort(context.Context, api.Module, api.FunctionDefinition, error)    {}

// TestPluginPollsOnlyExpiredClocks: the plugin never asks its host to wait. It polls
// (WASI poll_oneoff) when the Go runtime starts the world again after a collection, once
// the runtime's scavenger has slept on a timer, but only with a timeout of 0; a JavaScript
// host cannot wait inside a synchronous import, and build/host/poll.mjs, the poll_oneoff the
// JavaScript hosts give the plugin, answers only such polls. The clock stands still here,
// as workerd's does within a request (which is what makes the scavenger sleep at every
// collection), and wazero calls the sleep only for a timeout over 0.
func TestPluginPollsOnlyExpiredClocks(t *testing.T) {
	testPlugin(t)
	counted := &polls{}
	ctx := experimental.WithFunctionListenerFactory(context.Background(), counted)
	p, err := Compile(ctx, shared.wasm, Config{CacheDir: "-", Stderr: io.Discard})
	require.NoError(t, err)
	defer p.Close(context.Background())
	const still = int64(1_700_000_000) * 1e9
	p.instanceConfig = func(mc wazero.ModuleConfig) wazero.ModuleConfig {
		return mc.WithNanotime(func() int64 { return still }, 1).
			WithWalltime(func() (int64, int32) { return still / 1e9, 0 }, 1).
			WithNanosleep(func(ns int64) {
				counted.mu.Lock()
				counted.sleeps = append(counted.sleeps, ns)
				counted.mu.Unlock()
			})
	}
	pool, err := p.NewPool(context.Background(), coldCatalog(t), Options{Size: 1})
	require.NoError(t, err)
	defer pool.Close(context.Background())

	// Batches of 64 listings allocate enough that the end of a call collects every few
	// batches (edge/plugin/gc.go); the reads between them are the answers that allocate
	// next to nothing.
	body := `[{"jsonrpc":"2.0","id":0,"method":"skills/list"}` + strings.Repeat(`,{"jsonrpc":"2.0","id":1,"method":"skills/list"}`, 63) + `]`
	batch := frame("POST", "/mcp", body, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
	var out []byte
	for i, f := range coldReads(384) {
		if i%8 == 0 {
			f = batch
		}
		if out, err = pool.HTTP(context.Background(), f, out[:0]); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if r := parseResponse(t, out); r.Status != 200 {
			t.Fatalf("call %d answered %d: %.300s", i, r.Status, r.Body)
		}
	}
	counted.mu.Lock()
	defer counted.mu.Unlock()
	if counted.calls == 0 {
		t.Fatal("the plugin never polled: no collection ran after the scavenger slept, so this test saw nothing of what it is for")
	}
	if len(counted.sleeps) > 0 {
		t.Errorf("the plugin asked its host to wait %d times (%v ns, …): a JavaScript host cannot", len(counted.sleeps), counted.sleeps[0])
	}
	t.Logf("%d polls, each of a clock that had expired", counted.calls)
}
