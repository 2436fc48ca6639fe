package compile

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestPageHostileContent: what a skills folder says reaches the catalog page only as text:
// HTML in a description is escaped, control characters (which YAML escapes let in) become
// U+FFFD, odd file names are escaped in text and in links, and skills whose name repeats
// are shown without well-known links (the indexes leave them out).
func TestPageHostileContent(t *testing.T) {
	fsys := fstest.MapFS{
		"odd/SKILL.md":                 &fstest.MapFile{Data: []byte("---\nname: odd\ndescription: \"<script>alert(1)</script> & \\0 \\e[31m done\"\n---\nBody\n")},
		"odd/a&b<c>\"d'.md":            &fstest.MapFile{Data: []byte("x")},
		"one/dup/SKILL.md":             &fstest.MapFile{Data: []byte("---\nname: dup\ndescription: First.\n---\n")},
		"two/dup/SKILL.md":             &fstest.MapFile{Data: []byte("---\nname: dup\ndescription: Second.\n---\n")},
		"two/dup/notes/<b>bold</b>.md": &fstest.MapFile{Data: []byte("y")},
	}
	c, problems, err := Load(fsys, "t", Options{})
	if err != nil || HasErrors(problems) {
		t.Fatalf("Load: %v %v", err, problems)
	}
	page := string(pageTemplate(c)) + string(pageSkills(c, nil))
	for _, bad := range []string{"<script>", "</b>", "<b>", "\x1b", `href="/.well-known/skills/dup/`} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	for _, want := range []string{
		"&lt;script&gt;alert(1)&lt;/script&gt; &amp; \uFFFD \uFFFD[31m done",
		`<a href="/.well-known/skills/odd/a&amp;b%3Cc%3E%22d&#39;.md"><code>a&amp;b&lt;c&gt;&#34;d&#39;.md</code></a>`,
		"<code>notes/&lt;b&gt;bold&lt;/b&gt;.md</code>",
		"Over MCP only: another skill has the same name",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not hold %q\n%s", want, page[strings.Index(page, "<section id=\"skills\">"):])
		}
	}
	for i := 0; i < len(page); i++ {
		if c := page[i]; c < 0x20 && c != '\n' && c != '\t' && !(c == 0 && i+1 < len(page) && strings.IndexByte("UJS", page[i+1]) >= 0) {
			t.Fatalf("control byte %#x at %d", c, i)
		}
	}
}
