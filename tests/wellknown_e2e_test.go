//go:build e2e

package tests

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestWellKnownServed fetches the well-known discovery documents from the CLI's server over
// loopback, as an HTTP-only agent would: both indexes, every artifact the v0.2.0 index
// points at and every file the v0.1.0 index lists, with the right content types and
// digests; then conditional requests, HEAD and a miss.
func TestWellKnownServed(t *testing.T) {
	base := strings.TrimSuffix(serve(t), "/mcp")
	get := func(method, path string, header ...string) (*http.Response, []byte) {
		return httpDo(t, method, base+path, header...)
	}
	expect := func(path string, resp *http.Response, status int, contentType string) {
		t.Helper()
		if resp.StatusCode != status || resp.Header.Get("Content-Type") != contentType {
			t.Fatalf("%s: %d %q, want %d %q", path, resp.StatusCode, resp.Header.Get("Content-Type"), status, contentType)
		}
	}

	resp, body := get("GET", "/.well-known/agent-skills/index.json")
	expect("v0.2.0 index", resp, 200, "application/json")
	index := gjson.ParseBytes(body)
	if index.Get("$schema").Str != "https://schemas.agentskills.io/discovery/0.2.0/schema.json" || len(index.Get("skills").Array()) < 5 {
		t.Fatalf("v0.2.0 index: %s", body)
	}
	types := map[string]string{"skill-md": "text/markdown; charset=utf-8", "archive": "application/gzip"}
	for _, s := range index.Get("skills").Array() {
		path := "/.well-known/agent-skills/" + s.Get("url").Str // relative to the index
		resp, body := get("GET", path)
		expect(path, resp, 200, types[s.Get("type").Str])
		if got := digestOf(body); got != s.Get("digest").Str {
			t.Errorf("%s hashes to %s, the index says %s", path, got, s.Get("digest").Str)
		}
		etag := resp.Header.Get("ETag")
		if resp, body := get("GET", path, "If-None-Match", etag); resp.StatusCode != 304 || len(body) != 0 {
			t.Errorf("%s with If-None-Match %s: %d, %d bytes", path, etag, resp.StatusCode, len(body))
		}
		if resp, body := get("HEAD", path); resp.StatusCode != 200 || len(body) != 0 || resp.Header.Get("ETag") != etag {
			t.Errorf("HEAD %s: %d, %d bytes, ETag %q", path, resp.StatusCode, len(body), resp.Header.Get("ETag"))
		}
	}
	if resp, body := get("GET", "/.well-known/agent-skills/refunds.zip"); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/zip" || len(body) == 0 {
		t.Errorf("zip archive: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	resp, body = get("GET", "/.well-known/skills/index.json")
	expect("v0.1.0 index", resp, 200, "application/json")
	files := 0
	for _, s := range gjson.ParseBytes(body).Get("skills").Array() {
		for _, f := range s.Get("files").Array() {
			path := s.Get("path").Str + f.Str
			resp, _ := get("GET", path)
			if resp.StatusCode != 200 {
				t.Errorf("%s: %d", path, resp.StatusCode)
			}
			if strings.HasSuffix(path, ".md") {
				expect(path, resp, 200, "text/markdown; charset=utf-8")
			}
			files++
		}
	}
	if files < 10 {
		t.Fatalf("the v0.1.0 index lists %d files", files)
	}
	checkWellKnown(t, base) // every artifact against its digest
	for _, miss := range []string{"/.well-known/agent-skills/nope.tar.gz", "/.well-known/skills/refunds/nope.md", "/.well-known/skills/refunds/../git-workflow/SKILL.md", "/.well-known/other"} {
		if resp, _ := get("GET", miss); resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", miss, resp.StatusCode)
		}
	}
}
