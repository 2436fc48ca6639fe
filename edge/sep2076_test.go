package edge

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/wire"
)

// TestSkillsGetAmbiguousName checks that a name two skills share (under different
// prefixes) is -32602 naming both URIs, while each stays reachable by URI.
func TestSkillsGetAmbiguousName(t *testing.T) {
	p := packOf(t, map[string]string{
		"acme/deploy/SKILL.md": skillMD("deploy"),
		"beta/deploy/SKILL.md": skillMD("deploy"),
		"other/SKILL.md":       skillMD("other"),
	})
	s := New(p, wire.Options{})
	reply := handle(t, s, "2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"skills/get","params":{"name":"deploy"}}`)
	msg := gjson.GetBytes(reply, "error.message").Str
	if gjson.GetBytes(reply, "error.code").Int() != -32602 || !strings.Contains(msg, "skill://acme/deploy/SKILL.md") || !strings.Contains(msg, "skill://beta/deploy/SKILL.md") {
		t.Fatalf("ambiguous name: %s", reply)
	}
	reply = handle(t, s, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"skills/get","params":{"name":"other"}}`)
	if !gjson.GetBytes(reply, "result.instructions").Exists() {
		t.Fatalf("unique name: %s", reply)
	}
	reply = handle(t, s, "2025-11-25", `{"jsonrpc":"2.0","id":3,"method":"skills/get","params":{"uri":"skill://beta/deploy/SKILL.md","name":"deploy"}}`)
	if gjson.GetBytes(reply, "result.skill.uri").Str != "skill://beta/deploy/SKILL.md" {
		t.Fatalf("uri wins over name: %s", reply)
	}
}
