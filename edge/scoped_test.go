package edge

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/wire"
)

// TestScopedResourcesList checks resources/list {uri}: one SKILL.md entry per skill under
// the scope, segment by segment, paginated, and the unscoped listing unchanged.
func TestScopedResourcesList(t *testing.T) {
	s := New(packOf(t, map[string]string{
		"acme/billing/refunds/SKILL.md":           skillMD("refunds"),
		"acme/billing/refunds/templates/email.md": "x",
		"acme/support/SKILL.md":                   skillMD("support"),
		"acme/support/nested/SKILL.md":            skillMD("nested"),
		"acmecorp/x/SKILL.md":                     skillMD("x"),
		"solo/SKILL.md":                           skillMD("solo"),
	}), wire.Options{PageSize: 2})
	list := func(params string) (uris []string, cursor string, reply []byte) {
		reply = handle(t, s, "2025-11-25", request(1, "resources/list", params))
		for _, r := range gjson.GetBytes(reply, "result.resources").Array() {
			uris = append(uris, r.Get("uri").Str)
			if r.Get("mimeType").Str != "text/markdown" || r.Get("name").Str == "" || r.Get("description").Str == "" || !r.Get("size").Exists() {
				t.Errorf("entry lacks SKILL.md metadata: %s", r.Raw)
			}
		}
		return uris, gjson.GetBytes(reply, "result.nextCursor").Str, reply
	}
	all := func(scope string) []string {
		var out []string
		params := `{"uri":` + jsonQuote(scope) + `}`
		for range 10 {
			uris, cursor, reply := list(params)
			if gjson.GetBytes(reply, "error").Exists() {
				t.Fatalf("%s: %s", scope, reply)
			}
			out = append(out, uris...)
			if cursor == "" {
				return out
			}
			params = `{"uri":` + jsonQuote(scope) + `,"cursor":"` + cursor + `"}`
		}
		t.Fatal("no end to the listing")
		return nil
	}
	for _, tc := range []struct {
		scope string
		want  []string
	}{
		{"skill://", []string{"skill://acme/billing/refunds/SKILL.md", "skill://acme/support/SKILL.md", "skill://acme/support/nested/SKILL.md", "skill://acmecorp/x/SKILL.md", "skill://solo/SKILL.md"}},
		{"SKILL://", []string{"skill://acme/billing/refunds/SKILL.md", "skill://acme/support/SKILL.md", "skill://acme/support/nested/SKILL.md", "skill://acmecorp/x/SKILL.md", "skill://solo/SKILL.md"}},
		{"skill://acme/", []string{"skill://acme/billing/refunds/SKILL.md", "skill://acme/support/SKILL.md", "skill://acme/support/nested/SKILL.md"}},
		{"skill://acme", []string{"skill://acme/billing/refunds/SKILL.md", "skill://acme/support/SKILL.md", "skill://acme/support/nested/SKILL.md"}},
		{"skill://acme/support/", []string{"skill://acme/support/SKILL.md", "skill://acme/support/nested/SKILL.md"}},
		{"skill://acme/billing/refunds/templates/", nil},
		{"skill://nothing/", nil},
		{"https://example.com/", nil},
	} {
		if got := all(tc.scope); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("scope %s:\n got  %v\n want %v", tc.scope, got, tc.want)
		}
	}

	// A cursor of one scope is not a cursor of another, nor of the unscoped listing.
	_, cursor, _ := list(`{"uri":"skill://"}`)
	for _, params := range []string{`{"uri":"skill://acme/","cursor":"` + cursor + `"}`, `{"cursor":"` + cursor + `"}`} {
		if reply := handle(t, s, "2025-11-25", request(1, "resources/list", params)); gjson.GetBytes(reply, "error.code").Int() != -32602 {
			t.Errorf("%s: %s", params, reply)
		}
	}
	for _, params := range []string{`{"uri":"skill://acme/../x/"}`, `{"uri":7}`, `{"uri":"skill:///"}`} {
		if reply := handle(t, s, "2025-11-25", request(1, "resources/list", params)); gjson.GetBytes(reply, "error.code").Int() != -32602 {
			t.Errorf("%s: %s", params, reply)
		}
	}
	// Without uri (or with null) every file is listed, as before.
	for _, params := range []string{``, `{}`, `{"uri":null}`} {
		reply := handle(t, s, "2025-11-25", request(1, "resources/list", params))
		if n := len(gjson.GetBytes(reply, "result.resources").Array()); n != 2 || gjson.GetBytes(reply, "result.resources.1.uri").Str != "skill://acme/billing/refunds/templates/email.md" {
			t.Errorf("%s: %s", params, reply)
		}
	}
}

// TestSkillArguments checks the SEP-2076 arguments and dependencies: carried into the
// skills/list entry and the skills/get {name} result, and a missing required argument is
// -32602 naming it.
func TestSkillArguments(t *testing.T) {
	s := New(packOf(t, map[string]string{
		"notes/SKILL.md": "---\nname: notes\ndescription: d\narguments:\n  - name: version\n    required: true\n  - name: since\n  - name: tag\n    required: true\n" +
			"dependencies:\n  tools: [git]\n  resources:\n    - {type: ref/resource, uri: 'skill://plain/SKILL.md'}\n---\nbody\n",
		"plain/SKILL.md": skillMD("plain"),
	}), wire.Options{})
	const args = `[{"name":"version","required":true},{"name":"since"},{"name":"tag","required":true}]`
	const deps = `{"tools":["git"],"resources":[{"type":"ref/resource","uri":"skill://plain/SKILL.md"}]}`
	reply := handle(t, s, "2025-11-25", request(1, "skills/list", ""))
	if e := gjson.GetBytes(reply, "result.skills.0"); e.Get("arguments").Raw != args || e.Get("dependencies").Raw != deps {
		t.Errorf("skills/list entry: %s", e.Raw)
	}
	if e := gjson.GetBytes(reply, "result.skills.1"); e.Get("arguments").Exists() || e.Get("dependencies").Exists() {
		t.Errorf("a skill without them has them: %s", e.Raw)
	}
	reply = handle(t, s, "2025-11-25", request(2, "skills/get", `{"name":"notes","arguments":{"version":"1.2","tag":"v1.1"}}`))
	if r := gjson.GetBytes(reply, "result"); r.Get("arguments").Raw != args || r.Get("dependencies").Raw != deps || r.Get("instructions").Str != "body\n" {
		t.Errorf("skills/get {name}: %s", reply)
	}
	for _, tc := range []struct{ params, want string }{
		{`{"name":"notes"}`, `{"code":-32602,"message":"Skill \"notes\" requires the arguments \"version\", \"tag\" in params.arguments (skills/list gives each skill's \"arguments\")","data":{"name":"notes","missing":["version","tag"]}}`},
		{`{"name":"notes","arguments":{"version":"1"}}`, `{"code":-32602,"message":"Skill \"notes\" requires the argument \"tag\" in params.arguments (skills/list gives each skill's \"arguments\")","data":{"name":"notes","missing":["tag"]}}`},
		{`{"name":"notes","arguments":null}`, `{"code":-32602,"message":"Skill \"notes\" requires the arguments \"version\", \"tag\" in params.arguments (skills/list gives each skill's \"arguments\")","data":{"name":"notes","missing":["version","tag"]}}`},
		{`{"name":"notes","arguments":["version","tag"]}`, `{"code":-32602,"message":"params.arguments must be an object"}`},
	} {
		reply := handle(t, s, "2025-11-25", request(3, "skills/get", tc.params))
		if got := gjson.GetBytes(reply, "error").Raw; got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.params, got, tc.want)
		}
	}
	// A skill without required arguments takes none, and ignores any.
	for _, params := range []string{`{"name":"plain"}`, `{"name":"plain","arguments":{"x":"y"}}`} {
		if reply := handle(t, s, "2025-11-25", request(4, "skills/get", params)); !gjson.GetBytes(reply, "result.instructions").Exists() {
			t.Errorf("%s: %s", params, reply)
		}
	}
}

// TestListChangedCapability checks that listChanged is declared only with
// wire.Options.ListChanged, in both eras, and that a watched catalog's answers are stale at once.
func TestListChangedCapability(t *testing.T) {
	for _, watched := range []bool{false, true} {
		s := exampleServer(t, wire.Options{ListChanged: watched})
		legacy := handle(t, s, "", request(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`))
		modern := handle(t, s, "", request(2, "server/discover", `{`+modernMeta+`}`))
		for _, caps := range []gjson.Result{gjson.GetBytes(legacy, "result.capabilities"), gjson.GetBytes(modern, "result.capabilities")} {
			if caps.Get("skills.listChanged").Bool() != watched || caps.Get("resources.listChanged").Bool() != watched || !caps.Get("completions").IsObject() {
				t.Errorf("watched=%v: capabilities %s", watched, caps.Raw)
			}
		}
		list := handle(t, s, "", request(3, "skills/list", `{`+modernMeta+`}`))
		if ttl := gjson.GetBytes(list, "result.ttlMs").Int(); (ttl == 0) != watched {
			t.Errorf("watched=%v: ttlMs %d", watched, ttl)
		}
	}
}
