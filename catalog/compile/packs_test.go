package compile

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/examples"
)

// TestPackedRefsChecked: Open refuses an index one of whose packed references names a pack
// it does not list, or lies past its pack's end; the examples, packed whole (not sharded),
// open as built.
func TestPackedRefsChecked(t *testing.T) {
	cat, _, err := Load(examples.FS, ".", Options{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := EncodeWith(cat, EncodeOptions{PackBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	p, err := catalog.Open(enc.Index)
	if err != nil {
		t.Fatalf("the packed index as built: %v", err)
	}
	// The packed reference of a resource in the last pack (with an offset), and where it is.
	row, at := -1, 0
	var ref catalog.Ref
	for i := 0; i < p.NumResources(); i++ {
		cell := p.Resource(i, catalog.ResObject)
		if r, err := catalog.ParseRef(cell); err == nil && r.Packed && r.Offset > 0 && (row < 0 || r.Pack > ref.Pack) {
			row, ref = i, r
			at = bytes.Index(enc.Index, cell)
		}
	}
	if row < 0 || at < 0 {
		t.Fatal("no packed reference with an offset in the examples' index")
	}
	// Each case rewrites the digits of PACK or OFFSET in place, so that the cell keeps its
	// length: PACK to nines (no such pack), OFFSET to nines (past the end of its pack).
	cell := enc.Index[at : at+len(p.Resource(row, catalog.ResObject))]
	fields := bytes.Fields(cell)
	packAt := len(fields[0]) + 1 + len(fields[1]) + 1
	offsetAt := packAt + len(fields[2]) + 1
	packs := enc.Store.Packs()
	size := enc.Store.ObjectSize(packs[ref.Pack])
	for _, tc := range []struct {
		name   string
		from   int
		digits int
		ok     bool // the rewritten reference is still a fact of the index (a precondition)
	}{
		{"a pack the index does not list", packAt, len(fields[2]), ninesOver(len(fields[2]), int64(len(packs)-1))},
		{"past its pack's end", offsetAt, len(fields[3]), size > 0 && ninesOver(len(fields[3]), size-ref.Size)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok {
				t.Fatalf("the examples' packs (%d; pack %d bytes) no longer make this case: change it", len(packs), size)
			}
			b := bytes.Clone(enc.Index)
			for k := range tc.digits {
				b[at+tc.from+k] = '9'
			}
			if _, err := catalog.Open(b); !errors.Is(err, catalog.ErrCorrupt) {
				t.Fatalf("Open with the reference %q: %v, want ErrCorrupt", b[at:at+len(cell)], err)
			}
		})
	}
}

// ninesOver reports whether n nines, as a number, are more than limit.
func ninesOver(n int, limit int64) bool {
	v, err := strconv.ParseInt(strings.Repeat("9", n), 10, 64)
	return err == nil && v > limit
}
