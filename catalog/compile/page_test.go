package compile

import (
	"crypto/sha256"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// TestPageHostileContent: what a skills folder says reaches the catalog page only as text:
// HTML in a description is escaped, control characters (which YAML escapes let in) become
// U+FFFD, odd file names are escaped in text and in links, and skills whose name repeats
// link to the well-known files under their index names, which the page says.
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
	if n := strings.Count(page, "<script>"); n != 1 {
		t.Errorf("the page holds %d scripts, want its own one (pageScript)", n)
	}
	for _, bad := range []string{"<script>alert", "</b>", "<b>", "\x1b", `href="/.well-known/skills/dup/`, `<a class="archive" href="/.well-known/agent-skills/dup.tar.gz"`} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	for _, want := range []string{
		"&lt;script&gt;alert(1)&lt;/script&gt; &amp; \uFFFD \uFFFD[31m done",
		`<a href="/.well-known/skills/odd/a&amp;b%3Cc%3E%22d&#39;.md"><code>a&amp;b&lt;c&gt;&#34;d&#39;.md</code></a>`,
		"<code>notes/&lt;b&gt;bold&lt;/b&gt;.md</code>",
		`Another skill is named dup: by name, ask for this one as <code>one-dup</code>`,
		`<a href="/.well-known/skills/two-dup/notes/%3Cb%3Ebold%3C/b%3E.md"><code>notes/&lt;b&gt;bold&lt;/b&gt;.md</code></a>`,
		`<a class="skill-md" href="/.well-known/skills/one-dup/SKILL.md">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not hold %q\n%s", want, page[strings.Index(page, "<section id=\"skills\">"):])
		}
	}
	for i := 0; i < len(page); i++ {
		if c := page[i]; c < 0x20 && c != '\n' && c != '\t' && !(c == 0 && i+1 < len(page) && strings.IndexByte("UJSQ", page[i+1]) >= 0) {
			t.Fatalf("control byte %#x at %d", c, i)
		}
	}
}

// historySkill is a skill of one file, SKILL.md holding md, at path, for the history
// tests.
func historySkill(path, version, md string) *Skill {
	f := &File{Path: path + "/SKILL.md", Data: []byte(md), Size: int64(len(md)), MIME: "text/markdown", Text: true, Digest: sha256.Sum256([]byte(md))}
	return &Skill{Path: path, Name: "x", Description: "Does x.", Files: []*File{f}, Version: version}
}

// TestPageHistory: a skill that keeps more than one version lists them on the page, newest
// first, each with its date (or "not committed"), URI and manifest digest, and under each
// but the oldest the diff of SKILL.md from the version before it, escaped, with three lines
// of context; a diff too large is a sentence, and so is an unchanged SKILL.md.
func TestPageHistory(t *testing.T) {
	head := "---\nname: x\ndescription: Does x.\n---\n"
	body := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\ntwelve\n"
	v1 := historySkill("ops/x/@1.0.0/x", "1.0.0", head+body)
	v2 := historySkill("ops/x/@1.1.0/x", "1.1.0", head+strings.Replace(strings.Replace(body, "two\n", "<script>alert(1)</script> & \x1b\n", 1), "twelve\n", "twelve", 1))
	v3 := historySkill("ops/x", "1.2.0", head+strings.Replace(strings.Replace(body, "two\n", "2\r\n", 1), "eleven\n", "", 1))
	huge := historySkill("ops/x/@2.0.0/x", "2.0.0", head+strings.Repeat("a line\n", 10000))
	same := historySkill("ops/x/@1.1.1/x", "1.1.1", string(v2.Files[0].Data))
	same.Files = append(same.Files, &File{Path: same.Path + "/notes.md", Data: []byte("n"), Size: 1, Digest: sha256.Sum256([]byte("n"))})
	date := func(day int) time.Time { return time.Date(2026, 11, day, 9, 30, 0, 0, time.FixedZone("CET", 3600)) }

	for _, tc := range []struct {
		name         string
		kept         []Kept
		want, absent []string
		order        []string // substrings in this order
	}{
		{name: "no versions", absent: []string{"History"}},
		{name: "one version", kept: []Kept{{"1.2.0", v3, date(3)}}, absent: []string{"History"}},
		{name: "three versions", kept: []Kept{{"1.2.0", v3, time.Time{}}, {"1.1.0", v2, date(2)}, {"1.0.0", v1, date(1)}},
			want: []string{
				`<details class="history">` + "\n<summary>History (3 versions)</summary>",
				`<strong class="version-name">1.2.0</strong> · <span class="published muted">not committed</span> · <code class="uri">skill://ops/x/SKILL.md</code> · <code class="digest">` + ManifestDigest(v3) + `</code>`,
				`<strong class="version-name">1.1.0</strong> · <span class="published">published <time datetime="2026-11-02T08:30:00Z">2026-11-02</time></span> · <code class="uri">skill://ops/x/@1.1.0/x/SKILL.md</code>`,
				`<code class="digest">` + ManifestDigest(v1) + `</code>`,
				// 1.0.0 → 1.1.0: a hostile line, and a last line that lost its newline.
				"<p class=\"diff-title muted\">SKILL.md since 1.0.0:</p>\n<pre class=\"diff\"><code>…\n description: Does x.\n ---\n one\n<del>-two</del>\n<ins>+&lt;script&gt;alert(1)&lt;/script&gt; &amp; \uFFFD</ins>\n three\n four\n five\n…\n nine\n ten\n eleven\n<del>-twelve</del>\n<ins>+twelve</ins>\n\\ No newline at end of file\n</code></pre>\n",
				// 1.1.0 → 1.2.0: a line end that became CRLF shows, a removed line.
				"<del>-&lt;script&gt;alert(1)&lt;/script&gt; &amp; \uFFFD</del>\n<ins>+2␍</ins>\n",
				" ten\n<del>-eleven</del>\n<del>-twelve</del>\n\\ No newline at end of file\n<ins>+twelve</ins>\n</code></pre>",
			},
			order:  []string{">1.2.0<", "since 1.1.0", ">1.1.0<", "since 1.0.0", ">1.0.0<"},
			absent: []string{"since 1.2.0", "<script", "\x1b", "style="}},
		{name: "too large, and unchanged", kept: []Kept{{"2.0.0", huge, date(4)}, {"1.1.1", same, date(3)}, {"1.1.0", v2, date(2)}},
			want: []string{
				"<summary>History (3 versions)</summary>",
				"<p class=\"diff-title muted\">SKILL.md since 1.1.1: changed (16 lines → 10004 lines); too large to show a diff.</p>\n",
				"<p class=\"diff-title muted\">SKILL.md since 1.1.0: unchanged.</p>\n",
			},
			absent: []string{"<pre class=\"diff\">"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			latest := *v3
			if len(tc.kept) > 0 {
				latest = *tc.kept[0].Skill
				tc.kept[0].Skill = &latest
			}
			latest.Kept = tc.kept
			page := string(pageSkills(&Catalog{Skills: []*Skill{&latest}}, nil))
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("the page does not hold %q\n%s", w, page)
				}
			}
			for _, n := range tc.absent {
				if strings.Contains(page, n) {
					t.Errorf("the page holds %q", n)
				}
			}
			at := 0
			for _, o := range tc.order {
				i := strings.Index(page[at:], o)
				if i < 0 {
					t.Fatalf("%q is not after offset %d", o, at)
				}
				at += i + len(o)
			}
			if !strings.HasSuffix(page, "</article>\n") || strings.Count(page, "<details") != strings.Count(page, "</details>") {
				t.Errorf("the skill's section is not closed:\n%s", page)
			}
			for i := 0; i < len(page); i++ {
				if c := page[i]; c < 0x20 && c != '\n' {
					t.Fatalf("control byte %#x at %d", c, i)
				}
			}
		})
	}
}

// TestPageFeeds: a catalog that keeps history names its change feeds in the page's head
// (rel="alternate", for browsers and feed readers) and in its navigation; one that keeps
// none names no feed, which it does not serve.
func TestPageFeeds(t *testing.T) {
	for _, c := range []struct {
		history bool
		want    []string
	}{
		{false, nil},
		{true, []string{
			`<link rel="alternate" type="application/atom+xml" title="Changes" href="/changes.atom">`,
			`<link rel="alternate" type="application/json" title="Changes (JSON)" href="/changes.json">`,
			`<a href="/changes.atom">changes (Atom)</a><a href="/changes.json">changes (JSON)</a></nav>`,
		}},
	} {
		cat := &Catalog{}
		if c.history {
			cat.Versions = &Versions{}
		}
		page := string(pageTemplate(cat))
		head := page[:strings.Index(page, "</head>")]
		for _, w := range c.want {
			if !strings.Contains(page, w) {
				t.Errorf("history %v: the page has no %s", c.history, w)
			}
		}
		if !c.history && strings.Contains(page, "changes") {
			t.Errorf("a catalog without history names a feed:\n%s", head)
		}
		if c.history && strings.Count(head, `rel="alternate"`) != 2 {
			t.Errorf("the head:\n%s", head)
		}
	}
}
