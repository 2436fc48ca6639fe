package wire_test

import (
	"strings"
	"testing"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
)

func TestNeed(t *testing.T) {
	a, b := strings.Repeat("a", 64), strings.Repeat("b", 64)
	out := wire.AppendNeed(nil, []catalog.Ref{{Name: a, Size: 10}, {Name: b, Size: 262144}})
	if want := "NEED\n10 " + a + "\n262144 " + b + "\n"; string(out) != want {
		t.Fatalf("AppendNeed = %q, want %q", out, want)
	}
	for _, c := range []struct {
		in         string
		need, fine bool
		refs       int
	}{
		{string(out), true, true, 2},
		{"200\n\n{}", false, true, 0},
		{"2025-06-18\n{}", false, true, 0},
		{"NEED\n", true, false, 0},                                // names nothing
		{"NEED\n10 " + a, true, false, 0},                         // no LF after the last
		{"NEED\n010 " + a + "\n", true, false, 0},                 // not canonical
		{"NEED\n10 " + strings.ToUpper(a) + "\n", true, false, 0}, // not lowercase hex
		{"NEED\n10  " + a + "\n", true, false, 0},
		{"NEEDS\n", false, true, 0},
		{"", false, true, 0},
	} {
		refs, need, err := wire.ParseNeed([]byte(c.in))
		if need != c.need || (err == nil) != c.fine || len(refs) != c.refs {
			t.Errorf("ParseNeed(%q) = %d refs, %t, %v", c.in, len(refs), need, err)
		}
	}
}

func FuzzParseNeed(f *testing.F) {
	f.Add([]byte("NEED\n10 " + strings.Repeat("a", 64) + "\n"))
	f.Add([]byte("NEED\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		refs, need, err := wire.ParseNeed(b)
		if !need || err != nil {
			return
		}
		if again := wire.AppendNeed(nil, refs); string(again) != string(b) {
			t.Fatalf("%q parses to %v, which appends as %q", b, refs, again)
		}
	})
}
