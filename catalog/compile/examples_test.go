package compile

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/skilledge/skilledge/catalog/examples"
)

// TestExamples checks the embedded example catalog: valid without a single warning, in
// the listing order the conformance scenarios rely on.
func TestExamples(t *testing.T) {
	cat, ps, err := Load(examples.FS, "examples", Options{})
	if err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "problems", strs(ps), nil)
	equalStrings(t, "skills", paths(cat), []string{
		"acme/billing/refunds",
		"csv-insights",
		"git-workflow",
		"incident-response",
		"release-notes",
		"release-notes/changelog-entry",
	})
	first := cat.Skills[0]
	hasSubdir := false
	for _, f := range first.Files {
		hasSubdir = hasSubdir || strings.Contains(strings.TrimPrefix(f.Path, first.Path+"/"), "/")
	}
	if !hasSubdir {
		t.Error("the first skill has no subdirectory (the conformance directory scenario needs one)")
	}
	size := 0
	for _, s := range cat.Skills {
		if s.Files[0].Path != s.Path+"/SKILL.md" {
			t.Errorf("%s: first file %s", s.Path, s.Files[0].Path)
		}
		for _, f := range s.Files {
			size += len(f.Data)
			png := strings.HasSuffix(f.Path, ".png")
			if f.Text == png {
				t.Errorf("%s: Text = %v", f.Path, f.Text)
			}
			if png && f.MIME != "image/png" {
				t.Errorf("%s: MIME %s", f.Path, f.MIME)
			}
		}
		var fm map[string]any
		if err := json.Unmarshal(s.Frontmatter, &fm); err != nil {
			t.Errorf("%s: %v", s.Path, err)
		}
	}
	if size > 50<<10 {
		t.Errorf("examples are %d bytes; keep them small", size)
	}
	byPath := map[string]*Skill{}
	for _, s := range cat.Skills {
		byPath[s.Path] = s
	}
	for path, want := range map[string]string{
		"acme/billing/refunds": `"metadata":{"owner":"billing-support","review-cycle":"quarterly"},"version":"2.1.0"}`,
		"release-notes":        `"arguments":[{"name":"version","description":"The version being released, as it will be tagged (for example 2.4.0).","required":true},{"name":"since","description":"The tag to start from; by default the latest tag before HEAD."}],"dependencies":{"tools":["git"],"resources":[{"type":"ref/resource","uri":"skill://release-notes/changelog-entry/SKILL.md"}]}}`,
		"incident-response":    `"allowed-tools":"Bash(git:*) Read","metadata":{"severity-scale":"SEV1-SEV4","runbook-version":"3","escalation-after-minutes":"30"},"title":"Incident response","tags":["operations","on-call","sre"]}`,
	} {
		if fm := string(byPath[path].Frontmatter); !strings.HasSuffix(fm, want) {
			t.Errorf("%s frontmatter %s, want it to end with %s", path, fm, want)
		}
	}
	if n := len(byPath["git-workflow"].Files); n != 1 {
		t.Errorf("git-workflow has %d files, want 1", n)
	}
	if n := len(byPath["release-notes"].Files); n != 3 {
		t.Errorf("release-notes has %d files, want 3 (with the nested skill's)", n)
	}
}
