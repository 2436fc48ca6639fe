package compile

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/examples"
	"github.com/skilledge/skilledge/catalog/signing"
)

// testSigner is a Signer of a fixed key and times.
func testSigner(t *testing.T) (*Signer, ed25519.PublicKey) {
	t.Helper()
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	issued := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	return &Signer{Key: key, Catalog: "https://skills.example.com/", Issued: issued, Expires: issued.Add(720 * time.Hour)},
		key.Public().(ed25519.PublicKey)
}

// rootOf returns the root p serves at catalog.RootJSON, verified with pub, and checks
// that the resource catalog.RootURI holds the same bytes.
func rootOf(t *testing.T, enc *Encoded, p *catalog.Pack, pub ed25519.PublicKey) *signing.Root {
	t.Helper()
	cell, ok := p.HTTPDoc(catalog.RootJSON, catalog.HTTPObject)
	if !ok {
		t.Fatal("no root at " + catalog.RootJSON)
	}
	env := objectOf(t, enc, cell)
	i, ok := p.ResourceByURI(catalog.RootURI)
	if !ok {
		t.Fatal("no resource " + catalog.RootURI)
	}
	if value := objectOf(t, enc, p.Resource(i, catalog.ResReadValue)); string(value) != string(jsonString(string(env))) {
		t.Fatalf("the resource %s is not the root's JSON as a string: %.80s", catalog.RootURI, value)
	}
	r, err := signing.OpenRoot(env, pub)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// objectOf returns the bytes the reference field cell names, its parts spliced.
func objectOf(t *testing.T, enc *Encoded, cell []byte) []byte {
	t.Helper()
	var b []byte
	catalog.EachRef(cell, func(r catalog.Ref) {
		o, err := enc.Store.Object(r.Name)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, o...)
	})
	return b
}

// subjects are r's subjects as "URI sha256:HEX" lines, sorted.
func subjects(r *signing.Root) []string {
	var out []string
	for _, s := range r.Subjects {
		out = append(out, s.Name+" sha256:"+s.Digest["sha256"])
	}
	slices.Sort(out)
	return out
}

// skillsOf are the skills of c and their older versions as subjects lines, sorted.
func skillsOf(skills []*Skill) []string {
	var out []string
	for _, s := range skills {
		out = append(out, skillURI(s)+" "+ManifestDigest(s))
	}
	slices.Sort(out)
	return out
}

// TestSignedRoot: a signed catalog serves one root, as a resource and over HTTP, which
// the key verifies and which names every skill by URI and manifest digest; the same
// bytes whole and sharded, and from one build to the next of the same catalog; the next
// root follows it, one sequence on, naming its payload; and one not signed has none.
func TestSignedRoot(t *testing.T) {
	cat, _, err := Load(examples.FS, ".", Options{})
	if err != nil {
		t.Fatal(err)
	}
	sg, pub := testSigner(t)
	var first *signing.Root
	var roots []RootInfo
	for _, opt := range []EncodeOptions{{Sign: sg}, {Sign: sg, ShardBytes: 1, MaxPart: 512}} {
		enc, err := EncodeWith(cat, opt)
		if err != nil {
			t.Fatal(err)
		}
		p, err := catalog.OpenWith(enc.Index, func(r catalog.Ref) ([]byte, error) { return enc.Store.Object(r.Name) }, 0)
		if err != nil {
			t.Fatal(err)
		}
		r := rootOf(t, enc, p, pub)
		if got, want := subjects(r), skillsOf(cat.Skills); !slices.Equal(got, want) {
			t.Fatalf("the root names\n%s\nnot the skills\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if r.Catalog != sg.Catalog || r.Sequence != 1 || r.Previous != "" || !r.Issued.Equal(sg.Issued) || !r.Expires.Equal(sg.Expires) {
			t.Fatalf("the root's predicate: %+v", r)
		}
		if len(enc.Roots) != 1 || enc.Roots[0] != (RootInfo{View: "catalog", Sequence: 1, Payload: r.Payload}) {
			t.Fatalf("Roots %+v, root payload %s", enc.Roots, r.Payload)
		}
		if first != nil && r.Payload != first.Payload {
			t.Fatal("the sharded build's root is not the whole build's")
		}
		first, roots = r, enc.Roots
	}
	if err := first.Check(sg.Issued, nil); err != nil {
		t.Fatal(err)
	}
	if err := first.Check(sg.Expires, nil); !errors.Is(err, signing.ErrExpired) {
		t.Fatalf("at its expiry: %v", err)
	}

	next := *sg
	next.Previous = map[string]RootInfo{}
	for _, r := range roots {
		next.Previous[r.View] = r
	}
	enc, err := EncodeWith(cat, EncodeOptions{Sign: &next})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := catalog.Open(enc.Index)
	r := rootOf(t, enc, p, pub)
	seen := &signing.Seen{Catalog: first.Catalog, Sequence: first.Sequence, Payload: first.Payload}
	if r.Sequence != 2 || r.Previous != first.Payload || r.Check(sg.Issued, seen) != nil {
		t.Fatalf("the next root: sequence %d previous %s (%v)", r.Sequence, r.Previous, r.Check(sg.Issued, seen))
	}
	for _, c := range []struct {
		seen signing.Seen
		err  error
	}{
		{signing.Seen{Catalog: "https://other.example/", Sequence: 1, Payload: first.Payload}, signing.ErrOtherCatalog},
		{signing.Seen{Catalog: first.Catalog, Sequence: 3, Payload: first.Payload}, signing.ErrRollback},
		{signing.Seen{Catalog: first.Catalog, Sequence: 2, Payload: first.Payload}, signing.ErrRollback},
		{signing.Seen{Catalog: first.Catalog, Sequence: 1, Payload: strings.Repeat("0", 64)}, signing.ErrChain},
	} {
		if err := r.Check(sg.Issued, &c.seen); !errors.Is(err, c.err) {
			t.Errorf("after %+v: %v, want %v", c.seen, err, c.err)
		}
	}
	if _, err := signing.OpenRoot(objectOfDoc(t, enc, p), ed25519.NewKeyFromSeed(bytes.Repeat([]byte{8}, 32)).Public().(ed25519.PublicKey)); !errors.Is(err, signing.ErrSignature) {
		t.Fatalf("another key: %v", err)
	}

	plain, err := Encode(cat)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := catalog.Open(plain.Index)
	if _, ok := q.HTTPDoc(catalog.RootJSON, catalog.HTTPObject); ok || len(plain.Roots) > 0 {
		t.Fatal("a catalog not signed has a root")
	}
	if _, ok := q.ResourceByURI(catalog.RootURI); ok {
		t.Fatal("a catalog not signed has a root resource")
	}
}

// objectOfDoc is the root p serves over HTTP, unchecked.
func objectOfDoc(t *testing.T, enc *Encoded, p *catalog.Pack) []byte {
	cell, _ := p.HTTPDoc(catalog.RootJSON, catalog.HTTPObject)
	return objectOf(t, enc, cell)
}

// TestSignedRootViews: each view of a private catalog has its own root, naming exactly the
// skills the view lists, whole and sharded: never a skill the view hides, nor an unlisted
// one; each root recorded in Roots under its view.
func TestSignedRootViews(t *testing.T) {
	const policy = "access:\n  default: [skills:read]\n  rules:\n    - path: finance/\n      scopes: [skills:finance]\n    - path: drafts\n      listed: false\n"
	cat, problems, err := Load(accessFolder(policy), ".", Options{})
	if err != nil || HasErrors(problems) {
		t.Fatal(err, problems)
	}
	sg, pub := testSigner(t)
	for _, shard := range []int{0, 1} {
		enc, err := EncodeWith(cat, EncodeOptions{Sign: sg, ShardBytes: shard})
		if err != nil {
			t.Fatal(err)
		}
		p, err := catalog.OpenWith(enc.Index, func(r catalog.Ref) ([]byte, error) { return enc.Store.Object(r.Name) }, 0)
		if err != nil {
			t.Fatal(err)
		}
		payloads := map[string]bool{}
		for _, r := range enc.Roots {
			payloads[r.Payload] = true
		}
		seenFinance := false
		for i := range p.NumViews() {
			v := p.View(i)
			r := rootOf(t, enc, v.Listed, pub)
			var want []string
			for k := range v.Listed.NumSkills() {
				uri := string(v.Listed.Skill(k, catalog.SkillURI))
				for _, s := range cat.Skills {
					if skillURI(s) == uri {
						want = append(want, uri+" "+ManifestDigest(s))
					}
				}
			}
			slices.Sort(want)
			got := subjects(r)
			if !slices.Equal(got, want) {
				t.Errorf("shard %d, view %d: the root names\n%s\nwhere the view lists\n%s", shard, v.Mask, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for _, line := range got {
				if strings.Contains(line, "drafts/") {
					t.Errorf("view %d: the root names the unlisted %s", v.Mask, line)
				}
				seenFinance = seenFinance || strings.Contains(line, "finance/")
			}
			if !payloads[r.Payload] {
				t.Errorf("view %d: its root is not in Roots", v.Mask)
			}
		}
		if !seenFinance || p.NumViews() < 2 {
			t.Fatalf("%d views, finance in none: the test shows nothing", p.NumViews())
		}
	}
}

// TestSignedRootViewChain: a caller who sees every skill of a private catalog is served
// its own index's root; once a new scope set makes that view an index of its own, the
// view's root still follows the one before (sequence 2, naming it): the view is named by
// the scope sets it shows, not by which index serves it.
func TestSignedRootViewChain(t *testing.T) {
	const policy = "access:\n  default: [skills:read]\n  rules:\n    - path: finance/\n      scopes: [skills:finance]\n"
	first := accessFolder(policy)
	delete(first, "drafts/idea/SKILL.md")
	second := accessFolder(policy + "    - path: hr/\n      scopes: [skills:hr]\n")
	delete(second, "drafts/idea/SKILL.md")
	second["hr/pay/SKILL.md"] = ok("pay")
	sg, pub := testSigner(t)
	financeRoot := func(fsys fstest.MapFS, sg *Signer) (*signing.Root, []RootInfo) {
		cat, problems, err := Load(fsys, ".", Options{})
		if err != nil || HasErrors(problems) {
			t.Fatal(err, problems)
		}
		enc, err := EncodeWith(cat, EncodeOptions{Sign: sg})
		if err != nil {
			t.Fatal(err)
		}
		p, _ := catalog.Open(enc.Index)
		v, ok := p.ViewFor([]byte("skills:read skills:finance"))
		if !ok {
			t.Fatal("no view for the finance caller")
		}
		return rootOf(t, enc, v.Listed, pub), enc.Roots
	}
	r1, roots := financeRoot(first, sg)
	next := *sg
	next.Previous = map[string]RootInfo{}
	for _, r := range roots {
		next.Previous[r.View] = r
	}
	r2, _ := financeRoot(second, &next)
	if r2.Sequence != r1.Sequence+1 || r2.Previous != r1.Payload {
		t.Fatalf("the finance caller's root after a new scope set: sequence %d, previous %q; before: sequence %d, payload %s", r2.Sequence, r2.Previous, r1.Sequence, r1.Payload)
	}
	if err := r2.Check(sg.Issued, &signing.Seen{Catalog: r1.Catalog, Sequence: r1.Sequence, Payload: r1.Payload}); err != nil {
		t.Fatal(err)
	}
}
