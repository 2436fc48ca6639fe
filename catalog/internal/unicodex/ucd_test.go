package unicodex

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadUCD: classes, one level of decomposition with its tag dropped and remembered,
// ranges giving nothing, Full following canonical decompositions only unless asked for
// compatibility ones; a malformed line is an error naming it.
func TestReadUCD(t *testing.T) {
	path := filepath.Join(t.TempDir(), "UnicodeData.txt")
	data := "0041;LATIN CAPITAL LETTER A;Lu;0;L;;;;;N;;;;0061;\n" +
		"0301;COMBINING ACUTE ACCENT;Mn;230;NSM;;;;;N;;;;;\n" +
		"00C1;LATIN CAPITAL LETTER A WITH ACUTE;Lu;0;L;0041 0301;;;;N;;;;00E1;\n" +
		"01FA;LATIN CAPITAL LETTER A WITH RING ABOVE AND ACUTE;Lu;0;L;00C5 0301;;;;N;;;;01FB;\n" +
		"00C5;LATIN CAPITAL LETTER A WITH RING ABOVE;Lu;0;L;0041 030A;;;;N;;;;00E5;\n" +
		"FF21;FULLWIDTH LATIN CAPITAL LETTER A;Lu;0;L;<wide> 0041;;;;N;;;;FF41;\n" +
		"1D400;MATHEMATICAL BOLD CAPITAL A;Lu;0;L;<font> 0041;;;;N;;;;;\n" +
		"249C;PARENTHESIZED LATIN SMALL LETTER A;So;0;L;<compat> 0028 0061 0029;;;;N;;;;;\n" +
		"24B6;CIRCLED LATIN CAPITAL LETTER A;So;0;L;<circle> FF21;;;;N;;;;24D0;\n" +
		"4E00;<CJK Ideograph, First>;Lo;0;L;;;;;N;;;;;\n" +
		"9FFF;<CJK Ideograph, Last>;Lo;0;L;;;;;N;;;;;\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	u, err := ReadUCD(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Class) != 1 || u.Class[0x301] != 230 {
		t.Errorf("Class = %v", u.Class)
	}
	if !u.Compat[0xFF21] || !u.Compat[0x249C] || u.Compat[0xC1] || len(u.Decomp) != 7 {
		t.Errorf("Compat = %v, Decomp = %v", u.Compat, u.Decomp)
	}
	for _, c := range []struct {
		r      rune
		compat bool
		want   []rune
	}{
		{0x1FA, false, []rune{0x41, 0x30A, 0x301}}, // two canonical levels
		{0xFF21, false, []rune{0xFF21}},            // NFD leaves a compatibility decomposition
		{0xFF21, true, []rune{0x41}},
		{0x24B6, true, []rune{0x41}}, // through FF21
		{0x249C, true, []rune{0x28, 0x61, 0x29}},
		{0x4E00, true, []rune{0x4E00}},
	} {
		if got := u.Full(c.r, c.compat); !slices.Equal(got, c.want) {
			t.Errorf("Full(%U, %v) = %U, want %U", c.r, c.compat, got, c.want)
		}
	}
	if err := os.WriteFile(path, []byte("0041;A;Lu\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadUCD(path); err == nil || err.Error() != path+":1: 3 fields, want 15" {
		t.Errorf("a short line: %v", err)
	}
}
