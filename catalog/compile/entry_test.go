package compile

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestEntryFrontmatter: a skill entry carries SKILL.md's frontmatter verbatim but for the
// fields strict clients refuse in an entry (entry.go): a description over 1024 characters
// cut, compatibility made a string of 1 to 500 or left out, metadata flattened to strings
// or left out; allowed-tools, license and unknown fields of any shape stay as written.
// A SEP-2076 field outside SEP-2076's shape is carried in the frontmatter only.
func TestEntryFrontmatter(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		// frontmatter and description are the entry's; arguments and dependencies its
		// SEP-2076 members ("" for none).
		frontmatter, description, arguments, dependencies string
		// inShape: every field is in the format's shape, so strict finds nothing either.
		inShape bool
	}{
		{name: "in the format's shapes",
			yaml:        "name: x\ndescription: d\nlicense: MIT\ncompatibility: Python 3\nallowed-tools: Read Bash\nmetadata:\n  author: me\n",
			frontmatter: `{"name":"x","description":"d","license":"MIT","compatibility":"Python 3","allowed-tools":"Read Bash","metadata":{"author":"me"}}`,
			inShape:     true},
		{name: "description over the limit",
			yaml:        "name: x\ndescription: " + strings.Repeat("ab", 534) + "\n",
			frontmatter: `{"name":"x","description":"` + strings.Repeat("ab", 511) + `a…"}`,
			description: strings.Repeat("ab", 511) + "a…"},
		{name: "metadata nested, listed, typed",
			yaml:        "name: x\ndescription: d\nmetadata:\n  author:\n    name: Ada\n    email: ada@example.com\n  version: 1.0\n  beta: true\n  tags: [a, b]\n  empty: {}\n  none:\n  plain: text\n",
			frontmatter: `{"name":"x","description":"d","metadata":{"author.name":"Ada","author.email":"ada@example.com","version":"1.0","beta":"true","tags":"[\"a\",\"b\"]","none":"","plain":"text"}}`},
		{name: "metadata keys that collide when flattened",
			yaml:        "name: x\ndescription: d\nmetadata:\n  a.b: first\n  a:\n    b: second\n",
			frontmatter: `{"name":"x","description":"d","metadata":{"a.b":"first"}}`},
		{name: "metadata not a mapping",
			yaml:        "name: x\ndescription: d\nmetadata: [a, b]\nlicense: MIT\n",
			frontmatter: `{"name":"x","description":"d","license":"MIT"}`},
		{name: "compatibility a number",
			yaml:        "name: x\ndescription: d\ncompatibility: 3.10\n",
			frontmatter: `{"name":"x","description":"d","compatibility":"3.10"}`},
		{name: "compatibility a list",
			yaml:        "name: x\ndescription: d\ncompatibility: [claude-code, codex]\n",
			frontmatter: `{"name":"x","description":"d","compatibility":"[\"claude-code\",\"codex\"]"}`},
		{name: "compatibility empty",
			yaml:        "name: x\ndescription: d\ncompatibility: ''\n",
			frontmatter: `{"name":"x","description":"d"}`},
		{name: "compatibility over the limit",
			yaml:        "name: x\ndescription: d\ncompatibility: " + strings.Repeat("ü", 501) + "\n",
			frontmatter: `{"name":"x","description":"d","compatibility":"` + strings.Repeat("ü", 499) + `…"}`},
		{name: "allowed-tools, license and unknown fields as written",
			yaml:        "name: x\ndescription: d\nallowed-tools: [Read, Write]\nlicense: {name: MIT}\nauthor: {name: Ada}\n",
			frontmatter: `{"name":"x","description":"d","allowed-tools":["Read","Write"],"license":{"name":"MIT"},"author":{"name":"Ada"}}`},
		{name: "SEP-2076 fields in shape",
			yaml:         "name: x\ndescription: d\narguments:\n  - name: v\n    required: true\ndependencies:\n  tools: [git]\n",
			frontmatter:  `{"name":"x","description":"d","arguments":[{"name":"v","required":true}],"dependencies":{"tools":["git"]}}`,
			arguments:    `[{"name":"v","required":true}]`,
			dependencies: `{"tools":["git"]}`,
			inShape:      true},
		{name: "SEP-2076 fields out of shape",
			yaml:        "name: x\ndescription: d\narguments: version\ndependencies: python>=3.8, pandas\n",
			frontmatter: `{"name":"x","description":"d","arguments":"version","dependencies":"python>=3.8, pandas"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, ps, err := Load(fstest.MapFS{"x/SKILL.md": md(c.yaml)}, "skills", Options{})
			if err != nil || HasErrors(ps) || len(cat.Skills) != 1 {
				t.Fatalf("Load: %v %q", err, strs(ps))
			}
			s := cat.Skills[0]
			if string(s.Frontmatter) != c.frontmatter {
				t.Errorf("frontmatter\n got  %s\n want %s", s.Frontmatter, c.frontmatter)
			}
			if c.description == "" {
				c.description = "d"
			}
			if s.Description != c.description {
				t.Errorf("description %q, want %q", s.Description, c.description)
			}
			if string(s.Arguments) != c.arguments || string(s.Dependencies) != c.dependencies {
				t.Errorf("SEP-2076 members %s and %s, want %s and %s", s.Arguments, s.Dependencies, c.arguments, c.dependencies)
			}
			// Strict, every difference from the format's shapes is an error.
			if _, ps, _ := Load(fstest.MapFS{"x/SKILL.md": md(c.yaml)}, "skills", Options{Strict: true}); HasErrors(ps) == c.inShape {
				t.Errorf("strict: %q", strs(ps))
			}
		})
	}
}
