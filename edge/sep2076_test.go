package edge

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/wire"
)

// TestSkillsGetSharedName: a name two skills share (under different prefixes) reaches
// neither; each is listed and reached by its qualified index name, and by URI.
func TestSkillsGetSharedName(t *testing.T) {
	p := packOf(t, map[string]string{
		"acme/deploy/SKILL.md": skillMD("deploy"),
		"beta/deploy/SKILL.md": skillMD("deploy"),
		"other/SKILL.md":       skillMD("other"),
	})
	s := New(p, wire.Options{})
	reply := handle(t, s, "2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"skills/get","params":{"name":"deploy"}}`)
	if msg := gjson.GetBytes(reply, "error.message").Str; gjson.GetBytes(reply, "error.code").Int() != -32602 || !strings.HasPrefix(msg, `Skill not found: "deploy"`) {
		t.Fatalf("shared name: %s", reply)
	}
	var names []string
	for _, e := range gjson.GetBytes(handle(t, s, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"skills/list"}`), "result.skills").Array() {
		names = append(names, e.Get("name").Str+"="+e.Get("frontmatter.name").Str)
	}
	if got := strings.Join(names, " "); got != "acme-deploy=deploy beta-deploy=deploy other=other" {
		t.Fatalf("skills/list names (index=frontmatter): %s", got)
	}
	for name, uri := range map[string]string{"acme-deploy": "skill://acme/deploy/SKILL.md", "beta-deploy": "skill://beta/deploy/SKILL.md", "other": "skill://other/SKILL.md"} {
		reply = handle(t, s, "2025-11-25", `{"jsonrpc":"2.0","id":3,"method":"skills/get","params":{"name":"`+name+`"}}`)
		if !gjson.GetBytes(reply, "result.instructions").Exists() || gjson.GetBytes(reply, "result.files.0.uri").Str != uri {
			t.Fatalf("%s: %s", name, reply)
		}
	}
	reply = handle(t, s, "2025-11-25", `{"jsonrpc":"2.0","id":4,"method":"skills/get","params":{"uri":"skill://beta/deploy/SKILL.md","name":"deploy"}}`)
	if gjson.GetBytes(reply, "result.skill.uri").Str != "skill://beta/deploy/SKILL.md" {
		t.Fatalf("uri wins over name: %s", reply)
	}
}
