package search

import "strings"

// Why a Porter2 of our own, rather than a stemmer library? The plugin links no module but
// go-pdk and gjson, and stems every query, so a library would be a new dependency of every
// instance. The Go stemmers at hand were weighed: kljensen/snowball (Porter2, MIT) links
// the testing package into any binary that uses its English stemmer; blevesearch's
// snowballstem is generated code, unmaintained since 2020; go-porterstemmer is Porter's
// first algorithm, which stems less well. Porter2 is a page of rules: written here with
// switches and two small maps, it is held to the Snowball project's own output on its
// English vocabulary (testdata/porter2.txt, a sample; all 29,417 words agreed when it was
// written). The cost: the rules are ours to keep, and the algorithm's later revisions
// (Snowball 2.x added prefixes to R1's exceptions) reach us only when we add them.

// Stem returns the English stem of w, a folded word (AppendWords), by Porter2, the
// Snowball English stemmer (https://snowballstem.org/algorithms/english/stemmer.html): a
// word of all ASCII letters, three or more, loses its inflections and derivational
// suffixes ("filling", "fills" and "filled" are "fill"; "generalization" is "general"). Any
// other word (digits, other scripts, one or two letters) is returned as it is. Words hold
// no apostrophes (they separate words), so the algorithm's apostrophe steps have nothing
// to do.
func Stem(w string) string {
	if len(w) <= 2 || !asciiLetters(w) {
		return w
	}
	if s, ok := exceptional[w]; ok {
		return s
	}
	b := []byte(w)
	if b[0] == 'y' {
		b[0] = 'Y'
	}
	for i := 1; i < len(b); i++ {
		if b[i] == 'y' && isVowel(b[i-1]) {
			b[i] = 'Y'
		}
	}
	r1, r2 := regions(b)
	b = step1a(b)
	if invariantAfter1a[string(b)] {
		return unmarkY(b)
	}
	b = step1b(b, r1)
	b = step1c(b)
	b = step2(b, r1)
	b = step3(b, r1, r2)
	b = step4(b, r2)
	b = step5(b, r1, r2)
	return unmarkY(b)
}

// exceptional are the words Porter2 stems by a list, before any step.
var exceptional = map[string]string{
	"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
	"idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli",
	"singly": "singl", "sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas",
	"cosmos": "cosmos", "bias": "bias", "andes": "andes",
}

// invariantAfter1a are the words Porter2 leaves as step 1a left them.
var invariantAfter1a = map[string]bool{
	"inning": true, "outing": true, "canning": true, "herring": true, "earring": true,
	"proceed": true, "exceed": true, "succeed": true,
}

func asciiLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// isVowel: a, e, i, o, u and y; a y marked as a consonant (Y) is not.
func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

func unmarkY(b []byte) string {
	for i, c := range b {
		if c == 'Y' {
			b[i] = 'y'
		}
	}
	return string(b)
}

// regions returns the starts of R1 and R2: R1 is what follows the first non-vowel that
// follows a vowel (after "gener", "commun" or "arsen" when the word starts so), R2 the same
// within R1; len(b) when there is none.
func regions(b []byte) (r1, r2 int) {
	r1 = -1
	for _, p := range [...]string{"gener", "commun", "arsen"} {
		if strings.HasPrefix(string(b), p) {
			r1 = len(p)
			break
		}
	}
	if r1 < 0 {
		r1 = regionAfter(b, 0)
	}
	return r1, regionAfter(b, r1)
}

func regionAfter(b []byte, from int) int {
	for i := from + 1; i < len(b); i++ {
		if !isVowel(b[i]) && isVowel(b[i-1]) {
			return i + 1
		}
	}
	return len(b)
}

// endsShortSyllable reports whether b ends in a short syllable: a non-vowel, a vowel and
// a non-vowel other than w, x and Y; or, b being two letters, a vowel and a non-vowel.
func endsShortSyllable(b []byte) bool {
	n := len(b)
	if n == 2 {
		return isVowel(b[0]) && !isVowel(b[1])
	}
	if n < 3 {
		return false
	}
	c := b[n-1]
	return !isVowel(b[n-3]) && isVowel(b[n-2]) && !isVowel(c) && c != 'w' && c != 'x' && c != 'Y'
}

// hasSuffix is strings.HasSuffix of b, with no copy of b into a string (the comparison of
// a converted slice allocates nothing).
func hasSuffix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}

func hasVowel(b []byte) bool {
	for _, c := range b {
		if isVowel(c) {
			return true
		}
	}
	return false
}

func step1a(b []byte) []byte {
	n := len(b)
	switch {
	case hasSuffix(b, "sses"):
		return b[:n-2]
	case hasSuffix(b, "ied"), hasSuffix(b, "ies"):
		if n > 4 {
			return b[:n-2]
		}
		return b[:n-1]
	case hasSuffix(b, "us"), hasSuffix(b, "ss"):
		return b
	case hasSuffix(b, "s"):
		if hasVowel(b[:n-2]) {
			return b[:n-1]
		}
	}
	return b
}

func step1b(b []byte, r1 int) []byte {
	n := len(b)
	var suffix string
	for _, s := range [...]string{"eedly", "ingly", "edly", "eed", "ing", "ed"} {
		if hasSuffix(b, s) {
			suffix = s
			break
		}
	}
	switch suffix {
	case "":
		return b
	case "eed", "eedly":
		if n-len(suffix) >= r1 {
			return append(b[:n-len(suffix)], "ee"...)
		}
		return b
	}
	stem := b[:n-len(suffix)]
	if !hasVowel(stem) {
		return b
	}
	switch {
	case hasSuffix(stem, "at"), hasSuffix(stem, "bl"), hasSuffix(stem, "iz"):
		return append(stem, 'e')
	case endsDouble(stem):
		return stem[:len(stem)-1]
	case r1 >= len(stem) && endsShortSyllable(stem):
		return append(stem, 'e')
	}
	return stem
}

func endsDouble(b []byte) bool {
	n := len(b)
	if n < 2 || b[n-1] != b[n-2] {
		return false
	}
	switch b[n-1] {
	case 'b', 'd', 'f', 'g', 'm', 'n', 'p', 'r', 't':
		return true
	}
	return false
}

func step1c(b []byte) []byte {
	n := len(b)
	if n > 2 && (b[n-1] == 'y' || b[n-1] == 'Y') && !isVowel(b[n-2]) {
		b[n-1] = 'i'
	}
	return b
}

// A rule replaces a suffix: the longest of a step's suffixes that the word ends with is
// the one its step considers, and only that one.
type rule struct{ suffix, with string }

var step2Rules = [...]rule{
	{"ization", "ize"}, {"ational", "ate"}, {"fulness", "ful"}, {"ousness", "ous"},
	{"iveness", "ive"}, {"tional", "tion"}, {"biliti", "ble"}, {"lessli", "less"},
	{"entli", "ent"}, {"ation", "ate"}, {"alism", "al"}, {"aliti", "al"}, {"ousli", "ous"},
	{"iviti", "ive"}, {"fulli", "ful"}, {"enci", "ence"}, {"anci", "ance"}, {"abli", "able"},
	{"izer", "ize"}, {"ator", "ate"}, {"alli", "al"}, {"bli", "ble"}, {"ogi", "og"},
	{"li", ""},
}

func longest(b []byte, rules []rule) (rule, bool) {
	for _, r := range rules {
		if hasSuffix(b, r.suffix) {
			return r, true
		}
	}
	return rule{}, false
}

func step2(b []byte, r1 int) []byte {
	r, ok := longest(b, step2Rules[:])
	if !ok {
		return b
	}
	at := len(b) - len(r.suffix)
	if at < r1 {
		return b
	}
	switch r.suffix {
	case "ogi":
		if at == 0 || b[at-1] != 'l' {
			return b
		}
	case "li":
		if at == 0 || !strings.ContainsRune("cdeghkmnrt", rune(b[at-1])) {
			return b
		}
	}
	return append(b[:at], r.with...)
}

var step3Rules = [...]rule{
	{"ational", "ate"}, {"tional", "tion"}, {"alize", "al"}, {"icate", "ic"}, {"iciti", "ic"},
	{"ative", ""}, {"ical", "ic"}, {"ness", ""}, {"ful", ""},
}

func step3(b []byte, r1, r2 int) []byte {
	r, ok := longest(b, step3Rules[:])
	if !ok {
		return b
	}
	at := len(b) - len(r.suffix)
	if at < r1 || r.suffix == "ative" && at < r2 {
		return b
	}
	return append(b[:at], r.with...)
}

var step4Suffixes = [...]string{
	"ement", "ance", "ence", "able", "ible", "ment", "ant", "ent", "ism", "ate", "iti",
	"ous", "ive", "ize", "ion", "al", "er", "ic",
}

func step4(b []byte, r2 int) []byte {
	for _, s := range step4Suffixes {
		if !hasSuffix(b, s) {
			continue
		}
		at := len(b) - len(s)
		if at < r2 {
			return b
		}
		if s == "ion" && (at == 0 || b[at-1] != 's' && b[at-1] != 't') {
			return b
		}
		return b[:at]
	}
	return b
}

func step5(b []byte, r1, r2 int) []byte {
	n := len(b)
	switch b[n-1] {
	case 'e':
		if n-1 >= r2 || n-1 >= r1 && !endsShortSyllable(b[:n-1]) {
			return b[:n-1]
		}
	case 'l':
		if n-1 >= r2 && n >= 2 && b[n-2] == 'l' {
			return b[:n-1]
		}
	}
	return b
}
