package compile

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/examples"
	"github.com/skilledge/skilledge/catalog/internal/packtest"
	"github.com/skilledge/skilledge/catalog/search"
)

// shardFolders are catalogs whose shapes cut shards in awkward places: nested skills,
// names repeated under prefixes, paths whose URIs sort apart from their paths ("pdf" and
// "pdf-tools", whose URIs sort "skill://pdf", "skill://pdf-tools/…", "skill://pdf/…"), and
// paths that URIs escape.
func shardFolders() map[string]fs.FS {
	folder := func(paths ...string) fstest.MapFS {
		fsys := fstest.MapFS{}
		for _, p := range paths {
			name := p[strings.LastIndexByte(p, '/')+1:]
			fsys[p+"/SKILL.md"] = md("name: " + name + "\ndescription: the " + p + " skill\n")
			fsys[p+"/ref/notes.md"] = &fstest.MapFile{Data: []byte("notes of " + p)}
			fsys[p+"/deploy.tar.gz.md"] = &fstest.MapFile{Data: []byte("not an archive")}
		}
		return fsys
	}
	var shared []string
	for i := range 40 {
		shared = append(shared, fmt.Sprintf("team-%02d/deploy", i), fmt.Sprintf("team-%02d/alpha-%02d", i, 39-i))
	}
	return map[string]fs.FS{
		"examples": examples.FS,
		"awkward": folder("pdf", "pdf-tools", "pdf-tools/pdf", "pdf/nested", "a/deploy", "b/deploy",
			"b/deploy-x", "z.y/deploy", "z/deploy", "zz/only", "zz/x/deploy", "zzz"),
		// Escaped paths sort apart from the listing: "ünï" is listed last and its URIs
		// ("skill://%C3%BC…") sort first, so no cut is allowed before it.
		"escaped": folder("a/deploy", "cödé", "ünï/deploy", "b/deploy"),
		// One name under many prefixes, among names that sort in the listing's reverse: more
		// than a sort keeps in listing order by chance.
		"shared": folder(shared...),
	}
}

// TestShardedSameAsWhole encodes each folder whole and sharded, with shards as small as
// the cuts allow, and reads every row, list and lookup of both: a sharded index must
// answer every accessor as the whole index does.
func TestShardedSameAsWhole(t *testing.T) {
	for name, fsys := range shardFolders() {
		t.Run(name, func(t *testing.T) {
			cat, _, err := Load(fsys, ".", Options{SkipInvalid: true})
			if err != nil {
				t.Fatal(err)
			}
			whole, sharded, w := wholeAndSharded(t, cat)
			loads, distinct := 0, map[string]bool{}
			s, err := catalog.OpenWith(sharded.Index, func(r catalog.Ref) ([]byte, error) {
				loads++
				distinct[r.Name] = true
				return sharded.Store.Object(r.Name)
			}, 1)
			if err != nil {
				t.Fatal(err)
			}
			if !s.Sharded() || len(s.Parts()) < 3 { // a shard or more, and the chunks of names and prompts
				t.Fatalf("%d parts: the index is not sharded", len(s.Parts()))
			}
			if len(sharded.Index) >= len(whole.Index) {
				t.Errorf("the root is %d bytes, the whole index %d", len(sharded.Index), len(whole.Index))
			}
			packtest.CompareAll(t, w, s)
			// With a budget of one byte, parts read are let go and read again (all but the
			// escaped catalog's, whose one shard every request reads).
			t.Logf("%d parts, %d loads of %d", len(s.Parts()), loads, len(distinct))
			if name != "escaped" && loads <= len(distinct) {
				t.Errorf("%d loads of %d parts with a budget of one byte: nothing was evicted", loads, len(distinct))
			}
			// Every object the whole index names is in the sharded store, and every object
			// the sharded index names, its shards' included, is there too.
			for _, o := range w.Objects() {
				if _, err := sharded.Store.Object(o.Name); err != nil {
					t.Errorf("%s: %v", o.What, err)
				}
			}
			for _, o := range s.Objects() {
				if _, err := sharded.Store.Object(o.Name); err != nil {
					t.Errorf("%s: %v", o.What, err)
				}
			}
		})
	}
}

// wholeAndSharded encodes cat whole and sharded in shards as small as the cuts allow, and
// opens the whole index.
func wholeAndSharded(t *testing.T, cat *Catalog) (whole, sharded *Encoded, w *catalog.Pack) {
	t.Helper()
	whole, err := Encode(cat)
	if err != nil {
		t.Fatal(err)
	}
	if sharded, err = EncodeWith(cat, EncodeOptions{ShardBytes: 1}); err != nil {
		t.Fatal(err)
	}
	if w, err = catalog.Open(whole.Index); err != nil {
		t.Fatal(err)
	}
	return whole, sharded, w
}

// TestShardedMissing: without a Loader, a read of a shard not given panics with a
// *catalog.Missing naming it; once given (and only with the right bytes), it is read.
func TestShardedMissing(t *testing.T) {
	enc := encodeExamples(t, EncodeOptions{ShardBytes: 1})
	p, err := catalog.Open(enc.Index)
	if err != nil {
		t.Fatal(err)
	}
	read := func() (m *catalog.Missing) {
		defer func() {
			if r := recover(); r != nil {
				m = r.(*catalog.Missing)
			}
		}()
		p.Want(0, p.NumSkills())
		return nil
	}
	m := read()
	if m == nil || len(m.Refs) < 2 {
		t.Fatalf("Want of every skill asked for %v", m)
	}
	if err := p.Give(strings.Repeat("0", 64), []byte("not a shard")); !errors.Is(err, catalog.ErrNotWanted) {
		t.Errorf("Give of an object the index does not name: %v", err)
	}
	if err := p.Give(m.Refs[0].Name, []byte("short")); !errors.Is(err, catalog.ErrCorrupt) {
		t.Errorf("Give of bytes of another size: %v", err)
	}
	for _, r := range m.Refs {
		b, err := enc.Store.Object(r.Name)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Give(r.Name, b); err != nil {
			t.Fatal(err)
		}
	}
	if m := read(); m != nil {
		t.Fatalf("still missing %v", m.Refs)
	}
	if got := string(p.Skill(0, catalog.SkillPath)); got != "acme/billing/refunds" {
		t.Errorf("skill 0 is %q", got)
	}
}

// TestShardedMissingOnce: a Loader without the shards (the plugin's, before a host gives
// them) names each shard a batch needs once, however many skills of it the batch reads.
func TestShardedMissingOnce(t *testing.T) {
	enc := encodeExamples(t, EncodeOptions{ShardBytes: 1 << 20}) // every skill in one shard
	p, err := catalog.OpenWith(enc.Index, func(catalog.Ref) ([]byte, error) { return nil, catalog.ErrMissing }, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := func() (m *catalog.Missing) {
		defer func() { m, _ = recover().(*catalog.Missing) }()
		p.WantSkills([]int{0, 1, 2, 3, 4, 5})
		return nil
	}()
	if m == nil || len(m.Refs) != 1 {
		t.Fatalf("six skills of one shard asked for %v", m)
	}
}

// TestShardedPrivate: a private catalog sharded is a root whose views are roots of their
// own (the full view the root itself), and every view answers every accessor as the whole
// index's same view does; the views' shards share one budget with the root's.
func TestShardedPrivate(t *testing.T) {
	const policy = "access:\n  default: [skills:read]\n  rules:\n    - path: finance/\n      scopes: [skills:finance]\n    - path: drafts\n      listed: false\n"
	cat, problems, err := Load(accessFolder(policy), ".", Options{})
	if err != nil || HasErrors(problems) {
		t.Fatal(err, problems)
	}
	_, sharded, w := wholeAndSharded(t, cat)
	var loaded []string
	s, err := catalog.OpenWith(sharded.Index, func(r catalog.Ref) ([]byte, error) {
		loaded = append(loaded, r.Name)
		return sharded.Store.Object(r.Name)
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Sharded() || !s.Private() || s.Digest() != w.Digest() || len(s.Views()) != len(w.Views()) || len(w.Views()) < 2 {
		t.Fatalf("sharded: sharded %t, private %t, digest %s (whole %s), %d views (whole %d)", s.Sharded(), s.Private(), s.Digest(), w.Digest(), len(s.Views()), len(w.Views()))
	}
	for i, v := range w.Views() {
		sv := s.Views()[i]
		if sv.Mask != v.Mask || (sv.All == nil) != (v.All == nil) {
			t.Fatalf("view %d: mask %d, all %t; whole: mask %d, all %t", i, sv.Mask, sv.All != nil, v.Mask, v.All != nil)
		}
		if !sv.Listed.Sharded() {
			t.Errorf("view %d is not sharded", i)
		}
		t.Run(fmt.Sprintf("view %d listed", i), func(t *testing.T) { packtest.CompareAll(t, v.Listed, sv.Listed) })
		if v.All != nil {
			t.Run(fmt.Sprintf("view %d all", i), func(t *testing.T) { packtest.CompareAll(t, v.All, sv.All) })
		}
	}
	// Every object a view names is in the store, and the index names them all.
	names := map[string]bool{}
	for _, o := range s.Objects() {
		names[o.Name] = true
		if _, err := sharded.Store.Object(o.Name); err != nil {
			t.Errorf("%s: %v", o.What, err)
		}
	}
	for _, n := range loaded {
		if !names[n] {
			t.Errorf("a view read %s, which Objects does not name", n)
		}
	}
	// With a Loader that has nothing (the plugin's, before a host puts objects), Objects
	// names each view's index without reading it, and does not stop.
	empty, err := catalog.OpenWith(sharded.Index, func(catalog.Ref) ([]byte, error) { return nil, catalog.ErrMissing }, 0)
	if err != nil {
		t.Fatal(err)
	}
	views := 0
	for _, o := range empty.Objects() {
		if strings.HasPrefix(o.What, "the index of a view") {
			views++
		}
	}
	if views == 0 {
		t.Error("Objects of an index whose Loader has nothing names no view's index")
	}
	// A view's shard is given through the index a host holds, as the plugin's host gives it.
	p, err := catalog.Open(sharded.Index)
	if err != nil {
		t.Fatal(err)
	}
	missing := func(f func()) (m *catalog.Missing) {
		defer func() { m, _ = recover().(*catalog.Missing) }()
		f()
		return nil
	}
	give := func(m *catalog.Missing, what string) {
		t.Helper()
		if m == nil || len(m.Refs) == 0 {
			t.Fatalf("%s: nothing missing", what)
		}
		for _, r := range m.Refs {
			b, err := sharded.Store.Object(r.Name)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Give(r.Name, b[:len(b)-1]); err == nil {
				t.Fatalf("%s: the index takes a short object", what)
			}
			if err := p.Give(r.Name, b); err != nil {
				t.Fatalf("%s: the index refuses its object: %v", what, err)
			}
		}
	}
	var v catalog.View
	m := missing(func() { v = p.View(0) })
	give(m, "view 0's indexes")
	if len(m.Refs) != 2 || missing(func() { v = p.View(0) }) != nil {
		t.Fatalf("view 0 (with unlisted skills) asked for %d indexes, and is not read once given them", len(m.Refs))
	}
	give(missing(func() { v.Listed.SkillPath(0) }), "view 0's first shard")
	if got, want := string(v.Listed.SkillPath(0)), string(w.Views()[0].Listed.SkillPath(0)); got != want {
		t.Errorf("the view's first skill, given its shard: %q, want %q", got, want)
	}
	// The full view's listed index is in the store (unlisted skills leave it out); its
	// index of every skill is the root (Self).
	full := p.NumViews() - 1
	give(missing(func() { p.View(full) }), "the full view's listed index")
	if fv := p.View(full); fv.All == nil || fv.All.Digest() != w.Views()[full].All.Digest() {
		t.Error("the full view's index of every skill is not the root's")
	}
}

// FuzzShardedRoot opens damaged roots of a sharded index over a real store: a root that
// opens must answer every accessor, or stop with a *catalog.Missing or an error wrapping
// catalog.ErrCorrupt (a shard that is not what the root says: the plugin traps, and only
// the request fails), never an index out of range.
func FuzzShardedRoot(f *testing.F) {
	enc := encodeExamples(f, EncodeOptions{ShardBytes: 1, MaxPart: 512})
	f.Add(enc.Index)
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := catalog.OpenWith(b, func(r catalog.Ref) ([]byte, error) { return enc.Store.Object(r.Name) }, 1)
		if err != nil {
			return
		}
		fuzzRead(t, p)
	})
}

// FuzzShardedPrivate is FuzzShardedRoot of a private catalog's root, whose views' indexes
// are read from the store: every view read, and read as FuzzShardedRoot reads an index.
func FuzzShardedPrivate(f *testing.F) {
	const policy = "access:\n  default: [skills:read]\n  rules:\n    - path: finance/\n      scopes: [skills:finance]\n    - path: drafts\n      listed: false\n"
	cat, problems, err := Load(accessFolder(policy), ".", Options{})
	if err != nil || HasErrors(problems) {
		f.Fatal(err, problems)
	}
	enc, err := EncodeWith(cat, EncodeOptions{ShardBytes: 1, MaxPart: 512})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(enc.Index)
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := catalog.OpenWith(b, func(r catalog.Ref) ([]byte, error) { return enc.Store.Object(r.Name) }, 1)
		if err != nil {
			return
		}
		for i := range p.NumViews() {
			fuzzRecover(t, func() {
				v := p.View(i)
				for _, q := range []*catalog.Pack{v.Listed, v.All, v.Versions} {
					if q != nil {
						fuzzRead(t, q)
					}
				}
			})
		}
		fuzzRecover(t, func() { p.Refs(func(catalog.Ref) {}) })
	})
}

// fuzzRecover calls f, failing t on a panic other than a *catalog.Missing or an error
// wrapping catalog.ErrCorrupt (a part that is not what its root says: the plugin traps, and
// only the request fails).
func fuzzRecover(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		switch r := recover().(type) {
		case nil, *catalog.Missing:
		case error:
			if !errors.Is(r, catalog.ErrCorrupt) {
				t.Fatalf("panic: %v", r)
			}
		default:
			t.Fatalf("panic: %v", r)
		}
	}()
	f()
}

// fuzzRead reads every accessor of p (bounded), through fuzzRecover.
func fuzzRead(t *testing.T, p *catalog.Pack) {
	read := func(f func()) { fuzzRecover(t, f) }
	for i := range min(p.NumSkills(), 64) {
		read(func() {
			for f := range catalog.SkillFields {
				p.Skill(i, f)
			}
			p.Archives(i)
			p.SkillMD(i)
			p.SkillByURIRank(i)
			p.SkillByPathRank(i)
			p.SkillsByName(string(p.Skill(i, catalog.SkillName)))
			p.SkillByPrompt(string(p.Fallback(i, catalog.FallbackPrompt)))
		})
	}
	for i := range min(p.NumResources(), 256) {
		read(func() {
			uri := string(p.Resource(i, catalog.ResURI))
			p.ResourceByURI(uri)
			if r, ok := p.ReadByURI(uri); ok && !strings.HasPrefix(uri, catalog.Scheme+r.Skill) {
				t.Errorf("read of %q is of the skill %q, not a prefix of its path", uri, r.Skill)
			}
		})
	}
	read(func() { p.Refs(func(catalog.Ref) {}) })
	for d := range min(p.NumDirs(), 64) {
		read(func() {
			for k := range p.NumChildren(d) {
				p.ChildAt(d, k)
			}
			p.DirByURI(string(p.Dir(d, catalog.DirURI)))
		})
	}
	read(func() { p.SkillsUnder("skill://a"); p.SkillPathsWithPrefix("r") })
	read(func() {
		if ix, err := search.OpenSharded(p.Search(), p.NumSkills(), p.SearchChunk, p.SearchEntry); err == nil {
			q, _ := search.ParseQuery("release notes")
			var sc search.Scratch
			ix.Search(q, &sc, nil)
		}
	})
}

// encodeExamples encodes the built-in examples with opt.
func encodeExamples(tb testing.TB, opt EncodeOptions) *Encoded {
	tb.Helper()
	cat, _, err := Load(examples.FS, ".", Options{})
	if err != nil {
		tb.Fatal(err)
	}
	enc, err := EncodeWith(cat, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return enc
}

// TestRootRefs: RootRefs of a sharded index visits its parts and the objects its root
// names, and reads no shard; Refs reads every shard, and visits what they name as well.
func TestRootRefs(t *testing.T) {
	enc := encodeExamples(t, EncodeOptions{ShardBytes: 1})
	loads := 0
	p, err := catalog.OpenWith(enc.Index, func(r catalog.Ref) ([]byte, error) {
		loads++
		return enc.Store.Object(r.Name)
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	root := map[string]bool{}
	p.RootRefs(func(r catalog.Ref) { root[r.Name] = true })
	if loads != 0 {
		t.Fatalf("RootRefs read %d shards", loads)
	}
	for _, r := range p.Parts() {
		if !root[r.Name] {
			t.Errorf("RootRefs does not visit part %s", r.Name)
		}
	}
	all := map[string]bool{}
	p.Refs(func(r catalog.Ref) { all[r.Name] = true })
	if loads == 0 || len(all) <= len(root) {
		t.Fatalf("Refs read %d shards and visited %d objects, RootRefs %d", loads, len(all), len(root))
	}
	for name := range root {
		if !all[name] {
			t.Errorf("RootRefs visits %s, which Refs does not", name)
		}
	}
}

// TestIndexEstimateViews: a private catalog's estimate counts each view's index (build's
// auto shards on it), not only its skills once.
func TestIndexEstimateViews(t *testing.T) {
	const policy = "access:\n  default: [skills:read]\n  rules:\n    - path: finance/\n      scopes: [skills:finance]\n"
	private, _, err := Load(accessFolder(policy), ".", Options{})
	if err != nil {
		t.Fatal(err)
	}
	public, _, err := Load(accessFolder(""), ".", Options{})
	if err != nil || public.Access != nil {
		t.Fatal(err, public.Access)
	}
	if p, q := IndexEstimate(private), IndexEstimate(public); p != 2*q {
		t.Errorf("a catalog of two views is estimated %d bytes, the same skills public %d", p, q)
	}
}
