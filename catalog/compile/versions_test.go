package compile

import (
	"testing"
	"testing/fstest"
)

// TestVersionsPolicy: the policy file's versions section, read into Catalog.Keep, and
// every way it is refused, with the file and line.
func TestVersionsPolicy(t *testing.T) {
	for _, c := range []struct {
		name, policy string
		keep         int
		want         []string
	}{
		{name: "none", policy: "", keep: 0},
		{name: "keep", policy: "versions:\n  keep: 10\n", keep: 10},
		{name: "keep beside access", policy: "access:\n  default: [a]\nversions: {keep: 3}\n", keep: 3},
		{name: "keep one: the latest only", policy: "versions:\n  keep: 1\n", keep: 1},
		{name: "zero", policy: "versions:\n  keep: 0\n", want: []string{"skills/skilledge.yaml:2: versions.keep must be a whole number from 1 to 100 (the versions kept per skill, the latest included)"}},
		{name: "too many", policy: "versions:\n  keep: 101\n", want: []string{"skills/skilledge.yaml:2: versions.keep must be a whole number from 1 to 100 (the versions kept per skill, the latest included)"}},
		{name: "a string", policy: "versions:\n  keep: \"10\"\n", want: []string{"skills/skilledge.yaml:2: versions.keep must be a whole number from 1 to 100 (the versions kept per skill, the latest included)"}},
		{name: "not a mapping", policy: "versions: 10\n", want: []string{"skills/skilledge.yaml:1: versions must be a mapping (versions: {keep: 10})"}},
		{name: "no keep", policy: "versions: {}\n", want: []string{"skills/skilledge.yaml:1: versions needs keep: the number of versions kept per skill, the latest included"}},
		{name: "unknown key", policy: "versions:\n  kept: 3\n", want: []string{`skills/skilledge.yaml:2: unknown key "kept" in versions: it has keep and declassify`}},
		{name: "declassify not a list", policy: "versions:\n  keep: 3\n  declassify: tools\n", want: []string{"skills/skilledge.yaml:3: versions.declassify must be a list of skill paths (- tools/forecast)"}},
		{name: "declassify a bad path", policy: "versions:\n  keep: 3\n  declassify: [../x, 7]\n", want: []string{
			`skills/skilledge.yaml:3: versions.declassify "../x": segments must be directory names, not empty, . or ..`, "skills/skilledge.yaml:3: versions.declassify: each entry must be a skill path such as tools/forecast"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, problems, err := Load(accessFolder(c.policy), "skills", Options{})
			if err != nil {
				t.Fatal(err)
			}
			equalStrings(t, "problems", strs(problems), c.want)
			if len(c.want) == 0 && cat.Keep != c.keep {
				t.Errorf("Keep = %d, want %d", cat.Keep, c.keep)
			}
		})
	}
}

// TestVersionMarksReserved: in a catalog that keeps history a segment starting with "@"
// names versions, so a folder or file named so is an error of its skill; without history
// it is an ordinary name.
func TestVersionMarksReserved(t *testing.T) {
	folder := func(policy string) fstest.MapFS {
		return fstest.MapFS{
			"a/SKILL.md":          ok("a"),
			"a/@old/notes.md":     {Data: []byte("x")},
			"x/@team/b/SKILL.md":  ok("b"),
			"c/SKILL.md":          ok("c"),
			"c/refs/@v1.md":       {Data: []byte("x")},
			"d/SKILL.md":          ok("d"),
			"d/refs/mail@home.md": {Data: []byte("x")},
			PolicyFile:            {Data: []byte(policy)},
		}
	}
	_, problems, err := Load(folder(""), "skills", Options{})
	if err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "problems without history", strs(problems), nil)
	cat, problems, err := Load(folder("versions: {keep: 5}\n"), "skills", Options{})
	if err != nil {
		t.Fatal(err)
	}
	mark := func(p, seg string) string {
		return "skills/" + p + `: "` + seg + `" starts with "@", which names a skill's versions in a catalog that keeps history (versions: in skilledge.yaml): rename it`
	}
	equalStrings(t, "problems with history", strs(problems), []string{
		mark("a/@old", "@old"), mark("c/refs/@v1.md", "@v1.md"), mark("x/@team", "@team")})
	var served []string
	for _, s := range cat.Skills {
		served = append(served, s.Path)
	}
	equalStrings(t, "skills served", served, []string{"d"})
}

// FuzzParsePolicy: any policy file is read without a panic, and either with problems
// (then nothing of it is used) or into an access section and a keep within bounds.
func FuzzParsePolicy(f *testing.F) {
	for _, s := range []string{"", "versions:\n  keep: 10\n", "access:\n  default: [a]\nversions: {keep: 3}\n", "versions: {keep: 0x10}\n",
		"versions:\n  keep: !!int 5\n", "versions: &v {keep: 2}\n", "versions:\n  keep: 1e2\n", "versions:\n  keep:\n",
		"versions:\n  keep: 2\n  declassify: [tools/plan, ../x]\n", "versions: {keep: 3, declassify: tools}\n", "versions: {keep: 3, declassify: [a/, 7, [b]]}\n",
		"sources:\n  - path: a\n    git: https://h/a.git\n    ref: v1\n    dir: s\n  - path: b\n    catalog: https://h\n    skills: [x]\n",
		"sources: [{path: a, git: 'u:p@h:x'}, {path: a/b, git: file:///x}]\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := parsePolicy([]byte(s))
		a, vp, problems := d.access, d.versions, d.problems
		keep := vp.keep
		if len(problems) > 0 && (a != nil || keep != 0) {
			t.Fatalf("%q: problems %v and still access %v, keep %d", s, problems, a, keep)
		}
		if keep < 0 || keep > MaxKeep {
			t.Fatalf("%q: keep %d", s, keep)
		}
		if len(problems) > 0 && d.sources != nil {
			t.Fatalf("%q: problems %v and still sources %v", s, problems, d.sources)
		}
		for _, src := range d.sources {
			if q, msg := rulePath(src.Path); msg != "" || q != src.Path {
				t.Fatalf("%q: source path %q: %s", s, src.Path, msg)
			}
			if (src.Git == "") == (src.Catalog == "") || src.Git != "" && gitURLProblem(src.Git) != "" || src.Catalog != "" && catalogURLProblem(src.Catalog) != "" {
				t.Fatalf("%q: source %+v", s, src)
			}
		}
		for _, p := range vp.declassify {
			if q, msg := rulePath(p); msg != "" || q != p {
				t.Fatalf("%q: declassify %q: %s", s, p, msg)
			}
		}
	})
}
