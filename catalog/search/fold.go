package search

// Why compatibility folding from tables of our own, rather than golang.org/x/text's norm?
// The plugin links no module but go-pdk and gjson, and folds every query. x/text's
// normalization tables are about 300 KB and compose as well as decompose, which a term
// never needs: its marks are dropped. fold_tables.go holds only what folding reads, every
// rune's full compatibility decomposition (5,690 runes: 49 KB of plugin.wasm, 35 KB
// gzipped), made by gen_fold.go from the Unicode Character Database of Go's own Unicode
// version, and TestFoldEveryRune holds every rune to it. When it was made, every assigned
// rune of Unicode 14 was folded here and by Python's unicodedata (NFKD, marks dropped,
// casefold): 241 differed, all by design: the Latin letters written out in ASCII
// (latinBase: æ ae, ø o, ł l, and the modifier and small-capital forms of those), and 30
// squared units whose letters change case (㎑ is "kHz", two words as typed in ASCII).
// Rejected too: folding only Latin, fullwidth forms and ligatures by hand, as the first
// version did, which left a mathematical 𝐏𝐃𝐅, a halfwidth ｶﾅ, x² and a final ς apart from
// what they stand for.

//go:generate go run gen_fold.go /usr/share/unicode/UnicodeData.txt

import (
	"unicode"
	"unicode/utf8"
)

// latinBase holds, in two bytes a rune (a space pads a one-letter base), the base letters
// of U+00C0 to U+017F (Latin-1 Supplement and Latin Extended-A), lower case: what
// compatibility decomposition (NFKD) leaves of each once its combining marks are dropped,
// and for the letters that have no decomposition the letters they are written as in
// ASCII (ß ss, æ ae, ø o, đ d, ł l, œ oe, þ th, ð d, ı i, ħ h, ŧ t, ŋ ng). Two spaces: not
// a letter (× and ÷), kept as it is.
const latinBase = "" +
	"a a a a a a aec e e e e i i i i d n o o o o o   o u u u u y thss" +
	"a a a a a a aec e e e e i i i i d n o o o o o   o u u u u y thy " +
	"a a a a a a c c c c c c c c d d d d e e e e e e e e e e g g g g " +
	"g g g g h h h h i i i i i i i i i i ijijj j k k k l l l l l l l " +
	"l l l n n n n n n n ngngo o o o o o oeoer r r r r r s s s s s s " +
	"s s t t t t t t u u u u u u u u u u u u w w y y y z z z z z z s "

// Hangul syllables decompose by formula (Unicode §3.12) into conjoining jamo, which NFKC
// composes again: a term holds the jamo, so that either spelling finds the other.
const (
	hangulBase             = 0xAC00
	hangulCount            = 11172
	jamoL, jamoV, jamoT    = 0x1100, 0x1161, 0x11A7
	jamoVCount, jamoTCount = 21, 28
)

// decomposition returns what r stands for, and whether it stands for other runes: the
// runes of its full compatibility decomposition (NFKD) with the nonspacing marks dropped,
// in their case, as UTF-8 (fold_tables.go); empty for a rune that is marks only. Runes
// below U+0080, of latinBase's range and Hangul syllables have none here: appendFolded and
// AppendWords fold them.
func decomposition(r rune) (string, bool) {
	if r < 0 || r >= 0x110000 || foldBlocks[r>>11]>>(r>>8%8)&1 == 0 {
		return "", false
	}
	key := func(i int) rune {
		return rune(foldKeys[3*i])<<16 | rune(foldKeys[3*i+1])<<8 | rune(foldKeys[3*i+2])
	}
	end := func(i int) int { return int(foldEnds[2*i]) | int(foldEnds[2*i+1])<<8 }
	lo, hi := 0, len(foldKeys)/3
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if key(m) < r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(foldKeys)/3 || key(lo) != r {
		return "", false
	}
	start := 0
	if lo > 0 {
		start = end(lo - 1)
	}
	return foldText[start:end(lo)], true
}

// appendFolded appends the folding of r (package doc), a word rune that folding keeps
// (not isDropped) with no decomposition, or one of a decomposition's runes, to dst.
func appendFolded(dst []byte, r rune) []byte {
	switch {
	case r < utf8.RuneSelf:
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(dst, byte(r))
	case r < 0xC0 || r >= 0x180:
		// Upper case, then lower: every case of a letter folds to one rune, final sigma
		// (ς) and the Greek symbol forms (ϐ, ϑ) included, and ẞ to ß (then ss).
		if r = unicode.ToLower(unicode.ToUpper(r)); r < 0xC0 || r >= 0x180 {
			return utf8.AppendRune(dst, r)
		}
	}
	if b := latinBase[2*(r-0xC0) : 2*(r-0xC0)+2]; b != "  " {
		if b[1] == ' ' {
			return append(dst, b[0])
		}
		return append(dst, b...)
	}
	return utf8.AppendRune(dst, r)
}

// isWordRune reports whether r, a rune with no decomposition or one of a decomposition's
// runes, belongs to a word: a letter, a digit, or a mark. A spacing mark (Mc: the vowel
// signs of Indic scripts) is kept as written; a nonspacing or enclosing one folds to
// nothing (isDropped).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// isDropped reports whether r is a mark that folding drops: nonspacing (Mn, the diacritics
// of "résumé" written apart) or enclosing (Me).
func isDropped(r rune) bool {
	return r >= 0x300 && (unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r))
}

// endsWord reports whether a text that ends with r ends inside a word: r, or the last rune
// it decomposes to, is a word rune.
func endsWord(r rune) bool {
	if d, ok := decomposition(r); ok {
		if d == "" {
			return true // marks only
		}
		r, _ = utf8.DecodeLastRuneInString(d)
	}
	return isWordRune(r)
}

// isUpper and isLower say the case of r for splitting words.
func isUpper(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.IsUpper(r)
}

func isLower(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z'
	}
	return unicode.IsLower(r)
}
