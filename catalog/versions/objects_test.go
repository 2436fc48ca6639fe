package versions

import (
	"testing"

	"github.com/skilledge/skilledge/catalog"
)

// TestObjectsNameOlderVersions: an index's Objects (what hosts check a store against and a
// cache keeps when it prunes) names the objects of its older versions too, in a public
// catalog and in every view of a private one: every object the build put in the store.
func TestObjectsNameOlderVersions(t *testing.T) {
	public := story(
		step{"start", map[string]string{"skilledge.yaml": "versions:\n  keep: 3\n", "x/SKILL.md": named("x", "1.0.0", "x1"), "x/refs/a.md": "a one"}},
		step{"x 1.1.0", map[string]string{"x/SKILL.md": named("x", "1.1.0", "x2"), "x/refs/a.md": "a two"}},
	)
	for name, m := range map[string]*memory{"public": public, "private": privateStory(true)} {
		t.Run(name, func(t *testing.T) {
			p, st := encodeStoryStore(t, m)
			if p.Versions() == nil && len(p.Views()) == 0 {
				t.Fatal("the story keeps no versions")
			}
			named := map[string]bool{}
			for _, o := range p.Objects() {
				named[o.Name] = true
			}
			var refs int
			p.Refs(func(r catalog.Ref) {
				refs++
				if !named[r.Name] {
					t.Errorf("Refs visits %s, which Objects does not name", r.Name)
				}
			})
			for _, o := range st.Names() {
				if !named[o] {
					t.Errorf("the store holds %s (%s), which Objects does not name", o, st.What(o))
				}
			}
		})
	}
}
