package search

import "unicode/utf8"

// MaxWordBytes bounds a word, folded: a longer one is cut there (a digest, a URL's
// remains), so that no term costs more than this to hold or compare.
const MaxWordBytes = 64

// AppendWords appends to dst the words of text, folded and bounded but not stemmed
// (package doc), in the order they stand. Bytes that are not UTF-8 separate words.
func AppendWords(dst []string, text string) []string {
	var buf []byte
	start := -1 // byte offset of the current word's first rune, or -1 between words
	var prev rune
	flush := func() {
		if len(buf) > 0 {
			dst = append(dst, string(buf[:min(len(buf), cutAt(buf))]))
		}
		buf, start = buf[:0], -1
	}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && n == 1 || !isWordRune(r) {
			flush()
			i += n
			prev = 0
			continue
		}
		if start >= 0 && caseBoundary(prev, r, text[i+n:]) {
			flush()
		}
		if start < 0 {
			start = i
		}
		buf = appendFolded(buf, r)
		prev = r
		i += n
	}
	flush()
	return dst
}

// cutAt is where a folded word is cut: at MaxWordBytes, moved back to the start of the
// rune it would split.
func cutAt(b []byte) int {
	if len(b) <= MaxWordBytes {
		return len(b)
	}
	i := MaxWordBytes
	for i > 0 && !utf8.RuneStart(b[i]) {
		i--
	}
	return i
}

// caseBoundary reports whether a word ends between prev and r, rest being what follows r:
// a lower-case letter then an upper-case one ("pdfForm"), or an upper-case letter then an
// upper-case one that begins a capitalized word ("PDFForm": before the second F).
func caseBoundary(prev, r rune, rest string) bool {
	if !isUpper(r) {
		return false
	}
	if isLower(prev) {
		return true
	}
	if isUpper(prev) {
		next, _ := utf8.DecodeRuneInString(rest)
		return isLower(next)
	}
	return false
}

// AppendTerms appends to dst the terms of text: its words (AppendWords), each stemmed
// (Stem).
func AppendTerms(dst []string, text string) []string {
	n := len(dst)
	dst = AppendWords(dst, text)
	for i := n; i < len(dst); i++ {
		dst[i] = Stem(dst[i])
	}
	return dst
}

// stems is AppendTerms with each word's stem remembered: a build stems the same few
// thousand words millions of times, and Porter2 was seven tenths of its index's time.
type stems map[string]string

func (m stems) appendTerms(dst []string, text string) []string {
	n := len(dst)
	dst = AppendWords(dst, text)
	for i := n; i < len(dst); i++ {
		w := dst[i]
		s, ok := m[w]
		if !ok {
			s = Stem(w)
			m[w] = s
		}
		dst[i] = s
	}
	return dst
}
