package verify

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
)

// The verifier reads what a deployment sends, which may be anything: each of its parsers
// takes any input without panicking and says yes only to what it can read exactly.

// FuzzFrontmatterName: a name it returns is a line of the input's frontmatter, and a
// valid skill name or not, it is one line.
func FuzzFrontmatterName(f *testing.F) {
	for _, s := range []string{"---\nname: refunds\ndescription: d\n---\nbody\n", "---\nname: 'a''b'\n---\n", "---\nname: \"a\\u0041\"\n---\n",
		"\ufeff---\r\nname: x # c\r\n---\r\n", "---\nname: |\n  x\n---\n", "---\nname: x\nname: y\n---\n", "name: x\n", "---\nname: \"\\", "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		name, err := FrontmatterName(b)
		if err != nil {
			return
		}
		if strings.ContainsAny(name, "\r\n") {
			t.Fatalf("%q: name %q spans lines", b, name)
		}
	})
}

// FuzzSSEMessage: the data it returns is a JSON-RPC message with the id asked for.
func FuzzSSEMessage(f *testing.F) {
	for _, s := range []string{"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n", "data: {\"id\":\ndata: 3}\n\n", "data:{\"id\":3}", ": comment\n\ndata: x\n\n", ""} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, stream []byte, id int) {
		data, err := sseMessage(stream, id)
		if err != nil {
			return
		}
		if m := gjson.ParseBytes(data); m.Get("id").Type != gjson.Number || m.Get("id").Int() != int64(id) {
			t.Fatalf("%q, id %d: returned %q", stream, id, data)
		}
	})
}

// FuzzParseMCPSkill: a skills/list entry it accepts lists files whose paths stay under
// the skill, each with a well-formed digest and size.
func FuzzParseMCPSkill(f *testing.F) {
	for _, s := range []string{
		`{"uri":"skill://a/SKILL.md","resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:` + strings.Repeat("0", 64) + `","size":3}]}`,
		`{"uri":"skill://a/SKILL.md","resources":[{"uri":"skill://a/%2e%2e/x","digest":"sha256:` + strings.Repeat("0", 64) + `","size":3}]}`,
		`{"uri":"skill://a/SKILL.md","resources":"dynamic"}`, `{"uri":5}`, `[]`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m := parseMCPSkill(gjson.ParseBytes(b))
		if m.bad != "" {
			return
		}
		for name, fi := range m.files {
			if why := safeRelPath(name); why != "" || !catalog.IsDigest(fi.digest) || fi.size < 0 {
				t.Fatalf("%q: accepted file %q %+v (%s)", b, name, fi, why)
			}
		}
	})
}

// FuzzParseKept: a kept version it returns is one path segment, and names a SKILL.md
// under the skill's own "@VERSION/" path, in a folder that is a valid skill name (so the archive URL built from
// it stays under the skill's), with a digest.
func FuzzParseKept(f *testing.F) {
	for _, s := range []string{`[{"version":"1.0.0","uri":"skill://a/b/@1.0.0/b/SKILL.md","digest":"sha256:` + strings.Repeat("0", 64) + `"}]`,
		`[{"version":"1.0.0","uri":"skill://a/b/@1.0.0/../../x/SKILL.md","digest":"sha256:00"}]`, `{}`, `[1]`, `[{"version":"/"}]`, ``} {
		f.Add(s)
	}
	const uri = "skill://a/b/SKILL.md"
	f.Fuzz(func(t *testing.T, s string) {
		kept, err := parseKept(uri, gjson.Parse(s))
		if err != nil {
			return
		}
		for _, k := range kept {
			rest, ok := strings.CutPrefix(k.URI, "skill://a/b/@"+k.Version+"/")
			if !ok || strings.ContainsAny(k.Version, "/%") || k.Version == "." || k.Version == ".." || !ValidName(versionName(k)) || rest != versionName(k)+"/SKILL.md" || !catalog.IsDigest(k.Digest) {
				t.Fatalf("%s: kept %+v", s, k)
			}
		}
	})
}
