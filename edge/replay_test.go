package edge

import (
	"strings"
	"testing"

	"github.com/skilledge/skilledge/edge/wire"
)

// TestReplay: which answers may be replayed, and that those keep the promise for other ids
// (checkReplay). Everything but one request answered with a result is refused.
func TestReplay(t *testing.T) {
	const (
		local  = "Host: 127.0.0.1:8787\nContent-Type: application/json\n"
		modern = local + "MCP-Protocol-Version: 2026-07-28\n"
	)
	read := `{` + modernMeta + `,"uri":"skill://git-workflow/SKILL.md"}`
	s := exampleServer(t, wire.Options{})
	for _, c := range []struct {
		name, method, header, body string
		replay                     bool
	}{
		{"modern read", "POST", modern + "Mcp-Method: resources/read\nMcp-Name: skill://git-workflow/SKILL.md\n", request(1, "resources/read", read), true},
		{"modern read, string id", "POST", modern + "Mcp-Method: resources/read\nMcp-Name: skill://git-workflow/SKILL.md\n",
			strings.Replace(request(1, "resources/read", read), `"id":1`, `"id":"abc"`, 1), true},
		{"id after the params", "POST", modern + "Mcp-Method: resources/read\nMcp-Name: skill://git-workflow/SKILL.md\n",
			`{"jsonrpc":"2.0","method":"resources/read","params":` + read + `, "id" : 99 }`, true},
		{"modern skills/list", "POST", modern + "Mcp-Method: skills/list\n", request(2, "skills/list", `{`+modernMeta+`}`), true},
		{"legacy initialize", "POST", local, request(3, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`), true},
		{"legacy read", "POST", local + "MCP-Protocol-Version: 2025-11-25\n", request(4, "resources/read", `{"uri":"skill://git-workflow/SKILL.md"}`), true},
		{"error: unknown file", "POST", local, request(5, "resources/read", `{"uri":"skill://git-workflow/nope.md"}`), false},
		{"error: header mismatch", "POST", modern + "Mcp-Method: skills/list\n", request(6, "resources/read", read), false},
		{"error: unknown method", "POST", local, request(7, "nope", ""), false},
		{"id with a fraction", "POST", local, strings.Replace(request(8, "ping", ""), `"id":8`, `"id":8.0`, 1), false},
		{"id with an escape", "POST", local, strings.Replace(request(9, "ping", ""), `"id":9`, `"id":"\u0039"`, 1), false},
		{"batch", "POST", local + "MCP-Protocol-Version: 2025-03-26\n", `[` + request(10, "ping", "") + `]`, false},
		{"notification", "POST", local, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, false},
		{"GET of a well-known index", "GET", "Host: localhost\n", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := "/mcp"
			if c.method == "GET" {
				target = "/.well-known/agent-skills/index.json"
			}
			r := &wire.Request{Method: c.method, Target: target, Header: fuzzHeader(c.header), Body: []byte(c.body)}
			frame, replay := s.AppendHTTP(nil, r)
			if got := replay.IDLen > 0; got != c.replay {
				t.Fatalf("replay %+v for\n%s", replay, frame)
			}
			if c.replay {
				checkReplay(t, s, r, frame, replay)
			}
		})
	}
}

// TestReplayBodyCap: the promise holds only up to MaxBody, past which the answer is 413.
func TestReplayBodyCap(t *testing.T) {
	body := request(1, "ping", "")
	s := exampleServer(t, wire.Options{MaxBody: len(body)})
	r := &wire.Request{Method: "POST", Target: "/mcp", Header: fuzzHeader("Host: localhost\nContent-Type: application/json\n"), Body: []byte(body)}
	_, replay := s.AppendHTTP(nil, r)
	if replay.IDLen != 1 || replay.MaxBody != len(body) {
		t.Fatalf("replay %+v, want the id's one byte and MaxBody %d", replay, len(body))
	}
	r.Body = []byte(strings.Replace(body, `"id":1`, `"id":12`, 1))
	if resp := s.ServeHTTP(r); resp.Status != 413 {
		t.Fatalf("a body one byte past MaxBody: %d, want 413", resp.Status)
	}
}
