package versions

import (
	"crypto/ed25519"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/internal/packtest"
	"github.com/skilledge/skilledge/catalog/signing"
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

// TestShardedHistory: a catalog that keeps versions, public or private, encoded sharded
// (and packed) answers as encoded whole: its skills, and every view's, and the older
// versions of each, each a sharded root nested in the root; their change feeds too.
func TestShardedHistory(t *testing.T) {
	public := story(
		step{"start", map[string]string{"skilledge.yaml": "versions:\n  keep: 3\n", "x/SKILL.md": named("x", "1.0.0", "x1"), "x/refs/a.md": "a one", "y/SKILL.md": named("y", "", "y1")}},
		step{"x 1.1.0", map[string]string{"x/SKILL.md": named("x", "1.1.0", "x2"), "x/refs/a.md": "a two"}},
		step{"y edited", map[string]string{"y/SKILL.md": named("y", "", "y2")}},
	)
	for name, m := range map[string]*memory{"public": public, "private": privateStory(true)} {
		for _, opt := range []compile.EncodeOptions{{ShardBytes: 1}, {ShardBytes: 1, PackBytes: 4096}} {
			t.Run(fmt.Sprintf("%s %+v", name, opt), func(t *testing.T) {
				c, _ := attachStory(t, m)
				whole, err := compile.Encode(c)
				if err != nil {
					t.Fatal(err)
				}
				c, _ = attachStory(t, m)
				enc, err := compile.EncodeWith(c, opt)
				if err != nil {
					t.Fatal(err)
				}
				w, err := catalog.Open(whole.Index)
				if err != nil {
					t.Fatal(err)
				}
				s, err := catalog.OpenWith(enc.Index, func(r catalog.Ref) ([]byte, error) { return enc.Store.Object(r.Name) }, 1)
				if err != nil {
					t.Fatal(err)
				}
				pairs := [][2]*catalog.Pack{{w, s}, {w.Versions(), s.Versions()}}
				for i, v := range w.Views() {
					sv := s.Views()[i]
					pairs = append(pairs, [2]*catalog.Pack{v.Listed, sv.Listed}, [2]*catalog.Pack{v.All, sv.All}, [2]*catalog.Pack{v.Versions, sv.Versions})
				}
				compared := 0
				for i, pair := range pairs {
					if (pair[0] == nil) != (pair[1] == nil) {
						t.Fatalf("index %d: whole %t, sharded %t", i, pair[0] != nil, pair[1] != nil)
					}
					if pair[0] == nil || i == 0 && s.Private() { // a private root is read through its views
						continue
					}
					if !pair[1].Sharded() {
						t.Errorf("index %d is not sharded", i)
					}
					compared++
					t.Run(fmt.Sprint("index ", i), func(t *testing.T) {
						if opt.PackBytes == 0 {
							packtest.CompareAll(t, pair[0], pair[1])
						}
						for _, doc := range []string{catalog.ChangesJSON, catalog.ChangesAtom} {
							a, _ := pair[0].HTTPDoc(doc, catalog.HTTPDigest)
							b, _ := pair[1].HTTPDoc(doc, catalog.HTTPDigest)
							if string(a) != string(b) {
								t.Errorf("%s: whole %s, sharded %s", doc, a, b)
							}
						}
						if pair[0].Digest() != pair[1].Digest() || pair[0].NumSkills() != pair[1].NumSkills() {
							t.Errorf("digest %s, %d skills; whole %s, %d", pair[1].Digest(), pair[1].NumSkills(), pair[0].Digest(), pair[0].NumSkills())
						}
					})
				}
				if compared < 2 {
					t.Fatalf("%d indexes compared", compared)
				}
			})
		}
	}
}

// TestSignedRootsHistory: each view's signed root of a private catalog that keeps history
// names the latest skills the view lists and their kept versions, with their manifest
// digests, and the view's change feed; never the unlisted draft nor any version of it,
// nor, in the reader's view, the finance skill. Whole and sharded alike.
func TestSignedRootsHistory(t *testing.T) {
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	issued := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	sg := &compile.Signer{Key: key, Catalog: "https://skills.example.com/", Issued: issued, Expires: issued.Add(time.Hour)}
	for _, shard := range []int{0, 1} {
		c, _ := attachStory(t, privateStory(true))
		enc, err := compile.EncodeWith(c, compile.EncodeOptions{Sign: sg, ShardBytes: shard})
		if err != nil {
			t.Fatal(err)
		}
		p, err := catalog.OpenWith(enc.Index, func(r catalog.Ref) ([]byte, error) { return enc.Store.Object(r.Name) }, 0)
		if err != nil {
			t.Fatal(err)
		}
		versions, feeds := 0, 0
		for i := range p.NumViews() {
			v := p.View(i)
			r := servedRoot(t, v.Listed, enc, key)
			finance := false
			for k := range v.Listed.NumSkills() {
				finance = finance || strings.Contains(string(v.Listed.Skill(k, catalog.SkillPath)), "finance/")
			}
			for _, s := range r.Subjects {
				switch {
				case strings.Contains(s.Name, "drafts/"):
					t.Errorf("shard %d, view %d: the root names the unlisted %s", shard, v.Mask, s.Name)
				case strings.Contains(s.Name, "finance/") && !finance:
					t.Errorf("shard %d, view %d: the root names the hidden %s", shard, v.Mask, s.Name)
				case strings.Contains(s.Name, "/@"):
					versions++
				case s.Name == catalog.ChangesURI:
					feeds++
				}
			}
		}
		if versions == 0 || feeds != p.NumViews() {
			t.Fatalf("shard %d: %d version subjects, %d feeds in %d views: the test shows nothing", shard, versions, feeds, p.NumViews())
		}
	}
}

// servedRoot opens the signed root the index p serves (its objects in enc's store),
// checked with key's public half.
func servedRoot(t *testing.T, p *catalog.Pack, enc *compile.Encoded, key ed25519.PrivateKey) *signing.Root {
	t.Helper()
	cell, ok := p.HTTPDoc(catalog.RootJSON, catalog.HTTPObject)
	if !ok {
		t.Fatal("the index serves no root")
	}
	var env []byte
	catalog.EachRef(cell, func(r catalog.Ref) {
		b, _ := enc.Store.Object(r.Name)
		env = append(env, b...)
	})
	r, err := signing.OpenRoot(env, key.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
