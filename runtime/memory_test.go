package runtime

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"testing/fstest"

	"github.com/skilledge/skilledge/catalog/build"
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
			c, _, err := build.Load(fsys, "big", build.Options{})
			requireNoError(t, err)
			enc := build.Encode(c)
			pack, cat := enc.Index, Catalog{Index: enc.Index, Store: enc.Store}
			ctx := context.Background()
			limit := MinMemoryLimit(pack, DefaultMaxBody)
			p, err := Compile(ctx, shared.wasm, Config{MemoryLimit: limit, Stderr: io.Discard})
			requireNoError(t, err)
			defer p.Close(ctx)
			pool, err := p.NewPool(ctx, cat, Options{Size: 1})
			requireNoError(t, err)
			defer pool.Close(ctx)
			for round := range 3 {
				for i := range skills {
					body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://s%d/big.bin"}}`, i)
					out, err := pool.HTTP(ctx, postFrame(body), nil)
					requireNoError(t, err, fmt.Sprintf("round %d, skill %d, pack %d MiB, limit %d MiB:", round, i, len(pack)>>20, limit>>20))
					if r := resolved(t, out, enc.Store); r.Status != 200 || len(r.Body) < 20<<20 {
						t.Fatalf("status %d, %d bytes", r.Status, len(r.Body))
					}
				}
			}
			_, failed := pool.Stats()
			requireEqual(t, int64(0), failed)

			_, err = p.NewPool(ctx, cat, Options{Size: 1, MaxBody: 1 << 30})
			requireErrorIs(t, err, ErrMemoryLimit)
		})
	}
}
