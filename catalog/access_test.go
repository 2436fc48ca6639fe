package catalog

import "testing"

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
	ok := base()
	ok.Table(TablePolicy, PolicyFields, [][][]byte{{[]byte("a"), []byte("a b")}})
	ok.Table(TableAccess, AccessFields, [][][]byte{{[]byte("a b"), []byte("1")}, {[]byte("a"), nil}})
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
