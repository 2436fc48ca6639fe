package wire

import (
	"strings"
	"testing"
)

func TestReplayableID(t *testing.T) {
	for _, c := range []struct {
		id   string
		kind byte
	}{
		{"0", IDNumber},
		{"7", IDNumber},
		{"-42", IDNumber},
		{"123456789012345", IDNumber},
		{"1234567890123456", 0}, // 16 digits: past what every client's numbers hold exactly
		{"-0", 0},
		{"01", 0},
		{"1.0", 0},
		{"1e3", 0},
		{"-", 0},
		{`""`, IDString},
		{`"req-1"`, IDString},
		{`"` + strings.Repeat("a", 62) + `"`, IDString},
		{`"` + strings.Repeat("a", 63) + `"`, 0},
		{`"a\"b"`, 0},
		{`"a\\b"`, 0},
		{`"a\u0041"`, 0},
		{"\"caf\xc3\xa9\"", 0},
		{"\"a\tb\"", 0},
		{`"open`, 0},
		{`"`, 0},
		{"null", 0},
		{"true", 0},
		{"{}", 0},
		{"", 0},
	} {
		if got := ReplayableID([]byte(c.id)); got != c.kind {
			t.Errorf("ReplayableID(%q) = %q, want %q", c.id, got, c.kind)
		}
	}
}
