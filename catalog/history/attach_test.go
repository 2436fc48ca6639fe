package history

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
// version as name=URI path (the latest's own "." when it is served at its own path).
func kept(c *compile.Catalog) []string {
	var out []string
	for _, s := range c.Skills {
		line := s.Path + ":"
		for _, k := range s.Kept {
			at := k.Skill.Path
			if k.Skill == s {
				at = "."
			}
			line += " " + k.Version + "=" + at
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
		"fresh: 2026-11-03.*=.",
		"new-name: 0.1.0+*=. 0.1.0=new-name/@0.1.0/old-name",
		"notes: uncommitted.*=.(uncommitted) 2026-11-06.*=notes/@2026-11-06.*/notes 2026-11-01.*=notes/@2026-11-01.*/notes",
		"runbook: 1.2.0=. 1.1.0+*=runbook/@1.1.0+*/runbook 1.1.0=runbook/@1.1.0/runbook",
		"team/mover: 2.0.0=.",
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
	for _, v := range c.History.Versions {
		if v.Path == "runbook/@1.1.0/runbook" {
			v110 = v
		}
	}
	if v110 == nil {
		t.Fatalf("no runbook/@1.1.0/runbook among %d versions", len(c.History.Versions))
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
	for _, ch := range c.History.Changes {
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
	for _, ch := range c.History.Changes {
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
