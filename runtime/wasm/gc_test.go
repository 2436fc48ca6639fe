package wasm

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/runtime/internal/require"
)

// A catalog of coldSkills skills of coldFilesEach files each: its index (about 5 MiB) is
// larger than the Go runtime's first heap goal, so that loading it is what starts the
// plugin's first collection, as loading a real catalog of thousands of files does.
const (
	coldSkills    = 600
	coldFilesEach = 10
)

var cold struct {
	once sync.Once
	cat  Catalog
	err  error
}

// coldCatalog is that catalog, made once per test binary.
func coldCatalog(t testing.TB) Catalog {
	t.Helper()
	cold.once.Do(func() {
		dir, err := os.MkdirTemp("", "skilledge-cold-")
		if err != nil {
			cold.err = err
			return
		}
		defer os.RemoveAll(dir)
		for k := range coldSkills {
			skill := filepath.Join(dir, fmt.Sprintf("s%03d", k))
			if cold.err = os.MkdirAll(skill, 0o755); cold.err != nil {
				return
			}
			md := fmt.Sprintf("---\nname: s%03d\ndescription: Skill %d of the cache-cold catalog.\n---\nRead the files.\n", k, k)
			files := map[string]string{"SKILL.md": md}
			for j := 1; j < coldFilesEach; j++ {
				files[fmt.Sprintf("f%d.md", j)] = fmt.Sprintf("# File %d of skill %d\n\n%s\n", j, k, strings.Repeat("Some text. ", 20))
			}
			for name, body := range files {
				if cold.err = os.WriteFile(filepath.Join(skill, name), []byte(body), 0o644); cold.err != nil {
					return
				}
			}
		}
		c, problems, err := compile.LoadDir(dir, compile.Options{})
		if err != nil || compile.HasErrors(problems) {
			cold.err = fmt.Errorf("cache-cold catalog: %v %v", err, problems)
			return
		}
		enc, err := compile.Encode(c)
		if err != nil {
			cold.err = err
			return
		}
		cold.cat = Catalog{Index: enc.Index, Store: enc.Store}
	})
	if cold.err != nil {
		t.Fatal(cold.err)
	}
	return cold.cat
}

// coldReads returns n request frames, each a resources/read of a file of coldCatalog picked
// at random with an id of its own, as a modern client sends it.
func coldReads(n int) [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	frames := make([][]byte, n)
	for i := range frames {
		k, j := r.IntN(coldSkills), r.IntN(coldFilesEach)
		uri := fmt.Sprintf("skill://s%03d/f%d.md", k, j)
		if j == 0 {
			uri = fmt.Sprintf("skill://s%03d/SKILL.md", k)
		}
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":%q,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, 1_000_000+i, uri)
		frames[i] = frame("POST", "/mcp", body, "Content-Type", "application/json", "Accept", "application/json, text/event-stream",
			"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "resources/read", "Mcp-Name", uri)
	}
	return frames
}

// barrierCalls counts the calls of the Go runtime's write barrier functions inside the
// plugin (a wazero function listener): they run only while a collection is marking.
type barrierCalls struct {
	mu     sync.Mutex
	n      map[string]int
	on     bool
	hooked int // the functions listened to
}

func (b *barrierCalls) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	switch name := def.DebugName(); {
	case strings.Contains(name, "gcWriteBarrier"), strings.HasSuffix(name, "runtime.wbBufFlush"), strings.HasSuffix(name, "runtime.bulkBarrierPreWrite"):
		b.hooked++
		return barrierListener{b, name}
	}
	return nil
}

type barrierListener struct {
	b    *barrierCalls
	name string
}

func (l barrierListener) Before(context.Context, api.Module, api.FunctionDefinition, []uint64, experimental.StackIterator) {
	l.b.mu.Lock()
	if l.b.on {
		l.b.n[l.name]++
	}
	l.b.mu.Unlock()
}
func (barrierListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}
func (barrierListener) Abort(context.Context, api.Module, api.FunctionDefinition, error)    {}

// TestAnswersRunWithoutWriteBarrier: once a catalog large enough to start a collection is
// loaded, the plugin's answers run with the collector's write barrier off. Inside wasm a
// cycle left running when a call returns is finished by nothing but later allocations,
// which answers do not make: every pointer an answer stored then paid the barrier, and a
// cache-cold read took twice as long (edge/plugin/gc.go). The barrier's functions are
// found by name, so the plugin is the one built with its name section (runawayPlugin).
func TestAnswersRunWithoutWriteBarrier(t *testing.T) {
	wasm, err := runawayPlugin()
	require.NoError(t, err)
	calls := &barrierCalls{n: map[string]int{}}
	ctx := experimental.WithFunctionListenerFactory(context.Background(), calls)
	p, err := Compile(ctx, wasm, Config{CacheDir: "-", Stderr: io.Discard})
	require.NoError(t, err)
	defer p.Close(context.Background())
	if calls.hooked == 0 {
		t.Fatal("no function of the plugin is named as the write barrier's: the count below would prove nothing")
	}
	pool, err := p.NewPool(context.Background(), coldCatalog(t), Options{Size: 1})
	require.NoError(t, err)
	defer pool.Close(context.Background())

	calls.on = true
	var out []byte
	for _, f := range coldReads(200) {
		if out, err = pool.HTTP(context.Background(), f, out[:0]); err != nil {
			t.Fatal(err)
		}
		if r := parseResponse(t, out); r.Status != 200 {
			t.Fatalf("a read answered %d: %s", r.Status, r.Body)
		}
	}
	calls.mu.Lock()
	defer calls.mu.Unlock()
	if len(calls.n) > 0 {
		t.Errorf("200 cache-cold reads after load called the write barrier (a collection left marking): %v", calls.n)
	}
}
