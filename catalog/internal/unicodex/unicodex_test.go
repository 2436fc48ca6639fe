package unicodex

import (
	"testing"
	"unicode"
)

// The tables must be of the Unicode version the rest of Go uses (regenerate them with
// go generate after a Go release that moves it).
func TestUnicodeTablesVersion(t *testing.T) {
	if unicodeTablesVersion != unicode.Version {
		t.Fatalf("unicode_tables.go is Unicode %s, Go's unicode package %s: run go generate ./catalog/internal/unicodex", unicodeTablesVersion, unicode.Version)
	}
}

func TestNFD(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"café.md", "cafe\u0301.md"},
		{"cafe\u0301.md", "cafe\u0301.md"},
		{"\u212B", "A\u030A"},                  // ANGSTROM SIGN, a singleton
		{"\u00C5", "A\u030A"},                  // Å
		{"\u1E69", "s\u0323\u0307"},            // ṩ: recursive, marks in class order
		{"s\u0307\u0323", "s\u0323\u0307"},     // the same marks in the other order
		{"a\u0301\u0300", "a\u0301\u0300"},     // equal classes keep their order
		{"\uAC00", "\u1100\u1161"},             // 가: Hangul LV
		{"\uD7A3", "\u1112\u1175\u11C2"},       // 힣: Hangul LVT
		{"\U0001D15E", "\U0001D157\U0001D165"}, // a musical symbol outside the BMP
		{"plain.txt", "plain.txt"},
		{"日本語", "日本語"},
	} {
		if got := NFD(tc.in); got != tc.want {
			t.Errorf("NFD(%+q) = %+q, want %+q", tc.in, got, tc.want)
		}
	}
}

func TestFoldCase(t *testing.T) {
	for _, pair := range [][2]string{{"README.md", "readme.MD"}, {"Straße", "STRAßE"}, {"ǅ", "ǆ"}, {"K", "\u212A"}} {
		if FoldCase(pair[0]) != FoldCase(pair[1]) {
			t.Errorf("FoldCase(%q) != FoldCase(%q)", pair[0], pair[1])
		}
	}
	if FoldCase("a.md") == FoldCase("b.md") {
		t.Error("a and b fold alike")
	}
}
