package versions

import (
	"crypto/ed25519"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/signing"
)

// TestIndexNamesHistory: where two skills that keep versions share a name, each latest
// and each of its older versions is named in its entry by the latest's index name, and the
// signed root annotates each of their subjects with it, so that a reader keyed by name
// holds each skill to its own subject; a skill whose name no other has is annotated not.
func TestIndexNamesHistory(t *testing.T) {
	m := story(
		step{"start", map[string]string{"skilledge.yaml": "versions:\n  keep: 3\n",
			"a/deploy/SKILL.md": named("deploy", "1.0.0", "a1"), "b/deploy/SKILL.md": named("deploy", "1.0.0", "b1"), "solo/SKILL.md": named("solo", "1.0.0", "s1")}},
		step{"bump", map[string]string{"a/deploy/SKILL.md": named("deploy", "1.1.0", "a2"), "b/deploy/SKILL.md": named("deploy", "1.1.0", "b2"), "solo/SKILL.md": named("solo", "1.1.0", "s2")}},
	)
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	issued := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	c, _ := attachStory(t, m)
	enc, err := compile.EncodeWith(c, compile.EncodeOptions{Sign: &compile.Signer{Key: key, Catalog: "https://skills.example.com/", Issued: issued, Expires: issued.Add(time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := catalog.OpenWith(enc.Index, func(r catalog.Ref) ([]byte, error) { return enc.Store.Object(r.Name) }, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := func(uri string) string {
		switch {
		case strings.HasPrefix(uri, "skill://a/"):
			return "a-deploy"
		case strings.HasPrefix(uri, "skill://b/"):
			return "b-deploy"
		}
		return "solo"
	}
	for _, pk := range []*catalog.Pack{p, p.Versions()} {
		for i := range pk.NumSkills() {
			entry := pk.Skill(i, catalog.SkillEntry)
			uri := gjson.GetBytes(entry, "uri").Str
			if got := gjson.GetBytes(entry, "name").Str; got != want(uri) {
				t.Errorf("%s is named %q in its entry, want %q", uri, got, want(uri))
			}
		}
	}
	if n := p.Versions().NumSkills(); n != 6 { // the latest at its version path too
		t.Fatalf("%d versions in the history index, want 6", n)
	}
	r := servedRoot(t, p, enc, key)
	annotated, deploys := 0, 0
	for _, s := range r.Subjects {
		if strings.Contains(s.Name, "/deploy/") {
			deploys++
		}
		n, ok := s.Annotations[signing.AnnotationName]
		switch {
		case s.Name == catalog.ChangesURI || strings.HasPrefix(s.Name, "skill://solo/"):
			if ok {
				t.Errorf("%s is annotated %q", s.Name, n)
			}
		case n != want(s.Name):
			t.Errorf("%s is annotated %q, want %q", s.Name, n, want(s.Name))
		default:
			annotated++
		}
	}
	if annotated != deploys || deploys < 4 {
		t.Errorf("%d subjects annotated of %d of the deploys and their versions", annotated, deploys)
	}
}
