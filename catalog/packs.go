package catalog

import "fmt"

// Packed objects.
//
// A catalog of many skills has hundreds of thousands of store objects: more files than
// Workers static assets allow (20,000 on the free plan, 100,000 on the paid). The build
// may then pack them: an index's TablePacks lists packs, store objects like any other,
// each the bytes of many objects one after another, and a reference field of a packed
// object names its pack and offset too ("SIZE NAME PACK OFFSET", Ref.Cell). A host reads
// the object's SIZE bytes at OFFSET of the pack, by range, and checks them against NAME
// (edge/wire, "References"). The packs of a sharded index are its root's, and its shards'
// references name them; the shards themselves, the key and postings chunks, are never
// packed (a host reads them whole, by name: NEED).
//
// Open checks that every packed reference names a pack of the index (its root's, for a
// shard) and lies within it, so that an accessor never fails.

// TablePacks is the table of an index's packs: one row a pack, in order.
const TablePacks uint32 = 22

// Fields of TablePacks.
const (
	PackObject = iota // ref: the pack, an object of the store (never itself packed)
	PackFields
)

// Packs returns the packs packed references of p name (a shard's are its root's), in
// order. The slice must not be modified.
func (p *Pack) Packs() []Ref { return p.packs }

// openPacks decodes p's TablePacks into p.packs: every row a reference to an object that
// is not itself packed.
func (p *Pack) openPacks() error {
	t := p.tables[TablePacks]
	if t.rows > 0 && t.fields < PackFields {
		return fmt.Errorf("%w: the pack table is short", ErrCorrupt)
	}
	for r := range t.rows {
		ref, err := ParseRef(p.cell(TablePacks, r, PackObject))
		if err != nil || ref.Packed {
			return fmt.Errorf("%w: pack %d: a bad reference", ErrCorrupt, r)
		}
		p.packs = append(p.packs, ref)
	}
	return nil
}

// OpenPart opens b, a shard a build has just made, as Open does, but before its root, which
// lists the packs, exists: its packed references are checked for form only. Only a build
// uses it, on the bytes it made.
func OpenPart(b []byte) (*Pack, error) { return openIn(b, anyPacks, false) }

// anyPacks is the root of OpenPart's shards: one with no packs, whose shards' packed
// references are not checked against them.
var anyPacks = &Pack{}

// PackName returns the name of pack n of p, which a packed reference p gave names (Open
// has checked it exists).
func (p *Pack) PackName(n uint32) string { return p.packs[n].Name }
