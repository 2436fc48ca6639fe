//go:build e2e

package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The TypeScript SDK v2's Skills-extension host client (tests/clients/skills.mjs drives it)
// against a catalog in the frontmatter shapes of published skills (testdata/shapes.txtar).

// shapesDiffer are the skills of testdata/shapes.txtar whose entry carries a field
// otherwise than their SKILL.md (a description over 1024 characters, compatibility or
// metadata in another shape than a string, or a mapping of strings), so that a client
// comparing the two will not load them. Every other skill is served to it whole.
var shapesDiffer = []string{"claude-api", "compat-list", "compat-number", "everything", "meta-list", "meta-nested", "meta-scalar", "meta-typed"}

// skillsReport is what skills.mjs prints.
type skillsReport struct {
	Version   string `json:"version"`
	Supported bool   `json:"supported"`
	ListError string `json:"listError"`
	Skills    []struct {
		URI         string          `json:"uri"`
		Description string          `json:"description"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Read        struct {
			OK          bool     `json:"ok"`
			Reason      string   `json:"reason"`
			Differences []string `json:"differences"`
			Message     string   `json:"message"`
		} `json:"read"`
	} `json:"skills"`
}

// TestSkillsClientShapes: the catalog of testdata/shapes.txtar validates with warnings
// only, each skill whose entry differs from its SKILL.md named in one; and the SDK's
// SkillsClient, with its default options, on both eras, lists every skill on `skilledge
// serve`, workerd and the Deno, Bun and Node entries (a single entry it refused would
// throw for the whole listing), every entry within the format's limits, and reads and
// verifies every SKILL.md but those of shapesDiffer, which it refuses as differing from
// their entry's frontmatter, and nothing else.
func TestSkillsClientShapes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "shapes.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var names []string
	for _, sec := range parseTxtar(data).sections {
		rel, ok := strings.CutPrefix(sec.name, "skills/")
		if !ok {
			t.Fatalf("section %q is not under skills/", sec.name)
		}
		if name, ok := strings.CutSuffix(rel, "/SKILL.md"); ok {
			names = append(names, name)
		}
		if err := writeFile(filepath.Join(dir, rel), sec.data); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(names)

	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "validate", dir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), " skills checked: 0 errors, ") {
		t.Fatalf("validate: %v\n%s", err, out)
	}
	lines := strings.Split(string(out), "\n")
	for _, name := range names {
		said := slices.ContainsFunc(lines, func(l string) bool {
			return strings.Contains(l, "/"+name+"/SKILL.md:") && strings.Contains(l, "warning: the skill entry carries ")
		})
		if want := slices.Contains(shapesDiffer, name); said != want {
			t.Errorf("validate says of %s that its entry differs from SKILL.md: %v, want %v\n%s", name, said, want, out)
		}
	}

	d, err := deployFolder(dir)
	if err != nil {
		failOrSkip(t, err)
	}
	servers := []privateServer{{"serve", strings.TrimSuffix(serve(t, dir), "/mcp")}, {"workerd", workerdFor(t, d, "")[0]}}
	for _, rt := range jsRuntimes {
		servers = append(servers, privateServer{rt.name, startRuntime(t, rt, withSDK(t, d), "")})
	}
	for _, srv := range servers {
		for _, era := range []string{"default", "modern"} {
			t.Run(srv.name+"/"+era, func(t *testing.T) {
				code, stdout, stderr := runNode(t, filepath.Join(repoRoot(t), "tests", "clients", "skills.mjs"), srv.base+"/mcp", era)
				if code != 0 {
					t.Fatalf("skills.mjs: exit %d\n%s\n%s", code, stdout, stderr)
				}
				var r skillsReport
				if err := json.Unmarshal([]byte(stdout), &r); err != nil {
					t.Fatalf("skills.mjs printed %q: %v\n%s", stdout, err, stderr)
				}
				if !r.Supported || r.ListError != "" {
					t.Fatalf("SkillsClient: supported %v, list() threw: %s", r.Supported, r.ListError)
				}
				var listed []string
				for _, s := range r.Skills {
					name := strings.TrimSuffix(strings.TrimPrefix(s.URI, "skill://"), "/SKILL.md")
					listed = append(listed, name)
					if n := utf8.RuneCountInString(s.Description); n > 1024 {
						t.Errorf("%s: the entry's description has %d characters", name, n)
					}
					switch {
					case slices.Contains(shapesDiffer, name):
						if s.Read.Reason != "frontmatter" || len(s.Read.Differences) == 0 {
							t.Errorf("%s: read() %+v, want it refused for a frontmatter that differs from the entry's", name, s.Read)
						}
					case !s.Read.OK:
						t.Errorf("%s: read() refused it: %s %s", name, s.Read.Reason, s.Read.Message)
					}
				}
				slices.Sort(listed)
				if !slices.Equal(listed, names) {
					t.Errorf("list() returned %d skills, want the catalog's %d:\n got  %q\n want %q", len(listed), len(names), listed, names)
				}
			})
		}
	}
}
