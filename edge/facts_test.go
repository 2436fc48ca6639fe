package edge

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/wire"
)

// factsOf answers req on s and returns the facts of the answer, as the plugin encodes
// them and a host parses them.
func factsOf(t *testing.T, s *Server, req *wire.Request) (wire.Facts, string) {
	t.Helper()
	_, _, f := s.AppendHTTPFacts(nil, req)
	enc := f.Append(nil)
	got, err := wire.ParseFacts(enc)
	if err != nil {
		t.Fatalf("the facts %q do not parse: %v", enc, err)
	}
	return got, string(enc)
}

// post is a request to the MCP endpoint of the example server: modern when the body has
// _meta (with the routing headers it needs), else legacy 2025-11-25.
func post(body string) *wire.Request {
	h := []string{"Host", "localhost", "Content-Type", "application/json"}
	if m := gjson.Get(body, "params._meta"); m.Exists() {
		h = append(h, "MCP-Protocol-Version", m.Get(`io\.modelcontextprotocol/protocolVersion`).Str, "Mcp-Method", gjson.Get(body, "method").Str)
		if u := gjson.Get(body, "params.uri"); u.Exists() && gjson.Get(body, "method").Str == "resources/read" {
			h = append(h, "Mcp-Name", u.Str)
		}
		if n := gjson.Get(body, "params.name"); n.Exists() && gjson.Get(body, "method").Str == "tools/call" {
			h = append(h, "Mcp-Name", n.Str)
		}
	} else if !strings.HasPrefix(body, "[") {
		h = append(h, "MCP-Protocol-Version", "2025-11-25")
	} else {
		h = append(h, "MCP-Protocol-Version", "2025-03-26")
	}
	return &wire.Request{Method: "POST", Target: "/mcp", Header: header(h...), Body: []byte(body)}
}

func get(target string) *wire.Request {
	return &wire.Request{Method: "GET", Target: target, Header: header("Host", "localhost")}
}

// TestFacts: what the server says of each kind of answer: route, method, revision, what
// was read of which skill, the error code; never a name the client made up.
func TestFacts(t *testing.T) {
	s := exampleServer(t, wire.Options{Tools: true})
	modern := func(method, params string) string {
		if params != "" {
			params += ","
		}
		return request(7, method, "{"+params+modernMeta+"}")
	}
	const refunds = "acme/billing/refunds"
	for _, c := range []struct {
		name string
		req  *wire.Request
		want wire.Facts
	}{
		{"initialize", post(request(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)),
			wire.Facts{Route: "mcp", Method: "initialize", Version: "2025-11-25"}},
		{"skills/list", post(modern("skills/list", "")), wire.Facts{Route: "mcp", Method: "skills/list", Version: "2026-07-28", Read: "listing"}},
		{"resources/list, legacy", post(request(1, "resources/list", "")), wire.Facts{Route: "mcp", Method: "resources/list", Version: "2025-11-25", Read: "listing"}},
		{"a SKILL.md read is an activation", post(modern("resources/read", `"uri":"skill://acme/billing/refunds/SKILL.md"`)),
			wire.Facts{Route: "mcp", Method: "resources/read", Version: "2026-07-28", Read: "activation", Skill: refunds, URI: "skill://acme/billing/refunds/SKILL.md"}},
		{"another file", post(modern("resources/read", `"uri":"skill://acme/billing/refunds/policies/regions/us.md"`)),
			wire.Facts{Route: "mcp", Method: "resources/read", Version: "2026-07-28", Read: "file", Skill: refunds, URI: "skill://acme/billing/refunds/policies/regions/us.md"}},
		{"a nested skill's SKILL.md", post(modern("resources/read", `"uri":"skill://release-notes/changelog-entry/SKILL.md"`)),
			wire.Facts{Route: "mcp", Method: "resources/read", Version: "2026-07-28", Read: "activation", Skill: "release-notes/changelog-entry", URI: "skill://release-notes/changelog-entry/SKILL.md"}},
		{"an archive", post(modern("resources/read", `"uri":"skill://acme/billing/refunds.tar.gz"`)),
			wire.Facts{Route: "mcp", Method: "resources/read", Version: "2026-07-28", Read: "archive", Skill: refunds, URI: "skill://acme/billing/refunds.tar.gz"}},
		{"the index", post(modern("resources/read", `"uri":"skill://index.json"`)),
			wire.Facts{Route: "mcp", Method: "resources/read", Version: "2026-07-28", Read: "listing", URI: "skill://index.json"}},
		{"a URI written otherwise names the skill as it is", post(modern("resources/read", `"uri":"SKILL://acme/billing/refunds/%53KILL.md"`)),
			wire.Facts{Route: "mcp", Method: "resources/read", Version: "2026-07-28", Read: "activation", Skill: refunds, URI: "skill://acme/billing/refunds/SKILL.md"}},
		{"an unknown resource names nothing", post(request(1, "resources/read", `{"uri":"skill://acme/billing/secret/SKILL.md"}`)),
			wire.Facts{Route: "mcp", Method: "resources/read", Version: "2025-11-25", Code: -32602}},
		{"a skill's directory", post(modern("resources/directory/read", `"uri":"skill://release-notes"`)),
			wire.Facts{Route: "mcp", Method: "resources/directory/read", Version: "2026-07-28", Read: "directory", Skill: "release-notes", URI: "skill://release-notes"}},
		{"a directory of a skill", post(modern("resources/directory/read", `"uri":"skill://acme/billing/refunds/policies"`)),
			wire.Facts{Route: "mcp", Method: "resources/directory/read", Version: "2026-07-28", Read: "directory", Skill: refunds, URI: "skill://acme/billing/refunds/policies"}},
		{"skills/get {uri}", post(modern("skills/get", `"uri":"skill://acme/billing/refunds/SKILL.md"`)),
			wire.Facts{Route: "mcp", Method: "skills/get", Version: "2026-07-28", Read: "activation", Skill: refunds}},
		{"skills/get {name}", post(modern("skills/get", `"name":"git-workflow"`)),
			wire.Facts{Route: "mcp", Method: "skills/get", Version: "2026-07-28", Read: "activation", Skill: "git-workflow"}},
		{"load_skill", post(modern("tools/call", `"name":"load_skill","arguments":{"name":"incident-response"}`)),
			wire.Facts{Route: "mcp", Method: "tools/call", Version: "2026-07-28", Read: "activation", Skill: "incident-response"}},
		{"list_skills", post(modern("tools/call", `"name":"list_skills","arguments":{}`)),
			wire.Facts{Route: "mcp", Method: "tools/call", Version: "2026-07-28", Read: "listing"}},
		{"a method made up is _OTHER", post(modern("x/made-up\nname", "")),
			wire.Facts{Route: "mcp", Method: "_OTHER", Version: "2026-07-28", Code: -32601}},
		{"a revision made up is none", post(request(1, "skills/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{}}}`)),
			wire.Facts{Route: "mcp", Method: "skills/list", Code: -32022}},
		{"a parse error", post(`{"jsonrpc":`), wire.Facts{Route: "mcp", Code: -32700}},
		{"a notification", post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), wire.Facts{Route: "mcp"}},
		{"a batch", post(`[` + request(1, "ping", "") + `,` + request(2, "skills/list", "") + `]`),
			wire.Facts{Route: "mcp", Method: "batch", Version: "2025-03-26"}},
		{"a well-known SKILL.md", get("/.well-known/agent-skills/git-workflow/SKILL.md"),
			wire.Facts{Route: "well-known", Read: "activation", Skill: "git-workflow", URI: "skill://git-workflow/SKILL.md"}},
		{"a well-known archive", get("/.well-known/agent-skills/git-workflow.zip"),
			wire.Facts{Route: "well-known", Read: "archive", Skill: "git-workflow", URI: "skill://git-workflow.zip"}},
		{"a well-known file", get("/.well-known/skills/refunds/templates/refund-email.md"),
			wire.Facts{Route: "well-known", Read: "file", Skill: refunds, URI: "skill://acme/billing/refunds/templates/refund-email.md"}},
		{"a well-known index", get("/.well-known/agent-skills/index.json"), wire.Facts{Route: "well-known", Read: "listing"}},
		{"a well-known miss", get("/.well-known/agent-skills/nothing/SKILL.md"), wire.Facts{Route: "well-known"}},
		{"the page", get("/"), wire.Facts{Route: "page"}},
		{"anything else", get("/wp-admin"), wire.Facts{Route: "other"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, enc := factsOf(t, s, c.req)
			if got != c.want {
				t.Errorf("facts %q\n got %+v\nwant %+v", enc, got, c.want)
			}
		})
	}
}
