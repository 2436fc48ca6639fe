package edge

import (
	"strings"
	"testing"

	"github.com/skilledge/skilledge/edge/wire"
)

// TestActiveContentDisarmed: a skill's HTML or SVG served over well-known HTTP keeps its
// type, but every response says nosniff and carries a sandboxing Content-Security-Policy,
// so a page opened from the publisher's origin runs no script there; so do the MCP
// endpoint's answers and errors, 304s and 404s.
func TestActiveContentDisarmed(t *testing.T) {
	p := packOf(t, map[string]string{
		"web/SKILL.md":  skillMD("web"),
		"web/page.html": "<script>document.cookie</script>",
		"web/x.svg":     `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`,
		"web/feed.xml":  `<?xml version="1.0"?><x/>`,
		"web/unknown":   "<html><script>1</script></html>",
	})
	s := New(p, wire.Options{AllowOrigins: []string{"*"}})
	get := func(target, extra string) *wire.Response {
		r, err := wire.ParseRequest([]byte("GET " + target + "\nHost: 127.0.0.1\n" + extra + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		return s.ServeHTTP(&r)
	}
	for _, tc := range []struct {
		resp   *wire.Response
		status int
		ct     string
	}{
		{get("/.well-known/skills/web/page.html", ""), 200, "text/html; charset=utf-8"},
		{get("/.well-known/skills/web/x.svg", "Origin: https://app.example\n"), 200, "image/svg+xml"},
		{get("/.well-known/skills/web/feed.xml", ""), 200, "application/xml"},
		{get("/.well-known/skills/web/unknown", ""), 200, "text/plain; charset=utf-8"},
		{get("/.well-known/skills/web/nope.html", ""), 404, "text/plain; charset=utf-8"},
		{get("/.well-known/agent-skills/index.json", ""), 200, "application/json"},
		{get("/mcp", ""), 405, "application/json"},
		{s.ServeHTTP(postLegacy(request(1, "ping", ""), "")), 200, "application/json"},
		{s.ServeHTTP(postLegacy(`{`, "")), 400, "application/json"},
		{s.ServeHTTP(postLegacy(request(1, "ping", ""), "Origin: http://evil.com\n")), 200, "application/json"}, // "*" allows it
		{New(p, wire.Options{}).ServeHTTP(postLegacy(request(1, "ping", ""), "Origin: http://evil.com\n")), 403, "application/json"},
		{s.ServeHTTP(postLegacy(request(1, "ping", ""), "Origin: http://a\nOrigin: http://b\n")), 403, "application/json"},
	} {
		ct, _ := tc.resp.Header.Get("Content-Type")
		nosniff, _ := tc.resp.Header.Get("X-Content-Type-Options")
		csp, _ := tc.resp.Header.Get("Content-Security-Policy")
		if tc.resp.Status != tc.status || ct != tc.ct || nosniff != "nosniff" ||
			!strings.Contains(csp, "sandbox") || !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%d %q: nosniff %q, CSP %q (want %d %q)", tc.resp.Status, ct, nosniff, csp, tc.status, tc.ct)
		}
	}
	etag, _ := get("/.well-known/skills/web/page.html", "").Header.Get("ETag")
	if resp := get("/.well-known/skills/web/page.html", "If-None-Match: "+etag+"\n"); resp.Status != 304 {
		t.Errorf("If-None-Match: %d", resp.Status)
	} else if csp, _ := resp.Header.Get("Content-Security-Policy"); csp == "" {
		t.Error("a 304 without the policy")
	}
}
