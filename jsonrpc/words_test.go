package jsonrpc

import (
	"bytes"
	"testing"
)

// TestWordMarks checks the eight-byte tests against the byte-wise rule for every byte value
// at every position of a word, alone among plain bytes and after another marked byte (where
// a borrow may mark bytes above the first: only the first is used).
func TestWordMarks(t *testing.T) {
	plain := bytes.Repeat([]byte{'a'}, 8)
	for pos := range 8 {
		for c := range 256 {
			for _, before := range []int{-1, 0x00, 0x1f, 0x80, '"'} { // another byte below pos, if any
				if before >= 0 && pos == 0 {
					continue
				}
				b := bytes.Clone(plain)
				b[pos] = byte(c)
				first := -1
				if before >= 0 {
					b[0] = byte(before)
					first = 0
				}
				notPlainAt, quoteAt := first, first
				if quoteAt < 0 && (c == '"' || c == '\\') {
					quoteAt = pos
				}
				if notPlainAt < 0 && (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) {
					notPlainAt = pos
				}
				if before == 0x00 || before == 0x1f || before == 0x80 { // plain for quoteOrEscape
					quoteAt = -1
					if c == '"' || c == '\\' {
						quoteAt = pos
					}
				}
				w := word(b, 0)
				if got := marked(notPlain(w)); got != notPlainAt {
					t.Errorf("notPlain(%q) marks byte %d first, want %d", b, got, notPlainAt)
				}
				if got := marked(quoteOrEscape(w)); got != quoteAt {
					t.Errorf("quoteOrEscape(%q) marks byte %d first, want %d", b, got, quoteAt)
				}
			}
		}
	}
}

// marked is firstMarked, or -1 for no mark.
func marked(m uint64) int {
	if m == 0 {
		return -1
	}
	return firstMarked(m)
}
