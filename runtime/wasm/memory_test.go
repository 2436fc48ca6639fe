package wasm

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/edge"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/internal/require"
)

// MinMemoryLimit must be enough to serve the largest file, repeatedly, from a catalog
// made of large files: the contents never enter the instance, so the limit the index
// needs (a few MiB) serves 20 MiB answers.
func TestMinMemoryLimitIsEnough(t *testing.T) {
	testPlugin(t)
	for _, skills := range []int{1, 3} {
		t.Run(fmt.Sprint(skills, " skills"), func(t *testing.T) {
			fsys := fstest.MapFS{}
			rnd := rand.NewChaCha8([32]byte{})
			for i := range skills {
				name := fmt.Sprint("s", i)
				fsys[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: Big.\n---\n")}
				data := make([]byte, 15<<20)
				rnd.Read(data) // incompressible and not text: served as base64
				fsys[name+"/big.bin"] = &fstest.MapFile{Data: data}
			}
			c, _, err := compile.Load(fsys, "big", compile.Options{})
			require.NoError(t, err)
			enc, err := compile.Encode(c)
			require.NoError(t, err)
			pack, cat := enc.Index, Catalog{Index: enc.Index, Store: enc.Store}
			ctx := context.Background()
			limit := MinMemoryLimit(pack, DefaultMaxBody)
			p, err := Compile(ctx, shared.wasm, Config{MemoryLimit: limit, Stderr: io.Discard})
			require.NoError(t, err)
			defer p.Close(ctx)
			pool, err := p.NewPool(ctx, cat, Options{Size: 1})
			require.NoError(t, err)
			defer pool.Close(ctx)
			for round := range 3 {
				for i := range skills {
					body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://s%d/big.bin"}}`, i)
					out, err := pool.HTTP(ctx, postFrame(body), nil)
					require.NoError(t, err, fmt.Sprintf("round %d, skill %d, pack %d MiB, limit %d MiB:", round, i, len(pack)>>20, limit>>20))
					if r := resolved(t, out, enc.Store); r.Status != 200 || len(r.Body) < 20<<20 {
						t.Fatalf("status %d, %d bytes", r.Status, len(r.Body))
					}
				}
			}
			_, failed := pool.Stats()
			require.Equal(t, int64(0), failed)

			_, err = p.NewPool(ctx, cat, Options{Size: 1, MaxBody: 1 << 30})
			require.ErrorIs(t, err, ErrMemoryLimit)
		})
	}
}

// maxLine is front.MaxLine, the longest stdio message and so the body cap of a stdio
// pool (package front imports this one, so its tests cannot import it).
const maxLine = 16 << 20

// TestMinMemoryLimitWorstRequests: an instance at MinMemoryLimit survives the worst
// requests edge's bounds allow, repeatedly: batches of MaxBatch skills/list of a catalog
// whose page is most of its index, of reads of a 3 MiB file, and of errors echoing long
// values with ids that fill the body, over HTTP (1 MiB bodies) and stdio (16 MiB lines).
// A batch of three reads once crashed an instance at the smallest limit it accepted.
func TestMinMemoryLimitWorstRequests(t *testing.T) {
	testPlugin(t)
	fsys := fstest.MapFS{}
	for i := range 100 {
		name := fmt.Sprint("s", i)
		fsys[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: Many files.\n---\n")}
		for j := range 60 {
			fsys[fmt.Sprintf("%s/f%d.txt", name, j)] = &fstest.MapFile{Data: []byte(fmt.Sprint(i, j))}
		}
	}
	big := make([]byte, 3<<20)
	rand.NewChaCha8([32]byte{}).Read(big)
	fsys["big/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: big\ndescription: Big.\n---\n")}
	fsys["big/data.bin"] = &fstest.MapFile{Data: big}
	c, _, err := compile.Load(fsys, "worst", compile.Options{})
	require.NoError(t, err)
	enc, err := compile.Encode(c)
	require.NoError(t, err)
	cat := Catalog{Index: enc.Index, Store: enc.Store}
	ctx := context.Background()

	batch := func(n int, elem func(i int) string) string {
		elems := make([]string, n)
		for i := range elems {
			elems[i] = elem(i)
		}
		return "[" + strings.Join(elems, ",") + "]"
	}
	// requests are the worst batches for bodies of at most maxBody bytes.
	requests := func(maxBody int) map[string]string {
		idLen := maxBody/wire.MaxBatch - 400
		echo := func(i int) string {
			id := strings.Repeat("i", idLen/2)
			return `{"jsonrpc":"2.0","id":"` + id + `","method":"resources/read","params":{"uri":"skill://big/` + strings.Repeat("\\u0001", idLen/12) + `"}}`
		}
		return map[string]string{
			"skills/list": batch(wire.MaxBatch, func(i int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"skills/list"}`, i) }),
			"reads": batch(wire.MaxBatch, func(i int) string {
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"skill://big/data.bin"}}`, i)
			}),
			"resources/list": batch(wire.MaxBatch, func(i int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/list"}`, i) }),
			"echoes":         batch(wire.MaxBatch, echo),
		}
	}
	for _, transport := range []struct {
		name    string
		maxBody int
	}{{"http", DefaultMaxBody}, {"stdio", maxLine}} {
		t.Run(transport.name, func(t *testing.T) {
			limit := MinMemoryLimit(cat.Index, transport.maxBody)
			p, err := Compile(ctx, shared.wasm, Config{MemoryLimit: limit, Stderr: io.Discard})
			require.NoError(t, err)
			defer p.Close(ctx)
			pool, err := p.NewPool(ctx, cat, Options{Size: 1, MaxBody: transport.maxBody})
			require.NoError(t, err)
			defer pool.Close(ctx)
			for round := range 3 {
				for name, body := range requests(transport.maxBody) {
					if len(body) > transport.maxBody {
						t.Fatalf("%s: a body of %d bytes", name, len(body))
					}
					what := fmt.Sprintf("round %d, %s (index %.1f MiB, limit %d MiB):", round, name, float64(len(cat.Index))/(1<<20), limit>>20)
					if transport.name == "http" {
						out, err := pool.HTTP(ctx, postFrame(body), nil)
						require.NoError(t, err, what)
						if r := parseResponse(t, out); r.Status != 200 {
							t.Fatalf("%s status %d", what, r.Status)
						}
					} else {
						out, err := pool.RPC(ctx, edge.V20250326, []byte(body))
						require.NoError(t, err, what)
						if len(out.Message) == 0 {
							t.Fatalf("%s no reply", what)
						}
					}
				}
			}
			_, failed := pool.Stats()
			require.Equal(t, int64(0), failed)
		})
	}
}
