package search

import (
	"fmt"
	"slices"
	"testing"
)

var docs = []Doc{
	{Name: "pdf-form-filler", Description: "Fill in PDF forms: read a form's fields and write values into them.", Path: "docs/pdf-form-filler", Headings: "Fields\nFilling", Body: "Use this skill when a user asks to fill a PDF form."},
	{Name: "slides", Description: "Make a slide deck from an outline.", Path: "office/slides", Keywords: "presentation powerpoint", Body: "Turn an outline into slides."},
	{Name: "terraform-check", Description: "Check Terraform plans for drift and policy problems.", Path: "infra/terraform-check", Body: "Run terraform plan, then read the plan."},
	{Name: "hidden", Description: "An unlisted skill about PDF forms.", Path: "x/hidden", Skip: true},
	{Name: "pdf-merge", Description: "Merge several PDF files into one.", Path: "docs/pdf-merge", Body: "Merging PDFs keeps the pages in order."},
}

func openDocs(t testing.TB, docs []Doc) *Index {
	t.Helper()
	ix, err := Open(Build(docs), len(docs))
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func names(ix *Index, hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, docs[h.Skill].Name)
	}
	return out
}

func TestSearch(t *testing.T) {
	ix := openDocs(t, docs)
	var sc Scratch
	for _, c := range []struct {
		query string
		want  []string // in order; nil: nothing found
	}{
		{"fill in a PDF form", []string{"pdf-form-filler", "pdf-merge"}},
		{"PdfFormFiller ", []string{"pdf-form-filler", "pdf-merge"}},
		{"make slides from this outline", []string{"slides"}},
		{"powerpoint ", []string{"slides"}},                 // a keyword
		{"check my Terraform", []string{"terraform-check"}}, // "my" is in no skill
		{"terra", []string{"terraform-check"}},              // as-you-type: a completion
		{"terra ", nil},                                     // a finished word: no completion
		{"terrafrom ", []string{"terraform-check"}},         // two letters swapped
		{"merging", []string{"pdf-merge"}},                  // stemmed
		{"hidden", nil},                                     // unlisted: not indexed
		{"quantum", nil},
	} {
		q, err := ParseQuery(c.query)
		if err != nil {
			t.Fatalf("ParseQuery(%q): %v", c.query, err)
		}
		got := names(ix, ix.Search(q, &sc, nil))
		if !slices.Equal(got, c.want) {
			t.Errorf("Search(%q) = %q, want %q", c.query, got, c.want)
		}
	}
}

func TestParseQuery(t *testing.T) {
	long := ""
	for range 300 {
		long += "a"
	}
	for _, c := range []struct {
		query string
		err   error
	}{
		{"", ErrEmptyQuery}, {"   ", ErrEmptyQuery}, {"*?[]", ErrEmptyQuery},
		{long, ErrQueryTooLong}, {"a b c d e f g h i j k l m n o p q r s t u v w x y z aa bb cc dd ee ff gg", ErrQueryWords}, {"a b c d e f g h i j k l m n o p q r s t u v w x y z aa bb cc dd ee ff", nil},
		{"pdf\x00", ErrQueryControl}, {"pdf\tforms", ErrQueryControl}, {"\xff", ErrQueryEncoding},
		{"pdf.*forms", nil}, {"a b c d e f g h", nil},
	} {
		if _, err := ParseQuery(c.query); err != c.err {
			t.Errorf("ParseQuery(%q) = %v, want %v", c.query, err, c.err)
		}
	}
}

// TestIndexOfView: a view's index is built from the skills it shows alone, so its scores
// and order are those of a catalog that never held the others.
func TestIndexOfView(t *testing.T) {
	var visible []Doc
	for _, d := range docs {
		if !d.Skip {
			visible = append(visible, d)
		}
	}
	a, b := Build(docs), Build(visible)
	if fmt.Sprint(a[FieldTerms]) != fmt.Sprint(b[FieldTerms]) || string(a[FieldTop]) != string(b[FieldTop]) {
		t.Errorf("an unlisted skill changed the index's terms or scale")
	}
}

func TestOpenRefusesCorrupt(t *testing.T) {
	good := Build(docs)
	for name, mutate := range map[string]func(c [][]byte){
		"short":             func(c [][]byte) { c[FieldTermEnds] = c[FieldTermEnds][:3] },
		"term out of range": func(c [][]byte) { c[FieldTermEnds] = append([]byte{0xff, 0xff, 0, 0}, c[FieldTermEnds][4:]...) },
		"postings past":     func(c [][]byte) { c[FieldPostings] = c[FieldPostings][:len(c[FieldPostings])-1] },
		"top":               func(c [][]byte) { c[FieldTop] = []byte("x") },
	} {
		c := slices.Clone(good)
		mutate(c)
		if _, err := Open(c, len(docs)); err == nil {
			t.Errorf("%s: Open accepted it", name)
		}
	}
	if _, err := Open(good, 2); err == nil {
		t.Errorf("Open accepted postings naming rows past the catalog's skills")
	}
}

// FuzzOpen: any cells either fail to open or give an index every query can search.
func FuzzOpen(f *testing.F) {
	good := Build(docs)
	f.Add(good[0], good[1], good[2], good[3], "pdf form")
	f.Fuzz(func(t *testing.T, text, ends, postings, postEnds []byte, query string) {
		ix, err := Open([][]byte{text, ends, postings, postEnds, []byte("1"), nil, make([]byte, 4*8)}, 8)
		if err != nil {
			return
		}
		q, err := ParseQuery(query)
		if err != nil {
			return
		}
		var sc Scratch
		for _, h := range ix.Search(q, &sc, nil) {
			if h.Skill < 0 || h.Skill >= 8 {
				t.Fatalf("a hit names row %d", h.Skill)
			}
		}
	})
}
