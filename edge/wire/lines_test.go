package wire

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzCuts holds the frame scanners to the standard library functions they replace.
func FuzzCuts(f *testing.F) {
	for _, s := range []string{"", "\n", "POST /mcp\nHost: a\n\n{}", "Name: value: more\n", "a:b: c", "nocolon", ":", ": ",
		"a long header line, longer than eight bytes\nand another", "exactly8\n", "1234567\n", "12345678\n9"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		i := bytes.IndexByte(b, '\n')
		line, rest, ok := cutLine(b)
		if ok != (i >= 0) || ok && (line != string(b[:i]) || !bytes.Equal(rest, b[i+1:])) {
			t.Fatalf("cutLine(%q) = %q, %q, %v", b, line, rest, ok)
		}
		s := string(b)
		n, v, ok := cutField(s)
		wn, wv, wok := strings.Cut(s, ": ")
		if ok != wok || ok && (n != wn || v != wv) {
			t.Fatalf("cutField(%q) = %q, %q, %v; strings.Cut: %q, %q, %v", s, n, v, ok, wn, wv, wok)
		}
		n, v, ok = cutSpace(s)
		wn, wv, wok = strings.Cut(s, " ")
		if ok != wok || ok && (n != wn || v != wv) {
			t.Fatalf("cutSpace(%q) = %q, %q, %v; strings.Cut: %q, %q, %v", s, n, v, ok, wn, wv, wok)
		}
	})
}
