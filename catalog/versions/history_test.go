package versions

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skilledge/skilledge/catalog"
)

// memory is a Source held in memory: commits oldest first, each the whole folder as
// path -> content ("->target" for a symbolic link).
type memory struct {
	commits []map[string]string
	subject []string
	shallow bool
	sameDay bool // every commit on 2026-11-01, an hour apart from 09:00
	blobs   map[string]string
	read    map[string]int // how often each blob was read
}

func (m *memory) hash(i int) string { return fmt.Sprintf("%040x", i+1) }

func (m *memory) Log(context.Context) ([]Commit, error) {
	var out []Commit
	for i := len(m.commits) - 1; i >= 0; i-- {
		date := time.Date(2026, 11, 1+i, 12, 0, 0, 0, time.UTC)
		if m.sameDay {
			date = time.Date(2026, 11, 1, 9+i, 0, 0, 0, time.UTC)
		}
		out = append(out, Commit{Hash: m.hash(i), Date: date, Subject: m.subject[i]})
	}
	return out, nil
}

func (m *memory) Files(_ context.Context, commit string) ([]File, error) {
	for i := range m.commits {
		if m.hash(i) != commit {
			continue
		}
		var out []File
		for p, data := range m.commits[i] {
			sum := sha1.Sum([]byte(data))
			blob := hex.EncodeToString(sum[:])
			m.blobs[blob] = data
			target, link := strings.CutPrefix(data, "->")
			_ = target
			out = append(out, File{Path: p, Blob: blob, Link: link, Size: int64(len(data))})
		}
		return out, nil
	}
	return nil, fmt.Errorf("no commit %s", commit)
}

func (m *memory) Read(_ context.Context, blob string) ([]byte, error) {
	if m.read == nil {
		m.read = map[string]int{}
	}
	m.read[blob]++
	data, ok := m.blobs[blob]
	if !ok {
		return nil, fmt.Errorf("no blob %s", blob)
	}
	return []byte(data), nil
}

func (m *memory) Shallow(context.Context) (bool, error) { return m.shallow, nil }

// story builds a memory Source from steps: each applies its edits (path -> content, ""
// to delete) to the folder as the previous step left it, and is a commit.
func story(steps ...step) *memory {
	m := &memory{blobs: map[string]string{}}
	cur := map[string]string{}
	for _, s := range steps {
		next := map[string]string{}
		for p, d := range cur {
			next[p] = d
		}
		for p, d := range s.edits {
			if d == "" {
				delete(next, p)
			} else {
				next[p] = d
			}
		}
		m.commits = append(m.commits, next)
		m.subject = append(m.subject, s.subject)
		cur = next
	}
	return m
}

type step struct {
	subject string
	edits   map[string]string
}

// skill is a SKILL.md with the given version ("" for none) and body.
func skill(version, body string) string {
	fm := "---\nname: x\ndescription: d\n"
	if version != "" {
		fm += "version: " + version + "\n"
	}
	return fm + "---\n" + body + "\n"
}

var versionLine = regexp.MustCompile(`(?m)^version: (.*)$`)

func versionOf(b []byte) string {
	if m := versionLine.FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return ""
}

// summary is a History in a line per skill and change, for comparing with a table.
func summary(h *Versions) (skills, changes []string) {
	for _, s := range h.Skills {
		var vs []string
		for _, v := range s.Versions {
			vs = append(vs, v.Name)
		}
		skills = append(skills, fmt.Sprintf("%s: %s (dropped %d)", s.Path, strings.Join(vs, " "), s.Dropped))
	}
	for _, c := range h.Changes {
		from, to := "-", "-"
		if c.From != nil {
			from = c.From.Name
		}
		if c.To != nil {
			to = c.To.Name
		}
		line := fmt.Sprintf("%s %s %s>%s +%v ~%v -%v", c.Commit.Subject, c.Path, from, to, c.Added, c.Changed, c.Removed)
		if c.Moved != "" {
			line += " moved from " + c.Moved
		}
		changes = append(changes, line)
	}
	return skills, changes
}

// TestRead: the versions and changes of stories a team's folder goes through.
func TestRead(t *testing.T) {
	for _, c := range []struct {
		name     string
		src      *memory
		keep     int
		skills   []string
		changes  []string // newest first
		problems []string
	}{
		{
			name: "versions from the frontmatter, a file edit with a bump",
			src: story(
				step{"add a", map[string]string{"a/SKILL.md": skill("1.0.0", "one"), "a/ref.md": "r1"}},
				step{"edit a's ref", map[string]string{"a/SKILL.md": skill("1.1.0", "one"), "a/ref.md": "r2"}},
				step{"add b", map[string]string{"b/SKILL.md": skill("", "b")}},
			),
			skills: []string{"a: 1.1.0 1.0.0 (dropped 0)", "b: 2026-11-03.120000.XXXXXXXX (dropped 0)"},
			changes: []string{
				"add b b ->2026-11-03.120000.XXXXXXXX +[SKILL.md] ~[] -[]",
				"edit a's ref a 1.0.0>1.1.0 +[] ~[SKILL.md ref.md] -[]",
				"add a a ->1.0.0 +[SKILL.md ref.md] ~[] -[]",
			},
		},
		{
			name: "a forgotten bump is published under a version of its own, and said",
			src: story(
				step{"add a", map[string]string{"a/SKILL.md": skill("1.2.0", "one")}},
				step{"fix a typo", map[string]string{"a/SKILL.md": skill("1.2.0", "two")}},
				step{"again", map[string]string{"a/SKILL.md": skill("1.2.0", "three")}},
			),
			skills: []string{"a: 1.2.0+XXXXXXXX 1.2.0+XXXXXXXX 1.2.0 (dropped 0)"},
			changes: []string{
				"again a 1.2.0+XXXXXXXX>1.2.0+XXXXXXXX +[] ~[SKILL.md] -[]",
				"fix a typo a 1.2.0>1.2.0+XXXXXXXX +[] ~[SKILL.md] -[]",
				"add a a ->1.2.0 +[SKILL.md] ~[] -[]",
			},
			problems: []string{
				`a/SKILL.md: version 1.2.0 changed in 000000000000 ("fix a typo") without a new version: 1.2.0 published it in 000000000000 ("add a"); the new content is published as 1.2.0+XXXXXXXX`,
				`a/SKILL.md: version 1.2.0 changed in 000000000000 ("again") without a new version: 1.2.0 published it in 000000000000 ("add a"); the new content is published as 1.2.0+XXXXXXXX`,
			},
		},
		{
			name: "a revert is the earlier version again, and the newest",
			src: story(
				step{"one", map[string]string{"a/SKILL.md": skill("1", "one")}},
				step{"two", map[string]string{"a/SKILL.md": skill("2", "two")}},
				step{"revert", map[string]string{"a/SKILL.md": skill("1", "one")}},
			),
			skills:  []string{"a: 1 2 (dropped 0)"},
			changes: []string{"revert a 2>1 +[] ~[SKILL.md] -[]", "two a 1>2 +[] ~[SKILL.md] -[]", "one a ->1 +[SKILL.md] ~[] -[]"},
		},
		{
			name: "keep: the newest versions only",
			src: story(
				step{"v1", map[string]string{"a/SKILL.md": skill("1", "")}},
				step{"v2", map[string]string{"a/SKILL.md": skill("2", "")}},
				step{"v3", map[string]string{"a/SKILL.md": skill("3", "")}},
				step{"v4", map[string]string{"a/SKILL.md": skill("4", "")}},
			),
			keep:    2,
			skills:  []string{"a: 4 3 (dropped 2)"},
			changes: []string{"v4 a 3>4 +[] ~[SKILL.md] -[]", "v3 a 2>3 +[] ~[SKILL.md] -[]", "v2 a 1>2 +[] ~[SKILL.md] -[]", "v1 a ->1 +[SKILL.md] ~[] -[]"},
		},
		{
			name: "a deleted skill has no versions, and its removal is a change",
			src: story(
				step{"add", map[string]string{"a/SKILL.md": skill("1", ""), "b/SKILL.md": skill("1", "b")}},
				step{"drop b", map[string]string{"b/SKILL.md": ""}},
			),
			skills:  []string{"a: 1 (dropped 0)"},
			changes: []string{"drop b b 1>- +[] ~[] -[SKILL.md]", "add a ->1 +[SKILL.md] ~[] -[]", "add b ->1 +[SKILL.md] ~[] -[]"},
		},
		{
			name: "a renamed or moved skill keeps its history",
			src: story(
				step{"add", map[string]string{"a/SKILL.md": skill("1", "")}},
				step{"bump", map[string]string{"a/SKILL.md": skill("2", "")}},
				step{"move under team", map[string]string{"a/SKILL.md": "", "team/a/SKILL.md": skill("2", "")}},
				step{"bump again", map[string]string{"team/a/SKILL.md": skill("3", "")}},
			),
			skills: []string{"team/a: 3 2 1 (dropped 0)"},
			changes: []string{
				"bump again team/a 2>3 +[] ~[SKILL.md] -[]",
				"move under team team/a 2>2 +[] ~[] -[] moved from a",
				"bump a 1>2 +[] ~[SKILL.md] -[]",
				"add a ->1 +[SKILL.md] ~[] -[]",
			},
		},
		{
			name: "a nested skill's files are its holder's too",
			src: story(
				step{"add", map[string]string{"a/SKILL.md": skill("1", ""), "a/b/SKILL.md": skill("1", "b")}},
				step{"edit b", map[string]string{"a/b/SKILL.md": skill("2", "b")}},
			),
			skills:  []string{"a: 1+XXXXXXXX 1 (dropped 0)", "a/b: 2 1 (dropped 0)"},
			changes: []string{"edit b a 1>1+XXXXXXXX +[] ~[b/SKILL.md] -[]", "edit b a/b 1>2 +[] ~[SKILL.md] -[]", "add a ->1 +[SKILL.md b/SKILL.md] ~[] -[]", "add a/b ->1 +[SKILL.md] ~[] -[]"},
			problems: []string{
				`a/SKILL.md: version 1 changed in 000000000000 ("edit b") without a new version: 1 published it in 000000000000 ("add"); the new content is published as 1+XXXXXXXX`,
			},
		},
		{
			name: "a version that cannot be a URI segment is named by date and digest",
			src: story(
				step{"add", map[string]string{"a/SKILL.md": skill("1.0 beta/2", "")}},
			),
			skills:   []string{"a: 2026-11-01.120000.XXXXXXXX (dropped 0)"},
			changes:  []string{"add a ->2026-11-01.120000.XXXXXXXX +[SKILL.md] ~[] -[]"},
			problems: []string{`a/SKILL.md: version "1.0 beta/2" (in 000000000000) cannot be part of a URI path segment (letters, digits, ".", "-", "+" and "_", at most 64): published as 2026-11-01.120000.XXXXXXXX`},
		},
		{
			name: "a skill removed and added again cannot publish other bytes under a name it used",
			src: story(
				step{"add", map[string]string{"a/SKILL.md": skill("1.0.0", "one")}},
				step{"remove", map[string]string{"a/SKILL.md": ""}},
				step{"add again", map[string]string{"a/SKILL.md": skill("1.0.0", "two")}},
			),
			skills: []string{"a: 1.0.0+XXXXXXXX 1.0.0 (dropped 0)"},
			changes: []string{
				"add again a ->1.0.0+XXXXXXXX +[SKILL.md] ~[] -[]",
				"remove a 1.0.0>- +[] ~[] -[SKILL.md]",
				"add a ->1.0.0 +[SKILL.md] ~[] -[]",
			},
			problems: []string{
				`a/SKILL.md: version 1.0.0 changed in 000000000000 ("add again") without a new version: 1.0.0 published it in 000000000000 ("add"); the new content is published as 1.0.0+XXXXXXXX`,
			},
		},
		{
			name: "two identical skills moved together are paired in path order, and removed together both said",
			src: story(
				step{"add", map[string]string{"a/SKILL.md": skill("1", "same"), "b/SKILL.md": skill("2", "same"), "c/SKILL.md": skill("3", "same"), "d/SKILL.md": skill("3", "same")}},
				step{"bump b", map[string]string{"b/SKILL.md": skill("1", "same")}},
				step{"move a and b", map[string]string{"a/SKILL.md": "", "b/SKILL.md": "", "x/SKILL.md": skill("1", "same"), "y/SKILL.md": skill("1", "same")}},
				step{"remove c and d", map[string]string{"c/SKILL.md": "", "d/SKILL.md": ""}},
			),
			skills: []string{"x: 1 (dropped 0)", "y: 1 2 (dropped 0)"},
			changes: []string{
				"remove c and d c 3>- +[] ~[] -[SKILL.md]",
				"remove c and d d 3>- +[] ~[] -[SKILL.md]",
				"move a and b x 1>1 +[] ~[] -[] moved from a",
				"move a and b y 1>1 +[] ~[] -[] moved from b",
				"bump b b 2>1 +[] ~[SKILL.md] -[]",
				"add a ->1 +[SKILL.md] ~[] -[]",
				"add b ->2 +[SKILL.md] ~[] -[]",
				"add c ->3 +[SKILL.md] ~[] -[]",
				"add d ->3 +[SKILL.md] ~[] -[]",
			},
		},
		{
			name: "files under no skill are no version",
			src: story(
				step{"add", map[string]string{"a/SKILL.md": skill("1", ""), "README.md": "hi", "SKILL.md": skill("9", "root")}},
				step{"readme", map[string]string{"README.md": "hello"}},
			),
			skills:  []string{"a: 1 (dropped 0)"},
			changes: []string{"add a ->1 +[SKILL.md] ~[] -[]"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, err := Read(context.Background(), c.src, Options{Keep: c.keep, VersionOf: versionOf})
			if err != nil {
				t.Fatal(err)
			}
			skills, changes := summary(h)
			digest := regexp.MustCompile(`\b[0-9a-f]{8}\b`)
			hash := regexp.MustCompile(`\b0{11}[0-9a-f]\b`)
			mask := func(ss []string) []string {
				out := make([]string, len(ss))
				for i, s := range ss {
					out[i] = digest.ReplaceAllString(hash.ReplaceAllString(s, "000000000000"), "XXXXXXXX")
				}
				return out
			}
			var problems []string
			for _, p := range h.Problems {
				problems = append(problems, p.String())
			}
			for _, cmp := range []struct {
				what      string
				got, want []string
			}{{"skills", mask(skills), c.skills}, {"changes", mask(changes), c.changes}, {"problems", mask(problems), c.problems}} {
				if !slices.Equal(cmp.got, cmp.want) {
					t.Errorf("%s:\n%s\nwant\n%s", cmp.what, strings.Join(cmp.got, "\n"), strings.Join(cmp.want, "\n"))
				}
			}
			if h.Commits != len(c.src.commits) {
				t.Errorf("Commits = %d, want %d", h.Commits, len(c.src.commits))
			}
		})
	}
}

// TestVersionsName: a name, once published, names the same bytes; a second content under
// one name gets a name of its own.
func TestVersionsName(t *testing.T) {
	src := story(
		step{"one", map[string]string{"a/SKILL.md": skill("1.0.0+build.1", "one")}},
		step{"two", map[string]string{"a/SKILL.md": skill("1.0.0+build.1", "two")}},
	)
	h, err := Read(context.Background(), src, Options{VersionOf: versionOf})
	if err != nil {
		t.Fatal(err)
	}
	vs := h.Skill("a").Versions
	if len(vs) != 2 || vs[1].Name != "1.0.0+build.1" || !strings.HasPrefix(vs[0].Name, "1.0.0+build.1.") || !catalog.ValidVersion(vs[0].Name) {
		t.Fatalf("versions %+v", vs)
	}
	if vs[0].Content == vs[1].Content || vs[0].Commit.Subject != "two" {
		t.Fatalf("versions %+v", vs)
	}
}

// TestMaxCommits: a history longer than MaxCommits is read from its newest commits, and
// says it was cut.
func TestMaxCommits(t *testing.T) {
	src := story(
		step{"v1", map[string]string{"a/SKILL.md": skill("1", "")}},
		step{"v2", map[string]string{"a/SKILL.md": skill("2", "")}},
		step{"v3", map[string]string{"a/SKILL.md": skill("3", "")}},
	)
	h, err := Read(context.Background(), src, Options{VersionOf: versionOf, MaxCommits: 2})
	if err != nil {
		t.Fatal(err)
	}
	skills, _ := summary(h)
	if !h.Cut || h.Commits != 2 || !slices.Equal(skills, []string{"a: 3 2 (dropped 0)"}) {
		t.Fatalf("cut %t, %d commits, %q", h.Cut, h.Commits, skills)
	}
	if h, _ := Read(context.Background(), src, Options{VersionOf: versionOf}); h.Cut || h.Commits != 3 {
		t.Fatalf("the default: cut %t, %d commits", h.Cut, h.Commits)
	}
}

// TestDatedNamesOrder: versions of a skill without a frontmatter version, published the
// same day, are named so that their names sort as their commits came: the date and the
// time of day before the digest.
func TestDatedNamesOrder(t *testing.T) {
	m := story(step{"one", map[string]string{"a/SKILL.md": skill("", "one")}},
		step{"two", map[string]string{"a/SKILL.md": skill("", "two")}},
		step{"three", map[string]string{"a/SKILL.md": skill("", "three")}})
	m.sameDay = true
	h, err := Read(context.Background(), m, Options{VersionOf: versionOf})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range h.Skills[0].Versions { // newest first
		names = append(names, v.Name)
	}
	if len(names) != 3 || !strings.HasPrefix(names[2], "2026-11-01.090000.") || !strings.HasPrefix(names[0], "2026-11-01.110000.") {
		t.Fatalf("names %q", names)
	}
	if sorted := slices.Sorted(slices.Values(names)); !slices.Equal(sorted, []string{names[2], names[1], names[0]}) {
		t.Errorf("names %q do not sort oldest first", names)
	}
}
