package compile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/skilledge/skilledge/catalog"
)

// Packing: the objects of a catalog of many skills laid out in packs (catalog/packs.go).
//
// An object is placed in a pack as the encoder makes it, so that the reference field naming
// it can name its pack and offset at once; its bytes go to the store as any object's, and
// the packs are written from them when the index is done (closePacks), each named by its
// SHA-256 like any object. The index's parts (shards, key and postings chunks), which hosts
// read whole by name, are never placed.
//
// Why are the packs cut where an object's name starts with "00", once a pack is half full,
// rather than at a fixed size? A pack is named by its bytes, and a deployment uploads the
// packs its store lacks. Cut at a fixed size, a skill that grows by a byte shifts every
// object after it, and every later pack is new: a one-line change uploads the catalog again.
// Cut where the content says (a name starting "00" comes about once in 256 objects), the
// cuts fall at the same objects as before once past the change, and the packs after the
// one or two it touches are the same bytes; PackMax still bounds a pack.

// PackMax is the largest a pack grows to (an object larger than that is a pack alone): 64
// MiB, so that a catalog of 50,000 skills is a few dozen uploads, each well within what one
// command puts in R2.
const PackMax = 64 << 20

// packPlan is a pack being laid out: its objects, in order, and their size together.
type packPlan struct {
	names []string
	size  int64
}

// place lays out the object ref names in the pack under way (or a new one) and returns
// its packed reference; an object placed already keeps its place.
func (s *Store) place(ref catalog.Ref) catalog.Ref {
	if r, ok := s.placed[ref.Name]; ok {
		return r
	}
	n := len(s.plan)
	if n == 0 || s.plan[n-1].size > 0 && (s.plan[n-1].size+ref.Size > s.packMax ||
		s.plan[n-1].size >= s.packMax/2 && ref.Name[:2] == "00") {
		s.plan = append(s.plan, &packPlan{})
		n++
	}
	p := s.plan[n-1]
	r := catalog.Ref{Name: ref.Name, Size: ref.Size, Packed: true, Pack: uint32(n - 1), Offset: p.size}
	p.names = append(p.names, ref.Name)
	p.size += ref.Size
	s.placed[ref.Name] = r
	return r
}

// closePacks writes the packs laid out so far as objects of the store, in order, and
// returns their rows of catalog.TablePacks (none when nothing was placed). The objects
// they hold leave the store, unless one is needed whole too (an index part, whole).
func (s *Store) closePacks() ([][][]byte, error) {
	var rows [][][]byte
	for i, p := range s.plan {
		ref, err := s.writePack(p, i)
		if err != nil {
			return nil, err
		}
		rows = append(rows, [][]byte{catalog.PackObject: ref.Cell()})
	}
	for name, r := range s.placed {
		if s.whole[name] || s.packs[name] { // a pack of one object is that object
			continue
		}
		if s.dir != "" {
			if err := os.Remove(filepath.Join(s.dir, name)); err != nil {
				return nil, err
			}
		}
		delete(s.objects, name)
		delete(s.sizes, name)
		delete(s.what, name)
		s.size -= r.Size
	}
	s.plan, s.placed = nil, map[string]catalog.Ref{}
	return rows, nil
}

// writePack puts the bytes of p's objects, one after another, in the store as pack i.
func (s *Store) writePack(p *packPlan, i int) (catalog.Ref, error) {
	what := fmt.Sprintf("pack %d of the store's objects (%d objects)", i, len(p.names))
	ref, err := s.addStream(what, func(w io.Writer) error {
		for _, name := range p.names {
			r, err := s.open(name)
			if err != nil {
				return err
			}
			_, err = io.Copy(w, r)
			r.Close()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		s.packs[ref.Name] = true
	}
	return ref, err
}

// Packs returns the names of the store's packs, sorted: objects a host reads by range,
// kept apart from the others (WritePacks).
func (s *Store) Packs() []string {
	names := make([]string, 0, len(s.packs))
	for n := range s.packs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// IsPack reports whether the object name is a pack.
func (s *Store) IsPack(name string) bool { return s.packs[name] }

// WritePacks writes the store's packs into dir as WriteDir writes its other objects
// (dir/sha256/NAME), moving them from a directory store. It leaves dir/sha256's other
// files alone (PruneDir).
func (s *Store) WritePacks(dir string) error {
	objDir := filepath.Join(dir, catalog.StoreDir)
	if err := os.MkdirAll(objDir, 0o755); err != nil {
		return err
	}
	for _, name := range s.Packs() {
		path := filepath.Join(objDir, name)
		if s.dir != "" {
			if err := os.Rename(filepath.Join(s.dir, name), path); err != nil {
				return err
			}
			continue
		}
		if data := s.objects[name]; !sameFile(path, data) {
			if err := WriteFileAtomic(path, data); err != nil {
				return err
			}
		}
	}
	if s.dir != "" {
		s.packDir = objDir
	}
	return nil
}
