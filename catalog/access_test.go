package catalog

import (
	"slices"
	"strings"
	"testing"
)

func TestHasScopes(t *testing.T) {
	for _, c := range []struct {
		granted, needed string
		want            bool
	}{
		{"", "", true},
		{"a", "", true},
		{"", "a", false},
		{"a b c", "a c", true},
		{"a b", "a c", false},
		{"ab", "a", false},
		{"a", "ab", false},
		{"skills:read skills:finance", "skills:finance skills:read", true},
	} {
		if got := HasScopes([]byte(c.granted), []byte(c.needed)); got != c.want {
			t.Errorf("HasScopes(%q, %q) = %t", c.granted, c.needed, got)
		}
	}
}

func TestScopeList(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"", true}, {"a", true}, {"a b", true}, {"a  b", false}, {" a", false}, {"a ", false},
		{"a\"b", false}, {"a\\b", false}, {"a\tb", false}, {"é", false},
	} {
		if got := scopeList([]byte(c.in)); got != c.want {
			t.Errorf("scopeList(%q) = %t", c.in, got)
		}
	}
}

// TestOpenPrivate: a private index without its access tables, or with a row too few, or
// a scope list out of form, does not open.
func TestOpenPrivate(t *testing.T) {
	base := func() *Writer {
		w := testWriter()
		w.Private = true
		return w
	}
	withAccess := func() *Writer {
		w := base()
		w.Table(TablePolicy, PolicyFields, [][][]byte{{[]byte("a"), []byte("a b")}})
		w.Table(TableAccess, AccessFields, [][][]byte{{[]byte("a b"), []byte("1")}, {[]byte("a"), nil}})
		return w
	}
	ok := base()
	ok.Table(TablePolicy, PolicyFields, [][][]byte{{[]byte("a"), []byte("a b")}})
	ok.Table(TableAccess, AccessFields, [][][]byte{{[]byte("a b"), []byte("1")}, {[]byte("a"), nil}})
	withViews(ok, 0, 1, 3)
	p, err := Open(ok.Bytes())
	if err != nil || !p.Private() || string(p.SkillScopes(0)) != "a b" || !p.SkillListed(0) || p.SkillListed(1) || string(p.DefaultScopes()) != "a" {
		t.Fatalf("a private index: %v", err)
	}
	// The same tables under Magic: a public index, whatever tables it holds.
	ok.Private = false
	if p, err = Open(ok.Bytes()); err != nil || p.Private() || !p.SkillListed(1) || p.SkillScopes(0) != nil {
		t.Fatalf("a public index with access tables: %v", err)
	}
	for name, w := range map[string]*Writer{
		"no access tables": base(),
		"a row too few": func() *Writer {
			w := base()
			w.Table(TablePolicy, PolicyFields, [][][]byte{{nil, nil}})
			w.Table(TableAccess, AccessFields, [][][]byte{{nil, []byte("1")}})
			return w
		}(),
		"a scope list out of form": func() *Writer {
			w := base()
			w.Table(TablePolicy, PolicyFields, [][][]byte{{[]byte("a  b"), nil}})
			w.Table(TableAccess, AccessFields, [][][]byte{{nil, []byte("1")}, {nil, nil}})
			return w
		}(),
		"no view tables":        withAccess(),
		"views out of order":    withViews(withAccess(), 1, 0, 3),
		"no full view":          withViews(withAccess(), 0, 1),
		"a mask past the lists": withViews(withAccess(), 0, 1, 3, 4),
		"a view that is private": func() *Writer {
			w := withViews(withAccess(), 0, 1, 3)
			w.Table(TableViews, ViewFields, [][][]byte{{u32s(3), withAccess().Bytes(), nil}})
			return w
		}(),
		"a view that is corrupt": func() *Writer {
			w := withViews(withAccess(), 0, 1, 3)
			w.Table(TableViews, ViewFields, [][][]byte{{u32s(3), []byte("SKLPACK"), nil}})
			return w
		}(),
		"listed neither 1 nor empty": func() *Writer {
			w := base()
			w.Table(TablePolicy, PolicyFields, [][][]byte{{nil, nil}})
			w.Table(TableAccess, AccessFields, [][][]byte{{nil, []byte("yes")}, {nil, nil}})
			return w
		}(),
	} {
		if _, err := Open(w.Bytes()); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
}

// withViews gives w the view tables of two scope lists, "a" and "a b", with a view of
// testWriter's catalog at each of masks.
func withViews(w *Writer, masks ...uint32) *Writer {
	w.Table(TableScopeSets, SetFields, [][][]byte{{[]byte("a")}, {[]byte("a b")}})
	var rows [][][]byte
	for _, m := range masks {
		rows = append(rows, [][]byte{u32s(m), testWriter().Bytes(), nil})
	}
	w.Table(TableViews, ViewFields, rows)
	return w
}

func u32s(v ...uint32) []byte { return U32s(v) }

// TestViewFor: a caller's view is the mask of the scope lists its scopes hold.
func TestViewFor(t *testing.T) {
	w := testWriter()
	w.Private = true
	w.Table(TablePolicy, PolicyFields, [][][]byte{{[]byte("a"), []byte("a b")}})
	w.Table(TableAccess, AccessFields, [][][]byte{{[]byte("a b"), []byte("1")}, {[]byte("a"), nil}})
	p, err := Open(withViews(w, 0, 1, 3).Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		granted string
		mask    uint32
		ok      bool
	}{
		{"", 0, true}, {"b", 0, true}, {"a", 1, true}, {"b a", 3, true}, {"a b c", 3, true}, {"ab", 0, true},
	} {
		v, ok := p.ViewFor([]byte(c.granted))
		if ok != c.ok || v.Mask != c.mask || ok && v.Listed == nil {
			t.Errorf("ViewFor(%q) = %d, %t; want %d, %t", c.granted, v.Mask, ok, c.mask, c.ok)
		}
	}
	if vs := p.Views(); len(vs) != 3 || vs[2].Mask != 3 {
		t.Errorf("Views() = %v", vs)
	}
	// A view a build would never leave out: the caller gets none.
	q, err := Open(withViews(w, 0, 3).Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := q.ViewFor([]byte("a")); ok {
		t.Error("a mask without a view has one")
	}
	if _, ok := (&Pack{}).ViewFor(nil); ok {
		t.Error("a public catalog has views")
	}
}

func TestClosedMasks(t *testing.T) {
	for _, c := range []struct {
		base  []string
		sets  [][]string
		limit int
		want  []uint32
	}{
		{nil, nil, 64, []uint32{0}},
		{nil, [][]string{{"a"}, {"a", "b"}}, 64, []uint32{0, 1, 3}},
		{[]string{"a"}, [][]string{{"a"}, {"a", "b"}}, 64, []uint32{1, 3}}, // every caller holds a
		{nil, [][]string{{}, {"a"}}, 64, []uint32{1, 3}},
		{nil, [][]string{{"a"}, {"b"}}, 64, []uint32{0, 1, 2, 3}},
		{nil, [][]string{{"a", "b"}, {"a"}, {"b"}}, 64, []uint32{0, 2, 4, 7}},
		{[]string{"b"}, [][]string{{"a", "b"}, {"a"}, {"b"}}, 64, []uint32{4, 7}},
		{nil, [][]string{{"a"}, {"b"}, {"c"}}, 3, []uint32{0, 1, 2, 3}},
	} {
		if got := ClosedMasks(c.base, c.sets, c.limit); !slices.Equal(got, c.want) {
			t.Errorf("ClosedMasks(%q, %q, %d) = %v, want %v", c.base, c.sets, c.limit, got, c.want)
		}
	}
}

// TestViewSelf: a view whose index is Self reads the private index's own tables, as a
// public index with no views of its own.
func TestViewSelf(t *testing.T) {
	w := testWriter()
	w.Private = true
	w.Table(TablePolicy, PolicyFields, [][][]byte{{[]byte("a"), []byte("a b")}})
	w.Table(TableAccess, AccessFields, [][][]byte{{[]byte("a b"), []byte("1")}, {[]byte("a"), nil}})
	withViews(w, 1)
	digest := strings.Repeat("0a", 32)
	w.Table(TableViews, ViewFields, [][][]byte{{u32s(1), testWriter().Bytes(), nil}, {u32s(3), []byte(Self + digest), []byte(Self + digest)}})
	p, err := Open(w.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	full := p.Views()[1]
	if full.Listed.Private() || full.Listed.Views() != nil || full.Listed.NumSkills() != p.NumSkills() || &full.Listed.Bytes()[0] != &p.Bytes()[0] || full.All.Private() {
		t.Fatalf("the full view: private %t, %d skills", full.Listed.Private(), full.Listed.NumSkills())
	}
	if full.Listed.Digest() != digest || p.Digest() == digest {
		t.Fatalf("digests: the view's %q, the index's %q", full.Listed.Digest(), p.Digest())
	}
	for _, bad := range []string{"", "0A" + digest[2:], digest[1:], digest + "0"} {
		w.Table(TableViews, ViewFields, [][][]byte{{u32s(1), testWriter().Bytes(), nil}, {u32s(3), []byte(Self + bad), nil}})
		if _, err := Open(w.Bytes()); err == nil {
			t.Errorf("Self with digest %q opened", bad)
		}
	}
}
