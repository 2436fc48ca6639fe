package search

import "unicode/utf8"

// MaxWordBytes bounds a word, folded: a longer one is cut there (a digest, a URL's
// remains), so that no term costs more than this to hold or compare.
const MaxWordBytes = 64

// AppendWords appends to dst the words of text, folded and bounded but not stemmed
// (package doc), in the order they stand. Bytes that are not UTF-8 separate words. A rune
// that decomposes (NFKD) is read as the runes it stands for, so that a word splits where
// they do ("½" is two words, "㎒" is "MHz": "m" and "hz").
func AppendWords(dst []string, text string) []string {
	w := words{dst: dst}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			w.flush()
		case r < utf8.RuneSelf || 0xC0 <= r && r < 0x180:
			w.add(r, text[i:])
		case hangulBase <= r && r < hangulBase+hangulCount:
			s := r - hangulBase
			w.add(jamoL+s/(jamoVCount*jamoTCount), "")
			w.add(jamoV+s%(jamoVCount*jamoTCount)/jamoTCount, "")
			if t := s % jamoTCount; t != 0 {
				w.add(jamoT+t, "")
			}
		default:
			d, ok := decomposition(r)
			if !ok {
				w.add(r, text[i:])
				continue
			}
			for j, x := range d {
				rest := d[j+utf8.RuneLen(x):]
				if rest == "" {
					rest = text[i:]
				}
				w.add(x, rest)
			}
		}
	}
	w.flush()
	return w.dst
}

// words is AppendWords' state: the words so far, and the one being read.
type words struct {
	dst    []string
	buf    []byte
	inWord bool
	prev   rune // the rune read last, in its case
}

// add reads r, which rest follows: a separator ends the word being read; a word rune
// continues it, unless the case changes there (caseBoundary).
func (w *words) add(r rune, rest string) {
	if !isWordRune(r) {
		w.flush()
		return
	}
	if isDropped(r) {
		// A mark written apart from its letter (decomposed text) continues the word and
		// folds to nothing; the case of the letter before it stays what the next compares
		// with, as when the mark is part of the letter ("cafe\u0301Form" is "cafe form").
		w.inWord = true
		return
	}
	if w.inWord && caseBoundary(w.prev, r, rest) {
		w.flush()
	}
	w.buf = appendFolded(w.buf, r)
	w.inWord, w.prev = true, r
}

// flush ends the word being read, if any, and appends it cut at MaxWordBytes.
func (w *words) flush() {
	if len(w.buf) > 0 {
		w.dst = append(w.dst, string(w.buf[:min(len(w.buf), cutAt(w.buf))]))
	}
	w.buf, w.inWord, w.prev = w.buf[:0], false, 0
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
		return isLower(nextLetter(rest))
	}
	return false
}

// nextLetter returns the rune that text begins with as a word reads it: past the marks
// that fold to nothing, and the first rune of a decomposition ("ⓒ" is "c").
func nextLetter(text string) rune {
	for text != "" {
		r, n := utf8.DecodeRuneInString(text)
		if d, ok := decomposition(r); ok {
			if d == "" {
				text = text[n:] // marks only
				continue
			}
			r, _ = utf8.DecodeRuneInString(d)
		}
		if !isDropped(r) {
			return r
		}
		text = text[n:]
	}
	return 0
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
