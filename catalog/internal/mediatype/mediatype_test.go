package mediatype

import (
	"testing"
	"unicode/utf8"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		path string
		text bool
		want string
	}{
		{"a/README.md", true, "text/markdown"},
		{"a/b/data.JSON", true, "application/json"},
		{"x.unknown", true, "text/plain"},
		{"x.unknown", false, "application/octet-stream"},
		{"Makefile", false, "application/octet-stream"},
		{"a.png", false, "image/png"},
	} {
		if got := Of(tc.path, tc.text); got != tc.want {
			t.Errorf("Of(%q, %v) = %q, want %q", tc.path, tc.text, got, tc.want)
		}
	}
}

// isTextWhole is IsText's definition, over the whole input at once.
func isTextWhole(data []byte) bool {
	for _, b := range data {
		if b < 0x20 && b != '\t' && b != '\n' && b != '\f' && b != '\r' {
			return false
		}
	}
	return utf8.Valid(data)
}

// FuzzTextScan: deciding text piece by piece, pieces cut anywhere (inside runes too), is
// deciding it over the whole.
func FuzzTextScan(f *testing.F) {
	for _, s := range []string{"plain", "é😀€", "a\x00b", "\xff", "\xe2\x82", "\xe2\x82\xac", "\xf0\x9f\x98\x80x", "\xed\xa0\x80", "\u2028\t\r\n\f"} {
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		var s TextScan
		n := int(step%7) + 1
		for i := 0; i < len(data); i += n {
			s.Write(data[i:min(i+n, len(data))])
		}
		if got, want := s.Text(), isTextWhole(data); got != want {
			t.Fatalf("%q in pieces of %d: %v, whole %v", data, n, got, want)
		}
	})
}
