package jsonrpc

import (
	"strings"
	"testing"
)

func TestTooDeep(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want bool
	}{
		{`{}`, 1, false},
		{`{"a":[1]}`, 1, true},
		{`{"a":[1]}`, 2, false},
		{`"[[[[["`, 1, false},    // brackets inside a string do not count
		{`"\"[[[["`, 1, false},   // nor after an escaped quote
		{`["\\",[[]]]`, 2, true}, // an escaped backslash ends the string
		{strings.Repeat("[", 1_000_000), MaxDepth, true},
		{strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), MaxDepth, false},
	} {
		if got := TooDeep([]byte(tt.in), tt.max); got != tt.want {
			t.Errorf("TooDeep(%.40q, %d) = %v, want %v", tt.in, tt.max, got, tt.want)
		}
	}
}

// TestDeepMessagesRefused checks that Parse and SplitBatch refuse deep nesting with
// -32600 before validating it (which recurses once per level).
func TestDeepMessagesRefused(t *testing.T) {
	deep := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + `}}`)
	if _, err := Parse(deep); err == nil || err.Code != CodeInvalidRequest {
		t.Errorf("Parse(deep) = %v, want -32600", err)
	}
	if _, err := SplitBatch([]byte(strings.Repeat("[", 200000)), 0); err == nil || err.Code != CodeInvalidRequest {
		t.Errorf("SplitBatch(deep) = %v, want -32600", err)
	}
	ok := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}`)
	if _, err := Parse(ok); err != nil {
		t.Errorf("Parse(100 levels) = %v", err)
	}
}
