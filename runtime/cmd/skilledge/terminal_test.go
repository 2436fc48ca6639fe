package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// hostileText is what a hostile server sends for a terminal to act on: a title, a clear
// screen, a carriage return and a line break to forge a line, a C1 CSI, a bidi override.
const hostileText = "\x1b]0;pwned\x07\x1b[2J\rskilledge pull: 9 installed\nskilledge: forged \u009b31m \u202eexe.txt"

// TestServerTextEscaped: every string a server sent is printed with its controls
// escaped: outdated's version (from the index), pull's and verify's JSON-RPC error
// messages, on stdout and stderr, as text and as JSON.
func TestServerTextEscaped(t *testing.T) {
	var hostile atomic.Bool
	md := func() string {
		if hostile.Load() {
			return "---\nname: greet\ndescription: Says hello.\nversion: \"2\"\n---\nHello again!\n"
		}
		return "---\nname: greet\ndescription: Says hello.\nversion: \"1\"\n---\nHello!\n"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/agent-skills/index.json", func(w http.ResponseWriter, r *http.Request) {
		version := "1"
		if hostile.Load() {
			version = hostileText
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"$schema":"https://schemas.agentskills.io/discovery/0.2.0/schema.json","skills":[`+
			`{"name":"greet","type":"skill-md","description":"Says hello.","url":"greet/SKILL.md","digest":"sha256:%x","frontmatter":{"name":"greet","version":%s}}]}`,
			sha256.Sum256([]byte(md())), jsonString(version))
	})
	mux.HandleFunc("GET /.well-known/agent-skills/greet/SKILL.md", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, md())
	})
	mux.HandleFunc("POST /mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":%s}}`, jsonString(hostileText))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	dir := filepath.Join(t.TempDir(), "skills")
	if code, out, errOut := call(t, "", "pull", srv.URL, dir, "--allow-http-loopback"); code != 0 {
		t.Fatalf("pull: %d\n%s%s", code, out, errOut)
	}
	hostile.Store(true)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string // in the output, escaped
	}{
		{"outdated", []string{"outdated", dir, "--allow-http-loopback"}, 1, `-> \x1b]0;pwned\x07\x1b[2J\x0dskilledge pull: 9 installed\x0askilledge: forged \u009b31m \u202eexe.txt sha256:`},
		{"outdated --json", []string{"outdated", dir, "--allow-http-loopback", "--json"}, 1, `"toVersion": "\\x1b]0;pwned\\x07`},
		{"pull over MCP", []string{"pull", srv.URL + "/mcp", t.TempDir(), "--allow-http-loopback"}, 1, `error -32000: \x1b]0;pwned`},
		{"verify", []string{"verify", srv.URL, "--allow-http-loopback"}, 1, `\x1b]0;pwned`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := call(t, "", c.args...)
			all := out + errOut
			if code != c.code || !strings.Contains(all, c.want) {
				t.Errorf("exit %d, want %d, and output with %q:\n%s", code, c.code, c.want, all)
			}
			if i := strings.IndexFunc(all, func(r rune) bool {
				return r < ' ' && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u202e'
			}); i >= 0 {
				t.Errorf("the output holds a control character at %d:\n%q", i, all)
			}
			if strings.Contains(all, "\nskilledge: forged") || strings.Contains(all, "\nskilledge pull: 9 installed") {
				t.Errorf("a forged line:\n%s", all)
			}
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
