package edge

import (
	"strings"
	"testing"

	"github.com/skilledge/skilledge/edge/wire"
)

// TestHeadHasNoBody checks that HEAD is answered with a status and headers only, on the
// endpoint (405) and elsewhere (404).
func TestHeadHasNoBody(t *testing.T) {
	s := exampleServer(t, wire.Options{})
	for _, target := range []string{"/mcp", "/elsewhere"} {
		r := &wire.Request{Method: "HEAD", Target: target, Header: wire.Header{{Name: "Host", Value: "127.0.0.1"}}}
		resp := s.ServeHTTP(r)
		if len(resp.Body) != 0 || resp.Status < 400 {
			t.Errorf("HEAD %s: %d with body %q", target, resp.Status, resp.Body)
		}
	}
}

// TestCursorRejectsLineBreaks checks that a cursor with CR or LF inserted (which the base64
// decoder would skip) is refused.
func TestCursorRejectsLineBreaks(t *testing.T) {
	s := exampleServer(t, wire.Options{PageSize: 1})
	b := s.appendNextCursor(nil, "s", 1, 3)
	cur := strings.TrimSuffix(strings.TrimPrefix(string(b), `,"nextCursor":"`), `"`)
	if _, ok := s.parseCursor(cur, "s"); !ok {
		t.Fatalf("cursor %q does not parse", cur)
	}
	for _, bad := range []string{cur[:2] + "\n" + cur[2:], cur + "\r", "=" + cur} {
		if _, ok := s.parseCursor(bad, "s"); ok {
			t.Errorf("cursor %q accepted", bad)
		}
	}
}
