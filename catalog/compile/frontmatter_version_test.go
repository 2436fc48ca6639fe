package compile

import "testing"

// TestFrontmatterVersion: the version a skill's history is named by, as its entry serves
// it: a string only.
func TestFrontmatterVersion(t *testing.T) {
	for _, c := range []struct{ name, md, want string }{
		{"a version", "---\nname: x\ndescription: d\nversion: 1.2.0\n---\nbody\n", "1.2.0"},
		{"quoted", "---\nname: x\ndescription: d\nversion: \"2.0\"\n---\n", "2.0"},
		{"a number is no version", "---\nname: x\ndescription: d\nversion: 2.0\n---\n", ""},
		{"none", "---\nname: x\ndescription: d\n---\n", ""},
		{"in metadata only", "---\nname: x\ndescription: d\nmetadata:\n  version: \"3\"\n---\n", ""},
		{"no frontmatter", "# x\n", ""},
		{"a frontmatter that does not read", "---\nname: [x\n---\n", ""},
		{"a byte order mark and CRLF", "\ufeff---\r\nname: x\r\ndescription: d\r\nversion: 4.0.1\r\n---\r\n", "4.0.1"},
	} {
		if got := FrontmatterVersion([]byte(c.md)); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
