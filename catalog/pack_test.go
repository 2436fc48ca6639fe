package catalog

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// testRef is a well-formed object reference field.
var testRef = []byte("12 " + strings.Repeat("ab", 32))

// testPack builds a small index with two skills, three files and two directories.
func testPack() []byte { return testWriter().Bytes() }

// testWriter holds the tables of testPack: two skills, b and a.
func testWriter() *Writer {
	w := &Writer{}
	res := func(uri string) [][]byte {
		return [][]byte{[]byte(uri), []byte(`{"uri":"` + uri + `"}`), []byte(`{"uri":"` + uri + `","text":`), testRef,
			[]byte("text/markdown"), []byte("sha256:" + strings.Repeat("ab", 32)), []byte("12"), testRef, nil}
	}
	w.Table(TableResources, ResFields, [][][]byte{res("skill://b/SKILL.md"), res("skill://a/SKILL.md"), res("skill://a/x/y.md")})
	skill := func(path string, required string, files ...uint32) [][]byte {
		return [][]byte{[]byte(path), []byte(path), []byte("skill://" + path + "/SKILL.md"), []byte(`{}`), []byte(`{}`), []byte(`""`),
			[]byte(`"description":"","instructions":`), []byte("3 " + strings.Repeat("cd", 32)), []byte(`,"files":[]`), nil,
			[]byte(`{"uri":"skill://` + path + `/SKILL.md"}`), []byte(required), U32s(files), nil, nil}
	}
	w.Table(TableSkills, SkillFields, [][][]byte{skill("b", "", 0), skill("a", "x\n", 1, 2)})
	w.Table(TableDirs, DirFields, [][][]byte{
		{[]byte("skill://a"), []byte(`{}`), U32s([]uint32{1, DirBit | 1})},
		{[]byte("skill://a/x"), []byte(`{}`), U32s([]uint32{2})},
	})
	w.Table(TableIndex, IndexFields, [][][]byte{{U32s([]uint32{1, 2, 0}), U32s([]uint32{1, 0}), U32s([]uint32{1, 0}), U32s([]uint32{3}), U32s([]uint32{1, 0})}})
	w.Table(TableMeta, MetaFields, [][][]byte{{[]byte("abcdef0123456789"), []byte("test"), nil}})
	w.Table(TableHTTP, HTTPFields, [][][]byte{{[]byte("/x/index.json"), []byte("application/json"), []byte("sha256:" + strings.Repeat("ef", 32)), []byte("2 " + strings.Repeat("ef", 32))}})
	fallback := func(prompt string, md uint32) [][]byte {
		return [][]byte{[]byte(`- x`), []byte(`{}`), []byte(prompt), []byte(`{"name":"` + prompt + `"}`), []byte(`""`), U32s([]uint32{md})}
	}
	w.Table(TableFallback, FallbackFields, [][][]byte{fallback("b", 0), fallback("a", 1)})
	w.Table(TableSite, SiteFields, [][][]byte{{[]byte(`[]`), U32s([]uint32{1, 0}), U32s([]uint32{1, 0}), []byte("<p>\x00S</p>"), []byte("4 " + strings.Repeat("12", 32)), []byte("default-src 'none'")}})
	return w
}

// emptySite adds the site tables of a catalog with no skills to w.
func emptySite(w *Writer) {
	w.Table(TableFallback, FallbackFields, nil)
	w.Table(TableSite, SiteFields, [][][]byte{{[]byte(`[]`), nil, nil, nil, []byte("0 " + strings.Repeat("00", 32)), nil}})
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
	for _, tt := range []struct {
		prompt string
		want   int
		ok     bool
	}{{"a", 1, true}, {"b", 0, true}, {"c", 0, false}, {"", 0, false}} {
		if i, ok := p.SkillByPrompt(tt.prompt); i != tt.want || ok != tt.ok {
			t.Errorf("SkillByPrompt(%q) = %d, %v; want %d, %v", tt.prompt, i, ok, tt.want, tt.ok)
		}
	}
	if p.SkillMD(1) != 1 || p.NumHTTPSkills() != 2 || p.HTTPSkill(0) != 1 {
		t.Errorf("SkillMD(1) = %d, NumHTTPSkills = %d, HTTPSkill(0) = %d", p.SkillMD(1), p.NumHTTPSkills(), p.HTTPSkill(0))
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
	for _, tt := range []struct {
		prefix string
		want   []int
	}{{"skill://", []int{1, 0}}, {"skill://a/", []int{1}}, {"skill://a", []int{1}}, {"skill://a/x/", nil}, {"skill://c/", nil}, {"", []int{1, 0}}} {
		var got []int
		lo, hi := p.SkillsUnder(tt.prefix)
		for k := lo; k < hi; k++ {
			got = append(got, p.SkillByURIRank(k))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("SkillsUnder(%q) = %v, want %v", tt.prefix, got, tt.want)
		}
	}
	for _, tt := range []struct {
		prefix string
		want   []int
	}{{"", []int{1, 0}}, {"a", []int{1}}, {"b", []int{0}}, {"a/", nil}, {"c", nil}} {
		var got []int
		lo, hi := p.SkillPathsWithPrefix(tt.prefix)
		for k := lo; k < hi; k++ {
			got = append(got, p.SkillByPathRank(k))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("SkillPathsWithPrefix(%q) = %v, want %v", tt.prefix, got, tt.want)
		}
	}
	if i, ok := p.SkillByPath("a"); !ok || i != 1 || string(p.SkillPath(i)) != "a" {
		t.Errorf("SkillByPath(a) = %d, %v", i, ok)
	}
	if _, ok := p.SkillByPath(""); ok {
		t.Error("SkillByPath(\"\") found a skill")
	}
	if lo, hi := p.SkillFilesWithPrefix(1, "skill://a/x"); hi-lo != 1 || p.SkillFileAt(1, lo) != 2 {
		t.Errorf("SkillFilesWithPrefix(a, x) = %d, %d", lo, hi)
	}
	if lo, hi := p.SkillFilesWithPrefix(1, "skill://a/"); hi-lo != 2 {
		t.Errorf("SkillFilesWithPrefix(a, \"\") = %d, %d", lo, hi)
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
		p.SkillByPath(string(p.SkillPath(i)))
		lo, hi := p.SkillFilesWithPrefix(i, "skill://")
		for k := lo; k < hi; k++ {
			p.Resource(p.SkillFileAt(i, k), ResURI)
		}
	}
	for _, prefix := range []string{"", "skill://", "skill://a/"} {
		lo, hi := p.SkillsUnder(prefix)
		for k := lo; k < hi; k++ {
			p.Skill(p.SkillByURIRank(k), SkillListed)
		}
		lo, hi = p.SkillPathsWithPrefix(prefix)
		for k := lo; k < hi; k++ {
			p.SkillPath(p.SkillByPathRank(k))
		}
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
	p.HTTPDoc("/x/index.json", HTTPObject)
	for _, o := range p.Objects() {
		if !IsObjectName(o.Name) {
			panic("Objects returned a bad name")
		}
	}
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
	f.Add([]byte(MagicPrivate))
	private := testWriter()
	private.Private = true
	private.Table(TablePolicy, PolicyFields, [][][]byte{{[]byte("a"), []byte("a b")}})
	private.Table(TableAccess, AccessFields, [][][]byte{{[]byte("a b"), []byte("1")}, {[]byte("a"), nil}})
	f.Add(withViews(private, 0, 1, 3).Bytes())
	private.Table(TableViews, ViewFields, [][][]byte{{u32s(1), testWriter().Bytes(), nil}, {u32s(3), []byte(Self + strings.Repeat("0a", 32)), nil}})
	f.Add(private.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		if p, err := Open(b); err == nil {
			touchAll(p)
			for _, v := range p.Views() {
				touchAll(v.Listed)
				if v.All != nil {
					touchAll(v.All)
				}
			}
			for _, g := range []string{"", "a", "a b", "b"} {
				p.ViewFor([]byte(g))
			}
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
	w.Table(TableIndex, IndexFields, [][][]byte{{nil, nil, nil, U32s([]uint32{0}), nil}})
	w.Table(TableMeta, MetaFields, [][][]byte{{[]byte("e3b0c442"), []byte("test"), nil}})
	w.Table(TableHTTP, HTTPFields, nil)
	emptySite(&w)
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

func TestObjects(t *testing.T) {
	p, err := Open(testPack())
	if err != nil {
		t.Fatal(err)
	}
	got := p.Objects()
	want := []ObjectUse{
		{Ref{Name: strings.Repeat("12", 32), Size: 4}, "the catalog page's skills"},
		{Ref{Name: strings.Repeat("ab", 32), Size: 12}, "skill://b/SKILL.md"},
		{Ref{Name: strings.Repeat("cd", 32), Size: 3}, "skill://b/SKILL.md body as skills/get {name} sends it"},
		{Ref{Name: strings.Repeat("ef", 32), Size: 2}, "/x/index.json"},
	}
	if len(got) != len(want) {
		t.Fatalf("Objects = %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Objects[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestParseRef(t *testing.T) {
	name := strings.Repeat("0f", 32)
	for _, tt := range []struct {
		cell string
		want Ref
		ok   bool
	}{
		{"0 " + name, Ref{Name: name}, true},
		{"1048576 " + name, Ref{Name: name, Size: 1 << 20}, true},
		{"9007199254740991 " + name, Ref{Name: name, Size: 1<<53 - 1}, true},
		{"5 " + name + " 0 0", Ref{Name: name, Size: 5, Packed: true}, true},
		{"5 " + name + " 4294967295 9007199254740991", Ref{Name: name, Size: 5, Packed: true, Pack: 1<<32 - 1, Offset: 1<<53 - 1}, true},
		{"5 " + name + " 4294967296 0", Ref{}, false},
		{"5 " + name + " 0 9007199254740992", Ref{}, false},
		{"5 " + name + " 01 0", Ref{}, false},
		{"5 " + name + " 1 00", Ref{}, false},
		{"5 " + name + " 1", Ref{}, false},
		{"5 " + name + " 1 ", Ref{}, false},
		{"5 " + name + "  1 2", Ref{}, false},
		{"5 " + name + " 1  2", Ref{}, false},
		{"5 " + name + " 1 2 ", Ref{}, false},
		{"5 " + name + " -1 2", Ref{}, false},
		{"5 " + name + " ", Ref{}, false},
		{"9007199254740992 " + name, Ref{}, false},
		{"01 " + name, Ref{}, false},
		{"-1 " + name, Ref{}, false},
		{" " + name, Ref{}, false},
		{"1  " + name, Ref{}, false},
		{"1 " + strings.ToUpper(name), Ref{}, false},
		{"1 " + name[:63], Ref{}, false},
		{"1 " + name + "0", Ref{}, false},
		{"", Ref{}, false},
	} {
		got, err := ParseRef([]byte(tt.cell))
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseRef(%q) = %v, %v", tt.cell, got, err)
		}
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Errorf("ParseRef(%q) error %v does not wrap ErrCorrupt", tt.cell, err)
		}
		if tt.ok && string(got.Cell()) != tt.cell {
			t.Errorf("Cell() = %q, want %q", got.Cell(), tt.cell)
		}
		if tt.ok && RefOf([]byte(tt.cell)) != tt.want {
			t.Errorf("RefOf(%q) = %v, want %v", tt.cell, RefOf([]byte(tt.cell)), tt.want)
		}
	}
}

func TestOpenOldFormat(t *testing.T) {
	_, err := Open([]byte("SKLPACK\x01\x00\x00\x00\x00"))
	if !errors.Is(err, ErrOldFormat) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Open(format 1) = %v", err)
	}
}

// FuzzRefOf: RefOf, which trusts the fields Open checked (ParseRef checks, then calls it),
// splits every valid reference into the size and name it was written from, and never
// panics on anything else.
func FuzzRefOf(f *testing.F) {
	name := strings.Repeat("ab", 32)
	for _, s := range []string{"14 " + name, "0 " + name, "9007199254740991 " + name, "x", "", " " + name, "01 " + name} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, cell []byte) {
		got := RefOf(cell)
		if _, err := ParseRef(cell); err == nil && string(got.Cell()) != string(cell) {
			t.Fatalf("RefOf(%q) = %+v, which writes back as %q", cell, got, got.Cell())
		}
	})
}

// FuzzParseRef: a reference field ParseRef accepts is rendered again by Cell byte for byte,
// and RefOf, which only splits, reads the same reference from it.
func FuzzParseRef(f *testing.F) {
	name := strings.Repeat("0f", 32)
	for _, seed := range []string{"0 " + name, "12 " + name + " 3 45", "1 " + name + " 01 2", "1 " + name + " 1 ", ""} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, cell []byte) {
		r, err := ParseRef(cell)
		if err != nil {
			return
		}
		if got := r.Cell(); string(got) != string(cell) {
			t.Fatalf("ParseRef(%q).Cell() = %q", cell, got)
		}
		if got := RefOf(cell); got != r {
			t.Fatalf("RefOf(%q) = %+v, ParseRef %+v", cell, got, r)
		}
	})
}
