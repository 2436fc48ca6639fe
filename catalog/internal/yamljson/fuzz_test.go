package yamljson

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParse: every problem is at a line of the document (offset as asked) and says
// something; a value without problems renders as valid JSON of exactly its Size.
func FuzzParse(f *testing.F) {
	for _, c := range npmCases {
		f.Add([]byte(c.src))
	}
	const off = 1
	f.Fuzz(func(t *testing.T, src []byte) {
		top, errs := Parse(src, off)
		lines := bytes.Count(src, []byte("\n")) + 1
		for _, e := range errs {
			if e.Line < 1 || e.Line > lines+off+1 || e.Msg == "" {
				t.Fatalf("problem %+v for %q (%d lines)", e, src, lines)
			}
		}
		if len(errs) > 0 || top == nil {
			return
		}
		out := top.AppendJSON(nil)
		if !json.Valid(out) {
			t.Fatalf("invalid JSON %q for %q", out, src)
		}
		if len(out) != top.Size() {
			t.Fatalf("size %d, computed %d, for %q", len(out), top.Size(), src)
		}
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("%v: %q", err, out)
		}
	})
}
