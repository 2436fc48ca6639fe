package tests

import (
	"fmt"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/examples"
)

// TestSEP2076Instructions asks every target for each example skill by name (with its
// arguments) and checks that instructions is exactly the SKILL.md body and files lists
// every file of the skill.
func TestSEP2076Instructions(t *testing.T) {
	c, _, err := compile.Load(examples.FS, "examples", compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, newTarget := range map[string]func(*testing.T, []byte) target{"in-process": newInProcess, "wasm": newWasm} {
		t.Run(name, func(t *testing.T) {
			tg := newTarget(t, nil)
			for i, s := range c.Skills {
				// Every argument the skill declares, so that the required ones are there.
				args := "{"
				for k, a := range gjson.GetBytes(s.Frontmatter, "arguments.#.name").Array() {
					if k > 0 {
						args += ","
					}
					args += fmt.Sprintf("%q:\"x\"", a.Str)
				}
				req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"skills/get","params":{"name":%q,"arguments":%s}}`, i, s.Name, args+"}")
				reply, _ := tg.Message(t, "2025-11-25", []byte(req))
				r := gjson.ParseBytes(reply).Get("result")
				if got := r.Get("instructions").Str; got != string(s.Body) {
					t.Errorf("%s: instructions differ from the SKILL.md body:\n%q\nwant\n%q", s.Name, got, s.Body)
				}
				if got := r.Get("description").Str; got != s.Description {
					t.Errorf("%s: description %q", s.Name, got)
				}
				if n := len(r.Get("files").Array()); n != len(s.Files) {
					t.Errorf("%s: %d files listed, want %d", s.Name, n, len(s.Files))
				}
			}
			reply, _ := tg.Message(t, "2025-11-25", []byte(`{"jsonrpc":"2.0","id":"x","method":"skills/get","params":{"name":"missing"}}`))
			if code := gjson.GetBytes(reply, "error.code").Int(); code != -32602 {
				t.Errorf("unknown name: %s", reply)
			}
		})
	}
}
