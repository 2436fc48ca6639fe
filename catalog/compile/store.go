package compile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/skilledge/skilledge/catalog"
)

// Store is the content store of an encoded catalog: objects named by the lowercase hex
// SHA-256 of their bytes, each held once however many resources share it. It is filled by
// Encode and read-only afterwards, so it is safe for concurrent reads. An in-memory store
// holds the objects' bytes; a store in a directory (EncodeOptions.Dir) holds only their
// names and sizes, the bytes being files written as the objects were made.
type Store struct {
	objects map[string][]byte // by name; the values are nil in a directory store
	sizes   map[string]int64
	what    map[string]string // the first description given for each object
	size    int64
	dir     string // the directory store's folder of objects (dir/sha256), or ""

	// Packing (packs.go): packMax is above 0 when objects are packed.
	packMax int64
	plan    []*packPlan
	placed  map[string]catalog.Ref // the objects laid out in plan, by name
	whole   map[string]bool        // objects needed whole as well (index parts)
	packs   map[string]bool        // the packs written
	packDir string                 // where a directory store's packs went (WritePacks), or ""
}

func newStore() *Store {
	return &Store{objects: map[string][]byte{}, sizes: map[string]int64{}, what: map[string]string{},
		placed: map[string]catalog.Ref{}, whole: map[string]bool{}, packs: map[string]bool{}}
}

// newDirStore returns a store writing its objects into dir/sha256 (catalog.StoreDir),
// which it creates.
func newDirStore(dir string) (*Store, error) {
	st := newStore()
	st.dir = filepath.Join(dir, catalog.StoreDir)
	return st, os.MkdirAll(st.dir, 0o755)
}

// add puts data in the store and returns its reference. what describes the content for
// messages ("docs/x.png", "docs/x.png in base64 (resources/read)"). A directory store
// writes it at once (unless the same bytes are there) and keeps no copy.
func (s *Store) add(data []byte, what string) (catalog.Ref, error) {
	sum := sha256.Sum256(data)
	name := hex.EncodeToString(sum[:])
	if _, ok := s.objects[name]; !ok {
		held := data
		if s.dir != "" {
			if path := filepath.Join(s.dir, name); !sameFile(path, data) {
				if err := WriteFileAtomic(path, data); err != nil {
					return catalog.Ref{}, err
				}
			}
			held = nil
		}
		s.record(name, int64(len(data)), what, held)
	}
	return catalog.Ref{Name: name, Size: s.sizes[name]}, nil
}

func (s *Store) record(name string, size int64, what string, data []byte) {
	s.objects[name] = data
	s.sizes[name] = size
	s.what[name] = what
	s.size += size
}

// addStream puts in the store the bytes write writes, without holding them in a
// directory store (they go to a temporary file, renamed to the object's name once
// written), and returns their reference.
func (s *Store) addStream(what string, write func(w io.Writer) error) (catalog.Ref, error) {
	if s.dir == "" {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			return catalog.Ref{}, err
		}
		return s.add(b.Bytes(), what)
	}
	tmp, err := os.CreateTemp(s.dir, ".object-*")
	if err != nil {
		return catalog.Ref{}, err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(tmp, h), 256<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return catalog.Ref{}, err
	}
	fi, err := os.Stat(tmp.Name())
	if err != nil {
		return catalog.Ref{}, err
	}
	name := hex.EncodeToString(h.Sum(nil))
	if _, ok := s.objects[name]; !ok {
		if err := os.Rename(tmp.Name(), filepath.Join(s.dir, name)); err != nil {
			return catalog.Ref{}, err
		}
		s.record(name, fi.Size(), what, nil)
	}
	return catalog.Ref{Name: name, Size: fi.Size()}, nil
}

// open returns a reader of the object name.
func (s *Store) open(name string) (io.ReadCloser, error) {
	if s.dir != "" {
		return os.Open(filepath.Join(s.dir, name))
	}
	b, err := s.Object(name)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// Object returns the bytes of the object name, or an error wrapping fs.ErrNotExist. The
// result must not be modified. A directory store reads them from its file.
func (s *Store) Object(name string) ([]byte, error) {
	b, ok := s.objects[name]
	if !ok {
		return nil, fmt.Errorf("compile: store object %s: %w", name, fs.ErrNotExist)
	}
	if s.packDir != "" && s.packs[name] {
		return os.ReadFile(filepath.Join(s.packDir, name))
	}
	if s.dir != "" {
		return os.ReadFile(filepath.Join(s.dir, name))
	}
	return b, nil
}

// ObjectSize returns the size of the object name (0 if s has none of that name).
func (s *Store) ObjectSize(name string) int64 { return s.sizes[name] }

// Names returns the names of every object, sorted.
func (s *Store) Names() []string {
	names := make([]string, 0, len(s.objects))
	for n := range s.objects {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Len returns the number of objects.
func (s *Store) Len() int { return len(s.objects) }

// Size returns the bytes of all objects together.
func (s *Store) Size() int64 { return s.size }

// What describes the object name for messages: which file (or archive, or document) it
// holds, and in which form.
func (s *Store) What(name string) string { return s.what[name] }

// WriteDir writes the store into dir as the layout hosts read: object NAME is the file
// dir/sha256/NAME (catalog.StoreDir). An object already there with the same bytes is
// left as it is; one with other bytes (a damaged file) is replaced. Each file is written
// under a temporary name and renamed, so a reader never sees half an object. Files of
// dir/sha256 that are not objects of s are left alone (see PruneDir).
//
// A directory store moves its files instead (they must be on the same file system): it
// is empty afterwards, and dir is its new home.
func (s *Store) WriteDir(dir string) error {
	objDir := filepath.Join(dir, catalog.StoreDir)
	if err := os.MkdirAll(objDir, 0o755); err != nil {
		return err
	}
	if s.dir != "" {
		if same, err := sameDir(s.dir, objDir); err != nil || same {
			return err
		}
		for _, name := range s.Names() {
			if s.packs[name] {
				continue
			}
			if err := os.Rename(filepath.Join(s.dir, name), filepath.Join(objDir, name)); err != nil {
				return err
			}
		}
		s.dir = objDir
		return nil
	}
	for _, name := range s.Names() {
		if s.packs[name] {
			continue
		}
		data := s.objects[name]
		path := filepath.Join(objDir, name)
		if sameFile(path, data) {
			// Still in use: PruneDir spares what was written (or used) lately.
			now := time.Now()
			os.Chtimes(path, now, now)
			continue
		}
		if err := WriteFileAtomic(path, data); err != nil {
			return err
		}
	}
	return nil
}

// sameDir reports whether a and b are the same directory.
func sameDir(a, b string) (bool, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(fa, fb), nil
}

// sameFile reports whether path is a regular file holding exactly data.
func sameFile(path string, data []byte) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(data)) {
		return false
	}
	b, err := os.ReadFile(path)
	return err == nil && bytes.Equal(b, data)
}

// PruneDir removes the files of dir/sha256 whose names keep does not hold (objects no
// index in use refers to) and that were last written before before; the zero time spares
// none. WriteDir renews the time of every object a build uses, so that a store shared by
// builds of different skilledge versions (the user cache), each of which knows only the
// references its own index format names, keeps what another version built lately.
func PruneDir(dir string, keep map[string]bool, before time.Time) error {
	objDir := filepath.Join(dir, catalog.StoreDir)
	ents, err := os.ReadDir(objDir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range ents {
		if keep[e.Name()] {
			continue
		}
		if !before.IsZero() {
			if info, err := e.Info(); err != nil || !info.ModTime().Before(before) {
				continue
			}
		}
		if err := os.Remove(filepath.Join(objDir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// WriteFileAtomic writes data to path through a temporary file in the same directory,
// renamed into place, so that a reader never sees half a file. The file is 0644.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
