package catalog

import (
	"regexp"
	"strings"
	"testing"
)

// validName is the Agent Skills name rule, as the discovery indexes require it.
var validName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)

func TestIndexNames(t *testing.T) {
	long := strings.Repeat("deep/", 14) + "deploy"
	for _, tc := range []struct {
		name   string
		skills []Named
		want   []string
	}{
		{"unique names are kept", []Named{{Path: "a/deploy", Name: "deploy"}, {Path: "b/review", Name: "review"}},
			[]string{"deploy", "review"}},
		{"shared in the folder: both qualified", []Named{{Path: "a/deploy", Name: "deploy"}, {Path: "b/deploy", Name: "deploy"}},
			[]string{"a-deploy", "b-deploy"}},
		{"the folder's own keeps its name", []Named{
			{Path: "deploy", Name: "deploy"},
			{Path: "platform/deploy", Name: "deploy", Mounted: true},
			{Path: "team/deploy", Name: "deploy", Mounted: true}},
			[]string{"deploy", "platform-deploy", "team-deploy"}},
		{"two of the folder's own: none keeps it", []Named{
			{Path: "a/deploy", Name: "deploy"}, {Path: "b/deploy", Name: "deploy"},
			{Path: "platform/deploy", Name: "deploy", Mounted: true}},
			[]string{"a-deploy", "b-deploy", "platform-deploy"}},
		{"odd characters and case", []Named{
			{Path: "Vendor_Skills/.x/deploy", Name: "deploy", Mounted: true},
			{Path: "team/deploy", Name: "deploy", Mounted: true}},
			[]string{"vendor-skills-x-deploy", "team-deploy"}},
		{"qualified name is another skill's name", []Named{
			{Path: "platform-deploy", Name: "platform-deploy"},
			{Path: "platform/deploy", Name: "deploy", Mounted: true},
			{Path: "team/deploy", Name: "deploy", Mounted: true}},
			[]string{"platform-deploy", "deploy-" + hash8("platform/deploy"), "team-deploy"}},
		{"two paths qualify alike", []Named{
			{Path: "a-b/deploy", Name: "deploy", Mounted: true},
			{Path: "a/b-deploy", Name: "b-deploy", Mounted: true},
			{Path: "a/b/deploy", Name: "deploy", Mounted: true}},
			[]string{"deploy-" + hash8("a-b/deploy"), "b-deploy", "deploy-" + hash8("a/b/deploy")}},
		{"too long to qualify", []Named{
			{Path: long, Name: "deploy", Mounted: true},
			{Path: "deploy", Name: "deploy", Mounted: true}},
			[]string{"deploy-" + hash8(long), "deploy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := IndexNames(tc.skills)
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("IndexNames = %q, want %q", got, tc.want)
			}
		})
	}
}

func hash8(path string) string { return hashed("", path, nil)[:8] }

// FuzzIndexNames: whatever the paths and names, the index names are distinct valid skill
// names, and a listed skill's name no other skill has is kept.
func FuzzIndexNames(f *testing.F) {
	f.Add("a/deploy\x00deploy\x00b/deploy\x00deploy\x00deploy\x00deploy", uint8(2))
	f.Add("x\x00"+strings.Repeat("q", 64)+"\x00y\x00"+strings.Repeat("q", 64), uint8(1))
	f.Fuzz(func(t *testing.T, raw string, mounted uint8) {
		parts := strings.Split(raw, "\x00")
		var skills []Named
		for i := 0; i+1 < len(parts) && len(skills) < 32; i += 2 {
			if !validName.MatchString(parts[i+1]) || strings.Contains(parts[i+1], "--") {
				return
			}
			skills = append(skills, Named{Path: parts[i], Name: parts[i+1], Mounted: mounted>>(len(skills)%8)&1 == 1, Unlisted: mounted>>((len(skills)+3)%8)&1 == 1})
		}
		count := map[string]int{}
		for _, s := range skills {
			count[s.Name]++
		}
		seen := map[string]bool{}
		for i, n := range IndexNames(skills) {
			if !validName.MatchString(n) || strings.Contains(n, "--") {
				t.Fatalf("%v: index name %q is not a valid skill name", skills[i], n)
			}
			if seen[n] {
				t.Fatalf("%v: index name %q given twice", skills, n)
			}
			seen[n] = true
			if count[skills[i].Name] == 1 && !skills[i].Unlisted && n != skills[i].Name { // an unlisted one gives way to the listed
				t.Fatalf("%v: the unique name %q became %q", skills[i], skills[i].Name, n)
			}
		}
	})
}

// TestIndexNamesUnlisted: the listed skills are named as if the unlisted ones were not
// there, and the unlisted ones around them; the order given changes nothing.
func TestIndexNamesUnlisted(t *testing.T) {
	skills := []Named{
		{Path: "pdf", Name: "pdf", Unlisted: true},
		{Path: "tools/pdf", Name: "pdf"},
		{Path: "drafts/pdf", Name: "pdf", Unlisted: true},
	}
	want := []string{"pdf-" + hash8("pdf"), "pdf", "drafts-pdf"}
	if got := IndexNames(skills); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("IndexNames = %q, want %q", got, want)
	}
	reversed := []Named{skills[2], skills[1], skills[0]}
	if got := IndexNames(reversed); strings.Join(got, " ") != strings.Join([]string{want[2], want[1], want[0]}, " ") {
		t.Fatalf("in another order: %q", got)
	}
}

// TestMayQualify: the shapes of a name IndexNames qualifies, and names it never gives.
func TestMayQualify(t *testing.T) {
	for _, c := range []struct {
		named, index string
		want         bool
	}{
		{"deploy", "platform-deploy", true},
		{"deploy", "a-b-c-deploy", true},
		{"deploy", "deploy-5ade29ee", true},
		{"deploy", "dep-5ade29ee5ade29ee", true},
		{"deploy", hashed("", "x", nil), true},
		{"deploy", "docx", false},
		{"deploy", "deploy-tool", false},
		{"deploy", "deploy-5ade29e", false},
		{"deploy", "other-5ade29ee", false},
		{"pdf", "pdf-reader", false},
	} {
		if got := MayQualify(c.named, c.index); got != c.want {
			t.Errorf("MayQualify(%q, %q) = %t, want %t", c.named, c.index, got, c.want)
		}
	}
}
