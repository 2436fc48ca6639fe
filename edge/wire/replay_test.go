package wire

import (
	"strings"
	"testing"
	"time"
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

// TestReplayEntryOwnsRefs: a replay entry keeps its references' names and packs as they
// were when it was made, though the answer they were parsed from (a view of the plugin's
// memory, which the next call overwrites) changes after: a packed reference's pack once
// aliased it, and a replay read its object from a pack named by other bytes.
func TestReplayEntryOwnsRefs(t *testing.T) {
	name, pack := strings.Repeat("a", 64), strings.Repeat("b", 64)
	request := []byte("POST /mcp\n\n{\"id\":1}")
	out := []byte("200\n@7 5 " + name + " " + pack + " 9\n\n{\"id\":1,\"x\":}")
	resp, err := ParseResponse(out)
	if err != nil {
		t.Fatal(err)
	}
	h := Hint{IDAt: strings.Index(string(request), "1}"), IDLen: 1, AnswerAt: len(out) - len(`1,"x":}`), MaxFrame: 1 << 10}
	e, ok := NewReplayEntry(request, h, out, &resp, time.Unix(0, 0))
	if !ok {
		t.Fatal("not kept")
	}
	for i := range out {
		out[i] = 'z' // the plugin's next answer, over the same memory
	}
	got := e.Answer(nil, []byte("2"), nil)
	want := Ref{At: 7, Size: 5, Name: name, Pack: pack, Offset: 9}
	if len(got.Refs) != 1 || got.Refs[0] != want {
		t.Fatalf("the replayed references: %+v, want [%+v]", got.Refs, want)
	}
}
