package compile

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestSourcesPolicy: the sources section as read, and every way an entry is refused, each
// at its line; a URL refused for a credential is never quoted.
func TestSourcesPolicy(t *testing.T) {
	const secret = "ghp_0123456789abcdefSECRET"
	for _, c := range []struct {
		name   string
		policy string
		want   []string // problems
		got    string   // the sources read, "path git ref dir" a line
	}{
		{name: "git sources", policy: "sources:\n  - path: platform/\n    git: https://git.example.com/p/skills.git\n    ref: v2.1.0\n    dir: skills/\n" +
			"  - path: vendor\n    git: git@git.example.com:v/s.git\n  - path: local\n    git: file:///srv/skills\n    ref: 0123456789abcdef0123456789abcdef01234567\n",
			got: "platform https://git.example.com/p/skills.git v2.1.0 skills\nvendor git@git.example.com:v/s.git  \nlocal file:///srv/skills 0123456789abcdef0123456789abcdef01234567 "},
		{name: "ssh with a user", policy: "sources:\n  - path: a\n    git: ssh://git@host.example/a.git\n", got: "a ssh://git@host.example/a.git  "},
		{name: "two on one path", policy: "sources:\n  - path: a\n    git: file:///x\n  - path: a/\n    git: file:///y\n",
			want: []string{`skills/skilledge.yaml:4: a second source at path "a" (the first is on line 2): two sources cannot share a path`}},
		{name: "one inside another", policy: "sources:\n  - path: a/b\n    git: file:///x\n  - path: a\n    git: file:///y\n",
			want: []string{`skills/skilledge.yaml:4: the source at "a/b" (line 2) lies inside the source at "a" (line 4): the skills of one would land on paths the other holds; mount them side by side`}},
		{name: "a token in the URL", policy: "sources:\n  - path: a\n    git: https://x-access-token:" + secret + "@git.example.com/a.git\n",
			want: []string{`skills/skilledge.yaml:3: sources[0].git: the URL holds a user name or password: keep credentials in git's configuration (a credential helper, an SSH key), never in skilledge.yaml, which sources.lock and every skill's provenance repeat`}},
		{name: "a token as the user", policy: "sources:\n  - path: a\n    git: https://" + secret + "@git.example.com/a.git\n",
			want: []string{`skills/skilledge.yaml:3: sources[0].git: the URL holds a user name or password: keep credentials in git's configuration (a credential helper, an SSH key), never in skilledge.yaml, which sources.lock and every skill's provenance repeat`}},
		{name: "a token in the scp form", policy: "sources:\n  - path: a\n    git: x-access-token:" + secret + "@git.example.com:org/repo.git\n",
			want: []string{`skills/skilledge.yaml:3: sources[0].git: the URL holds a user name or password: keep credentials in git's configuration (a credential helper, an SSH key), never in skilledge.yaml, which sources.lock and every skill's provenance repeat`}},
		{name: "a token in a query", policy: "sources:\n  - path: a\n    git: https://git.example.com/a.git?access_token=" + secret + "\n  - path: b\n    catalog: https://skills.example.com/mcp?api_key=" + secret + "\n",
			want: []string{`skills/skilledge.yaml:3: sources[0].git: a URL with a query or a fragment: credentials travel that way; write the repository's URL alone`,
				`skills/skilledge.yaml:5: sources[1].catalog: a URL with a query or a fragment: credentials travel that way; write the catalog's URL alone (--source-token binds a token to its origin)`}},
		{name: "an option", policy: "sources:\n  - path: a\n    git: --upload-pack=touch /tmp/x\n",
			want: []string{`skills/skilledge.yaml:3: sources[0].git: a URL cannot start with "-" (git would read it as an option)`}},
		{name: "ext transport", policy: "sources:\n  - path: a\n    git: ext::sh -c touch% /tmp/x\n",
			want: []string{`skills/skilledge.yaml:3: sources[0].git: a URL holds no spaces or control characters`}},
		{name: "another scheme", policy: "sources:\n  - path: a\n    git: ftp://host/a.git\n",
			want: []string{`skills/skilledge.yaml:3: sources[0].git: scheme "ftp" is not one of https, http, ssh, git and file`}},
		{name: "a ref that is an option or an expression", policy: "sources:\n  - path: a\n    git: file:///x\n    ref: --all\n  - path: b\n    git: file:///x\n    ref: main~3\n",
			want: []string{`skills/skilledge.yaml:4: sources[0].ref "--all": a ref cannot start with "-"`,
				`skills/skilledge.yaml:7: sources[1].ref "main~3": a ref is a tag, a branch or a commit: no spaces, control characters or any of ~^:?*[\`}},
		{name: "a dir out of the repository", policy: "sources:\n  - path: a\n    git: file:///x\n    dir: ../etc\n",
			want: []string{`skills/skilledge.yaml:4: sources[0].dir "../etc": a folder inside the repository, written as a relative path (skills, tools/skills)`}},
		{name: "no path, no git", policy: "sources:\n  - ref: main\n  - path: a\n",
			want: []string{`skills/skilledge.yaml:2: sources[0] has no path: where its skills are mounted in the catalog (platform)`,
				`skills/skilledge.yaml:3: sources[1] has no git or catalog: the URL of the repository, or of the catalog, to mount`}},
		{name: "the root", policy: "sources:\n  - path: /\n    git: file:///x\n",
			want: []string{`skills/skilledge.yaml:2: sources[0].path "/": empty: the catalog's root is the folder itself; mount a source under a path of its own`}},
		{name: "remote catalogs", policy: "sources:\n  - path: a\n    catalog: https://skills.example.com/mcp\n    skills: [pdf, docx, pdf]\n  - path: b\n    catalog: http://127.0.0.1:8787\n",
			got: "a catalog https://skills.example.com/mcp docx,pdf\nb catalog http://127.0.0.1:8787 "},
		{name: "a remote catalog refused", policy: "sources:\n  - path: a\n    catalog: http://skills.example.com\n  - path: b\n    catalog: https://u:p@skills.example.com\n" +
			"  - path: c\n    catalog: https://x\n    git: file:///x\n  - path: d\n    catalog: https://x\n    ref: main\n  - path: e\n    git: file:///x\n    skills: [a]\n  - path: f\n    catalog: https://x\n    skills: [a/b]\n",
			want: []string{`skills/skilledge.yaml:3: sources[0].catalog: http is read from a loopback host only (127.0.0.1, ::1, localhost): use https`,
				`skills/skilledge.yaml:5: sources[1].catalog: the URL holds a user name or password: a catalog's credentials are never written in skilledge.yaml`,
				`skills/skilledge.yaml:6: sources[2] has both git and catalog: a source is a repository or a catalog; make them two sources`,
				`skills/skilledge.yaml:9: sources[3]: ref and dir are a git source's; a catalog source has path, catalog and skills`,
				`skills/skilledge.yaml:12: sources[4]: skills is a catalog source's; a git source serves every skill of its dir`,
				`skills/skilledge.yaml:17: sources[5].skills: each entry must be a skill's name (pdf)`}},
		{name: "not a list", policy: "sources: {path: a}\n", want: []string{"skills/skilledge.yaml:1: sources must be a list of sources (- path: platform\n    git: https://…)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, problems, err := Load(fstest.MapFS{"public/SKILL.md": ok("public"), PolicyFile: {Data: []byte(c.policy)}}, "skills", Options{})
			if err != nil {
				t.Fatal(err)
			}
			equalStrings(t, "problems", strs(problems), c.want)
			if strings.Contains(strings.Join(strs(problems), "\n"), secret) {
				t.Errorf("a problem quotes the credential")
			}
			var got []string
			for _, s := range cat.Sources {
				if s.Catalog != "" {
					got = append(got, s.Path+" catalog "+s.Catalog+" "+strings.Join(s.Skills, ","))
					continue
				}
				got = append(got, strings.Join([]string{s.Path, s.Git, s.Ref, s.Dir}, " "))
			}
			if g := strings.Join(got, "\n"); g != c.got {
				t.Errorf("sources:\n%s\nwant\n%s", g, c.got)
			}
			if len(c.want) > 0 && (cat.Access == nil || !cat.Access.Broken) {
				t.Errorf("a policy file with problems is not broken: %+v", cat.Access)
			}
		})
	}
}

// TestCheckComposed: a catalog with its sources mounted is held to what the folder alone
// is: a source where the folder has a skill, rules matching no skill, a nested skill that
// needs more than its outer one, and names shared across sources.
func TestCheckComposed(t *testing.T) {
	mount := func(c *Catalog, at string, skills ...string) {
		t.Helper()
		fsys := fstest.MapFS{}
		for _, s := range skills {
			fsys[at+"/"+s+"/SKILL.md"] = ok(s[strings.LastIndexByte(s, '/')+1:])
		}
		sc, problems, err := Load(fsys, "skills", Options{NoPolicy: true})
		if err != nil || len(problems) > 0 {
			t.Fatal(err, strs(problems))
		}
		for _, src := range c.Sources {
			if src.Path == at {
				Mount(c, sc, func(p string) *Provenance { return &Provenance{Source: at, Repository: src.Git, Commit: "c", Path: p} })
			}
		}
	}
	for _, c := range []struct {
		name    string
		policy  string
		mount   map[string][]string
		want    []string
		scopes  map[string]string
		commits map[string]string // skill path -> the commit its provenance names
	}{
		{name: "mounted under their paths, the policy applying",
			policy: "sources:\n  - path: platform\n    git: file:///p\naccess:\n  default: [r]\n  rules:\n    - path: platform/ops\n      scopes: [ops]\n",
			mount:  map[string][]string{"platform": {"deploy", "ops/rollback"}},
			scopes: map[string]string{"platform/deploy": "r", "platform/ops/rollback": "ops r", "public": "r"}},
		{name: "a source where the folder has a skill",
			policy: "sources:\n  - path: public\n    git: file:///p\n", mount: map[string][]string{"public": {"deploy"}},
			want: []string{`skills/skilledge.yaml:2: the source at "public" is mounted where the folder has skill public: move the skill, or mount the source at another path`}},
		{name: "a source inside a skill of the folder",
			policy: "sources:\n  - path: public/more\n    git: file:///p\n", mount: map[string][]string{"public/more": {"deploy"}},
			want: []string{`skills/skilledge.yaml:2: the source at "public/more" is mounted inside skill public of the folder, whose files would hold the source's: mount it beside the skill`}},
		{name: "a rule for a source's path that matches nothing",
			policy: "sources:\n  - path: platform\n    git: file:///p\naccess:\n  rules:\n    - path: platform/ops\n      scopes: [ops]\n",
			mount:  map[string][]string{"platform": {"deploy"}},
			want:   []string{`skills/skilledge.yaml:6: rule for path "platform/ops/" matches no skill: no skill is served at platform/ops or under it, from the folder or a source`}},
		{name: "a nested skill of a source that needs more",
			policy: "sources:\n  - path: platform\n    git: file:///p\naccess:\n  rules:\n    - path: platform/deploy/secret\n      scopes: [ops]\n",
			mount:  map[string][]string{"platform": {"deploy", "deploy/secret"}},
			want:   []string{`skills/skilledge.yaml: skill platform/deploy/secret needs scope ops that skill platform/deploy, which holds it, does not: anyone who may see platform/deploy reads platform/deploy/secret's files through it; give platform/deploy the same rule, or move platform/deploy/secret out of it`}},
		{name: "a source whose skills differ in who sees them: no commit",
			policy:  "sources:\n  - path: a\n    git: file:///a\n  - path: b\n    git: file:///b\naccess:\n  rules:\n    - path: a/secret\n      scopes: [s]\n",
			mount:   map[string][]string{"a": {"open", "secret"}, "b": {"plain"}},
			commits: map[string]string{"a/open": "", "a/secret": "", "b/plain": "c"}},
		{name: "a name shared across sources",
			policy: "sources:\n  - path: a\n    git: file:///a\n  - path: b\n    git: file:///b\n",
			mount:  map[string][]string{"a": {"pdf"}, "b": {"tools/pdf"}},
			want: []string{`skills/a/pdf/SKILL.md: warning: name "pdf" is also the name of "b/tools/pdf" (another source): it is served as "a-pdf" where skills are keyed by name (well-known indexes, skills/get {name}, prompts, pull)`,
				`skills/b/tools/pdf/SKILL.md: warning: name "pdf" is also the name of "a/pdf" (another source): it is served as "b-tools-pdf" where skills are keyed by name (well-known indexes, skills/get {name}, prompts, pull)`}},
		{name: "the folder's skill keeps its name",
			policy: "sources:\n  - path: a\n    git: file:///a\n",
			mount:  map[string][]string{"a": {"public"}},
			want: []string{`skills/a/public/SKILL.md: warning: name "public" is also the name of "public" (another source): it is served as "a-public" where skills are keyed by name (well-known indexes, skills/get {name}, prompts, pull)`,
				`skills/public/SKILL.md: warning: name "public" is also the name of "a/public" (another source): it keeps the name where skills are keyed by name (well-known indexes, skills/get {name}, prompts, pull); the others take qualified names`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, problems, err := Load(fstest.MapFS{"public/SKILL.md": ok("public"), PolicyFile: {Data: []byte(c.policy)}}, "skills", Options{})
			if err != nil || len(problems) > 0 {
				t.Fatal(err, strs(problems))
			}
			for at, skills := range c.mount {
				mount(cat, at, skills...)
			}
			problems = CheckComposed(cat, "skills")
			equalStrings(t, "problems", strs(problems), c.want)
			errs := false
			for _, p := range problems {
				errs = errs || p.Severity == Error
			}
			if errs != (cat.Access != nil && cat.Access.Broken) {
				t.Errorf("errors %t, and the policy broken: %+v", errs, cat.Access)
			}
			for p, want := range c.scopes {
				found := false
				for _, s := range cat.Skills {
					if s.Path == p {
						found = true
						if got := strings.Join(s.Scopes, " "); got != want {
							t.Errorf("%s: scopes %q, want %q", p, got, want)
						}
					}
				}
				if !found {
					t.Errorf("no skill %s", p)
				}
			}
			for p, want := range c.commits {
				for _, s := range cat.Skills {
					if s.Path == p && (s.Source == nil || s.Source.Commit != want) {
						t.Errorf("%s: provenance %+v, want commit %q", p, s.Source, want)
					}
				}
			}
			for i := 1; i < len(cat.Skills); i++ {
				if cat.Skills[i-1].Path >= cat.Skills[i].Path {
					t.Errorf("skills out of order: %s, %s", cat.Skills[i-1].Path, cat.Skills[i].Path)
				}
			}
		})
	}
}
