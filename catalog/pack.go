package catalog

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
)

// Pack is a decoded view over index bytes (the file is still called catalog.pack). It holds
// no copies: every []byte it returns aliases the buffer given to Open, which must not
// change afterwards. A Pack is safe for concurrent reads.
type Pack struct {
	buf []byte
	// tables holds the tables of the kinds this reader knows, by kind: every field read
	// looks its table up, which a map made a hash lookup per read inside the plugin.
	tables [tableKinds]table
	// private is set for an index with MagicPrivate: a catalog with an access policy.
	private bool
	// sets and views are a private catalog's views (views.go).
	sets  [][]byte
	views []View
	// anyPacks is set for a part opened by OpenPart and the indexes nested in it: their
	// packed references are checked for form only.
	anyPacks bool
	// viewParts, in a sharded private index, has for each view whose indexes are in the
	// store and not read yet their references (viewparts.go); nil entries for the others.
	// viewRoots are the references of every view's index in the store, read or not.
	viewParts []*viewPart
	viewRoots []Ref
	// history is the index of the older versions of the skills (versions.go), nil
	// without history.
	older *Pack
	// digest, when set, is the Digest of a view that reads a private index's own tables
	// (Self), in place of the private index's.
	digest string
	// sh is set for a sharded root: where its skills are, and the shards it holds
	// (shards.go).
	sh *sharded
	// packs are the packs its packed references name (packs.go): its TablePacks, or, for
	// a shard, its root's.
	packs []Ref
}

// tableKinds bounds the table kinds this reader knows (TableMeta … TableReads); tables
// of other kinds, from newer writers, are checked and skipped.
const tableKinds = 24

type table struct {
	rows, fields uint32
	cells        []byte // rows*fields*8 bytes of (offset, length)
}

// Open validates b as an index and returns a view over it. It checks the magic, every
// table header and every cell's range, that the tables and fields this reader needs are
// present, and that every row number and object reference is well formed, so that later
// accessors cannot go out of bounds or fail. Open does O(cells) work and allocates only
// the Pack (and a set of the table kinds it does not know, if there are any). Errors
// wrap ErrCorrupt; a format-1 pack (file contents inside, from skilledge before the
// content store) also wraps ErrOldFormat.
func Open(b []byte) (*Pack, error) { return openIn(b, nil, false) }

// openIn opens b as Open does, as a shard of root or an index nested in it (the older
// versions, a view) when root is not nil: its packed references name root's packs, and it
// has none of its own. With known set, b is known to be bytes a build made and checked (a
// shard whose SHA-256 the host checked against the name the root gives it): its tables are
// read, and their cells not checked again.
func openIn(b []byte, root *Pack, known bool) (*Pack, error) {
	p, present, err := parse(b)
	if err != nil {
		return nil, err
	}
	if root != nil {
		if present[TablePacks] {
			return nil, fmt.Errorf("%w: a shard with packs of its own", ErrCorrupt)
		}
		p.packs, p.anyPacks = root.packs, root == anyPacks || root.anyPacks
	} else if err := p.openPacks(); err != nil {
		return nil, err
	}
	// A sharded root holds no skills of its own (shards.go): it has no TableSkills, so that
	// a reader before shards refuses it.
	sharded := present[TableShards]
	for _, need := range [...]struct{ kind, fields, rows uint32 }{
		{TableMeta, MetaFields, 1}, {TableSkills, SkillFields, 0}, {TableResources, ResFields, 0},
		{TableDirs, DirFields, 0}, {TableIndex, IndexFields, 1}, {TableHTTP, HTTPFields, 0},
		{TableFallback, FallbackFields, 0}, {TableSite, SiteFields, 1},
	} {
		t := p.tables[need.kind]
		if sharded && need.kind == TableSkills {
			if present[TableSkills] {
				return nil, fmt.Errorf("%w: a sharded index with skills of its own", ErrCorrupt)
			}
			continue
		}
		if !present[need.kind] || t.fields < need.fields || t.rows < need.rows {
			return nil, fmt.Errorf("%w: table %d missing or short", ErrCorrupt, need.kind)
		}
	}
	if !known {
		if err := p.check(!p.anyPacks); err != nil {
			return nil, err
		}
	}
	if sharded {
		if p.tables[TableDirs].rows > 0 {
			return nil, fmt.Errorf("%w: a sharded index with directories of its own", ErrCorrupt)
		}
		if err := p.openSharded(); err != nil {
			return nil, err
		}
	}
	if err := p.openVersions(); err != nil {
		return nil, err
	}
	if p.private {
		if err := p.checkAccess(); err != nil {
			return nil, err
		}
		if err := p.openViews(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// check verifies what Open promises of p's cells: every row number, site template, object
// reference (and, with packed, where each packed one lies) and search table well formed.
func (p *Pack) check(packed bool) error {
	if err := p.checkIndexes(); err != nil {
		return err
	}
	if err := p.checkSite(); err != nil {
		return err
	}
	if err := p.checkRefs(packed); err != nil {
		return err
	}
	return p.checkSearch()
}

// parse checks b's magic, table headers and cell ranges, and returns the tables of the
// kinds this reader knows, and which are present.
func parse(b []byte) (*Pack, [tableKinds]bool, error) {
	var present [tableKinds]bool
	if len(b) >= 8 && string(b[:8]) == magicV1 {
		return nil, present, fmt.Errorf("%w: %w", ErrCorrupt, ErrOldFormat)
	}
	if len(b) < 12 || string(b[:8]) != Magic && string(b[:8]) != MagicPrivate {
		return nil, present, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	n := u32(b, 8)
	if uint64(n)*16 > uint64(len(b)-12) {
		return nil, present, fmt.Errorf("%w: %d tables do not fit", ErrCorrupt, n)
	}
	p := &Pack{buf: b, private: string(b[:8]) == MagicPrivate}
	var others map[uint32]bool // tables of kinds this reader does not know
	for i := uint32(0); i < n; i++ {
		h := 12 + int(i)*16
		kind, rows, fields, off := u32(b, h), u32(b, h+4), u32(b, h+8), u32(b, h+12)
		size := uint64(rows) * uint64(fields) * 8
		if uint64(off)+size > uint64(len(b)) {
			return nil, present, fmt.Errorf("%w: table %d cells out of range", ErrCorrupt, kind)
		}
		if kind < tableKinds && present[kind] || others[kind] {
			return nil, present, fmt.Errorf("%w: table %d twice", ErrCorrupt, kind)
		}
		t := table{rows: rows, fields: fields, cells: b[off : uint64(off)+size]}
		for c := 0; c < len(t.cells); c += 8 {
			if uint64(u32(t.cells, c))+uint64(u32(t.cells, c+4)) > uint64(len(b)) {
				return nil, present, fmt.Errorf("%w: table %d cell %d out of range", ErrCorrupt, kind, c/8)
			}
		}
		if kind < tableKinds {
			p.tables[kind], present[kind] = t, true
		} else {
			if others == nil {
				others = map[uint32]bool{}
			}
			others[kind] = true
		}
	}
	return p, present, nil
}

// refFields are the fields holding object references, by table.
var refFields = [...]struct {
	kind  uint32
	field int
}{
	{TableResources, ResReadValue}, {TableResources, ResObject},
	{TableSkills, SkillInstructions}, {TableHTTP, HTTPObject}, {TableSite, SitePageSkills},
}

// checkRefs verifies that every reference field parses and, with packed, that every packed
// reference names one of p.packs and lies within it: one pass over the references, which
// a Worker's start makes over its whole index before its first answer.
func (p *Pack) checkRefs(packed bool) error {
	var outside bool
	var inPacks func(Ref)
	if packed {
		inPacks = func(r Ref) {
			if r.Packed && (int64(r.Pack) >= int64(len(p.packs)) || r.Offset > p.packs[r.Pack].Size-r.Size) {
				outside = true
			}
		}
	}
	for _, rf := range refFields {
		for r := uint32(0); r < p.tables[rf.kind].rows; r++ {
			if err := ParseRefs(p.cell(rf.kind, r, rf.field), inPacks); err != nil {
				return fmt.Errorf("%w (table %d row %d)", err, rf.kind, r)
			}
			if outside {
				return fmt.Errorf("%w: table %d row %d: a packed object outside the packs", ErrCorrupt, rf.kind, r)
			}
		}
	}
	return nil
}

// checkIndexes verifies that every stored row number names an existing row, so the
// accessors never index out of range.
func (p *Pack) checkIndexes() error {
	check := func(list []byte, limit uint32, what string) error {
		if len(list)%4 != 0 {
			return fmt.Errorf("%w: %s list length", ErrCorrupt, what)
		}
		for i := 0; i < len(list); i += 4 {
			if u32(list, i) >= limit {
				return fmt.Errorf("%w: %s row out of range", ErrCorrupt, what)
			}
		}
		return nil
	}
	nres, nskills, ndirs := p.tables[TableResources].rows, p.tables[TableSkills].rows, p.tables[TableDirs].rows
	if len(p.cell(TableIndex, 0, IndexResByURI)) != int(nres)*4 ||
		len(p.cell(TableIndex, 0, IndexSkillsByURI)) != int(nskills)*4 ||
		len(p.cell(TableIndex, 0, IndexSkillsByName)) != int(nskills)*4 ||
		len(p.cell(TableIndex, 0, IndexSkillsByPath)) != int(nskills)*4 {
		return fmt.Errorf("%w: index size", ErrCorrupt)
	}
	if err := check(p.cell(TableIndex, 0, IndexResByURI), nres, "resource index"); err != nil {
		return err
	}
	if err := check(p.cell(TableIndex, 0, IndexSkillsByURI), nskills, "skill index"); err != nil {
		return err
	}
	if err := check(p.cell(TableIndex, 0, IndexSkillsByName), nskills, "skill name index"); err != nil {
		return err
	}
	if err := check(p.cell(TableIndex, 0, IndexSkillsByPath), nskills, "skill path index"); err != nil {
		return err
	}
	if l := p.cell(TableIndex, 0, IndexListed); len(l) != 4 || u32(l, 0) > nres {
		return fmt.Errorf("%w: listed count", ErrCorrupt)
	}
	for i := uint32(0); i < nskills; i++ {
		if l := p.cell(TableSkills, i, SkillArchives); len(l) != 0 && len(l) != 8 {
			return fmt.Errorf("%w: skill archives", ErrCorrupt)
		} else if err := check(l, nres, "skill archives"); err != nil {
			return err
		}
		uri := string(p.cell(TableSkills, i, SkillURI))
		if !strings.HasPrefix(uri, Scheme) || !strings.HasSuffix(uri, "/"+SkillMD) || len(uri) <= len(Scheme)+len(SkillMD)+1 {
			return fmt.Errorf("%w: skill URI %q", ErrCorrupt, uri)
		}
		files := p.cell(TableSkills, i, SkillFiles)
		if err := check(files, nres, "skill files"); err != nil {
			return err
		}
		dir := uri[:len(uri)-len(SkillMD)]
		for k := 0; k < len(files); k += 4 {
			if !strings.HasPrefix(string(p.cell(TableResources, u32(files, k), ResURI)), dir) {
				return fmt.Errorf("%w: a file of skill %q is not under it", ErrCorrupt, uri)
			}
		}
	}
	for d := uint32(0); d < ndirs; d++ {
		list := p.cell(TableDirs, d, DirChildren)
		if len(list)%4 != 0 {
			return fmt.Errorf("%w: directory children list length", ErrCorrupt)
		}
		for i := 0; i < len(list); i += 4 {
			c := u32(list, i)
			if (c&DirBit != 0 && c&^DirBit >= ndirs) || (c&DirBit == 0 && c >= nres) {
				return fmt.Errorf("%w: directory child out of range", ErrCorrupt)
			}
		}
	}
	return nil
}

func u32(b []byte, off int) uint32 { return binary.LittleEndian.Uint32(b[off:]) }

// cell returns field f of row r of table kind. The caller guarantees the indexes.
func (p *Pack) cell(kind, r uint32, f int) []byte {
	t := p.tables[kind]
	c := (int(r)*int(t.fields) + f) * 8
	off, n := u32(t.cells, c), u32(t.cells, c+4)
	return p.buf[off : off+n : off+n]
}

// Bytes returns the whole index.
func (p *Pack) Bytes() []byte { return p.buf }

// RefOf decodes a reference field (ResReadValue, ResObject, SkillInstructions,
// HTTPObject, SitePageSkills) returned by an accessor. Open has checked every such field
// with ParseRef, so RefOf only splits it: checking the 64 hex digits again cost every
// resources/read inside the plugin. Given anything else it returns the zero Ref, or a
// Ref of no meaning; it never reads outside cell.
func RefOf(cell []byte) Ref {
	n := 0
	for n < len(cell) && n < 17 && cell[n] != ' ' {
		n++
	}
	if n < 1 || n > 16 || len(cell) < n+65 {
		return Ref{}
	}
	var size int64
	for _, c := range cell[:n] {
		size = size*10 + int64(c-'0')
	}
	r := Ref{Name: unsafeString(cell[n+1 : n+65]), Size: size}
	if rest := cell[n+65:]; len(rest) > 1 {
		r.Packed = true
		i := 1
		for ; i < len(rest) && rest[i] != ' '; i++ {
			r.Pack = r.Pack*10 + uint32(rest[i]-'0')
		}
		for _, c := range rest[min(i+1, len(rest)):] {
			r.Offset = r.Offset*10 + int64(c-'0')
		}
	}
	return r
}

// ObjectUse is one object of the content store an index refers to, with a description of
// what it holds for messages ("skill://a/x.png", "skill://a/x.png as resources/read
// sends it", …).
type ObjectUse struct {
	Ref
	What string
}

// Objects returns every object the index refers to, its views' included, each once,
// sorted by name; What describes its first use in table order. Hosts use it to check a
// store is complete; the build, to write one. A packed object is not an object of the
// store but part of one: Objects lists its pack (packs.go) instead.
func (p *Pack) Objects() []ObjectUse {
	seen := map[string]bool{}
	var out []ObjectUse
	for i, r := range p.packs {
		if !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, ObjectUse{Ref{Name: strings.Clone(r.Name), Size: r.Size}, fmt.Sprintf("pack %d of the store's objects", i)})
		}
	}
	add := func(cell []byte, what func() string) {
		EachRef(cell, func(r Ref) {
			if !r.Packed && !seen[r.Name] {
				seen[r.Name] = true
				out = append(out, ObjectUse{Ref{Name: strings.Clone(r.Name), Size: r.Size}, what()})
			}
		})
	}
	p.eachRef(add)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Refs calls f with every object reference of the index, its views' included, in table
// order; an object referred to more than once is visited as often. It collects, copies
// and sorts nothing, so it costs a fraction of Objects: hosts use it for the start-up
// check of a store, and Objects only to describe what is wrong. r.Name aliases the index.
// As in Objects, a packed object is visited as its pack, once.
func (p *Pack) Refs(f func(r Ref)) {
	for _, r := range p.packs {
		f(r)
	}
	p.eachRef(func(cell []byte, _ func() string) {
		EachRef(cell, func(r Ref) {
			if !r.Packed {
				f(r)
			}
		})
	})
}

// RootRefs is Refs of a sharded index without reading its shards: the objects its root
// names, its packs, and its parts (the shards and chunks themselves), each visited as Refs
// visits them. Of an index that is not sharded it is Refs.
func (p *Pack) RootRefs(f func(r Ref)) {
	if p.sh == nil {
		p.Refs(f)
		return
	}
	for _, r := range p.packs {
		f(r)
	}
	each := func(cell []byte, _ func() string) {
		EachRef(cell, func(r Ref) {
			if !r.Packed {
				f(r)
			}
		})
	}
	for _, q := range p.indexes() {
		q.refs(each)
	}
	for _, r := range p.viewRoots {
		f(r)
	}
	for _, r := range p.sh.roots {
		for _, pt := range r.parts {
			f(pt.ref)
		}
	}
}

// eachRef calls f with the cell of every object reference of p, its views and its older
// versions, and a function describing the reference's use (called only when needed: it
// allocates).
func (p *Pack) eachRef(f func(cell []byte, what func() string)) {
	if p.viewParts != nil && p.sh.load != nil {
		for i := range p.views { // every view's indexes the Loader has
			missed(func() { p.View(i) })
		}
	}
	for _, r := range p.viewRoots { // without a Loader, of a view not read: not what it names
		f(r.Cell(), func() string { return "the index of a view" })
	}
	seen := map[*sharded]bool{}
	for _, q := range p.indexes() {
		q.refs(f)
		if q.sh != nil && !seen[q.sh] {
			seen[q.sh] = true
			q.sh.refs(f)
		}
	}
}

// indexes returns p and the indexes nested in it: the older versions, each view's, and
// theirs; of the views in the store, those read.
func (p *Pack) indexes() []*Pack {
	out := []*Pack{p}
	if p.older != nil {
		out = append(out, p.older)
	}
	for _, v := range p.views {
		for _, q := range []*Pack{v.Listed, v.All, v.Versions} {
			if q != nil {
				out = append(out, q)
			}
		}
	}
	return out
}

// refs calls f with the cell of every object reference of p's own tables, in table order.
func (p *Pack) refs(f func(cell []byte, what func() string)) {
	for r := range p.tables[TableResources].rows {
		f(p.cell(TableResources, r, ResObject), func() string { return string(p.cell(TableResources, r, ResURI)) })
		f(p.cell(TableResources, r, ResReadValue), func() string { return string(p.cell(TableResources, r, ResURI)) + " as resources/read sends it" })
	}
	for r := range p.tables[TableSkills].rows {
		f(p.cell(TableSkills, r, SkillInstructions), func() string { return string(p.cell(TableSkills, r, SkillURI)) + " body as skills/get {name} sends it" })
	}
	t := p.tables[TableHTTP]
	for r := uint32(0); r < t.rows; r++ {
		f(p.cell(TableHTTP, r, HTTPObject), func() string { return string(p.cell(TableHTTP, r, HTTPPath)) })
	}
	f(p.Site(SitePageSkills), func() string { return "the catalog page's skills" })
}

// Digest returns the hex SHA-256 identifying the catalog content.
func (p *Pack) Digest() string {
	if p.digest != "" {
		return p.digest
	}
	return string(p.cell(TableMeta, 0, MetaDigest))
}

// NumSkills returns the number of skills, which are numbered 0..NumSkills-1 in listing order.
func (p *Pack) NumSkills() int {
	if p.sh != nil {
		return int(p.sh.skills[p.sh.n])
	}
	return int(p.tables[TableSkills].rows)
}

// Skill returns field f (a Skill* constant) of skill i. It panics if i is out of range.
func (p *Pack) Skill(i int, f int) []byte {
	if p.sh != nil {
		q, _, l := p.skillAt(i)
		return q.Skill(l, f)
	}
	return p.cell(TableSkills, p.row(TableSkills, i), f)
}

// NumResources returns the number of served files, numbered in resources/list order.
func (p *Pack) NumResources() int {
	if p.sh != nil {
		return int(p.sh.files[p.sh.n]+p.sh.unlisted[p.sh.n]) + p.sh.rootRes
	}
	return int(p.tables[TableResources].rows)
}

// Resource returns field f (a Res* constant) of resource i. It panics if i is out of range.
func (p *Pack) Resource(i int, f int) []byte {
	if p.sh != nil {
		q, r := p.resourceAt(i)
		return q.cell(TableResources, r, f)
	}
	return p.cell(TableResources, p.row(TableResources, i), f)
}

// NumListed returns how many resources resources/list lists: resources 0..NumListed-1.
func (p *Pack) NumListed() int {
	if p.sh != nil {
		return int(p.sh.files[p.sh.n]) + p.sh.rootListed
	}
	return int(u32(p.cell(TableIndex, 0, IndexListed), 0))
}

// NumFiles returns how many skill files the pack serves: the listed resources but the
// last, which is skill://index.json.
func (p *Pack) NumFiles() int { return max(p.NumListed()-1, 0) }

// Archives returns the resources of skill i's .tar.gz and .zip archives; ok is false when
// the pack has none for it.
func (p *Pack) Archives(i int) (tgz, zip int, ok bool) {
	if p.sh != nil {
		q, k, l := p.skillAt(i)
		if tgz, zip, ok = q.Archives(l); ok {
			tgz, zip = p.sh.globalRes(k, tgz), p.sh.globalRes(k, zip)
		}
		return tgz, zip, ok
	}
	l := p.Skill(i, SkillArchives)
	if len(l) != 8 {
		return 0, 0, false
	}
	return int(u32(l, 0)), int(u32(l, 4)), true
}

// InPathOrder reports whether the skills' listing order is their path order: the skill of
// path rank k (SkillByPathRank) is skill k, so that whether a skill's path begins with a
// prefix is whether its row is in the range SkillPathsWithPrefix gives, with no read of
// it (MetaPathOrder; false for an index written before the field).
func (p *Pack) InPathOrder() bool {
	return p.tables[TableMeta].fields > MetaPathOrder && string(p.cell(TableMeta, 0, MetaPathOrder)) == "1"
}

// TrustRoot returns the deployment's DVS trust root, or "".
func (p *Pack) TrustRoot() string { return string(p.cell(TableMeta, 0, MetaTrustRoot)) }

// HTTPDoc returns field f (an HTTP* constant) of the document served at path; ok is false
// when there is none.
func (p *Pack) HTTPDoc(path string, f int) (b []byte, ok bool) {
	t := p.tables[TableHTTP]
	for r := uint32(0); r < t.rows; r++ {
		if string(p.cell(TableHTTP, r, HTTPPath)) == path {
			return p.cell(TableHTTP, r, f), true
		}
	}
	return nil, false
}

// NumDirs returns the number of directory resources.
func (p *Pack) NumDirs() int {
	if p.sh != nil {
		return int(p.sh.dirs[p.sh.n])
	}
	return int(p.tables[TableDirs].rows)
}

// Dir returns field f (a Dir* constant) of directory i. It panics if i is out of range.
func (p *Pack) Dir(i int, f int) []byte {
	if p.sh != nil {
		q, _, l := p.dirAt(i)
		return q.Dir(l, f)
	}
	return p.cell(TableDirs, p.row(TableDirs, i), f)
}

// Child is one entry of a directory listing.
type Child struct {
	Dir   bool // Index is a directory (Dir), else a resource (Resource)
	Index int
}

// NumChildren returns how many direct children directory d has.
func (p *Pack) NumChildren(d int) int { return len(p.Dir(d, DirChildren)) / 4 }

// ChildAt returns the k-th direct child of directory d, in URI order.
func (p *Pack) ChildAt(d, k int) Child {
	if p.sh != nil {
		q, s, l := p.dirAt(d)
		c := q.ChildAt(l, k)
		if c.Dir {
			c.Index += int(p.sh.dirs[s])
		} else {
			c.Index = p.sh.globalRes(s, c.Index)
		}
		return c
	}
	c := u32(p.Dir(d, DirChildren), k*4)
	return Child{Dir: c&DirBit != 0, Index: int(c &^ DirBit)}
}

func (p *Pack) row(kind uint32, i int) uint32 {
	if i < 0 || uint32(i) >= p.tables[kind].rows {
		panic(fmt.Sprintf("catalog: row %d of table %d out of range", i, kind))
	}
	return uint32(i)
}

// ResourceByURI returns the resource whose URI is exactly uri. ok is false when none is.
func (p *Pack) ResourceByURI(uri string) (i int, ok bool) {
	if p.sh != nil {
		if i, ok := p.search(p.cell(TableIndex, 0, IndexResByURI), uri, TableResources, ResURI); ok {
			return p.sh.rootResNum(i), true
		}
		k := p.sh.shardFor(p.sh.firstURI, uri)
		if k < 0 {
			return 0, false
		}
		if i, ok = p.sh.get(k).ResourceByURI(uri); ok {
			i = p.sh.globalRes(k, i)
		}
		return i, ok
	}
	return p.search(p.cell(TableIndex, 0, IndexResByURI), uri, TableResources, ResURI)
}

// SkillByURI returns the skill whose SKILL.md URI is exactly uri. ok is false when none is.
func (p *Pack) SkillByURI(uri string) (i int, ok bool) {
	if p.sh != nil {
		k := p.sh.shardFor(p.sh.firstURI, uri)
		if k < 0 {
			return 0, false
		}
		i, ok = p.sh.get(k).SkillByURI(uri)
		return i + int(p.sh.skills[k]), ok
	}
	return p.search(p.cell(TableIndex, 0, IndexSkillsByURI), uri, TableSkills, SkillURI)
}

// SkillsByName returns the skills whose index name (SkillName, IndexNames) is exactly
// name: none or one, as the builder gives each skill a name of its own.
func (p *Pack) SkillsByName(name string) []int {
	if p.sh != nil {
		var out []int
		rows := p.keyRows(p.sh.names, name)
		for k := 0; k < len(rows); k += 4 {
			out = append(out, int(u32(rows, k)))
		}
		return out
	}
	index := p.cell(TableIndex, 0, IndexSkillsByName)
	n := len(index) / 4
	at := func(k int) string { return string(p.cell(TableSkills, u32(index, k*4), SkillName)) }
	var out []int
	for k := sort.Search(n, func(k int) bool { return at(k) >= name }); k < n && at(k) == name; k++ {
		out = append(out, int(u32(index, k*4)))
	}
	return out
}

// SkillPath returns the path of skill i as it appears in its URIs (escaped, "acme/billing/refunds"):
// SkillURI without the scheme and "/SKILL.md". Open has checked that every SkillURI has
// that shape.
func (p *Pack) SkillPath(i int) []byte {
	u := p.Skill(i, SkillURI)
	return u[len(Scheme) : len(u)-len(SkillMD)-1]
}

// SkillsUnder returns the skills whose SKILL.md URI starts with prefix, as the range
// [lo, hi) of ranks in SKILL.md URI order (SkillByURIRank): a prefix ending in "/" gives
// the skills under a URI, segment by segment. Two binary searches.
func (p *Pack) SkillsUnder(prefix string) (lo, hi int) {
	if p.sh != nil {
		return p.prefixRanks(p.sh.firstURI, prefix, uriBelow)
	}
	return p.prefixRange(p.cell(TableIndex, 0, IndexSkillsByURI), prefix, func(r uint32) []byte { return p.cell(TableSkills, r, SkillURI) })
}

// SkillByURIRank returns the skill at rank k of SKILL.md URI order.
func (p *Pack) SkillByURIRank(k int) int {
	if p.sh != nil {
		s := p.sh.shardOf(p.sh.skills, k)
		return p.sh.get(s).SkillByURIRank(k-int(p.sh.skills[s])) + int(p.sh.skills[s])
	}
	return int(u32(p.cell(TableIndex, 0, IndexSkillsByURI), k*4))
}

// SkillPathsWithPrefix returns the skills whose path (SkillPath) starts with prefix, as
// the range [lo, hi) of ranks in path order (SkillByPathRank). Two binary searches.
func (p *Pack) SkillPathsWithPrefix(prefix string) (lo, hi int) {
	if p.sh != nil {
		return p.prefixRanks(p.sh.firstPath, prefix, pathBelow)
	}
	return p.prefixRange(p.cell(TableIndex, 0, IndexSkillsByPath), prefix, func(r uint32) []byte { return p.SkillPath(int(r)) })
}

// SkillByPathRank returns the skill at rank k of path order.
func (p *Pack) SkillByPathRank(k int) int {
	if p.sh != nil {
		s := p.sh.shardOf(p.sh.skills, k)
		return p.sh.get(s).SkillByPathRank(k-int(p.sh.skills[s])) + int(p.sh.skills[s])
	}
	return int(u32(p.cell(TableIndex, 0, IndexSkillsByPath), k*4))
}

// SkillByPath returns the skill whose path (SkillPath) is exactly path.
func (p *Pack) SkillByPath(path string) (i int, ok bool) {
	// The exact match sorts first among the paths it is a prefix of.
	if lo, hi := p.SkillPathsWithPrefix(path); lo < hi {
		if i := p.SkillByPathRank(lo); string(p.SkillPath(i)) == path {
			return i, true
		}
	}
	return 0, false
}

// SkillFilesWithPrefix returns the files of skill i whose URI starts with prefix, as the
// range [lo, hi) of ranks in the skill's file list (SkillFileAt), which is sorted by URI.
func (p *Pack) SkillFilesWithPrefix(i int, prefix string) (lo, hi int) {
	if p.sh != nil {
		q, _, l := p.skillAt(i)
		return q.SkillFilesWithPrefix(l, prefix)
	}
	return p.prefixRange(p.Skill(i, SkillFiles), prefix, func(r uint32) []byte { return p.cell(TableResources, r, ResURI) })
}

// SkillFileAt returns the resource of the file at rank k of skill i's file list.
func (p *Pack) SkillFileAt(i, k int) int {
	if p.sh != nil {
		q, s, l := p.skillAt(i)
		return p.sh.globalRes(s, q.SkillFileAt(l, k))
	}
	return int(u32(p.Skill(i, SkillFiles), k*4))
}

// prefixRange finds, in list (uint32 rows sorted by key), the ranks [lo, hi) of the rows
// whose key starts with prefix. The rows with a prefix are contiguous in key order, so two
// binary searches find them.
func (p *Pack) prefixRange(list []byte, prefix string, key func(uint32) []byte) (lo, hi int) {
	n := len(list) / 4
	lo = sort.Search(n, func(k int) bool { return string(key(u32(list, k*4))) >= prefix })
	hi = lo + sort.Search(n-lo, func(k int) bool { return !strings.HasPrefix(unsafeString(key(u32(list, (lo+k)*4))), prefix) })
	return lo, hi
}

// DirByURI returns the directory resource whose URI is exactly uri (no trailing slash).
func (p *Pack) DirByURI(uri string) (i int, ok bool) {
	if p.sh != nil {
		k := p.sh.shardFor(p.sh.firstURI, uri)
		if k < 0 {
			return 0, false
		}
		i, ok = p.sh.get(k).DirByURI(uri)
		return i + int(p.sh.dirs[k]), ok
	}
	n := p.NumDirs()
	i = sort.Search(n, func(k int) bool { return string(p.cell(TableDirs, uint32(k), DirURI)) >= uri })
	if i < n && string(p.cell(TableDirs, uint32(i), DirURI)) == uri {
		return i, true
	}
	return 0, false
}

func (p *Pack) search(index []byte, key string, kind uint32, field int) (int, bool) {
	n := len(index) / 4
	// The index never changes: viewing its cells as strings copies nothing (a conversion
	// would allocate inside the plugin on every lookup).
	at := func(k int) string { return unsafeString(p.cell(kind, u32(index, k*4), field)) }
	k := sort.Search(n, func(k int) bool { return at(k) >= key })
	if k < n && at(k) == key {
		return int(u32(index, k*4)), true
	}
	return 0, false
}
