package search

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestFoldTablesVersion: fold_tables.go is of the Unicode version Go's unicode package
// has, whose letters, marks and cases the folding reads beside it (go generate makes it
// again from that version's UnicodeData.txt).
func TestFoldTablesVersion(t *testing.T) {
	if foldTablesVersion != unicode.Version {
		t.Fatalf("fold_tables.go is of Unicode %s, Go's unicode package of %s: run go generate in catalog/search", foldTablesVersion, unicode.Version)
	}
}

// TestFoldEveryRune: every rune, alone and between two letters, gives words made of word
// runes that fold to themselves again (folding is idempotent: a term searched for is the
// term indexed); a rune that decomposes reads as what it stands for.
func TestFoldEveryRune(t *testing.T) {
	keys := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if utf8.ValidRune(r) {
			for _, text := range []string{string(r), "a" + string(r) + "b"} {
				got := AppendWords(nil, text)
				for _, w := range got {
					for _, x := range w {
						if !isWordRune(x) {
							t.Fatalf("AppendWords(%q) = %q: %U is not a word rune", text, got, x)
						}
					}
					if again := AppendWords(nil, w); len(again) != 1 || again[0] != w {
						t.Fatalf("AppendWords(%q) = %q, and %q folds to %q", text, got, w, again)
					}
				}
			}
		}
		if d, ok := decomposition(r); ok {
			keys++
			if want := AppendWords(nil, d); strings.Join(AppendWords(nil, string(r)), " ") != strings.Join(want, " ") {
				t.Fatalf("%U folds to %q, what it stands for (%q) to %q", r, AppendWords(nil, string(r)), d, want)
			}
		}
	}
	if keys != len(foldKeys)/3 {
		t.Fatalf("found %d runes of foldKeys, it holds %d: not ascending?", keys, len(foldKeys)/3)
	}
}

// TestEndsWord: a query that ends with a rune standing for a letter or digit is being
// typed (its last word matched as a prefix); one that ends with a separator is not.
func TestEndsWord(t *testing.T) {
	for _, c := range []struct {
		q      string
		prefix bool
	}{
		{"pdf fo", true}, {"pdf fo ", false}, {"pdf ｆｏ", true}, {"x²", true}, {"pdf ﬁ", true},
		{"pdf ¨", false}, {"pdf ⑴", false}, {"e\u0301", true}, {"pdf 한", true},
	} {
		q, err := ParseQuery(c.q)
		if err != nil {
			t.Fatalf("ParseQuery(%q): %v", c.q, err)
		}
		if q.Prefix() != c.prefix {
			t.Errorf("ParseQuery(%q).Prefix() = %v, want %v", c.q, q.Prefix(), c.prefix)
		}
	}
}
