package catalog

import (
	"errors"
	"testing"
)

// testPack builds a small pack with two skills, three files and two directories.
func testPack() []byte {
	var w Writer
	res := func(uri string) [][]byte {
		return [][]byte{[]byte(uri), []byte(`{"uri":"` + uri + `"}`), []byte(`{}`), []byte("text/markdown"), []byte("sha256:00"), []byte("1")}
	}
	w.Table(TableResources, ResFields, [][][]byte{res("skill://b/SKILL.md"), res("skill://a/SKILL.md"), res("skill://a/x/y.md")})
	skill := func(path string) [][]byte {
		return [][]byte{[]byte(path), []byte(path), []byte("skill://" + path + "/SKILL.md"), []byte(`{}`), []byte(`{}`), []byte(`""`), nil, []byte(`"description":""`), nil}
	}
	w.Table(TableSkills, SkillFields, [][][]byte{skill("b"), skill("a")})
	w.Table(TableDirs, DirFields, [][][]byte{
		{[]byte("skill://a"), []byte(`{}`), U32s([]uint32{1, DirBit | 1})},
		{[]byte("skill://a/x"), []byte(`{}`), U32s([]uint32{2})},
	})
	w.Table(TableIndex, IndexFields, [][][]byte{{U32s([]uint32{1, 2, 0}), U32s([]uint32{1, 0}), U32s([]uint32{1, 0}), U32s([]uint32{3})}})
	w.Table(TableMeta, MetaFields, [][][]byte{{[]byte("abcdef0123456789"), []byte("test"), nil}})
	w.Table(TableHTTP, HTTPFields, [][][]byte{{[]byte("/x/index.json"), []byte("application/json"), []byte("{}"), []byte("sha256:00")}})
	return w.Bytes()
}

func TestPackLookups(t *testing.T) {
	p, err := Open(testPack())
	if err != nil {
		t.Fatal(err)
	}
	if p.NumSkills() != 2 || p.NumResources() != 3 || p.NumDirs() != 2 {
		t.Fatalf("counts %d %d %d", p.NumSkills(), p.NumResources(), p.NumDirs())
	}
	for _, tt := range []struct {
		uri  string
		want int
		ok   bool
	}{{"skill://a/SKILL.md", 1, true}, {"skill://b/SKILL.md", 0, true}, {"skill://a/x/y.md", 2, true}, {"skill://a/x", 0, false}, {"", 0, false}, {"zzz", 0, false}} {
		if i, ok := p.ResourceByURI(tt.uri); i != tt.want || ok != tt.ok {
			t.Errorf("ResourceByURI(%q) = %d, %v; want %d, %v", tt.uri, i, ok, tt.want, tt.ok)
		}
	}
	if i, ok := p.SkillByURI("skill://a/SKILL.md"); !ok || i != 1 {
		t.Errorf("SkillByURI = %d, %v", i, ok)
	}
	if got := p.SkillsByName("a"); len(got) != 1 || got[0] != 1 {
		t.Errorf("SkillsByName(a) = %v", got)
	}
	if got := p.SkillsByName("c"); len(got) != 0 {
		t.Errorf("SkillsByName(c) = %v", got)
	}
	if d, ok := p.DirByURI("skill://a"); !ok || p.NumChildren(d) != 2 || p.ChildAt(d, 1) != (Child{Dir: true, Index: 1}) || p.ChildAt(d, 0) != (Child{Index: 1}) {
		t.Errorf("DirByURI(skill://a) = %d, %v", d, ok)
	}
	if _, ok := p.DirByURI("skill://a/x/y.md"); ok {
		t.Error("a file is not a directory")
	}
	if p.Digest() != "abcdef0123456789" {
		t.Errorf("Digest = %q", p.Digest())
	}
}

func TestOpenRejectsCorruption(t *testing.T) {
	good := testPack()
	// Every truncation and every single-byte change in the header and cell area must be
	// either rejected or still yield a pack whose accessors stay in bounds.
	for n := 0; n < len(good); n++ {
		if _, err := Open(good[:n]); err == nil && n < len(good) {
			// A truncated pack may only open if nothing it references was cut off.
			p, _ := Open(good[:n])
			touchAll(p)
		}
	}
	for i := 0; i < len(good); i++ {
		for _, v := range []byte{0, 0xff, good[i] + 1} {
			b := append([]byte(nil), good...)
			b[i] = v
			if p, err := Open(b); err == nil {
				touchAll(p)
			} else if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Open error %v does not wrap ErrCorrupt", err)
			}
		}
	}
}

// touchAll calls every accessor on every row; it panics if any is out of bounds.
func touchAll(p *Pack) {
	for i := 0; i < p.NumSkills(); i++ {
		for f := 0; f < SkillFields; f++ {
			p.Skill(i, f)
		}
		p.SkillByURI(string(p.Skill(i, SkillURI)))
		p.SkillsByName(string(p.Skill(i, SkillName)))
	}
	for i := 0; i < p.NumResources(); i++ {
		for f := 0; f < ResFields; f++ {
			p.Resource(i, f)
		}
		p.ResourceByURI(string(p.Resource(i, ResURI)))
	}
	for d := 0; d < p.NumDirs(); d++ {
		for k := 0; k < p.NumChildren(d); k++ {
			c := p.ChildAt(d, k)
			if c.Dir {
				p.Dir(c.Index, DirURI)
			} else {
				p.Resource(c.Index, ResURI)
			}
		}
		p.DirByURI(string(p.Dir(d, DirURI)))
	}
	p.Digest()
	p.NumListed()
	p.TrustRoot()
	p.HTTPDoc("/x/index.json", HTTPBody)
	for i := 0; i < p.NumSkills(); i++ {
		if tgz, zip, ok := p.Archives(i); ok {
			p.Resource(tgz, ResURI)
			p.Resource(zip, ResURI)
		}
	}
}

// FuzzOpen checks that no input makes Open or the accessors panic.
func FuzzOpen(f *testing.F) {
	f.Add(testPack())
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		if p, err := Open(b); err == nil {
			touchAll(p)
		}
	})
}

func TestWriterDeterministic(t *testing.T) {
	a, b := testPack(), testPack()
	if string(a) != string(b) {
		t.Fatal("Writer output differs between runs")
	}
}

// TestEmptyPack checks that a catalog with no skills encodes to a pack that opens.
func TestEmptyPack(t *testing.T) {
	var w Writer
	w.Table(TableSkills, SkillFields, nil)
	w.Table(TableResources, ResFields, nil)
	w.Table(TableDirs, DirFields, nil)
	w.Table(TableIndex, IndexFields, [][][]byte{{nil, nil, nil, U32s([]uint32{0})}})
	w.Table(TableMeta, MetaFields, [][][]byte{{[]byte("e3b0c442"), []byte("test"), nil}})
	w.Table(TableHTTP, HTTPFields, nil)
	p, err := Open(w.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if p.NumSkills() != 0 || p.NumResources() != 0 || p.NumDirs() != 0 {
		t.Fatal("empty pack has rows")
	}
	if _, ok := p.ResourceByURI("skill://a/SKILL.md"); ok {
		t.Fatal("found a resource in an empty pack")
	}
}
