package signing

import (
	"errors"
	"strings"
	"testing"
)

// TestStatement: a statement's JSON is the same bytes each time, reads back, and every
// statement not of its type or predicate, or with a subject that is not matched by a
// SHA-256, or named twice, is refused.
func TestStatement(t *testing.T) {
	const pred = "https://example.com/predicate/v1"
	d := strings.Repeat("ab", 32)
	s := Statement{
		Subject:       []Subject{{Name: "b", Digest: map[string]string{"sha256": d, "sha512": "00"}}, {Name: "a", Digest: map[string]string{"sha256": d}}},
		PredicateType: pred,
		Predicate:     []byte(`{"sequence":1}`),
	}
	b := s.Marshal()
	want := `{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"b","digest":{"sha256":"` + d + `","sha512":"00"}},{"name":"a","digest":{"sha256":"` + d + `"}}],"predicateType":"` + pred + `","predicate":{"sequence":1}}`
	if string(b) != want {
		t.Fatalf("Marshal:\n%s\nwant\n%s", b, want)
	}
	got, err := ParseStatement(b, pred)
	if err != nil || len(got.Subject) != 2 || got.Subject[1].Name != "a" || string(got.Predicate) != `{"sequence":1}` {
		t.Fatalf("ParseStatement: %+v, %v", got, err)
	}
	for _, c := range []struct{ name, json string }{
		{"not JSON", `{`},
		{"another type", strings.Replace(want, "Statement/v1", "Statement/v0.1", 1)},
		{"another predicate", strings.Replace(want, "predicate/v1", "predicate/v2", 1)},
		{"a subject without a SHA-256", strings.Replace(want, `"digest":{"sha256":"`+d+`"}`, `"digest":{"sha512":"`+d+`"}`, 1)},
		{"a SHA-256 in upper case", strings.Replace(want, `{"name":"a","digest":{"sha256":"`+d, `{"name":"a","digest":{"sha256":"`+strings.ToUpper(d), 1)},
		{"a short SHA-256", strings.Replace(want, `{"name":"a","digest":{"sha256":"`+d, `{"name":"a","digest":{"sha256":"`+d[2:], 1)},
		{"two subjects of one name", strings.Replace(want, `"name":"a"`, `"name":"b"`, 1)},
	} {
		if _, err := ParseStatement([]byte(c.json), pred); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// Fields it does not know are ignored (statement.md: consumers MUST ignore them).
	if _, err := ParseStatement([]byte(strings.Replace(want, `"_type"`, `"x-later":[1],"_type"`, 1)), pred); err != nil {
		t.Errorf("an unknown field: %v", err)
	}
}
