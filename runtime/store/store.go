package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
)

// Dir is a content store on disk, as `skilledge build` writes it: object NAME is the
// file DIR/sha256/NAME. A process holds one Dir for all its pools and instances, so
// each object is in memory once, however many instances serve it: read on first use
// (objects of mmapMin bytes or more are mapped read-only rather than copied, where the
// system can), checked against its name, and kept until Close. It implements wire.Store
// and is safe for concurrent use.
//
// A mapped object shares the file's pages: the store's files must not be truncated or
// rewritten in place while it serves (builds write new files and rename them over, which
// is safe).
type Dir struct {
	dir     string
	more    []string // folders of packs (Open), searched after dir
	objects sync.Map // name -> []byte
	mu      sync.Mutex
	loads   map[string]*load // objects being loaded, one load per name
	unmap   []func() error   // releases mapped objects
	closed  bool
}

// load is one object being read; done is closed when b and err are set.
type load struct {
	done chan struct{}
	b    []byte
	err  error
}

// mmapMin is the size from which objects are mapped instead of read: below it a copy on
// the heap costs less than a mapping's page-table entries and kernel bookkeeping.
const mmapMin = 64 << 10

// Open returns the store in dir (the assets folder of a build), with the objects of the
// folders more (a build's packs folder, where it has one: objects MORE/sha256/NAME, read
// after dir's) as well. It reads nothing yet.
func Open(dir string, more ...string) (*Dir, error) {
	fi, err := os.Stat(filepath.Join(dir, catalog.StoreDir))
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("store: %s is not a directory", filepath.Join(dir, catalog.StoreDir))
	}
	return &Dir{dir: dir, more: more, loads: map[string]*load{}}, nil
}

// path is the file of object name: in dir, or in the first of more that has it.
func (s *Dir) path(name string) string {
	p := filepath.Join(s.dir, catalog.StoreDir, name)
	for _, d := range s.more {
		if _, err := os.Lstat(p); err == nil {
			break
		}
		if q := filepath.Join(d, catalog.StoreDir, name); fileExists(q) {
			return q
		}
	}
	return p
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// ReadPart reads the object name from its file without keeping it, for a part of a sharded
// index that the plugin keeps itself (its budget bounds them; kept here too, they would add
// up to the whole index). The caller checks it against its name.
func (s *Dir) ReadPart(name string) ([]byte, error) {
	if !catalog.IsObjectName(name) {
		return nil, fmt.Errorf("%w: %q is not an object name: %w", ErrStore, name, fs.ErrNotExist)
	}
	return os.ReadFile(s.path(name))
}

// Packed implements wire.PackStore: the bytes of a packed object, sliced from its pack,
// which Object checked against its name when it first read it.
func (s *Dir) Packed(r wire.Ref) ([]byte, error) { return wire.SliceOf(s, r) }

// Object returns the bytes of object name, loading them on first use; concurrent first
// uses of one object share one load. An object that is not in the store is an error
// wrapping fs.ErrNotExist; one whose bytes do not hash to its name wraps ErrStore, and its
// file, useless, is removed, so that the build's next check finds it missing and writes
// it again. The result must not be modified, nor used after Close.
func (s *Dir) Object(name string) ([]byte, error) {
	if b, ok := s.objects.Load(name); ok {
		return b.([]byte), nil
	}
	if !catalog.IsObjectName(name) {
		return nil, fmt.Errorf("%w: %q is not an object name: %w", ErrStore, name, fs.ErrNotExist)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: closed", ErrStore)
	}
	if b, ok := s.objects.Load(name); ok {
		s.mu.Unlock()
		return b.([]byte), nil
	}
	if l, ok := s.loads[name]; ok {
		s.mu.Unlock()
		<-l.done
		return l.b, l.err
	}
	name = strings.Clone(name) // it may alias a buffer the caller reuses
	l := &load{done: make(chan struct{})}
	s.loads[name] = l
	s.mu.Unlock()

	l.b, l.err = s.read(name)
	s.mu.Lock()
	delete(s.loads, name)
	s.mu.Unlock()
	close(l.done)
	return l.b, l.err
}

// read loads object name from its file and keeps it.
func (s *Dir) read(name string) ([]byte, error) {
	path := s.path(name)
	b, release, err := readObject(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStore, err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != name {
		if release != nil {
			release()
		}
		os.Remove(path)
		return nil, fmt.Errorf("%w: %s did not hash to its name: the file was damaged, and is removed", ErrStore, path)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		if release != nil {
			release()
		}
		return nil, fmt.Errorf("%w: closed", ErrStore)
	}
	if release != nil {
		s.unmap = append(s.unmap, release)
	}
	s.objects.Store(name, b)
	return b, nil
}

// Check verifies that the store holds every object in uses, with the right size, without
// reading them: a store missing objects is reported at start-up, not on the request that
// needs one. The error names the first few missing or wrong objects and what they hold.
func (s *Dir) Check(uses []catalog.ObjectUse) error {
	var bad []string
	n := 0
	for _, u := range uses {
		fi, err := os.Stat(s.path(u.Name))
		switch {
		case err != nil && errors.Is(err, fs.ErrNotExist):
			err = errors.New("missing")
		case err == nil && !fi.Mode().IsRegular():
			err = errors.New("not a regular file")
		case err == nil && fi.Size() != u.Size:
			err = fmt.Errorf("%d bytes, not %d", fi.Size(), u.Size)
		}
		if err != nil {
			if n++; n <= 3 {
				bad = append(bad, fmt.Sprintf("%s (%s): %v", s.path(u.Name), u.What, err))
			}
		}
	}
	if n == 0 {
		return nil
	}
	more := ""
	if n > len(bad) {
		more = fmt.Sprintf(" and %d more", n-len(bad))
	}
	return fmt.Errorf("%w: %d of the %d objects the catalog refers to are not in %s: %s%s",
		ErrStore, n, len(uses), filepath.Join(s.dir, catalog.StoreDir), joinSemi(bad), more)
}

// CheckPresent verifies, as Check does, that the store holds every object p refers to, but
// by reading the store's folder once rather than looking each object up: a file of each
// name is enough here, and its size and contents are checked when it is first used
// (Object hashes it). Starting a server on a large built catalog (tens of thousands of
// objects) then costs one directory listing instead of a stat per object. When something
// is missing it returns Check's error, which names what and why.
//
// Of a sharded index it checks the objects the root names and its parts, not the objects
// inside the shards, which reading every shard would cost (the whole index: 260 MiB at
// 50,000 skills, read at every start): an object a shard names that is missing is found
// when it is read, and answered as the store's failure.
func (s *Dir) CheckPresent(p *catalog.Pack) error {
	have := map[string]struct{}{}
	for i, d := range append([]string{s.dir}, s.more...) {
		f, err := os.Open(filepath.Join(d, catalog.StoreDir))
		if err != nil && i > 0 && errors.Is(err, fs.ErrNotExist) {
			continue // no packs
		}
		if err != nil {
			return s.Check(p.Objects())
		}
		ents, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return s.Check(p.Objects())
		}
		for _, e := range ents {
			if t := e.Type(); t.IsRegular() || t&fs.ModeSymlink != 0 { // a link is followed when read
				have[e.Name()] = struct{}{}
			}
		}
	}
	complete := true
	p.RootRefs(func(r catalog.Ref) {
		if _, ok := have[r.Name]; !ok {
			complete = false
		}
	})
	if complete {
		return nil
	}
	return s.Check(p.Objects())
}

func joinSemi(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += "; "
		}
		out += x
	}
	return out
}

// Close releases the mapped objects, and later calls of Object fail. It must not be called
// while a response made of the store's objects may still be being written: the process
// that serves until it exits need not call it at all.
func (s *Dir) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	var errs []error
	for _, f := range s.unmap {
		errs = append(errs, f())
	}
	s.unmap = nil
	s.objects.Clear()
	return errors.Join(errs...)
}
