package edge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/wire"
)

// completeReq is a completion/complete request for argument name with value on template,
// with the context arguments ctx (raw JSON object, "" for none).
func completeReq(template, name, value, ctx string) string {
	p := fmt.Sprintf(`{"ref":{"type":"ref/resource","uri":%q},"argument":{"name":%q,"value":%q}`, template, name, value)
	if ctx != "" {
		p += `,"context":{"arguments":` + ctx + `}`
	}
	return request(1, "completion/complete", p+"}")
}

func TestCompletion(t *testing.T) {
	files := map[string]string{
		"acme/billing/refunds/SKILL.md":                   skillMD("refunds"),
		"acme/billing/refunds/templates/email.md":         "x",
		"acme/billing/refunds/templates/e mail.md":        "x",
		"acme/billing/refunds/policies/eu.md":             "x",
		"acme/billing/invoices/SKILL.md":                  skillMD("invoices"),
		"acme/support/SKILL.md":                           skillMD("support"),
		"acme/support/nested/SKILL.md":                    skillMD("nested"),
		"acme/support/nested/notes.md":                    "x",
		"acmecorp/x/SKILL.md":                             skillMD("x"),
		"git-workflow/SKILL.md":                           skillMD("git-workflow"),
		"git-workflow/reference/commit-message-format.md": "x",
	}
	for i := range 120 {
		name := fmt.Sprintf("many-%03d", i)
		files["bulk/"+name+"/SKILL.md"] = skillMD(name)
	}
	s := New(packOf(t, files), wire.Options{})
	for _, tc := range []struct {
		name, template, arg, value, ctx string
		want                            string // the completion object
	}{
		{"skill prefix", skillTemplate, "skillPath", "acme/b", "",
			`{"values":["acme/billing/invoices","acme/billing/refunds"],"total":2,"hasMore":false}`},
		{"segment boundary", skillTemplate, "skillPath", "acme", "",
			`{"values":["acme/billing/invoices","acme/billing/refunds","acme/support","acme/support/nested","acmecorp/x"],"total":5,"hasMore":false}`},
		{"exact", skillTemplate, "skillPath", "acme/support", "",
			`{"values":["acme/support","acme/support/nested"],"total":2,"hasMore":false}`},
		{"no match", skillTemplate, "skillPath", "zzz", "",
			`{"values":[],"total":0,"hasMore":false}`},
		{"longer than any path", skillTemplate, "skillPath", "acme/support/nested/S", "",
			`{"values":[],"total":0,"hasMore":false}`},
		{"a word no path begins with: the skills a search finds", skillTemplate, "skillPath", "007", "",
			`{"values":["bulk/many-007"],"total":1,"hasMore":false}`},
		{"a word: paths first, then what a search finds", skillTemplate, "skillPath", "nested", "",
			`{"values":["acme/support/nested"],"total":1,"hasMore":false}`},
		{"file template, skill path", fileTemplate, "skillPath", "git", "",
			`{"values":["git-workflow"],"total":1,"hasMore":false}`},
		{"file paths", fileTemplate, "filePath", "", `{"skillPath":"acme/billing/refunds"}`,
			`{"values":["SKILL.md","policies/eu.md","templates/e%20mail.md","templates/email.md"],"total":4,"hasMore":false}`},
		{"file prefix", fileTemplate, "filePath", "templates/e", `{"skillPath":"acme/billing/refunds"}`,
			`{"values":["templates/e%20mail.md","templates/email.md"],"total":2,"hasMore":false}`},
		{"nested skill's files count", fileTemplate, "filePath", "n", `{"skillPath":"acme/support"}`,
			`{"values":["nested/SKILL.md","nested/notes.md"],"total":2,"hasMore":false}`},
		{"skill path in another spelling", fileTemplate, "filePath", "r", `{"skillPath":"git%2Dworkflow"}`,
			`{"values":["reference/commit-message-format.md"],"total":1,"hasMore":false}`},
		{"no skill chosen", fileTemplate, "filePath", "", "",
			`{"values":[],"total":0,"hasMore":false}`},
		{"unknown skill", fileTemplate, "filePath", "", `{"skillPath":"acme"}`,
			`{"values":[],"total":0,"hasMore":false}`},
		{"malformed skill path", fileTemplate, "filePath", "", `{"skillPath":"../x"}`,
			`{"values":[],"total":0,"hasMore":false}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply := handle(t, s, "2025-11-25", completeReq(tc.template, tc.arg, tc.value, tc.ctx))
			if got := gjson.GetBytes(reply, "result.completion").Raw; got != tc.want {
				t.Fatalf("got %s\nwant %s", reply, tc.want)
			}
		})
	}

	t.Run("more than 100", func(t *testing.T) {
		reply := handle(t, s, "2025-11-25", completeReq(skillTemplate, "skillPath", "bulk/", ""))
		c := gjson.GetBytes(reply, "result.completion")
		vals := c.Get("values").Array()
		if len(vals) != 100 || c.Get("total").Int() != 120 || !c.Get("hasMore").Bool() ||
			vals[0].Str != "bulk/many-000" || vals[99].Str != "bulk/many-099" {
			t.Fatalf("got %s", reply)
		}
	})

	for _, tc := range []struct{ name, params, msg string }{
		{"no ref", `{"argument":{"name":"skillPath","value":""}}`, "params.ref must be an object"},
		{"no argument", `{"ref":{"type":"ref/resource","uri":"` + skillTemplate + `"}}`, "params.argument must be an object"},
		{"value not a string", `{"ref":{"type":"ref/resource","uri":"` + skillTemplate + `"},"argument":{"name":"skillPath","value":1}}`, "must be strings"},
		{"prompt", `{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":""}}`, "No prompt"},
		{"bad type", `{"ref":{"type":"ref/tool","uri":"x"},"argument":{"name":"a","value":""}}`, `params.ref.type must be`},
		{"unknown template", `{"ref":{"type":"ref/resource","uri":"skill://{x}"},"argument":{"name":"x","value":""}}`, "Unknown resource template: skill://{x}"},
		{"unknown argument", `{"ref":{"type":"ref/resource","uri":"` + skillTemplate + `"},"argument":{"name":"filePath","value":""}}`, `has no argument "filePath"`},
		{"context not an object", `{"ref":{"type":"ref/resource","uri":"` + fileTemplate + `"},"argument":{"name":"filePath","value":""},"context":[]}`, "params.context must be an object"},
		{"skillPath not a string", `{"ref":{"type":"ref/resource","uri":"` + fileTemplate + `"},"argument":{"name":"filePath","value":""},"context":{"arguments":{"skillPath":3}}}`, "skillPath must be a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply := handle(t, s, "2025-11-25", request(2, "completion/complete", tc.params))
			if gjson.GetBytes(reply, "error.code").Int() != -32602 || !strings.Contains(gjson.GetBytes(reply, "error.message").Str, tc.msg) {
				t.Fatalf("got %s, want -32602 with %q", reply, tc.msg)
			}
		})
	}

	t.Run("modern era", func(t *testing.T) {
		reply := handle(t, s, "", request(3, "completion/complete", `{`+modernMeta+`,"ref":{"type":"ref/resource","uri":"`+skillTemplate+`"},"argument":{"name":"skillPath","value":"git"}}`))
		want := `{"jsonrpc":"2.0","id":3,"result":{"completion":{"values":["git-workflow"],"total":1,"hasMore":false},"resultType":"complete"}}`
		if string(reply) != want {
			t.Fatalf("got  %s\nwant %s", reply, want)
		}
	})
}

// TestTemplatesList checks that both templates are listed, with names and descriptions.
func TestTemplatesList(t *testing.T) {
	s := exampleServer(t, wire.Options{})
	reply := handle(t, s, "2025-11-25", request(1, "resources/templates/list", ""))
	ts := gjson.GetBytes(reply, "result.resourceTemplates").Array()
	if len(ts) != 2 || ts[0].Get("uriTemplate").Str != skillTemplate || ts[1].Get("uriTemplate").Str != fileTemplate {
		t.Fatalf("got %s", reply)
	}
	for _, tp := range ts {
		if tp.Get("name").Str == "" || tp.Get("description").Str == "" {
			t.Errorf("template without name or description: %s", tp.Raw)
		}
	}
}
