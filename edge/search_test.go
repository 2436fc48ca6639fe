package edge

import (
	"testing"

	"github.com/tidwall/gjson"
)

// TestWholeNumber: a limit is any JSON number whose value is a whole number in range (JSON
// Schema's integer: 20.0 and 2e1 are 20), and nothing else.
func TestWholeNumber(t *testing.T) {
	for _, c := range []struct {
		json string
		n    int
		ok   bool
	}{
		{`1`, 1, true}, {`20`, 20, true}, {`20.0`, 20, true}, {`2e1`, 20, true}, {`1.0e0`, 1, true},
		{`0`, 0, false}, {`-1`, 0, false}, {`2.5`, 0, false}, {`21`, 0, false}, {`1e400`, 0, false},
		{`"3"`, 0, false}, {`-0`, 0, false}, {`null`, 0, false}, {`true`, 0, false}, {`[3]`, 0, false},
	} {
		if n, ok := wholeNumber(gjson.Parse(c.json), 20); n != c.n || ok != c.ok {
			t.Errorf("wholeNumber(%s, 20) = %d, %v; want %d, %v", c.json, n, ok, c.n, c.ok)
		}
	}
	// The HTTP search's limit, from a query string: JSON's number characters only.
	for _, raw := range []string{"0x10", "Inf", "NaN", "1_0", "+5", " 5", ""} {
		if n, ok := wholeNumber(gjson.Result{Type: gjson.Number, Raw: raw}, 20); ok {
			t.Errorf("wholeNumber(%q, 20) = %d, true", raw, n)
		}
	}
	if n, ok := wholeNumber(gjson.Result{Type: gjson.Number, Raw: "5.0"}, 20); n != 5 || !ok {
		t.Errorf(`wholeNumber("5.0", 20) = %d, %v`, n, ok)
	}
}
