package compile

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The changes the feed tests render: one of each kind.
var (
	feedV1 = &ChangeVersion{Version: "1.2.0", Digest: "sha256:" + strings.Repeat("1", 64)}
	feedV2 = &ChangeVersion{Version: "1.3.0", Digest: "sha256:" + strings.Repeat("2", 64)}
	// cet is a zone other than UTC: the feeds write every date in UTC.
	cet = time.FixedZone("CET", 3600)

	changeAdded = &Change{Path: "ops/deploy-runbook", Name: "deploy-runbook", To: feedV1,
		Date: time.Date(2026, 11, 1, 13, 0, 0, 0, cet), Commit: "c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1",
		Subject: "Add the deploy runbook", Added: []string{"SKILL.md", "scripts/check.sh"}}
	changeChanged = &Change{Path: "ops/deploy-runbook", Name: "deploy-runbook", From: feedV1, To: feedV2,
		Date: time.Date(2026, 11, 3, 9, 30, 0, 0, time.UTC), Commit: "c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2",
		Subject: "Runbook: roll back first", Changed: []string{"SKILL.md"}, Removed: []string{"scripts/check.sh"}}
	changeMoved = &Change{Path: "ops/x", Name: "x", Moved: "a/x", From: feedV1, To: feedV1,
		Date: time.Date(2026, 11, 4, 0, 0, 0, 0, time.UTC), Commit: "c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3",
		Subject: "Move x under ops"}
	changeRemoved = &Change{Path: "old/y", Name: "y", From: feedV2,
		Date: time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC), Commit: "c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4",
		Subject: "Retire y", Removed: []string{"SKILL.md"}}
)

func TestChangesJSON(t *testing.T) {
	const (
		files0   = `"files":{"added":[],"changed":[],"removed":[]}`
		skillDR  = `{"skill":{"path":"ops/deploy-runbook","name":"deploy-runbook"}`
		v1, v2   = `{"version":"1.2.0","digest":"sha256:1111111111111111111111111111111111111111111111111111111111111111"}`, `{"version":"1.3.0","digest":"sha256:2222222222222222222222222222222222222222222222222222222222222222"}`
		c1, c2   = `"commit":"c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1"`, `"commit":"c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2"`
		c3, c4   = `"commit":"c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3"`, `"commit":"c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4c4"`
		addedOut = skillDR + `,"to":` + v1 + `,"date":"2026-11-01T12:00:00Z",` + c1 + `,"subject":"Add the deploy runbook","files":{"added":["SKILL.md","scripts/check.sh"],"changed":[],"removed":[]}}`
	)
	for _, tc := range []struct {
		name    string
		changes []*Change
		private bool
		want    string
	}{
		{"empty", nil, false, `{"changes":[]}`},
		{"empty private", nil, true, `{"changes":[]}`},
		{"added", []*Change{changeAdded}, false, `{"changes":[` + addedOut + `]}`},
		{"changed", []*Change{changeChanged}, false, `{"changes":[` + skillDR + `,"from":` + v1 + `,"to":` + v2 +
			`,"date":"2026-11-03T09:30:00Z",` + c2 + `,"subject":"Runbook: roll back first","files":{"added":[],"changed":["SKILL.md"],"removed":["scripts/check.sh"]}}]}`},
		{"moved", []*Change{changeMoved}, false, `{"changes":[{"skill":{"path":"ops/x","name":"x"},"movedFrom":"a/x","from":` + v1 + `,"to":` + v1 +
			`,"date":"2026-11-04T00:00:00Z",` + c3 + `,"subject":"Move x under ops",` + files0 + `}]}`},
		{"removed", []*Change{changeRemoved}, false, `{"changes":[{"skill":{"path":"old/y","name":"y"},"from":` + v2 +
			`,"date":"2026-11-05T00:00:00Z",` + c4 + `,"subject":"Retire y","files":{"added":[],"changed":[],"removed":["SKILL.md"]}}]}`},
		{"private", []*Change{changeChanged, changeAdded}, true, `{"changes":[` + skillDR + `,"from":` + v1 + `,"to":` + v2 +
			`,"date":"2026-11-03T09:30:00Z","files":{"added":[],"changed":["SKILL.md"],"removed":["scripts/check.sh"]}},` +
			skillDR + `,"to":` + v1 + `,"date":"2026-11-01T12:00:00Z","files":{"added":["SKILL.md","scripts/check.sh"],"changed":[],"removed":[]}}]}`},
		{"no commit", []*Change{{Path: "z", Name: "z", To: feedV1, Date: time.Unix(0, 0)}}, false,
			`{"changes":[{"skill":{"path":"z","name":"z"},"to":` + v1 + `,"date":"1970-01-01T00:00:00Z",` + files0 + `}]}`},
		{"hostile", []*Change{{Path: "p", Name: "n", To: feedV1, Date: time.Unix(0, 0), Commit: "c", Subject: "</script>\"\x00\u2028\xff"}}, false,
			`{"changes":[{"skill":{"path":"p","name":"n"},"to":` + v1 + `,"date":"1970-01-01T00:00:00Z","commit":"c","subject":"</script>\"\u0000\u2028\ufffd",` + files0 + `}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := changesJSON(tc.changes, tc.private)
			if string(got) != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
			if !bytes.Equal(got, changesJSON(tc.changes, tc.private)) {
				t.Fatal("two renderings differ")
			}
			// It parses back as the shape documented, and nothing else.
			var doc struct {
				Changes []struct {
					Skill     struct{ Path, Name string }
					MovedFrom *string
					From, To  *struct{ Version, Digest string }
					Date      string
					Commit    *string
					Subject   *string
					Files     struct{ Added, Changed, Removed []string }
				}
			}
			dec := json.NewDecoder(bytes.NewReader(got))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&doc); err != nil {
				t.Fatal(err)
			}
			if doc.Changes == nil || len(doc.Changes) != len(tc.changes) {
				t.Fatalf("%d changes, want %d", len(doc.Changes), len(tc.changes))
			}
			for i, c := range doc.Changes {
				in := tc.changes[i]
				if c.Skill.Path != in.Path || (c.From == nil) != (in.From == nil) || (c.To == nil) != (in.To == nil) ||
					(c.MovedFrom != nil) != (in.Moved != "") {
					t.Errorf("change %d: %+v from %+v", i, c, in)
				}
				if tc.private && (c.Commit != nil || c.Subject != nil) {
					t.Errorf("change %d: a private feed carries a commit or subject", i)
				}
				if c.Files.Added == nil || c.Files.Changed == nil || c.Files.Removed == nil {
					t.Errorf("change %d: a file array is missing: %+v", i, c.Files)
				}
				if d, err := time.Parse(time.RFC3339, c.Date); err != nil || !d.Equal(in.Date) || !strings.HasSuffix(c.Date, "Z") {
					t.Errorf("change %d: date %q (%v) for %v", i, c.Date, err, in.Date)
				}
			}
		})
	}
}

// The Atom document as RFC 4287 defines it, for the tests to read back.
type (
	atomFeed struct {
		XMLName   xml.Name        `xml:"feed"`
		IDs       []string        `xml:"id"`
		Titles    []atomText      `xml:"title"`
		Updated   []string        `xml:"updated"`
		Authors   []atomPerson    `xml:"author"`
		Generator []string        `xml:"generator"`
		Links     []atomLink      `xml:"link"`
		Entries   []atomFeedEntry `xml:"entry"`
	}
	atomFeedEntry struct {
		IDs      []string     `xml:"id"`
		Titles   []atomText   `xml:"title"`
		Updated  []string     `xml:"updated"`
		Authors  []atomPerson `xml:"author"`
		Contents []atomText   `xml:"content"`
		Summary  []atomText   `xml:"summary"`
		Links    []atomLink   `xml:"link"`
	}
	atomText struct {
		Type string `xml:"type,attr"`
		Text string `xml:",chardata"`
	}
	atomPerson struct {
		Names []string `xml:"name"`
		URIs  []string `xml:"uri"`
	}
	atomLink struct {
		Rel      string `xml:"rel,attr"`
		Type     string `xml:"type,attr"`
		Href     string `xml:"href,attr"`
		HrefLang string `xml:"hreflang,attr"`
	}
)

var uuidURN = regexp.MustCompile(`^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// readAtom parses an Atom feed strictly and checks every MUST of RFC 4287 the feed is
// subject to: every element in the Atom namespace; the feed and each entry with exactly
// one id, title and updated; an author on the feed or on every entry; content or summary
// on each entry (content, so no alternate link is needed); dates in RFC 3339; ids
// absolute IRIs (here urn:uuid) and distinct; at most one alternate link per type and
// hreflang, each link with an href. It returns the feed.
func readAtom(t testing.TB, doc []byte) atomFeed {
	t.Helper()
	if !utf8.Valid(doc) || !bytes.HasPrefix(doc, []byte(`<?xml version="1.0" encoding="utf-8"?>`)) {
		t.Fatalf("not a UTF-8 XML document: %q", doc)
	}
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, doc)
		}
		if s, ok := tok.(xml.StartElement); ok && s.Name.Space != atomNamespace {
			t.Fatalf("element %v outside the Atom namespace", s.Name)
		}
	}
	var f atomFeed
	if err := xml.Unmarshal(doc, &f); err != nil {
		t.Fatal(err)
	}
	one := func(what string, n int) {
		if n != 1 {
			t.Errorf("%s: %d, want exactly 1", what, n)
		}
	}
	date := func(what, s string) {
		if _, err := time.Parse(time.RFC3339, s); err != nil || !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`).MatchString(s) {
			t.Errorf("%s: %q is not an RFC 3339 date-time in UTC", what, s)
		}
	}
	links := func(what string, ls []atomLink) {
		alt := map[string]bool{}
		for _, l := range ls {
			if l.Href == "" {
				t.Errorf("%s: a link without href", what)
			}
			if l.Rel == "" || l.Rel == "alternate" {
				if k := l.Type + " " + l.HrefLang; alt[k] {
					t.Errorf("%s: two alternate links of type %q", what, l.Type)
				} else {
					alt[k] = true
				}
			}
		}
	}
	one("feed id", len(f.IDs))
	one("feed title", len(f.Titles))
	one("feed updated", len(f.Updated))
	links("feed", f.Links)
	for _, u := range f.Updated {
		date("feed updated", u)
	}
	for _, a := range f.Authors {
		one("feed author name", len(a.Names))
	}
	ids := map[string]bool{}
	for _, id := range f.IDs {
		ids[id] = true
		if !uuidURN.MatchString(id) {
			t.Errorf("feed id %q", id)
		}
	}
	for i, e := range f.Entries {
		one("entry id", len(e.IDs))
		one("entry title", len(e.Titles))
		one("entry updated", len(e.Updated))
		if len(f.Authors) == 0 && len(e.Authors) == 0 {
			t.Errorf("entry %d: no author, and the feed has none", i)
		}
		if len(e.Contents)+len(e.Summary) == 0 || len(e.Contents) > 1 {
			t.Errorf("entry %d: %d contents, %d summaries", i, len(e.Contents), len(e.Summary))
		}
		for _, c := range e.Contents {
			if c.Type != "text" {
				t.Errorf("entry %d: content of type %q", i, c.Type)
			}
		}
		links("entry", e.Links)
		for _, u := range e.Updated {
			date("entry updated", u)
		}
		for _, id := range e.IDs {
			if !uuidURN.MatchString(id) || ids[id] {
				t.Errorf("entry %d: id %q malformed or not unique", i, id)
			}
			ids[id] = true
		}
	}
	return f
}

func TestChangesAtom(t *testing.T) {
	all := []*Change{changeRemoved, changeMoved, changeChanged, changeAdded}
	for _, tc := range []struct {
		name      string
		changes   []*Change
		private   bool
		trustRoot string
		updated   string
		titles    []string
		content   []string // lines the first entry's content holds
	}{
		{name: "empty", updated: "1970-01-01T00:00:00Z"},
		{name: "empty private with a trust root", private: true, trustRoot: "https://skills.example.com/", updated: "1970-01-01T00:00:00Z"},
		{name: "added", changes: []*Change{changeAdded}, updated: "2026-11-01T12:00:00Z",
			titles: []string{"deploy-runbook added (1.2.0)"},
			content: []string{"Skill: deploy-runbook at ops/deploy-runbook\n", "Added: 1.2.0 (" + feedV1.Digest + ")\n",
				"Files added: SKILL.md, scripts/check.sh\n", "Date: 2026-11-01T12:00:00Z\n",
				"Commit: " + changeAdded.Commit + "\n", "Subject: Add the deploy runbook\n"}},
		{name: "changed", changes: []*Change{changeChanged}, updated: "2026-11-03T09:30:00Z",
			titles: []string{"deploy-runbook 1.2.0 → 1.3.0"},
			content: []string{"Version: 1.2.0 (" + feedV1.Digest + ") → 1.3.0 (" + feedV2.Digest + ")\n",
				"Files changed: SKILL.md\n", "Files removed: scripts/check.sh\n"}},
		{name: "moved", changes: []*Change{changeMoved}, updated: "2026-11-04T00:00:00Z",
			titles: []string{"x moved from a/x"}, content: []string{"Moved from: a/x\n", "Version: 1.2.0"}},
		{name: "moved and changed", changes: []*Change{{Path: "b/x", Name: "x", Moved: "a/x", From: feedV1, To: feedV2}},
			updated: "0001-01-01T00:00:00Z", titles: []string{"x moved from a/x, 1.2.0 → 1.3.0"}},
		{name: "removed", changes: []*Change{changeRemoved}, updated: "2026-11-05T00:00:00Z",
			titles: []string{"y removed"}, content: []string{"Removed: 1.3.0 (" + feedV2.Digest + ")\n", "Files removed: SKILL.md\n"}},
		{name: "all", changes: all, trustRoot: "https://skills.example.com/", updated: "2026-11-05T00:00:00Z",
			titles: []string{"y removed", "x moved from a/x", "deploy-runbook 1.2.0 → 1.3.0", "deploy-runbook added (1.2.0)"}},
		{name: "all private", changes: all, private: true, updated: "2026-11-05T00:00:00Z",
			titles: []string{"y removed", "x moved from a/x", "deploy-runbook 1.2.0 → 1.3.0", "deploy-runbook added (1.2.0)"}},
		// The feed is as new as its newest change, wherever that change is in the list.
		{name: "out of order", changes: []*Change{changeAdded, changeMoved, changeChanged}, updated: "2026-11-04T00:00:00Z",
			titles: []string{"deploy-runbook added (1.2.0)", "x moved from a/x", "deploy-runbook 1.2.0 → 1.3.0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := changesAtom(tc.changes, tc.private, tc.trustRoot)
			if !bytes.Equal(out, changesAtom(tc.changes, tc.private, tc.trustRoot)) {
				t.Fatal("two renderings differ")
			}
			if !bytes.HasSuffix(out, []byte("</feed>\n")) {
				t.Fatalf("the feed does not end in one newline: %q", out[max(0, len(out)-20):])
			}
			f := readAtom(t, out)
			if f.Updated[0] != tc.updated {
				t.Errorf("updated %q, want %q", f.Updated[0], tc.updated)
			}
			if len(f.Authors) != 1 || (tc.trustRoot != "") != (len(f.Authors[0].URIs) == 1) {
				t.Errorf("authors %+v for the trust root %q", f.Authors, tc.trustRoot)
			}
			if len(f.Entries) != len(tc.changes) {
				t.Fatalf("%d entries for %d changes", len(f.Entries), len(tc.changes))
			}
			for i, e := range f.Entries {
				if e.Titles[0].Text != tc.titles[i] {
					t.Errorf("entry %d: title %q, want %q", i, e.Titles[0].Text, tc.titles[i])
				}
				if want := feedTime(tc.changes[i].Date); e.Updated[0] != want {
					t.Errorf("entry %d: updated %q, want %q", i, e.Updated[0], want)
				}
			}
			for _, line := range tc.content {
				if !strings.Contains(f.Entries[0].Contents[0].Text, line) {
					t.Errorf("the content does not hold %q:\n%s", line, f.Entries[0].Contents[0].Text)
				}
			}
			for _, c := range tc.changes {
				if tc.private && (c.Commit != "" && bytes.Contains(out, []byte(c.Commit)) || c.Subject != "" && bytes.Contains(out, []byte(c.Subject))) {
					t.Errorf("the private feed holds the commit or subject of %+v", c)
				}
				if !tc.private && (c.Commit != "" && !bytes.Contains(out, []byte("Commit: "+c.Commit+"\n")) ||
					c.Subject != "" && !bytes.Contains(out, []byte("Subject: "+c.Subject+"\n"))) {
					t.Errorf("the public feed lacks the commit or subject of %+v", c)
				}
			}
		})
	}
}

// TestChangesAtomIDs: ids are permanent: the same change has the same id in every view
// and wherever it is in the list; the feed's id depends on the trust root alone.
func TestChangesAtomIDs(t *testing.T) {
	ids := func(changes []*Change, private bool, root string) []string {
		f := readAtom(t, changesAtom(changes, private, root))
		out := append([]string{}, f.IDs...)
		for _, e := range f.Entries {
			out = append(out, e.IDs...)
		}
		return out
	}
	a := ids([]*Change{changeChanged, changeAdded}, false, "")
	b := ids([]*Change{changeRemoved, changeChanged, changeAdded}, true, "")
	if a[0] != b[0] || a[1] != b[2] || a[2] != b[3] {
		t.Errorf("ids moved: %q and %q", a, b)
	}
	if c := ids(nil, false, "https://skills.example.com/"); c[0] == a[0] {
		t.Errorf("the feed id %q does not depend on the trust root", c[0])
	}
	// A move and the addition at the path it left, in one commit, are two entries.
	left := &Change{Path: "a/x", Name: "x", To: feedV2, Date: changeMoved.Date, Commit: changeMoved.Commit}
	if d := ids([]*Change{changeMoved, left}, false, ""); d[1] == d[2] {
		t.Errorf("two changes of one commit share the id %q", d[1])
	}
}

// TestChangesAtomHostile: author text reaches the feed only as text: markup, CDATA ends
// and references are escaped; the characters XML 1.0 forbids (most C0 controls, U+FFFE,
// U+FFFF, invalid UTF-8) and discourages (DEL, C1) become U+FFFD; a carriage return
// survives as a reference.
func TestChangesAtomHostile(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"markup", "<script>alert(1)</script>", "<script>alert(1)</script>"},
		{"cdata end", "x]]>y<![CDATA[z", "x]]>y<![CDATA[z"},
		{"references", "&amp; &#0; &lt; \"'", "&amp; &#0; &lt; \"'"},
		{"c0 controls", "a\x00b\x01c\x1bd\x08e", "a\uFFFDb\uFFFDc\uFFFDd\uFFFDe"},
		{"whitespace", "a\tb\rc", "a\tb\rc"},
		{"del and c1", "a\x7fb\u0085c\u009fd", "a\uFFFDb\uFFFDc\uFFFDd"},
		{"noncharacters", "a\uFFFEb\uFFFFc", "a\uFFFDb\uFFFDc"},
		{"invalid utf-8", "a\xffb\xc3", "a\uFFFDb\uFFFD"},
		{"astral", "🙂 \u2028", "🙂 \u2028"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Change{Path: "p/" + tc.in, Name: tc.in, Moved: tc.in, From: feedV1, To: feedV2,
				Commit: "c", Subject: tc.in, Date: time.Unix(0, 0), Added: []string{tc.in}}
			out := changesAtom([]*Change{c}, false, "https://x.example/"+tc.in)
			for _, bad := range []string{"<script", "]]>", "<![CDATA["} {
				if bytes.Contains(out, []byte(bad)) {
					t.Errorf("the feed holds %q", bad)
				}
			}
			f := readAtom(t, out)
			if got, want := f.Entries[0].Titles[0].Text, tc.want+" moved from "+tc.want+", 1.2.0 → 1.3.0"; got != want {
				t.Errorf("title %q, want %q", got, want)
			}
			if text := f.Entries[0].Contents[0].Text; !strings.Contains(text, "\nSubject: "+tc.want+"\n") ||
				!strings.Contains(text, "\nFiles added: "+tc.want+"\n") {
				t.Errorf("content %q does not hold %q", text, tc.want)
			}
			if got := f.Authors[0].URIs[0]; got != "https://x.example/"+tc.want {
				t.Errorf("author uri %q", got)
			}
		})
	}
}

func TestFeedTime(t *testing.T) {
	for _, tc := range []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 11, 1, 13, 0, 0, 999, cet), "2026-11-01T12:00:00Z"},
		{time.Time{}, "0001-01-01T00:00:00Z"},
		{time.Date(12026, 1, 1, 0, 0, 0, 0, time.UTC), "9999-12-31T23:59:59Z"},
		{time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC), "0000-01-01T00:00:00Z"},
	} {
		if got := feedTime(tc.in); got != tc.want {
			t.Errorf("feedTime(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzChangesAtom: whatever a history's author writes (subject, paths, file names, a
// trust root), the Atom feed is well-formed XML that reads back as the text written, with
// the characters XML forbids replaced; and the JSON feed is valid JSON.
func FuzzChangesAtom(f *testing.F) {
	f.Add("Add the deploy runbook", "ops/deploy-runbook", "a/x", "SKILL.md", "https://skills.example.com/")
	f.Add("<script>]]>&amp;\x00\x1b\x7f\r\n", "p<q>&", "", "\xff\xfe", "")
	f.Add("\uFFFE\uFFFF\U0010FFFF\ud7ff", "", "x\ry", "\u0085", "\"'")
	f.Fuzz(func(t *testing.T, subject, path, moved, file, root string) {
		c := &Change{Path: path, Name: path, Moved: moved, From: feedV1, To: &ChangeVersion{Version: file, Digest: subject},
			Date: time.Unix(int64(len(subject))*1e9, 0), Commit: moved, Subject: subject, Changed: []string{file, subject}}
		for _, private := range []bool{false, true} {
			out := changesAtom([]*Change{c, changeAdded}, private, root)
			feed := readAtom(t, out)
			if got, want := feed.Entries[0].Titles[0].Text, xmlSanitized(changeTitle(c)); got != want {
				t.Fatalf("title %q, want %q", got, want)
			}
			if got, want := feed.Entries[0].Contents[0].Text, xmlSanitized(changeText(c, private)); got != want {
				t.Fatalf("content %q, want %q", got, want)
			}
			if js := changesJSON([]*Change{c, changeAdded}, private); !json.Valid(js) {
				t.Fatalf("invalid JSON %q", js)
			}
		}
	})
}

// xmlSanitized is what s reads back as from the feed: s with the characters xmlText
// replaces replaced.
func xmlSanitized(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r >= 0x7f && r <= 0x9f || r == 0xfffe || r == 0xffff {
			return utf8.RuneError
		}
		return r
	}, s)
}

// TestFeedBounds: a feed holds at most MaxChanges changes, and no more than fit in
// MaxFeedBytes in each document: 100 changes of 1,024 long file names each would make a
// feed of megabytes.
func TestFeedBounds(t *testing.T) {
	everyone := func([]string, bool) bool { return true }
	var small, large []*Change
	var files []string
	for i := range 1024 {
		files = append(files, fmt.Sprintf("references/%04d-%s.md", i, strings.Repeat("n", 60)))
	}
	for i := range 150 {
		date := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(-time.Duration(i) * time.Hour)
		small = append(small, &Change{Path: fmt.Sprintf("s%03d", i), Name: "s", To: feedV1, Date: date, Commit: fmt.Sprint(i), Added: []string{"SKILL.md"}})
		large = append(large, &Change{Path: fmt.Sprintf("s%03d", i), Name: "s", To: feedV1, Date: date, Commit: fmt.Sprint(i), Added: files})
	}
	if got := feedChanges(small, false, everyone); len(got) != MaxChanges || got[0] != small[0] {
		t.Errorf("%d small changes shown, want the newest %d", len(got), MaxChanges)
	}
	got := feedChanges(large, false, everyone)
	j, a := changesJSON(got, false), changesAtom(got, false, "")
	if len(got) == 0 || len(got) >= MaxChanges || len(j) > MaxFeedBytes+64 || len(a) > MaxFeedBytes+1024 {
		t.Errorf("%d large changes shown: JSON %d bytes, Atom %d", len(got), len(j), len(a))
	}
	if nj, na := changesJSON(large[:len(got)+1], false), changesAtom(large[:len(got)+1], false, ""); len(nj) <= MaxFeedBytes && len(na) <= MaxFeedBytes {
		t.Errorf("one change more would fit: JSON %d bytes, Atom %d", len(nj), len(na))
	}
}
