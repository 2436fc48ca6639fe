package search

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

// appendFolded appends the folding of r (package doc) to dst.
func appendFolded(dst []byte, r rune) []byte {
	switch {
	case r < utf8.RuneSelf:
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(dst, byte(r))
	case 0xC0 <= r && r < 0x180:
		if b := latinBase[2*(r-0xC0) : 2*(r-0xC0)+2]; b != "  " {
			if b[1] == ' ' {
				return append(dst, b[0])
			}
			return append(dst, b...)
		}
	case 0xFF21 <= r && r <= 0xFF3A: // fullwidth A-Z
		return append(dst, byte(r-0xFF21+'a'))
	case 0xFF41 <= r && r <= 0xFF5A: // fullwidth a-z
		return append(dst, byte(r-0xFF41+'a'))
	case 0xFF10 <= r && r <= 0xFF19: // fullwidth 0-9
		return append(dst, byte(r-0xFF10+'0'))
	case 0xFB00 <= r && r <= 0xFB06:
		return append(dst, ligatures[r-0xFB00]...)
	case unicode.Is(unicode.Mn, r):
		return dst
	}
	return utf8.AppendRune(dst, unicode.ToLower(r))
}

// ligatures are the letters of U+FB00 to U+FB06 (ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ), as NFKC writes them.
var ligatures = [...]string{"ff", "fi", "fl", "ffi", "ffl", "st", "st"}

// isWordRune reports whether r belongs to a word: a letter, a digit, or a mark (which
// folds to nothing, or stays with its letter).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) ||
		0xFF10 <= r && r <= 0xFF19
}

// isUpper and isLower say the case of r for splitting words (fullwidth letters are
// letters like the others).
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
