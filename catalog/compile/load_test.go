package compile

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"maps"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"
)

// md is a SKILL.md with the given frontmatter lines.
func md(frontmatter string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte("---\n" + frontmatter + "---\n# Body\n")}
}

// ok is the SKILL.md of a valid skill named name.
func ok(name string) *fstest.MapFile {
	return md("name: " + name + "\ndescription: Does " + name + " things.\n")
}

func strs(ps []Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

func paths(c *Catalog) []string {
	var out []string
	for _, s := range c.Skills {
		out = append(out, s.Path)
	}
	return out
}

func equalStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %s\n want %s", what, strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}

// differs is the warning about a skill whose entry carries fields (with lines) otherwise
// than its SKILL.md, at path:line.
func differs(path string, line int, fields string) string {
	it := "it"
	if strings.Contains(fields, " and ") {
		it = "them"
	}
	return fmt.Sprintf("%s:%d: warning: the skill entry carries %s otherwise than SKILL.md: strict MCP clients list the skill but will not load it, since the two differ; write %s as the Agent Skills format says to serve it to every client (validate --strict makes this an error)", path, line, fields, it)
}

func TestValidation(t *testing.T) {
	long := func(n int, s string) string { return strings.Repeat(s, n) }
	for _, c := range []struct {
		name  string
		fsys  fstest.MapFS
		want  []string // problems
		valid []string // skill paths in the catalog
	}{
		{name: "valid", fsys: fstest.MapFS{"x/SKILL.md": ok("x")}, valid: []string{"x"}},
		{name: "missing name", fsys: fstest.MapFS{"x/SKILL.md": md("description: d\n")},
			want: []string{`skills/x/SKILL.md:1: missing required field "name"`}},
		{name: "uppercase name", fsys: fstest.MapFS{"x/SKILL.md": md("name: X\ndescription: d\n")},
			want: []string{
				`skills/x/SKILL.md:2: name "X": must be lowercase letters, digits and hyphens`,
				`skills/x/SKILL.md:2: name "X": must equal the skill's directory name "x"`}},
		{name: "leading hyphen", fsys: fstest.MapFS{"-x/SKILL.md": ok("-x")},
			want: []string{`skills/-x/SKILL.md:2: name "-x": must not start or end with a hyphen`}},
		{name: "trailing hyphen", fsys: fstest.MapFS{"x-/SKILL.md": ok("x-")},
			want: []string{`skills/x-/SKILL.md:2: name "x-": must not start or end with a hyphen`}},
		{name: "double hyphen", fsys: fstest.MapFS{"a--b/SKILL.md": ok("a--b")},
			want: []string{`skills/a--b/SKILL.md:2: name "a--b": must not contain "--"`}},
		{name: "64 characters", fsys: fstest.MapFS{long(64, "a") + "/SKILL.md": ok(long(64, "a"))}, valid: []string{long(64, "a")}},
		{name: "65 characters", fsys: fstest.MapFS{long(65, "a") + "/SKILL.md": ok(long(65, "a"))},
			want: []string{`skills/` + long(65, "a") + `/SKILL.md:2: name "` + long(65, "a") + `": must be at most 64 characters (it has 65)`}},
		{name: "empty name", fsys: fstest.MapFS{"x/SKILL.md": md("name: ''\ndescription: d\n")},
			want: []string{
				`skills/x/SKILL.md:2: name "": must not be empty`,
				`skills/x/SKILL.md:2: name "": must equal the skill's directory name "x"`}},
		{name: "unicode name", fsys: fstest.MapFS{"café/SKILL.md": ok("café")},
			want: []string{`skills/café/SKILL.md:2: name "café": must be lowercase letters, digits and hyphens`}},
		{name: "numeric name", fsys: fstest.MapFS{"123/SKILL.md": ok("123")},
			want: []string{`skills/123/SKILL.md:2: name: must be a string, not a number (put it in quotes: "123")`}},
		{name: "quoted numeric name", fsys: fstest.MapFS{"123/SKILL.md": ok(`"123"`)}, valid: []string{"123"}},
		{name: "null name", fsys: fstest.MapFS{"x/SKILL.md": md("name:\ndescription: d\n")},
			want: []string{`skills/x/SKILL.md:2: name: must be a string, not null`}},
		{name: "name mismatch", fsys: fstest.MapFS{"x/SKILL.md": ok("y")},
			want: []string{`skills/x/SKILL.md:2: name "y": must equal the skill's directory name "x"`}},
		{name: "missing description", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\n")},
			want: []string{`skills/x/SKILL.md:1: missing required field "description"`}},
		{name: "blank description", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: \"  \\t\"\n")},
			want: []string{`skills/x/SKILL.md:3: description: must not be blank`}},
		{name: "empty description", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: ''\n")},
			want: []string{`skills/x/SKILL.md:3: description: must not be blank`}},
		{name: "list description", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription:\n  - a\n")},
			want: []string{`skills/x/SKILL.md:3: description: must be a string, not a list`}},
		{name: "1024 character description", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: " + long(1024, "é") + "\n")}, valid: []string{"x"}},
		{name: "1025 character description", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: " + long(1025, "é") + "\n")},
			want: []string{`skills/x/SKILL.md:3: warning: description: has 1025 characters, over the Agent Skills limit of 1024; SKILL.md is served as written, and every listing and skill entry carries it cut to 1024`,
				differs("skills/x/SKILL.md", 3, "description (line 3)")},
			valid: []string{"x"}},
		{name: "optional fields", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: d\nlicense: MIT\ncompatibility: " + long(500, "ü") + "\nallowed-tools: Bash(git:*) Read\nmetadata:\n  a: b\n  io.example/c: \"1\"\ntitle: X\nversion: 1.0.0\ntags: [a, b]\n")},
			valid: []string{"x"}},
		{name: "bad compatibility", fsys: fstest.MapFS{
			"a/SKILL.md": md("name: a\ndescription: d\ncompatibility: ''\n"),
			"b/SKILL.md": md("name: b\ndescription: d\ncompatibility: " + long(501, "c") + "\n"),
			"c/SKILL.md": md("name: c\ndescription: d\ncompatibility: 3.9\n")},
			want: []string{
				`skills/a/SKILL.md:4: warning: compatibility: is empty, where the Agent Skills format wants 1 to 500 characters or no field; SKILL.md is served as written, and skill entries leave the field out`,
				differs("skills/a/SKILL.md", 4, "compatibility (line 4)"),
				`skills/b/SKILL.md:4: warning: compatibility: has 501 characters, over the Agent Skills limit of 500; SKILL.md is served as written, and skill entries carry it cut to 500`,
				differs("skills/b/SKILL.md", 4, "compatibility (line 4)"),
				`skills/c/SKILL.md:4: warning: compatibility: a number, where the Agent Skills format wants a string (put it in quotes: "3.9"); SKILL.md is served as written, and skill entries carry it as the string "3.9"`,
				differs("skills/c/SKILL.md", 4, "compatibility (line 4)")},
			valid: []string{"a", "b", "c"}},
		{name: "bad metadata", fsys: fstest.MapFS{
			"a/SKILL.md": md("name: a\ndescription: d\nmetadata: [x]\n"),
			"b/SKILL.md": md("name: b\ndescription: d\nmetadata:\n  version: 1.0\n  ok: yes\n  flag: true\n  nested: {x: y}\n  io.modelcontextprotocol/skills: x\n  1: one\n")},
			want: []string{
				`skills/a/SKILL.md:4: warning: metadata: a list, where the Agent Skills format wants a mapping of strings to strings; SKILL.md is served as written, and skill entries leave the field out`,
				differs("skills/a/SKILL.md", 4, "metadata (line 4)"),
				differs("skills/b/SKILL.md", 4, "metadata (line 4)"),
				`skills/b/SKILL.md:5: warning: metadata key "version": a number, where the Agent Skills format wants a string (put it in quotes: "1.0"); skill entries carry it as the string "1.0"`,
				`skills/b/SKILL.md:7: warning: metadata key "flag": a boolean, where the Agent Skills format wants a string (put it in quotes: "true"); skill entries carry it as the string "true"`,
				`skills/b/SKILL.md:8: warning: metadata key "nested": a mapping, where the Agent Skills format wants a string; skill entries carry it flattened, as "nested.x"`,
				`skills/b/SKILL.md:9: warning: metadata key "io.modelcontextprotocol/skills": the prefix "io.modelcontextprotocol/" is reserved for MCP extensions, which define no such key; served verbatim, and clients ignore keys they do not know`,
				`skills/b/SKILL.md:10: warning: metadata key "1": a number, where the Agent Skills format wants a string; read as the string "1", in SKILL.md and skill entries alike, but some YAML readers refuse such a key: put it in quotes`},
			valid: []string{"a", "b"}},
		{name: "reserved metadata key", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: d\nmetadata:\n  io.modelcontextprotocol/x: \"y\"\n")},
			want: []string{
				`skills/x/SKILL.md:5: warning: metadata key "io.modelcontextprotocol/x": the prefix "io.modelcontextprotocol/" is reserved for MCP extensions, which define no such key; served verbatim, and clients ignore keys they do not know`},
			valid: []string{"x"}},
		{name: "SEP-2076 arguments and dependencies", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: d\n" +
			"arguments:\n  - name: version\n    description: The version.\n    required: true\n  - {name: since}\n" +
			"dependencies:\n  tools: [git, gh]\n  prompts:\n    - name: changelog\n  resources:\n    - type: ref/resource\n      uri: skill://x/SKILL.md\n    - {type: ref/resource, uri: \"https://example.com/a%20b\"}\n")},
			valid: []string{"x"}},
		{name: "SEP-2076 arguments wrong", fsys: fstest.MapFS{
			"a/SKILL.md": md("name: a\ndescription: d\narguments: region\n"),
			"b/SKILL.md": md("name: b\ndescription: d\narguments:\n  - region\n  - description: no name\n  - name: 7\n  - name: ' '\n" +
				"  - name: r\n    required: \"true\"\n    default: eu\n  - name: r\n    description: [x]\n  - name: s\n    required: 1\n"),
			"c/SKILL.md": md("name: c\ndescription: d\narguments:\n  - name: region\n    default: eu\n")},
			want: []string{
				`skills/a/SKILL.md:4: warning: arguments: must be a list of {name, description, required} mappings, not a string`,
				notSEP2076("skills/a/SKILL.md", 4, "arguments"),
				notSEP2076("skills/b/SKILL.md", 4, "arguments"),
				`skills/b/SKILL.md:5: warning: arguments[0]: must be a mapping, not a string`,
				`skills/b/SKILL.md:6: warning: arguments[1]: missing "name"`,
				`skills/b/SKILL.md:7: warning: arguments[2].name: must be a string, not a number (put it in quotes: "7")`,
				`skills/b/SKILL.md:8: warning: arguments[3].name: must not be blank`,
				`skills/b/SKILL.md:10: warning: arguments[4].required: must be a boolean, not a string (write true without quotes)`,
				`skills/b/SKILL.md:11: warning: arguments[4]: unknown key "default": passed through verbatim (SEP-2076 defines name, description and required)`,
				`skills/b/SKILL.md:12: warning: arguments[5].name "r": arguments[4] has the same name`,
				`skills/b/SKILL.md:13: warning: arguments[5].description: must be a string, not a list`,
				`skills/b/SKILL.md:15: warning: arguments[6].required: must be a boolean, not a number`,
				`skills/c/SKILL.md:6: warning: arguments[0]: unknown key "default": passed through verbatim (SEP-2076 defines name, description and required)`},
			valid: []string{"a", "b", "c"}},
		{name: "SEP-2076 dependencies wrong", fsys: fstest.MapFS{
			"a/SKILL.md": md("name: a\ndescription: d\ndependencies: [git]\n"),
			"b/SKILL.md": md("name: b\ndescription: d\ndependencies:\n  tools: git\n  prompts: [p]\n  resources:\n    - uri: skill://b/SKILL.md\n    - type: resource\n      uri: relative/path\n    - {type: ref/resource, uri: skill://b/../x}\n  servers: [s]\n"),
			"c/SKILL.md": md("name: c\ndescription: d\ndependencies:\n  tools: [git, 3, '']\n  prompts:\n    - {name: p, arguments: {}}\n    - {title: q}\n  resources:\n    - {type: ref/resource, uri: \"https://example.com/a b\"}\n")},
			want: []string{
				`skills/a/SKILL.md:4: warning: dependencies: must be a mapping with tools, prompts and resources, not a list`,
				notSEP2076("skills/a/SKILL.md", 4, "dependencies"),
				notSEP2076("skills/b/SKILL.md", 4, "dependencies"),
				`skills/b/SKILL.md:5: warning: dependencies.tools: must be a list of tool names, not a string`,
				`skills/b/SKILL.md:6: warning: dependencies.prompts[0]: must be a mapping, not a string`,
				`skills/b/SKILL.md:8: warning: dependencies.resources[0]: missing "type"`,
				`skills/b/SKILL.md:9: warning: dependencies.resources[1].type "resource": must be "ref/resource"`,
				`skills/b/SKILL.md:10: warning: dependencies.resources[1].uri "relative/path": must be an absolute URI (scheme:…)`,
				`skills/b/SKILL.md:11: warning: dependencies.resources[2].uri "skill://b/../x": is not a usable skill:// URI: empty, "." or ".." path segment`,
				`skills/b/SKILL.md:12: warning: dependencies: unknown key "servers": passed through verbatim (SEP-2076 defines tools, prompts and resources)`,
				notSEP2076("skills/c/SKILL.md", 4, "dependencies"),
				`skills/c/SKILL.md:5: warning: dependencies.tools[1]: must be a tool name (a string), not a number (put it in quotes: "3")`,
				`skills/c/SKILL.md:5: warning: dependencies.tools[2]: must not be blank`,
				`skills/c/SKILL.md:7: warning: dependencies.prompts[0]: unknown key "arguments": passed through verbatim (SEP-2076 defines name)`,
				`skills/c/SKILL.md:8: warning: dependencies.prompts[1]: missing "name"`,
				`skills/c/SKILL.md:8: warning: dependencies.prompts[1]: unknown key "title": passed through verbatim (SEP-2076 defines name)`,
				`skills/c/SKILL.md:10: warning: dependencies.resources[0].uri "https://example.com/a b": must not contain spaces or control characters`},
			valid: []string{"a", "b", "c"}},
		{name: "license and allowed-tools", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: d\nlicense: 2024\nallowed-tools: [Read, Write]\n")},
			want: []string{
				`skills/x/SKILL.md:4: warning: license: a number, where the Agent Skills format wants a string (put it in quotes: "2024"); served as written, in SKILL.md and skill entries alike (clients accept it)`,
				`skills/x/SKILL.md:5: warning: allowed-tools: a list, where the Agent Skills format wants a string of tool names separated by spaces; served as written, in SKILL.md and skill entries alike (clients accept it)`},
			valid: []string{"x"}},
		{name: "unknown and SEP-2076 fields", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: d\nauthor: me\nversion: 2\ntags: [a, 1]\ntitle: T\n")},
			want: []string{
				`skills/x/SKILL.md:4: warning: unknown field "author": passed through verbatim`,
				`skills/x/SKILL.md:5: warning: version: SEP-2076 clients expect a string, not a number`,
				`skills/x/SKILL.md:6: warning: tags: SEP-2076 clients expect a list of strings, not a list`},
			valid: []string{"x"}},
		{name: "no frontmatter", fsys: fstest.MapFS{"x/SKILL.md": {Data: []byte("# Title\n")}},
			want: []string{`skills/x/SKILL.md:1: SKILL.md must start with a "---" line opening the YAML frontmatter`}},
		{name: "unterminated frontmatter", fsys: fstest.MapFS{"x/SKILL.md": {Data: []byte("---\nname: x\ndescription: d\n")}},
			want: []string{`skills/x/SKILL.md:1: frontmatter is never closed: no "---" line follows the opening one`}},
		{name: "empty frontmatter", fsys: fstest.MapFS{"x/SKILL.md": {Data: []byte("---\n---\n")}},
			want: []string{`skills/x/SKILL.md:1: frontmatter is empty: name and description are required`}},
		{name: "comment-only frontmatter", fsys: fstest.MapFS{"x/SKILL.md": {Data: []byte("---\n# nothing\n---\n")}},
			want: []string{`skills/x/SKILL.md:1: frontmatter is empty: name and description are required`}},
		{name: "scalar frontmatter", fsys: fstest.MapFS{"x/SKILL.md": {Data: []byte("---\nhello\n---\n")}},
			want: []string{`skills/x/SKILL.md:2: frontmatter must be a YAML mapping of fields, not a string`}},
		{name: "list frontmatter", fsys: fstest.MapFS{"x/SKILL.md": {Data: []byte("---\n- a\n- b\n---\n")}},
			want: []string{`skills/x/SKILL.md:2: frontmatter must be a YAML mapping of fields, not a list`}},
		{name: "frontmatter over 1 MiB of JSON", fsys: fstest.MapFS{"x/SKILL.md": {Data: []byte("---\nx: " + strings.Repeat("a", 1<<20) + "\n---\n")}},
			want: []string{`skills/x/SKILL.md:2: frontmatter renders to 1048584 bytes of JSON, over the limit of 1048576`}},
		{name: "BOM, CRLF and trailing blanks", fsys: fstest.MapFS{"x/SKILL.md": {Data: []byte(bom + "--- \t\r\nname: x\r\ndescription: d\r\n---  \r\nbody\r\n")}},
			valid: []string{"x"}},
		{name: "YAML scanner error", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: d\n  bad: indent\n")},
			want: []string{`skills/x/SKILL.md:4: invalid YAML: mapping values are not allowed in this context`}},
		{name: "YAML parser error", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: [a, b\nlicense: MIT\n")},
			want: []string{`skills/x/SKILL.md:3: invalid YAML: did not find expected ',' or ']'`}},
		{name: "YAML error on the first line", fsys: fstest.MapFS{"x/SKILL.md": md("name: x: y\ndescription: d\n")},
			want: []string{`skills/x/SKILL.md:2: invalid YAML: mapping values are not allowed in this context: a plain value cannot hold ": "; put the value in quotes`}},
		{name: "an unquoted colon in a description", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: Use when: the user asks for x.\n")},
			want: []string{`skills/x/SKILL.md:3: invalid YAML: mapping values are not allowed in this context: a plain value cannot hold ": "; put the value in quotes`}},
		{name: "unterminated quote", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: \"d\n")},
			want: []string{`skills/x/SKILL.md:3: invalid YAML: found unexpected end of stream`}},
		{name: "tab indentation", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: d\nmetadata:\n\ta: b\n")},
			want: []string{`skills/x/SKILL.md:5: invalid YAML: found character that cannot start any token`}},
		{name: "duplicate key", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: d\nname: x\n")},
			want: []string{`skills/x/SKILL.md:4: duplicate key "name" (first at line 2)`}},
		{name: "several frontmatter errors", fsys: fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: d\na: .inf\nb: !!binary aGk=\nc:\n  <<: {d: e}\n")},
			want: []string{
				`skills/x/SKILL.md:4: value .inf is not representable in JSON`,
				`skills/x/SKILL.md:4: warning: unknown field "a": passed through verbatim`,
				`skills/x/SKILL.md:5: tag !!binary is not supported: hosts read YAML 1.2 core schema types only`,
				`skills/x/SKILL.md:5: warning: unknown field "b": passed through verbatim`,
				`skills/x/SKILL.md:6: warning: unknown field "c": passed through verbatim`,
				`skills/x/SKILL.md:7: merge keys are not supported: hosts parse YAML 1.2, where "<<" is an ordinary key`}},
		{name: "not UTF-8", fsys: fstest.MapFS{"x/SKILL.md": {Data: []byte("---\nname: x\ndescription: \xff\n---\n")}},
			want: []string{`skills/x/SKILL.md: SKILL.md must be UTF-8 text without NUL or other control characters`}},
		{name: "root SKILL.md", fsys: fstest.MapFS{"SKILL.md": ok("skills"), "x/SKILL.md": ok("x")},
			want:  []string{`skills/SKILL.md: a SKILL.md at the root of the folder is not served: a skill is a directory named after the skill, holding its SKILL.md`},
			valid: []string{"x"}},
		{name: "no skills", fsys: fstest.MapFS{"README.md": {Data: []byte("hi")}, "docs/skill.md": {Data: []byte("x")}},
			want: []string{
				`skills: warning: no skills found: a skill is a directory holding a file named SKILL.md`,
				`skills/docs/skill.md: warning: "skill.md" is not SKILL.md: the file that makes a directory a skill must be named exactly SKILL.md`}},
		{name: "bad file names", fsys: fstest.MapFS{
			"x/SKILL.md":          ok("x"),
			"x/a\\b.md":           {Data: []byte("a")},
			"x/dir\x01/one.md":    {Data: []byte("a")},
			"x/dir\x01/two.md":    {Data: []byte("a")},
			"x/zero\u200bwidth":   {Data: []byte("a")},
			"outside/a\\b.md":     {Data: []byte("ignored: not in a skill")},
			"x/fine name (1).txt": {Data: []byte("a")}},
			want: []string{
				`skills/x/a\b.md: file name "a\\b.md" contains a backslash, so it cannot be part of a skill:// URI`,
				`"skills/x/dir\x01": directory name "dir\x01" contains a control character, so it cannot be part of a skill:// URI`,
				`"skills/x/zero\u200bwidth": file name "zero\u200bwidth" contains the non-printable character U+200B, so it cannot be part of a skill:// URI`}},
		{name: "prefix segments", fsys: fstest.MapFS{
			"my org/x/SKILL.md":    ok("x"),
			"Acme/y/SKILL.md":      ok("y"),
			"café/z/SKILL.md":      ok("z"),
			"a/b%c/w/SKILL.md":     ok("w"),
			"acme/it's/v/SKILL.md": ok("v")},
			want: []string{
				`skills/Acme: warning: directory name "Acme" and "acme" in the same directory differ only in letter case: Windows and macOS (by default) keep one of them, in a checkout of the folder; rename one`,
				`skills/Acme/y/SKILL.md: warning: first skill path segment "Acme" has uppercase letters, and URI authorities are case-insensitive: clients may lowercase it`,
				`skills/a/b%c/w/SKILL.md: skill path segment "b%c" contains '%', so it cannot be part of the skill's URI`,
				`skills/acme: warning: directory name "acme" and "Acme" in the same directory differ only in letter case: Windows and macOS (by default) keep one of them, in a checkout of the folder; rename one`,
				`skills/café/z/SKILL.md: warning: first skill path segment "café" is not an RFC 3986 reg-name (it contains 'é'), and it sits in the authority of skill:// URIs`,
				`skills/my org/x/SKILL.md: skill path segment "my org" contains whitespace, so it cannot be part of the skill's URI`},
			valid: []string{"Acme/y", "acme/it's/v", "café/z"}},
		{name: "duplicate names", fsys: fstest.MapFS{"a/x/SKILL.md": ok("x"), "b/x/SKILL.md": ok("x"), "c/x/SKILL.md": ok("x"), "y/SKILL.md": ok("y")},
			want: []string{
				`skills/a/x/SKILL.md:2: warning: name "x" is also the name of "b/x", "c/x": it is served as "a-x" where skills are keyed by name (well-known indexes, skills/get {name}, prompts, pull)`,
				`skills/b/x/SKILL.md:2: warning: name "x" is also the name of "a/x", "c/x": it is served as "b-x" where skills are keyed by name (well-known indexes, skills/get {name}, prompts, pull)`,
				`skills/c/x/SKILL.md:2: warning: name "x" is also the name of "a/x", "b/x": it is served as "c-x" where skills are keyed by name (well-known indexes, skills/get {name}, prompts, pull)`},
			valid: []string{"a/x", "b/x", "c/x", "y"}},
		{name: "clutter", fsys: fstest.MapFS{
			"x/SKILL.md": ok("x"), "x/.DS_Store": {Data: []byte{0}}, "x/._a.md": {Data: []byte{0}},
			"x/Thumbs.db": {Data: []byte{0}}, "x/desktop.ini": {Data: []byte{0}}, "x/.git/config": {Data: []byte{0}},
			"x/.hg/x": {}, "x/.svn/x": {}, "x/.bzr/x": {}, "__MACOSX/y/SKILL.md": {Data: []byte{0}}, ".git/z/SKILL.md": {}},
			valid: []string{"x"}},
		{name: "SKILL.md linked", fsys: fstest.MapFS{
			"in/SKILL.md":         {Data: []byte("doc/in.md"), Mode: fs.ModeSymlink},
			"in/doc/in.md":        ok("in"),
			"out/SKILL.md":        {Data: []byte("../../out.md"), Mode: fs.ModeSymlink},
			"elsewhere/SKILL.md":  {Data: []byte("../shared/elsewhere.md"), Mode: fs.ModeSymlink},
			"shared/elsewhere.md": ok("elsewhere")},
			want: []string{
				`skills/elsewhere/SKILL.md: symbolic link to skills/shared/elsewhere.md, which is in no skill: a link is served to whoever may see its skill (elsewhere), so it may lead only to a file of that skill; copy the file in if it belongs there, or remove the link`,
				`skills/out/SKILL.md: symbolic link to skills/../out.md, outside the folder: a link is served to whoever may see its skill (out), so it may lead only to a file of that skill; copy the file in if it belongs there, or remove the link`},
			valid: []string{"in"}},
		{name: "special files", fsys: fstest.MapFS{"x/SKILL.md": ok("x"), "x/fifo": {Mode: fs.ModeNamedPipe}, "x/sock": {Mode: fs.ModeSocket}},
			want: []string{
				`skills/x/fifo: warning: not a regular file (named pipe); not served`,
				`skills/x/sock: warning: not a regular file (socket); not served`},
			valid: []string{"x"}},
		{name: "symbolic links", fsys: fstest.MapFS{
			"x/SKILL.md":     ok("x"),
			"x/in.md":        {Data: []byte("sub/doc.md"), Mode: fs.ModeSymlink},
			"x/chain.md":     {Data: []byte("in.md"), Mode: fs.ModeSymlink},
			"x/sub/doc.md":   {Data: []byte("doc")},
			"x/d":            {Data: []byte("../shared"), Mode: fs.ModeSymlink},
			"x/broken.md":    {Data: []byte("nothing"), Mode: fs.ModeSymlink},
			"x/loop":         {Data: []byte("loop"), Mode: fs.ModeSymlink},
			"shared/doc.md":  {Data: []byte("shared")},
			"shared/link.md": {Data: []byte("../../outside"), Mode: fs.ModeSymlink}},
			want: []string{
				`skills/x/broken.md: warning: broken symbolic link; not served`,
				`skills/x/d: warning: symbolic link to a directory; not followed`,
				`skills/x/loop: warning: symbolic link cannot be followed (too many levels of symbolic links); not served`},
			valid: []string{"x"}},
		{name: "symbolic links out of their skill", fsys: fstest.MapFS{
			"x/SKILL.md":        ok("x"),
			"x/in.md":           {Data: []byte("../shared/doc.md"), Mode: fs.ModeSymlink},
			"x/up.md":           {Data: []byte("../../etc/passwd"), Mode: fs.ModeSymlink},
			"x/abs.md":          {Data: []byte("/etc/passwd"), Mode: fs.ModeSymlink},
			"x/via-dir.md":      {Data: []byte("d/../../../x"), Mode: fs.ModeSymlink},
			"x/d":               {Data: []byte("../shared"), Mode: fs.ModeSymlink},
			"x/ctl.md":          {Data: []byte("../shared/ctl\x01.md"), Mode: fs.ModeSymlink},
			"shared/doc.md":     {Data: []byte("shared")},
			"shared/ctl\x01.md": {Data: []byte("shared")}},
			want: []string{
				`skills/x/abs.md: symbolic link to /etc/passwd, outside the folder: a link is served to whoever may see its skill (x), so it may lead only to a file of that skill; copy the file in if it belongs there, or remove the link`,
				`skills/x/ctl.md: symbolic link to "skills/shared/ctl\x01.md", which is in no skill: a link is served to whoever may see its skill (x), so it may lead only to a file of that skill; copy the file in if it belongs there, or remove the link`,
				`skills/x/d: warning: symbolic link to a directory; not followed`,
				`skills/x/in.md: symbolic link to skills/shared/doc.md, which is in no skill: a link is served to whoever may see its skill (x), so it may lead only to a file of that skill; copy the file in if it belongs there, or remove the link`,
				`skills/x/up.md: symbolic link to skills/../etc/passwd, outside the folder: a link is served to whoever may see its skill (x), so it may lead only to a file of that skill; copy the file in if it belongs there, or remove the link`,
				`skills/x/via-dir.md: symbolic link to skills/../../x, outside the folder: a link is served to whoever may see its skill (x), so it may lead only to a file of that skill; copy the file in if it belongs there, or remove the link`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, ps, err := Load(c.fsys, "skills", Options{})
			if err != nil {
				t.Fatal(err)
			}
			equalStrings(t, "problems", strs(ps), c.want)
			equalStrings(t, "skills", paths(cat), c.valid)
		})
	}
}

// TestStrictLimits: the Agent Skills limits that no client or surface depends on (the
// description's 1024 characters, compatibility's 1 to 500) are warnings, and the skill is
// served as written, as a skills repository shaped like anthropics/skills (one skill's
// description over the limit) needs; Options.Strict makes them the errors the
// specification words them as. What the protocol depends on (the name, its directory, a
// frontmatter to read) is an error either way.
func TestStrictLimits(t *testing.T) {
	desc := strings.Repeat("Reference for the Claude API. ", 36)[:1068]
	fsys := fstest.MapFS{
		"skills/claude-api/SKILL.md": md("name: claude-api\ndescription: |-\n  " + desc + "\n"),
		"skills/pdf/SKILL.md":        ok("pdf"),
		"skills/docx/SKILL.md":       md("name: docx\ndescription: d\ncompatibility: " + strings.Repeat("c", 501) + "\n"),
		"template/SKILL.md":          md("name: template-skill\ndescription: d\n"),
	}
	nameError := `repo/template/SKILL.md:2: name "template-skill": must equal the skill's directory name "template"`
	for _, c := range []struct {
		name   string
		strict bool
		want   []string
		valid  []string
	}{
		{"served as written", false, []string{
			`repo/skills/claude-api/SKILL.md:3: warning: description: has 1068 characters, over the Agent Skills limit of 1024; SKILL.md is served as written, and every listing and skill entry carries it cut to 1024`,
			differs("repo/skills/claude-api/SKILL.md", 3, "description (line 3)"),
			`repo/skills/docx/SKILL.md:4: warning: compatibility: has 501 characters, over the Agent Skills limit of 500; SKILL.md is served as written, and skill entries carry it cut to 500`,
			differs("repo/skills/docx/SKILL.md", 4, "compatibility (line 4)"),
			nameError}, []string{"skills/claude-api", "skills/docx", "skills/pdf"}},
		{"strict", true, []string{
			`repo/skills/claude-api/SKILL.md:3: description: has 1068 characters, over the Agent Skills limit of 1024`,
			`repo/skills/docx/SKILL.md:4: compatibility: has 501 characters, over the Agent Skills limit of 500`,
			nameError}, []string{"skills/pdf"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, ps, err := Load(fsys, "repo", Options{Strict: c.strict})
			if err != nil {
				t.Fatal(err)
			}
			equalStrings(t, "problems", strs(ps), c.want)
			equalStrings(t, "skills", paths(cat), c.valid)
		})
	}
}

// notSEP2076 is the warning about a SEP-2076 field (name) not in SEP-2076's shape.
func notSEP2076(path string, line int, name string) string {
	return fmt.Sprintf("%s:%d: warning: %s: not in SEP-2076's shape (PROTOCOL.md#sep-2076), so skill entries carry it in their frontmatter only, as written, and not as the SEP-2076 member %q", path, line, name, name)
}

func TestSeveralBrokenSkills(t *testing.T) {
	fsys := fstest.MapFS{
		"a/SKILL.md":     md("name: A\ndescription: ''\n"),
		"b/SKILL.md":     {Data: []byte("no frontmatter")},
		"c/SKILL.md":     ok("c"),
		"d/e/SKILL.md":   md("description: d\nlicense: [x]\n"),
		"d/e/bad\\n.txt": {Data: []byte("x")},
	}
	for _, skip := range []bool{false, true} {
		cat, ps, err := Load(fsys, "./my skills", Options{SkipInvalid: skip})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{
			`./my skills/a/SKILL.md:2: name "A": must be lowercase letters, digits and hyphens`,
			`./my skills/a/SKILL.md:2: name "A": must equal the skill's directory name "a"`,
			`./my skills/a/SKILL.md:3: description: must not be blank`,
			`./my skills/b/SKILL.md:1: SKILL.md must start with a "---" line opening the YAML frontmatter`,
			`./my skills/d/e/SKILL.md:1: missing required field "name"`,
			`./my skills/d/e/SKILL.md:3: warning: license: a list, where the Agent Skills format wants a string; served as written, in SKILL.md and skill entries alike (clients accept it)`,
			`./my skills/d/e/bad\n.txt: file name "bad\\n.txt" contains a backslash, so it cannot be part of a skill:// URI`,
		}
		if skip {
			want = []string{
				`./my skills/a/SKILL.md: warning: skipped, not served: name "A": must be lowercase letters, digits and hyphens (and 2 more errors)`,
				want[0], want[1], want[2],
				`./my skills/b/SKILL.md: warning: skipped, not served: SKILL.md must start with a "---" line opening the YAML frontmatter`,
				want[3],
				`./my skills/d/e/SKILL.md: warning: skipped, not served: file name "bad\\n.txt" contains a backslash, so it cannot be part of a skill:// URI (and 1 more error)`,
				want[4], want[5], want[6],
			}
		}
		equalStrings(t, fmt.Sprintf("problems (SkipInvalid %v)", skip), strs(ps), want)
		equalStrings(t, "skills", paths(cat), []string{"c"})
		if !HasErrors(ps) {
			t.Error("HasErrors = false")
		}
		for _, p := range ps {
			if p.Skill == "" || !strings.HasPrefix(p.Path, "./my skills/"+p.Skill+"/") {
				t.Errorf("problem %q has Skill %q", p, p.Skill)
			}
		}
	}
}

func TestNestedSkills(t *testing.T) {
	fsys := fstest.MapFS{
		"outer/SKILL.md":              ok("outer"),
		"outer/a.md":                  {Data: []byte("a")},
		"outer/inner/SKILL.md":        ok("inner"),
		"outer/inner/data/x.bin":      {Data: []byte{0, 1, 2}},
		"outer/inner/deeper/SKILL.md": md("name: wrong\ndescription: d\n"),
		"outer/z.md":                  {Data: []byte("z")},
	}
	cat, ps, err := Load(fsys, "s", Options{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "problems", strs(ps), []string{
		`s/outer/inner/deeper/SKILL.md: warning: skipped, not served: name "wrong": must equal the skill's directory name "deeper"`,
		`s/outer/inner/deeper/SKILL.md:2: name "wrong": must equal the skill's directory name "deeper"`,
	})
	equalStrings(t, "skills", paths(cat), []string{"outer", "outer/inner"})
	files := func(s *Skill) []string {
		var out []string
		for _, f := range s.Files {
			out = append(out, f.Path)
		}
		return out
	}
	outer, inner := cat.Skills[0], cat.Skills[1]
	equalStrings(t, "outer files", files(outer), []string{"outer/SKILL.md", "outer/a.md", "outer/inner/SKILL.md", "outer/inner/data/x.bin", "outer/inner/deeper/SKILL.md", "outer/z.md"})
	equalStrings(t, "inner files", files(inner), []string{"outer/inner/SKILL.md", "outer/inner/data/x.bin", "outer/inner/deeper/SKILL.md"})
	if outer.Files[2] != inner.Files[0] || outer.Files[3] != inner.Files[1] {
		t.Error("nested skill files are not the same *File values")
	}
}

func TestSkillContent(t *testing.T) {
	data := "---\nname: x\ndescription: \"d\"\nversion: 2.1.0\nn: 1.50\n---\n\n# X\n"
	fsys := fstest.MapFS{
		"x/SKILL.md":         {Data: []byte(data)},
		"x/b.PNG":            {Data: []byte("\x89PNG\r\n\x1a\n")},
		"x/a.py":             {Data: []byte("print('hi')\n")},
		"x/noext":            {Data: []byte("plain\ttext\f\r\n\x7f")},
		"x/bin":              {Data: []byte("a\x00b")},
		"x/esc.md":           {Data: []byte("\x1b[31m")},
		"x/latin1.txt":       {Data: []byte("caf\xe9")},
		"x/d/e.JSON":         {Data: []byte("{}")},
		"x/.hidden":          {Data: []byte("h")},
		"x/weird.unknownext": {Data: []byte("text")},
	}
	cat, ps, err := Load(fsys, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "problems", strs(ps), []string{`x/SKILL.md:5: warning: unknown field "n": passed through verbatim`})
	s := cat.Skills[0]
	if s.Name != "x" || s.Description != "d" || string(s.Body) != "\n# X\n" {
		t.Errorf("skill %q %q body %q", s.Name, s.Description, s.Body)
	}
	if want := `{"name":"x","description":"d","version":"2.1.0","n":1.5}`; string(s.Frontmatter) != want {
		t.Errorf("frontmatter %s, want %s", s.Frontmatter, want)
	}
	var got []string
	for _, f := range s.Files {
		got = append(got, fmt.Sprintf("%s %s %v", f.Path, f.MIME, f.Text))
		if f.Digest != sha256Sum(f.Data) {
			t.Errorf("%s: wrong digest", f.Path)
		}
	}
	equalStrings(t, "files", got, []string{
		"x/SKILL.md text/markdown true",
		"x/.hidden text/plain true",
		"x/a.py text/x-python true",
		"x/b.PNG image/png false",
		"x/bin application/octet-stream false",
		"x/d/e.JSON application/json true",
		"x/esc.md text/markdown false",
		"x/latin1.txt text/plain false",
		"x/noext text/plain true",
		"x/weird.unknownext text/plain true",
	})
}

func TestLimits(t *testing.T) {
	many := fstest.MapFS{"big/SKILL.md": ok("big"), "small/SKILL.md": ok("small")}
	for i := range 512 {
		many[fmt.Sprintf("big/f/%03d.txt", i)] = &fstest.MapFile{Data: []byte("x")}
	}
	heavy := fstest.MapFS{"heavy/SKILL.md": ok("heavy"), "heavy/blob.bin": {Data: make([]byte, MaxSkillBytes)}}
	for _, c := range []struct {
		name  string
		fsys  fstest.MapFS
		opt   Options
		want  []string
		valid []string
	}{
		{name: "513 files", fsys: many,
			want:  []string{`s/big/SKILL.md: the skill has 513 files, over the limit of 512`},
			valid: []string{"small"}},
		{name: "513 files allowed", fsys: many, opt: Options{AllowOversize: true},
			want:  []string{`s/big/SKILL.md: warning: the skill has 513 files, over the limit of 512; served anyway, as oversize skills are allowed`},
			valid: []string{"big", "small"}},
		{name: "over 16 MiB", fsys: heavy,
			want: []string{fmt.Sprintf(`s/heavy/SKILL.md: the skill has %d bytes in its files, over the limit of 16777216 (16 MiB)`, MaxSkillBytes+len(heavy["heavy/SKILL.md"].Data))}},
		{name: "over 16 MiB allowed", fsys: heavy, opt: Options{AllowOversize: true},
			want:  []string{fmt.Sprintf(`s/heavy/SKILL.md: warning: the skill has %d bytes in its files, over the limit of 16777216 (16 MiB); served anyway, as oversize skills are allowed`, MaxSkillBytes+len(heavy["heavy/SKILL.md"].Data))},
			valid: []string{"heavy"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, ps, err := Load(c.fsys, "s", c.opt)
			if err != nil {
				t.Fatal(err)
			}
			equalStrings(t, "problems", strs(ps), c.want)
			equalStrings(t, "skills", paths(cat), c.valid)
		})
	}
	delete(many, "big/f/000.txt")
	if _, ps, _ := Load(many, "s", Options{}); len(ps) > 0 {
		t.Errorf("512 files: %v", ps)
	}
}

func TestProblemString(t *testing.T) {
	for _, c := range []struct {
		p    Problem
		want string
	}{
		{Problem{Path: "s/x/SKILL.md", Line: 2, Msg: "m"}, "s/x/SKILL.md:2: m"},
		{Problem{Path: "s/x/SKILL.md", Severity: Warning, Msg: "m"}, "s/x/SKILL.md: warning: m"},
		{Problem{Path: "s/x\x1b[2J", Msg: "m"}, `"s/x\x1b[2J": m`},
		// A name with bytes that are not UTF-8 was printed raw.
		{Problem{Path: "s/x/a\xffb.md", Msg: "m"}, `"s/x/a\xffb.md": m`},
		{Problem{Path: "s/x/café.md", Msg: "m"}, "s/x/café.md: m"},
	} {
		if got := c.p.String(); got != c.want {
			t.Errorf("%#v: %s, want %s", c.p, got, c.want)
		}
	}
	if HasErrors([]Problem{{Severity: Warning}}) || !HasErrors([]Problem{{Severity: Warning}, {Severity: Error}}) {
		t.Error("HasErrors")
	}
}

func TestSplitFrontmatter(t *testing.T) {
	for _, c := range []struct {
		in, yaml, body string
		err            int // line of the error, 0 for none
	}{
		{in: "---\na: 1\n---\nbody", yaml: "a: 1\n", body: "body"},
		{in: "---\n---\n", yaml: "", body: ""},
		{in: "---\na: 1\n---", yaml: "a: 1\n", body: ""},
		{in: bom + "---\r\na: 1\r\n---\r\n\r\nbody\r\n", yaml: "a: 1\r\n", body: "\r\nbody\r\n"},
		{in: "--- \t\na: |\n  ---x\n ---\n---\t\nb", yaml: "a: |\n  ---x\n ---\n", body: "b"},
		{in: "---\na: 1\n----\n", err: 1},
		{in: "----\n", err: 1},
		{in: "---", err: 1},
		{in: "", err: 1},
		{in: " ---\n---\n", err: 1},
		{in: "\n---\n---\n", err: 1},
		{in: bom + bom + "---\n---\n", err: 1},
	} {
		s, err := splitFrontmatter([]byte(c.in))
		if c.err != 0 {
			if err == nil || err.line != c.err {
				t.Errorf("%q: error %v, want one at line %d", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err.msg)
			continue
		}
		if y, b := c.in[s.yamlStart:s.yamlEnd], c.in[s.bodyStart:]; y != c.yaml || b != c.body {
			t.Errorf("%q: yaml %q body %q, want %q %q", c.in, y, b, c.yaml, c.body)
		}
	}
}

func TestLoadRootUnreadable(t *testing.T) {
	if _, _, err := Load(fstest.MapFS{"x": {Data: []byte("file, not a directory")}}, "x", Options{}); err != nil {
		t.Fatalf("Load of a MapFS: %v", err)
	}
	if _, _, err := Load(notDir{}, "nope", Options{}); err == nil {
		t.Fatal("Load of an unreadable root: no error")
	}
}

type notDir struct{}

func (notDir) Open(string) (fs.File, error) { return nil, fs.ErrPermission }

func TestEmptyFrontmatterBody(t *testing.T) {
	// The body is byte for byte what follows the closing line, even without a newline.
	fsys := fstest.MapFS{"x/SKILL.md": {Data: []byte("---\nname: x\ndescription: d\n---")}}
	cat, ps, err := Load(fsys, "s", Options{})
	if err != nil || len(ps) > 0 || len(cat.Skills) != 1 || !bytes.Equal(cat.Skills[0].Body, nil) && len(cat.Skills[0].Body) != 0 {
		t.Fatal(err, ps)
	}
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

// failDir is a MapFS whose directory bad cannot be listed.
type failDir struct {
	fstest.MapFS
	bad string
}

func (f failDir) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == f.bad {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrPermission}
	}
	return f.MapFS.ReadDir(name)
}

func TestUnlistableDirectory(t *testing.T) {
	m := fstest.MapFS{"x/SKILL.md": ok("x"), "x/locked/f": {}, "y/SKILL.md": ok("y"), "other/f": {}}
	for _, c := range []struct {
		bad  string
		want string
		ok   []string
	}{
		{"x/locked", "s/x/locked: cannot list directory: permission denied", []string{"y"}},
		{"other", "s/other: warning: cannot list directory (permission denied); any skills in it are not served", []string{"x", "y"}},
	} {
		cat, ps, err := Load(failDir{m, c.bad}, "s", Options{})
		if err != nil {
			t.Fatal(err)
		}
		equalStrings(t, "problems", strs(ps), []string{c.want})
		equalStrings(t, "skills", paths(cat), c.ok)
	}
	if _, _, err := Load(failDir{m, "."}, "s", Options{}); err == nil {
		t.Error("unlistable root: no error")
	}
}

// TestReservedMetadataServedVerbatim holds the extension's rule for its reserved prefix:
// a key under io.modelcontextprotocol/ is a warning, and the frontmatter keeps it as
// written.
func TestReservedMetadataServedVerbatim(t *testing.T) {
	cat, ps, err := Load(fstest.MapFS{"x/SKILL.md": md("name: x\ndescription: d\nmetadata:\n  io.modelcontextprotocol/x: \"y\"\n")}, "skills", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if HasErrors(ps) || len(ps) != 1 || ps[0].Severity != Warning {
		t.Fatalf("problems: %v", strs(ps))
	}
	want := `{"name":"x","description":"d","metadata":{"io.modelcontextprotocol/x":"y"}}`
	if len(cat.Skills) != 1 || string(cat.Skills[0].Frontmatter) != want {
		t.Fatalf("frontmatter %s, want %s", cat.Skills[0].Frontmatter, want)
	}
}

// TestAliasBombReport: a frontmatter that hits the alias or node limit is reported with
// that one error; the fields after it, never read, are not warned about as unknown
// fields named "" (the report of a billion-laughs document ended in six of them).
func TestAliasBombReport(t *testing.T) {
	bomb := "name: b\ndescription: x\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	for i, l := range "bcdefghi" {
		prev := string("abcdefghi"[i])
		bomb += fmt.Sprintf("%c: &%c [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", l, l, prev, prev, prev, prev, prev, prev, prev, prev, prev)
	}
	_, ps, err := Load(fstest.MapFS{"b/SKILL.md": {Data: []byte("---\n" + bomb + "---\nbody\n")}}, "bomb", Options{})
	if err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "problems", strs(ps), []string{
		"bomb/b/SKILL.md:7: too many aliases: the YAML parser hosts use (npm yaml) refuses this frontmatter as a possible resource exhaustion attack",
	})
}

// TestLinksStayInTheirSkill: a symbolic link is served as a file of the skill it is in, to
// whoever may see that skill, so it may lead only to a file of that skill. A link to
// anything else (a file of another skill, scoped or not, its SKILL.md included; a file of no
// skill; anything outside the folder), however it gets there (relative or absolute, a chain
// of links, a linked directory), is an error naming the link and where it leads, and the
// skill is not served; a link within its skill is, and so is one into a skill nested in it
// (the holder's files include the nested skill's already). The first case is the leak of
// the issue: `ln -s ../../finance/ledger/secret.txt pub/notes/leak.txt`.
func TestLinksStayInTheirSkill(t *testing.T) {
	link := func(to string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(to), Mode: fs.ModeSymlink} }
	// leak is the error for the link at path (in skill), which leads to target, where.
	leak := func(path, target, where, skill string) string {
		return "skills/" + path + ": symbolic link to " + target + ", " + where +
			": a link is served to whoever may see its skill (" + skill + "), so it may lead only to a file of that skill; copy the file in if it belongs there, or remove the link"
	}
	for _, c := range []struct {
		name  string
		files fstest.MapFS // added to a folder with finance/ledger (scoped) and pub
		want  []string     // problems
		valid []string     // skill paths in the catalog
	}{
		{name: "into a scoped skill", files: fstest.MapFS{"pub/notes/leak.txt": link("../../finance/ledger/secret.txt")},
			want: []string{
				`skills/pub/notes/leak.txt: symbolic link to skills/finance/ledger/secret.txt, a file of skill finance/ledger: a link is served to whoever may see its skill (pub), so it may lead only to a file of that skill; copy the file in if it belongs there, or remove the link`},
			valid: []string{"finance/ledger"}},
		{name: "into a public skill", files: fstest.MapFS{"other/SKILL.md": ok("other"), "other/doc.md": {Data: []byte("doc")}, "pub/doc.md": link("../other/doc.md")},
			want:  []string{leak("pub/doc.md", "skills/other/doc.md", "a file of skill other", "pub")},
			valid: []string{"finance/ledger", "other"}},
		{name: "to another skill's SKILL.md", files: fstest.MapFS{"pub/ledger.md": link("../finance/ledger/SKILL.md")},
			want:  []string{leak("pub/ledger.md", "skills/finance/ledger/SKILL.md", "a file of skill finance/ledger", "pub")},
			valid: []string{"finance/ledger"}},
		{name: "a SKILL.md that is another's", files: fstest.MapFS{"copy/SKILL.md": link("../finance/ledger/SKILL.md")},
			want:  []string{leak("copy/SKILL.md", "skills/finance/ledger/SKILL.md", "a file of skill finance/ledger", "copy")},
			valid: []string{"finance/ledger", "pub"}},
		{name: "a link to a link", files: fstest.MapFS{"pub/a.txt": link("b.txt"), "pub/b.txt": link("../finance/ledger/secret.txt")},
			want: []string{
				leak("pub/a.txt", "skills/finance/ledger/secret.txt", "a file of skill finance/ledger", "pub"),
				leak("pub/b.txt", "skills/finance/ledger/secret.txt", "a file of skill finance/ledger", "pub")},
			valid: []string{"finance/ledger"}},
		{name: "a chain through another skill's link", files: fstest.MapFS{"pub/a.txt": link("../finance/ledger/hop.txt"), "finance/ledger/hop.txt": link("secret.txt")},
			want:  []string{leak("pub/a.txt", "skills/finance/ledger/secret.txt", "a file of skill finance/ledger", "pub")},
			valid: []string{"finance/ledger"}},
		{name: "a chain back into its skill", files: fstest.MapFS{"pub/a.txt": link("../finance/ledger/back.txt"), "finance/ledger/back.txt": link("../../pub/notes/own.txt")},
			want:  []string{leak("finance/ledger/back.txt", "skills/pub/notes/own.txt", "a file of skill pub", "finance/ledger")},
			valid: []string{"pub"}},
		{name: "through a linked directory", files: fstest.MapFS{"pub/d": link("../finance/ledger"), "pub/via.txt": link("d/secret.txt")},
			want: []string{
				`skills/pub/d: warning: symbolic link to a directory; not followed`,
				leak("pub/via.txt", "skills/finance/ledger/secret.txt", "a file of skill finance/ledger", "pub")},
			valid: []string{"finance/ledger"}},
		{name: "to a file of no skill", files: fstest.MapFS{"shared/doc.md": {Data: []byte("doc")}, "pub/doc.md": link("../shared/doc.md"), "pub/policy.yaml": link("../skilledge.yaml")},
			want: []string{
				leak("pub/doc.md", "skills/shared/doc.md", "which is in no skill", "pub"),
				leak("pub/policy.yaml", "skills/skilledge.yaml", "which is in no skill", "pub")},
			valid: []string{"finance/ledger"}},
		{name: "out of the folder", files: fstest.MapFS{"pub/up.txt": link("../../secret.txt"), "pub/abs.txt": link("/etc/passwd"), "pub/d": link("notes"), "pub/via.txt": link("d/../../../x/y")},
			want: []string{
				leak("pub/abs.txt", "/etc/passwd", "outside the folder", "pub"),
				`skills/pub/d: warning: symbolic link to a directory; not followed`,
				leak("pub/up.txt", "skills/../secret.txt", "outside the folder", "pub"),
				leak("pub/via.txt", "skills/../x/y", "outside the folder", "pub")},
			valid: []string{"finance/ledger"}},
		{name: "within its skill", files: fstest.MapFS{"pub/same.txt": link("notes/own.txt"), "pub/chain.txt": link("same.txt"), "pub/notes/up.txt": link("../same.txt"),
			"pub/d": link("notes"), "pub/via.txt": link("d/own.txt"), "pub/abs-looking.txt": link("./notes/../notes/own.txt")},
			want:  []string{`skills/pub/d: warning: symbolic link to a directory; not followed`},
			valid: []string{"finance/ledger", "pub"}},
		{name: "into a skill nested in it", files: fstest.MapFS{"pub/inner/SKILL.md": ok("inner"), "pub/inner/data.txt": {Data: []byte("data")}, "pub/data.txt": link("inner/data.txt")},
			valid: []string{"finance/ledger", "pub", "pub/inner"}},
		{name: "out of a nested skill into the one holding it", files: fstest.MapFS{"pub/inner/SKILL.md": ok("inner"), "pub/inner/own.txt": link("../notes/own.txt")},
			want:  []string{leak("pub/inner/own.txt", "skills/pub/notes/own.txt", "a file of skill pub", "pub/inner")},
			valid: []string{"finance/ledger"}},
		{name: "a target with a backslash, a separator on Windows", files: fstest.MapFS{"pub/x.txt": link(`..\finance\ledger\secret.txt`), "pub/y.txt": link(`notes\own.txt`)},
			want: []string{
				`skills/pub/x.txt: symbolic link not served: its target holds a backslash ("\"), which Windows reads as a path separator; link with "/"`,
				`skills/pub/y.txt: symbolic link not served: its target holds a backslash ("\"), which Windows reads as a path separator; link with "/"`},
			valid: []string{"finance/ledger"}},
		{name: "into clutter the build never serves", files: fstest.MapFS{"pub/.git/config": {Data: []byte("[remote] url = https://user:TOKEN@example.com/x")}, "pub/notes.txt": link(".git/config"),
			"pub/ds.txt": link("notes/.DS_Store"), "pub/notes/.DS_Store": {Data: []byte("x")}},
			want: []string{
				`skills/pub/ds.txt: symbolic link to skills/pub/notes/.DS_Store, which is version-control or system clutter the build never serves (a link is served to whoever may see its skill)`,
				`skills/pub/notes.txt: symbolic link to skills/pub/.git/config, which is version-control or system clutter the build never serves (a link is served to whoever may see its skill)`},
			valid: []string{"finance/ledger"}},
		{name: "dangling and looping links stay warnings", files: fstest.MapFS{"pub/gone.txt": link("../finance/ledger/missing.txt"), "pub/loop": link("loop")},
			want: []string{
				`skills/pub/gone.txt: warning: broken symbolic link; not served`,
				`skills/pub/loop: warning: symbolic link cannot be followed (too many levels of symbolic links); not served`},
			valid: []string{"finance/ledger", "pub"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fsys := fstest.MapFS{
				PolicyFile:                  {Data: []byte("access:\n  rules:\n    - path: finance/\n      scopes: [skills:finance]\n")},
				"finance/ledger/SKILL.md":   ok("ledger"),
				"finance/ledger/secret.txt": {Data: []byte("the ledger")},
				"pub/SKILL.md":              ok("pub"),
				"pub/notes/own.txt":         {Data: []byte("pub's own")},
			}
			maps.Copy(fsys, c.files)
			cat, ps, err := Load(fsys, "skills", Options{})
			if err != nil {
				t.Fatal(err)
			}
			equalStrings(t, "problems", strs(ps), c.want)
			equalStrings(t, "skills", paths(cat), c.valid)
			for _, s := range cat.Skills {
				for _, f := range s.Files {
					if s.Path != "finance/ledger" && string(f.Data) == "the ledger" {
						t.Errorf("skill %s serves the ledger as %s", s.Path, f.Path)
					}
				}
			}
		})
	}
}

// noReadLink hides the fs.ReadLinkFS of the file system it holds.
type noReadLink struct{ fs.FS }

// TestLinksNeedReadLink: on a file system that cannot read links, where a link leads
// cannot be checked, so it is not served (it was followed, wherever it led).
func TestLinksNeedReadLink(t *testing.T) {
	cat, ps, err := Load(noReadLink{fstest.MapFS{
		"finance/ledger/SKILL.md":   ok("ledger"),
		"finance/ledger/secret.txt": {Data: []byte("the ledger")},
		"pub/SKILL.md":              ok("pub"),
		"pub/leak.txt":              {Data: []byte("../finance/ledger/secret.txt"), Mode: fs.ModeSymlink},
	}}, "skills", Options{})
	if err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "problems", strs(ps), []string{
		"skills/pub/leak.txt: warning: symbolic link cannot be followed (the file system does not read links, so where it leads cannot be checked); not served"})
	equalStrings(t, "skills", paths(cat), []string{"finance/ledger", "pub"})
	if len(cat.Skills) == 2 && len(cat.Skills[1].Files) != 1 {
		t.Errorf("pub serves %d files", len(cat.Skills[1].Files))
	}
}

// TestCut: entries carry a value whole up to its limit, and a longer one cut to the limit
// with "…" last, on a character boundary.
func TestCut(t *testing.T) {
	for _, c := range []struct {
		name, in string
		limit    int
		want     string
	}{
		{"short", "Does things.", 1024, "Does things."},
		{"1024 characters", strings.Repeat("é", 1024), 1024, strings.Repeat("é", 1024)},
		{"1025 characters", strings.Repeat("é", 1025), 1024, strings.Repeat("é", 1023) + "…"},
		{"1068 characters", strings.Repeat("ab", 534), 1024, strings.Repeat("ab", 511) + "a…"},
		{"501 characters", strings.Repeat("ü", 501), 500, strings.Repeat("ü", 499) + "…"},
	} {
		got := cut(c.in, c.limit)
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if n := utf8.RuneCountInString(got); n > c.limit {
			t.Errorf("%s: %d characters", c.name, n)
		}
	}
}
