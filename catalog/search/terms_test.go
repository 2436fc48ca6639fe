package search

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendWords(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"pdf-form-filler", []string{"pdf", "form", "filler"}},
		{"PdfFormFiller", []string{"pdf", "form", "filler"}},
		{"pdf form filler", []string{"pdf", "form", "filler"}},
		{"pdf_form_filler", []string{"pdf", "form", "filler"}},
		{"PDFForm", []string{"pdf", "form"}},
		{"parseHTTPRequest2", []string{"parse", "http", "request2"}},
		{"ALLCAPS", []string{"allcaps"}},
		{"Résumé builder", []string{"resume", "builder"}},
		{"Re\u0301sume\u0301", []string{"resume"}}, // decomposed: the marks are dropped
		{"ＰＤＦ ｆｏｒｍ", []string{"pdf", "form"}},      // fullwidth
		{"ﬁle ﬂow", []string{"file", "flow"}},      // ligatures
		{"Straße", []string{"strasse"}},
		{"Ærø", []string{"aero"}},
		{"naïve café", []string{"naive", "cafe"}},
		{"Ελληνικά ΚΕΙΜΕΝΟ", []string{"ελληνικα", "κειμενο"}}, // other scripts: lower case, marks dropped
		{"ΣΊΣΥΦΟΣ σίσυφος", []string{"σισυφοσ", "σισυφοσ"}},   // final sigma is sigma
		{"ｶﾀｶﾅ カタカナ", []string{"カタカナ", "カタカナ"}},               // halfwidth
		{"𝐏𝐃𝐅 𝔣𝔬𝔯𝔪 ℌ𝔢𝔩𝔩𝔬", []string{"pdf", "form", "hello"}},  // mathematical letters
		{"x² H₂O ①②", []string{"x2", "h2o", "12"}},            // super- and subscripts, circled
		{"½ ⑴", []string{"1", "2", "1"}},                      // the separators they stand for
		{"5㎏ ㎒ Ⅻ", []string{"5kg", "m", "hz", "xii"}},         // squared, Roman numerals
		{"µs μs", []string{"μs", "μs"}},                       // micro sign, mu
		{"K İstanbul ǅemal", []string{"k", "istanbul", "dzemal"}},
		{"한국어 \u1112\u1161\u11ab", []string{"\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165", "\u1112\u1161\u11ab"}}, // Hangul: jamo
		{"\u2003em\u00a0space", []string{"em", "space"}},
		{"ẞ", []string{"ss"}},
		{"caféForm cafe\u0301Form", []string{"cafe", "form", "cafe", "form"}}, // a mark written apart keeps the case before it
		{"PDFÉcole PDFE\u0301cole", []string{"pdf", "ecole", "pdf", "ecole"}},
		{"ABⓒc ABcc", []string{"a", "bcc", "a", "bcc"}},        // the next letter as it decomposes
		{"कोड हिन्दी தமிழ்", []string{"कोड", "हिनदी", "தமிழ"}}, // spacing vowel signs stay, viramas fold away
		{"日本語のテキスト", []string{"日本語のテキスト"}},
		{"skills/pdf-tools/SKILL.md", []string{"skills", "pdf", "tools", "skill", "md"}},
		{"a.b*c?d[e]f^g$h|i(j)k{l}m+n\\o", []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o"}},
		{"  \t\n", nil},
		{"bad\xffutf8", []string{"bad", "utf8"}},
		{"", nil},
	} {
		if got := AppendWords(nil, c.text); !slices.Equal(got, c.want) {
			t.Errorf("AppendWords(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestAppendTerms(t *testing.T) {
	want := []string{"fill", "pdf", "form"}
	for _, text := range []string{"filling PDF forms", "Fills pdf-form", "filledPdfForms"} {
		if got := AppendTerms(nil, text); !slices.Equal(got, want) {
			t.Errorf("AppendTerms(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestWordBound(t *testing.T) {
	long := strings.Repeat("é", 40) // 80 bytes, folded to 40
	if got := AppendWords(nil, long); len(got) != 1 || got[0] != strings.Repeat("e", 40) {
		t.Errorf("AppendWords(40 é) = %q", got)
	}
	long = strings.Repeat("ж", 40) // 80 bytes folded too: cut at a rune's start
	got := AppendWords(nil, long)
	if len(got) != 1 || len(got[0]) != MaxWordBytes || !utf8.ValidString(got[0]) {
		t.Errorf("AppendWords(40 ж) = %q (%d bytes)", got, len(got[0]))
	}
}

// FuzzAppendTerms: any text gives words that are valid UTF-8, non-empty, bounded, made
// only of word runes, and folded: folding a word again changes nothing; and Stem never
// lengthens a word by more than the one letter Porter2 may add back.
func FuzzAppendTerms(f *testing.F) {
	for _, s := range []string{"pdf-form-filler", "PDFForm", "Résumé", "ﬁ", "ＰＤＦ", "\xff", "generalizations", "ΣΊΣΥΦΟΣ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, w := range AppendWords(nil, text) {
			if w == "" || len(w) > MaxWordBytes || !utf8.ValidString(w) {
				t.Fatalf("AppendWords(%q) gave %q", text, w)
			}
			for _, r := range w {
				if !isWordRune(r) {
					t.Fatalf("AppendWords(%q) gave %q, with %q", text, w, r)
				}
			}
			if again := AppendWords(nil, w); len(again) == 0 || strings.Join(again, "") != w && len(w) < MaxWordBytes {
				t.Fatalf("AppendWords(%q) gave %q, which folds again to %q", text, w, again)
			}
			if s := Stem(w); len(s) > len(w)+1 || s == "" {
				t.Fatalf("Stem(%q) = %q", w, s)
			}
		}
	})
}
