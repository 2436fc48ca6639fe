package versions

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
)

// named is a SKILL.md named name, with version ("" for none) and body.
func named(name, version, body string) string {
	fm := "---\nname: " + name + "\ndescription: d\n"
	if version != "" {
		fm += "version: " + version + "\n"
	}
	return fm + "---\n" + body + "\n"
}

// attach loads the work tree of r and attaches its history, as the CLI does.
func attach(t *testing.T, r *repo, strict bool) (*compile.Catalog, []string) {
	t.Helper()
	c, problems, err := compile.LoadDir(r.dir, compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if compile.HasErrors(problems) {
		t.Fatalf("load: %v", problems)
	}
	src, err := Git(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	hp, err := Attach(context.Background(), c, src, "skills", strict)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range hp {
		out = append(out, p.String())
	}
	return c, out
}

// kept is a catalog's versions in a line per latest skill: its path, then each kept
// version as name=its version path (the latest's too: it is served there as well).
func kept(c *compile.Catalog) []string {
	var out []string
	for _, s := range c.Skills {
		line := s.Path + ":"
		for _, k := range s.Kept {
			line += " " + k.Version + "=" + k.Skill.Path
			if k.Published.IsZero() {
				line += "(uncommitted)"
			}
		}
		out = append(out, line)
	}
	return out
}

// TestAttach: the story the versions issue asks for, through git and the loader: an edit,
// a bump, a skill added, one removed, one renamed, one moved under another folder, with and
// without frontmatter versions; a forgotten bump; a change not committed. Each latest skill
// keeps its path, its versions are at their version paths with the bytes each commit left,
// and every version's digest is the manifest digest of what it serves.
func TestAttach(t *testing.T) {
	r := newRepo(t)
	r.commit("start", map[string]string{
		"skilledge.yaml":        "versions:\n  keep: 3\n",
		"runbook/SKILL.md":      named("runbook", "1.0.0", "one"),
		"runbook/refs/steps.md": "steps one",
		"notes/SKILL.md":        named("notes", "", "n1"),
		"old-name/SKILL.md":     named("old-name", "0.1.0", "r"),
		"mover/SKILL.md":        named("mover", "2.0.0", "m"),
		"gone/SKILL.md":         named("gone", "", "g"),
	})
	r.commit("edit a file of the runbook, bump it", map[string]string{
		"runbook/SKILL.md": named("runbook", "1.1.0", "one"), "runbook/refs/steps.md": "steps two"})
	r.commit("add fresh, remove gone", map[string]string{"fresh/SKILL.md": named("fresh", "", "f"), "gone/SKILL.md": ""})
	r.commit("rename old-name to new-name", map[string]string{"old-name/SKILL.md": "", "new-name/SKILL.md": named("new-name", "0.1.0", "r")})
	r.commit("move mover under team/", map[string]string{"mover/SKILL.md": "", "team/mover/SKILL.md": named("mover", "2.0.0", "m")})
	r.commit("notes edited", map[string]string{"notes/SKILL.md": named("notes", "", "n2")})
	r.commit("runbook changed, version not bumped", map[string]string{"runbook/SKILL.md": named("runbook", "1.1.0", "one, again")})
	r.commit("runbook 1.2.0", map[string]string{"runbook/SKILL.md": named("runbook", "1.2.0", "three")})
	// Not committed: the notes again.
	if err := os.WriteFile(filepath.Join(r.dir, "notes", "SKILL.md"), []byte(named("notes", "", "n3")), 0o644); err != nil {
		t.Fatal(err)
	}

	c, problems := attach(t, r, false)
	// A rename changes SKILL.md (its name) and is a new version: without a bump, a
	// warning too.
	if len(problems) != 2 || !strings.Contains(problems[0], "new-name/SKILL.md: warning: version 0.1.0 changed in") ||
		!strings.Contains(problems[1], "warning: version 1.1.0 changed in") || !strings.Contains(problems[1], "runbook changed, version not bumped") {
		t.Errorf("problems: %q", problems)
	}
	got := kept(c)
	want := []string{
		"fresh: 2026-11-03.*=fresh/@2026-11-03.*/fresh",
		"new-name: 0.1.0+*=new-name/@0.1.0+*/new-name 0.1.0=new-name/@0.1.0/old-name",
		"notes: uncommitted.*=notes/@uncommitted.*/notes(uncommitted) 2026-11-06.*=notes/@2026-11-06.*/notes 2026-11-01.*=notes/@2026-11-01.*/notes",
		"runbook: 1.2.0=runbook/@1.2.0/runbook 1.1.0+*=runbook/@1.1.0+*/runbook 1.1.0=runbook/@1.1.0/runbook",
		"team/mover: 2.0.0=team/mover/@2.0.0/mover",
	}
	if len(got) != len(want) {
		t.Fatalf("kept:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if !globMatch(want[i], got[i]) {
			t.Errorf("kept %d:\n got  %s\n want %s", i, got[i], want[i])
		}
	}
	// The version 1.1.0 serves the bytes of its commit, at its version path, with the
	// manifest digest _meta gives it.
	var v110 *compile.Skill
	for _, v := range c.Versions.Older {
		if v.Path == "runbook/@1.1.0/runbook" {
			v110 = v
		}
	}
	if v110 == nil {
		t.Fatalf("no runbook/@1.1.0/runbook among %d versions", len(c.Versions.Older))
	}
	var files []string
	for _, f := range v110.Files {
		files = append(files, f.Path+"="+string(f.Data))
	}
	if w := []string{"runbook/@1.1.0/runbook/SKILL.md=" + named("runbook", "1.1.0", "one"), "runbook/@1.1.0/runbook/refs/steps.md=steps two"}; !slices.Equal(files, w) {
		t.Errorf("1.1.0's files %q, want %q", files, w)
	}
	// The changes, newest first, name the versions by their digests.
	var changes []string
	for _, ch := range c.Versions.Changes {
		line := ch.Path + " " + ch.Name
		if ch.From != nil {
			line += " from " + ch.From.Version
		}
		if ch.To != nil {
			line += " to " + ch.To.Version
		}
		if ch.Moved != "" {
			line += " moved from " + ch.Moved
		}
		changes = append(changes, line)
	}
	wantChanges := []string{
		"runbook runbook from 1.1.0+* to 1.2.0",
		"runbook runbook from 1.1.0 to 1.1.0+*",
		"notes notes from 2026-11-01.* to 2026-11-06.*",
		"team/mover mover from 2.0.0 to 2.0.0 moved from mover",
		"new-name new-name from 0.1.0 to 0.1.0+* moved from old-name",
		"fresh fresh to 2026-11-03.*",
		"gone gone from 2026-11-01.*",
		"runbook runbook from 1.0.0 to 1.1.0",
	}
	if len(changes) < len(wantChanges) {
		t.Fatalf("changes:\n%s", strings.Join(changes, "\n"))
	}
	for i, w := range wantChanges {
		if !globMatch(w, changes[i]) {
			t.Errorf("change %d:\n got  %s\n want %s", i, changes[i], w)
		}
	}
	for _, ch := range c.Versions.Changes {
		if ch.To != nil && ch.Path == "runbook" && ch.To.Version == "1.1.0" && ch.To.Digest != compile.ManifestDigest(v110) {
			t.Errorf("the feed's digest of 1.1.0 %s, the served version's %s", ch.To.Digest, compile.ManifestDigest(v110))
		}
	}

	// Strict: the forgotten bump is an error.
	if _, problems := attach(t, r, true); len(problems) != 2 || strings.Contains(problems[0], "warning:") {
		t.Errorf("strict problems: %q", problems)
	}
}

// globMatch reports whether s matches pattern, in which each "*" stands for any run of
// characters but a space.
func globMatch(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1:] {
		i := 0
		for i <= len(s) && !strings.HasPrefix(s[i:], p) {
			if i < len(s) && s[i] == ' ' {
				return false
			}
			i++
		}
		if i > len(s) {
			return false
		}
		if p == "" { // a "*" at the end: the rest, without a space
			return !strings.Contains(s, " ")
		}
		s = s[i+len(p):]
	}
	return s == ""
}

// privateStory is a private catalog's history: a public skill, a finance skill only
// finance callers see, and an unlisted draft; finance and the draft change in commits of
// their own and in one with the public skill. Without hidden, the finance skill is never
// in the folder.
func privateStory(hidden bool) *memory {
	policy := "access:\n  default: [skills:read]\n  rules:\n    - path: drafts/\n      listed: false\n"
	if hidden {
		policy += "    - path: finance/\n      scopes: [skills:finance]\n"
	}
	steps := []step{
		{"start", map[string]string{"skilledge.yaml": policy + "versions:\n  keep: 4\n",
			"public/x/SKILL.md": named("x", "1.0.0", "x1"), "drafts/z/SKILL.md": named("z", "", "z1"), "finance/y/SKILL.md": named("y", "1.0.0", "y1")}},
		{"x 1.1.0, and y 1.1.0 for the secret merger", map[string]string{"public/x/SKILL.md": named("x", "1.1.0", "x2"), "finance/y/SKILL.md": named("y", "1.1.0", "y2")}},
		{"y alone", map[string]string{"finance/y/SKILL.md": named("y", "1.2.0", "y3")}},
		{"z", map[string]string{"drafts/z/SKILL.md": named("z", "", "z2")}},
		{"x 1.2.0", map[string]string{"public/x/SKILL.md": named("x", "1.2.0", "x3")}},
	}
	m := story(steps...)
	if !hidden {
		for _, c := range m.commits {
			for p := range c {
				if strings.HasPrefix(p, "finance/") {
					delete(c, p)
				}
			}
		}
	}
	return m
}

// encodeStory loads the newest commit of m as the work tree, attaches m's history and
// encodes it.
func encodeStory(t *testing.T, m *memory) *catalog.Pack {
	p, _ := encodeStoryStore(t, m)
	return p
}

// encodeStoryStore is encodeStory with the content store.
func encodeStoryStore(t *testing.T, m *memory) (*catalog.Pack, *compile.Store) {
	t.Helper()
	folder := fstest.MapFS{}
	for p, d := range m.commits[len(m.commits)-1] {
		folder[p] = &fstest.MapFile{Data: []byte(d)}
	}
	c, problems, err := compile.Load(folder, "skills", compile.Options{})
	if err != nil || compile.HasErrors(problems) {
		t.Fatalf("load: %v %v", err, problems)
	}
	if _, err := Attach(context.Background(), c, m, "skills", false); err != nil {
		t.Fatal(err)
	}
	enc, err := compile.Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	p, err := catalog.Open(enc.Index)
	if err != nil {
		t.Fatal(err)
	}
	return p, enc.Store
}

// attachStory loads the newest commit of m as the work tree and attaches m's history,
// returning the catalog and the problems Attach found.
func attachStory(t *testing.T, m *memory) (*compile.Catalog, []compile.Problem) {
	t.Helper()
	folder := fstest.MapFS{}
	for p, d := range m.commits[len(m.commits)-1] {
		folder[p] = &fstest.MapFile{Data: []byte(d)}
	}
	c, _, err := compile.Load(folder, "skills", compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	problems, err := Attach(context.Background(), c, m, "skills", false)
	if err != nil {
		t.Fatal(err)
	}
	return c, problems
}

// TestAttachPrivate: in a private catalog a caller's view holds the versions and changes of
// the skills it may see and nothing of the others: its index, versions and feed are the
// bytes a folder without the hidden skill would give. The feed lists no unlisted skill,
// and no commit or subject (which may name a hidden skill).
func TestAttachPrivate(t *testing.T) {
	with, st := encodeStoryStore(t, privateStory(true))
	without := encodeStory(t, privateStory(false))
	reader, ok := with.ViewFor([]byte("skills:read"))
	if !ok {
		t.Fatal("no view for skills:read")
	}
	alone, ok := without.ViewFor([]byte("skills:read"))
	if !ok {
		t.Fatal("no view for skills:read without the finance skill")
	}
	if string(reader.Listed.Bytes()) != string(alone.Listed.Bytes()) {
		t.Error("the reader's view differs from the catalog without the finance skill")
	}
	if reader.Versions == nil || string(reader.Versions.Bytes()) != string(alone.Versions.Bytes()) {
		t.Error("the reader's versions differ from the catalog without the finance skill")
	}
	feed, _ := reader.Listed.HTTPDoc(catalog.ChangesJSON, catalog.HTTPDigest)
	feed0, _ := alone.Listed.HTTPDoc(catalog.ChangesJSON, catalog.HTTPDigest)
	if string(feed) != string(feed0) {
		t.Error("the reader's feed differs from the catalog without the finance skill")
	}
	var versions []string
	for i := range reader.Versions.NumSkills() {
		versions = append(versions, string(reader.Versions.SkillPath(i)))
	}
	want := []string{"drafts/z/@2026-11-01.*/z", "drafts/z/@2026-11-04.*/z", "public/x/@1.0.0/x", "public/x/@1.1.0/x", "public/x/@1.2.0/x"}
	if len(versions) != len(want) {
		t.Fatalf("the reader's versions: %q", versions)
	}
	for i := range want {
		if !globMatch(want[i], versions[i]) {
			t.Errorf("the reader's versions: %q, want %q", versions, want)
		}
	}
	full := with.Views()[len(with.Views())-1]
	var all []string
	for i := range full.Versions.NumSkills() {
		all = append(all, string(full.Versions.SkillPath(i)))
	}
	if !slices.Contains(all, "finance/y/@1.1.0/y") {
		t.Errorf("the full view's versions: %q", all)
	}
	// What the feeds say: the reader's x alone, the full view's y too; never z, a commit
	// or a subject.
	doc := func(v catalog.View) string {
		d, _ := v.Listed.HTTPDoc(catalog.ChangesJSON, catalog.HTTPDigest)
		b, err := st.Object(strings.TrimPrefix(string(d), "sha256:"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	r, f := doc(reader), doc(full)
	if strings.Count(r, `"path":"public/x"`) != 3 || strings.Contains(r, "finance") || strings.Contains(r, `"y"`) {
		t.Errorf("the reader's feed: %s", r)
	}
	if strings.Count(f, `"path":"finance/y"`) != 3 {
		t.Errorf("the full view's feed: %s", f)
	}
	for _, feed := range []string{r, f} {
		if strings.Contains(feed, "drafts/z") || strings.Contains(feed, "secret") || strings.Contains(feed, `"commit"`) || strings.Contains(feed, `"subject"`) {
			t.Errorf("a feed with an unlisted skill, a commit or a subject: %s", feed)
		}
	}
}

// TestUncommittedName: a latest skill whose content no version has is named by its
// frontmatter version when no version has that name, else by that version with the build
// metadata extended as a commit's forgotten bump is; a name that would not be a version
// name (over 64 characters) is the short one alone.
func TestUncommittedName(t *testing.T) {
	const digest = "sha256:3f2a9c1e" + "00000000000000000000000000000000000000000000000000000000"
	long := "1.0.0+" + strings.Repeat("b", 50)
	for _, c := range []struct{ version, published, want string }{
		{"", "", "uncommitted.3f2a9c1e"},
		{"1.2.0", "1.1.0", "1.2.0"},
		{"1.2.0", "1.2.0", "1.2.0+uncommitted.3f2a9c1e"},
		{"1.2.0+build.1", "1.2.0+build.1", "1.2.0+build.1.uncommitted.3f2a9c1e"},
		{long, long, "uncommitted.3f2a9c1e"},
		{"1.0 beta", "", "uncommitted.3f2a9c1e"},
	} {
		s := &compile.Skill{Files: []*compile.File{{Path: "a/SKILL.md", Data: []byte(named("a", c.version, "x"))}}}
		var vs []Version
		if c.published != "" {
			vs = []Version{{Name: c.published}}
		}
		got := uncommittedName(s, digest, vs)
		if got != c.want || !catalog.ValidVersion(got) {
			t.Errorf("uncommittedName(version %q, published %q) = %q, want %q", c.version, c.published, got, c.want)
		}
	}
}

// TestAttachMovedOutOfSight: for a caller who may see a skill's old path but not its new
// one, a move is a removal: each change feed (the resource, the JSON, the Atom) is byte
// for byte what a repository in which the skill was deleted gives, so is its digest
// (the ETag), and nothing of the new path, name or digest is in it. Moved the other way,
// the caller sees the skill arrive; a caller who may see both sees the move.
func TestAttachMovedOutOfSight(t *testing.T) {
	const policy = "access:\n  default: [skills:read]\n  rules:\n    - path: finance/\n      scopes: [skills:finance]\n"
	start := map[string]string{"skilledge.yaml": policy + "versions:\n  keep: 4\n",
		"public/x/SKILL.md": named("x", "1.0.0", "x1"), "public/w/SKILL.md": named("w", "1.0.0", "w1"), "public/x/notes.md": "n",
		"finance/y/SKILL.md": named("y", "1.0.0", "y1")}
	later := map[string]string{"public/w/SKILL.md": named("w", "1.1.0", "w2")}
	moved := map[string]string{"public/x/SKILL.md": "", "public/x/notes.md": "", "finance/ledger/SKILL.md": named("ledger", "1.0.0", "x1"), "finance/ledger/notes.md": "n",
		"public/a/SKILL.md": named("a", "1.0.0", "a1")}
	deleted := map[string]string{"public/x/SKILL.md": "", "public/x/notes.md": "", "public/a/SKILL.md": named("a", "1.0.0", "a1")}
	var st *compile.Store
	feeds := func(p *catalog.Pack, scopes string) (docs []string, digests []string) {
		v, ok := p.ViewFor([]byte(scopes))
		if !ok {
			t.Fatalf("no view for %s", scopes)
		}
		for _, path := range []string{catalog.ChangesJSON, catalog.ChangesAtom} {
			d, ok := v.Listed.HTTPDoc(path, catalog.HTTPDigest)
			if !ok {
				t.Fatalf("no %s", path)
			}
			digests = append(digests, string(d))
			b, err := st.Object(strings.TrimPrefix(string(d), "sha256:"))
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, string(b))
		}
		i, ok := v.Listed.ResourceByURI(catalog.ChangesURI)
		if !ok {
			t.Fatal("no " + catalog.ChangesURI)
		}
		digests = append(digests, string(v.Listed.Resource(i, catalog.ResDigest)))
		return docs, digests
	}
	away, st0 := encodeStoryStore(t, story(step{"start", start}, step{"x to finance", moved}, step{"w", later}))
	gone, st1 := encodeStoryStore(t, story(step{"start", start}, step{"x deleted", deleted}, step{"w", later}))
	st = st0
	docs, digests := feeds(away, "skills:read")
	st = st1
	docs0, digests0 := feeds(gone, "skills:read")
	st = st0
	if !slices.Equal(digests, digests0) {
		t.Errorf("the reader's feed digests differ from a deletion's:\n%q\n%q", digests, digests0)
	}
	for i := range docs {
		if docs[i] != docs0[i] {
			t.Errorf("the reader's feed differs from a deletion's:\n%s\n%s", docs[i], docs0[i])
		}
		if strings.Contains(docs[i], "finance") || strings.Contains(docs[i], "ledger") || !strings.Contains(docs[i], "public/x") {
			t.Errorf("the reader's feed: %s", docs[i])
		}
	}
	if !strings.Contains(docs[0], `"skill":{"path":"public/x","name":"x"},"from":{"version":"1.0.0"`) || !strings.Contains(docs[0], `"removed":["SKILL.md","notes.md"]`) {
		t.Errorf("the reader's feed shows no removal of x: %s", docs[0])
	}
	full, _ := feeds(away, "skills:read skills:finance")
	if !strings.Contains(full[0], `"skill":{"path":"finance/ledger","name":"ledger"},"movedFrom":"public/x"`) {
		t.Errorf("the finance caller's feed shows no move: %s", full[0])
	}
	// The other way, into sight: the reader sees the ledger arrive as x, added.
	back, st2 := encodeStoryStore(t, story(step{"start", start}, step{"x to finance", moved}, step{"back", map[string]string{
		"finance/ledger/SKILL.md": "", "finance/ledger/notes.md": "", "public/x/SKILL.md": named("x", "1.0.0", "x1"), "public/x/notes.md": "n"}}))
	st = st2
	docs, _ = feeds(back, "skills:read")
	if !strings.Contains(docs[0], `"skill":{"path":"public/x","name":"x"},"to":{"version":"1.0.0"`) || strings.Contains(docs[0], "ledger") || strings.Contains(docs[0], "finance") {
		t.Errorf("the reader's feed of x coming back: %s", docs[0])
	}
}

// TestAttachFeedServedOnly: a version that is not kept because it does not load by
// today's rules is not named by the feed either: its addition is not shown, and the
// next version arrives rather than follows it.
func TestAttachFeedServedOnly(t *testing.T) {
	bad := "---\nname: x\nversion: 1.0.0\n---\nno description\n"
	p, st := encodeStoryStore(t, story(
		step{"start", map[string]string{"skilledge.yaml": "versions:\n  keep: 4\n", "x/SKILL.md": bad}},
		step{"fixed", map[string]string{"x/SKILL.md": named("x", "1.1.0", "x2")}},
		step{"again", map[string]string{"x/SKILL.md": named("x", "1.2.0", "x3")}},
	))
	d, _ := p.HTTPDoc(catalog.ChangesJSON, catalog.HTTPDigest)
	b, err := st.Object(strings.TrimPrefix(string(d), "sha256:"))
	if err != nil {
		t.Fatal(err)
	}
	feed := string(b)
	if strings.Contains(feed, "1.0.0") || strings.Count(feed, `"skill":`) != 2 || !strings.Contains(feed, `{"skill":{"path":"x","name":"x"},"to":{"version":"1.1.0"`) {
		t.Errorf("the feed: %s", feed)
	}
}

// TestAttachDeclassify: a version is served only to callers who could see it where it was
// published. A skill moved from finance/ (skills:finance) to tools/ (everyone) serves its
// finance-era version to finance callers alone, and the reader's view names it nowhere
// (versions, _meta), with a warning naming the move; the version it had at the move is
// everyone's; versions.declassify publishes the earlier ones on purpose. Moved the other way (public → finance) nothing widens; between two scopes
// (finance → hr) a version needs both.
func TestAttachDeclassify(t *testing.T) {
	const policy = "access:\n  default: [skills:read]\n  rules:\n    - path: finance/\n      scopes: [skills:finance]\n    - path: hr/\n      scopes: [skills:hr]\n"
	steps := func(versions string) *memory {
		return story(
			step{"start", map[string]string{"skilledge.yaml": policy + versions,
				"finance/plan/SKILL.md": named("plan", "1.0.0", "p1"), "finance/plan/secret.md": "SECRETNOTES",
				"public/y/SKILL.md": named("y", "1.0.0", "y1"), "finance/z/SKILL.md": named("z", "1.0.0", "z1"), "public/keep/SKILL.md": named("keep", "1.0.0", "k")}},
			step{"bumps", map[string]string{"finance/plan/SKILL.md": named("plan", "1.1.0", "p2"), "finance/plan/secret.md": "",
				"public/y/SKILL.md": named("y", "1.1.0", "y2"), "finance/z/SKILL.md": named("z", "1.1.0", "z2")}},
			step{"moves", map[string]string{
				"finance/plan/SKILL.md": "", "tools/plan/SKILL.md": named("plan", "1.1.0", "p2"),
				"public/y/SKILL.md": "", "finance/y/SKILL.md": named("y", "1.1.0", "y2"),
				"finance/z/SKILL.md": "", "hr/z/SKILL.md": named("z", "1.1.0", "z2")}},
			step{"plan 1.2.0", map[string]string{"tools/plan/SKILL.md": named("plan", "1.2.0", "p3")}},
		)
	}
	versionsOf := func(p *catalog.Pack, scopes string) []string {
		v, ok := p.ViewFor([]byte(scopes))
		if !ok {
			t.Fatalf("no view for %s", scopes)
		}
		var out []string
		for i := range v.Versions.NumSkills() {
			out = append(out, string(v.Versions.SkillPath(i)))
		}
		if i, ok := v.Listed.ResourceByURI("skill://tools/plan/SKILL.md"); ok {
			out = append(out, "meta "+string(v.Listed.Resource(i, catalog.ResReadMeta)))
		}
		return out
	}
	m := steps("versions:\n  keep: 4\n")
	_, problems := attachStory(t, m)
	var warned []string
	for _, p := range problems {
		warned = append(warned, p.String())
	}
	if len(warned) != 2 || !strings.Contains(warned[0], "hr/z/SKILL.md: warning: version 1.0.0 was published where fewer callers could see it before commit") ||
		!strings.Contains(warned[1], "tools/plan/SKILL.md: warning: version 1.0.0 was published where fewer callers could see it before commit") ||
		!strings.Contains(warned[1], "moved it from finance/plan (which takes skills:finance skills:read) to tools/plan") ||
		!strings.Contains(warned[1], "add it to versions.declassify in skilledge.yaml") {
		t.Errorf("warnings:\n%s", strings.Join(warned, "\n"))
	}
	p := encodeStory(t, m)
	reader := strings.Join(versionsOf(p, "skills:read"), "\n")
	// 1.1.0 was the plan's content when the move published it at tools/: the reader's.
	if strings.Contains(reader, "plan/@1.0.0") || strings.Contains(reader, "/y/") || strings.Contains(reader, "/z/") ||
		!strings.Contains(reader, "tools/plan/@1.1.0/plan") || !strings.Contains(reader, "tools/plan/@1.2.0/plan") {
		t.Errorf("the reader's versions:\n%s", reader)
	}
	finance := strings.Join(versionsOf(p, "skills:read skills:finance"), "\n")
	for _, want := range []string{"tools/plan/@1.0.0/plan", "tools/plan/@1.1.0/plan", "finance/y/@1.0.0/y", `"version":"1.0.0","uri":"skill://tools/plan/@1.0.0/plan/SKILL.md"`} {
		if !strings.Contains(finance, want) {
			t.Errorf("the finance caller's versions have no %s:\n%s", want, finance)
		}
	}
	if strings.Contains(finance, "/z/") {
		t.Errorf("the finance caller sees hr's z:\n%s", finance)
	}
	hr := strings.Join(versionsOf(p, "skills:read skills:hr"), "\n")
	if !strings.Contains(hr, "hr/z/@1.1.0/z") || strings.Contains(hr, "hr/z/@1.0.0/z") || strings.Contains(hr, "plan/@1.0.0") {
		t.Errorf("the hr caller's versions:\n%s", hr)
	}
	both := strings.Join(versionsOf(p, "skills:read skills:hr skills:finance"), "\n")
	if !strings.Contains(both, "hr/z/@1.0.0/z") {
		t.Errorf("a caller with both scopes does not see z's finance-era version:\n%s", both)
	}
	// Published on purpose: the reader is served the plan's earlier version too.
	p = encodeStory(t, steps("versions:\n  keep: 4\n  declassify: [tools/plan]\n"))
	if reader := strings.Join(versionsOf(p, "skills:read"), "\n"); !strings.Contains(reader, "tools/plan/@1.0.0/plan") {
		t.Errorf("declassified, the reader's versions:\n%s", reader)
	}
}

// TestAttachOversizeVersion: a version over the per-skill limit is not kept, with a
// warning, the feed names it nowhere, and its large file is never read: its size is the
// object's.
func TestAttachOversizeVersion(t *testing.T) {
	big := strings.Repeat("z", compile.MaxSkillBytes+1)
	m := story(
		step{"start", map[string]string{"skilledge.yaml": "versions:\n  keep: 4\n", "x/SKILL.md": named("x", "1.0.0", "x1")}},
		step{"big", map[string]string{"x/SKILL.md": named("x", "1.1.0", "x2"), "x/big.bin": big}},
		step{"small again", map[string]string{"x/SKILL.md": named("x", "1.2.0", "x3"), "x/big.bin": ""}},
	)
	c, problems := attachStory(t, m)
	if len(problems) != 1 || !strings.Contains(problems[0].String(), "skills/x/SKILL.md: warning: version 1.1.0 (") ||
		!strings.Contains(problems[0].String(), fmt.Sprintf("is not kept: its files hold %d bytes, over the per-skill limit of %d", len(big)+len(named("x", "1.1.0", "x2")), compile.MaxSkillBytes)) {
		t.Fatalf("problems %v", problems)
	}
	for blob, data := range m.blobs {
		if data == big && m.read[blob] > 0 {
			t.Errorf("the large file was read %d times", m.read[blob])
		}
	}
	var kept []string
	for _, k := range c.Skills[0].Kept {
		kept = append(kept, k.Version)
	}
	if !slices.Equal(kept, []string{"1.2.0", "1.0.0"}) {
		t.Errorf("kept %q", kept)
	}
	for _, ch := range c.Versions.Changes {
		for _, v := range []*compile.ChangeVersion{ch.From, ch.To} {
			if v != nil && v.Version == "1.1.0" {
				t.Errorf("the feed names 1.1.0: %+v", ch)
			}
		}
	}
}
