package compile

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/skilledge/skilledge/catalog/internal/yamljson"
)

func FuzzSplitFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: x\ndescription: d\n---\nbody\n",
		bom + "---\r\na: 1\r\n---\r\n",
		"---\n---",
		"--- \t\n---\t \n\n",
		"no frontmatter",
		"---\nunterminated\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := splitFrontmatter(data)
		lines := bytes.Count(data, []byte("\n")) + 1
		if err != nil {
			if err.line < 1 || err.line > lines || err.msg == "" {
				t.Fatalf("error %+v for %q", err, data)
			}
			return
		}
		if !(0 < s.yamlStart && s.yamlStart <= s.yamlEnd && s.yamlEnd <= s.bodyStart && s.bodyStart <= len(data)) {
			t.Fatalf("offsets %+v for %q", s, data)
		}
		// The pieces reconstruct the file: opening line, YAML, closing line, body.
		open, yaml, closing, body := data[:s.yamlStart], data[s.yamlStart:s.yamlEnd], data[s.yamlEnd:s.bodyStart], data[s.bodyStart:]
		if !bytes.Equal(bytes.Join([][]byte{open, yaml, closing, body}, nil), data) {
			t.Fatal("pieces do not reconstruct the file")
		}
		if !isDelimiter(bytes.TrimSuffix(bytes.TrimPrefix(open, []byte(bom)), []byte("\n"))) ||
			!isDelimiter(bytes.TrimSuffix(closing, []byte("\n"))) {
			t.Fatalf("delimiters %q %q", open, closing)
		}
		if bytes.HasSuffix(open, []byte("\n")) == false {
			t.Fatalf("opening line %q has no newline", open)
		}
		for _, l := range bytes.Split(bytes.TrimSuffix(yaml, []byte("\n")), []byte("\n")) {
			if isDelimiter(l) && len(yaml) > 0 {
				t.Fatalf("the YAML %q holds a delimiter line", yaml)
			}
		}
		if got := bytes.Count(data[:s.yamlEnd], []byte("\n")) + 1; got != s.closeLine || s.closeLine < 2 || s.closeLine > lines {
			t.Fatalf("closing line %d, counted %d, of %d", s.closeLine, got, lines)
		}
	})
}

func FuzzFrontmatterJSON(f *testing.F) {
	for _, s := range []string{
		"name: x\ndescription: Does things.\n",
		"name: 12\ndescription: [a]\nmetadata: {a: 1, 2: b}\nallowed-tools: x\n",
		"a: &a x\nb: *a\n",
		"- a\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Add([]byte("name: x\ndescription: d\narguments:\n  - {name: a, required: true}\n  - b\ndependencies:\n  tools: [t]\n  prompts: [{name: p}]\n  resources: [{type: ref/resource, uri: 'skill://x/SKILL.md'}]\n"))
	f.Add([]byte("name: x\ndescription: d\ncompatibility: [a, 2]\nmetadata: {a: {b: [1]}, a.b: 2, c: ~}\n"))
	f.Add([]byte("metadata: {io.modelcontextprotocol/x: y}\narguments: [{name: a}, {name: a}]\ndependencies: {resources: [{uri: 1}]}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		top, errs := parseFrontmatter(src, yamlLineOffset)
		lines := bytes.Count(src, []byte("\n")) + 1
		for _, e := range errs {
			if e.Line < 1 || e.Line > lines+yamlLineOffset+1 || e.Msg == "" {
				t.Fatalf("error %+v for %q (%d lines)", e, src, lines)
			}
		}
		if len(errs) > 0 {
			return
		}
		if top == nil || top.Kind != yamljson.Map {
			t.Fatalf("no mapping and no error for %q", src)
		}
		fm := validateFields(top, "x", false, func(_ Severity, line int, msg string) {
			if line < 1 || line > lines+yamlLineOffset+1 || msg == "" {
				t.Fatalf("finding at line %d (%q) for %q (%d lines)", line, msg, src, lines)
			}
		})
		// The entry's frontmatter is JSON that strict clients accept: a description and a
		// compatibility within their limits, metadata mapping strings to strings.
		var entry map[string]any
		if err := json.Unmarshal(fm.entry.frontmatterJSON(top), &entry); err != nil {
			t.Fatalf("entry frontmatter: %v for %q", err, src)
		}
		if d, ok := entry["description"].(string); ok && (utf8.RuneCountInString(d) > maxDescriptionLen || d != fm.description) {
			t.Fatalf("entry description %q (fields say %q) for %q", d, fm.description, src)
		}
		if c, ok := entry["compatibility"]; ok {
			if c, isString := c.(string); !isString || c == "" || utf8.RuneCountInString(c) > maxCompatibilityLen {
				t.Fatalf("entry compatibility %#v for %q", c, src)
			}
		}
		if m, ok := entry["metadata"]; ok {
			mm, isMap := m.(map[string]any)
			for _, v := range mm {
				if _, isString := v.(string); !isString {
					isMap = false
				}
			}
			if !isMap {
				t.Fatalf("entry metadata %#v for %q", m, src)
			}
		}
		out := top.AppendJSON(nil)
		if !json.Valid(out) {
			t.Fatalf("invalid JSON %q for %q", out, src)
		}
		if len(out) != top.Size() {
			t.Fatalf("size %d, computed %d, for %q", len(out), top.Size(), src)
		}
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("%v: %q", err, out)
		}
	})
}
