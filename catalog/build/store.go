package build

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/skilledge/skilledge/catalog"
)

// Store is the content store of an encoded catalog: objects named by the lowercase hex
// SHA-256 of their bytes, each held once however many resources share it. It is filled by
// Encode and read-only afterwards, so it is safe for concurrent reads.
type Store struct {
	objects map[string][]byte
	what    map[string]string // the first description given for each object
	size    int64
}

func newStore() *Store {
	return &Store{objects: map[string][]byte{}, what: map[string]string{}}
}

// add puts data in the store and returns its reference. what describes the content for
// messages ("docs/x.png", "docs/x.png in base64 (resources/read)").
func (s *Store) add(data []byte, what string) catalog.Ref {
	sum := sha256.Sum256(data)
	name := hex.EncodeToString(sum[:])
	if _, ok := s.objects[name]; !ok {
		s.objects[name] = data
		s.what[name] = what
		s.size += int64(len(data))
	}
	return catalog.Ref{Name: name, Size: int64(len(data))}
}

// Object returns the bytes of the object name, or an error wrapping fs.ErrNotExist. The
// result must not be modified.
func (s *Store) Object(name string) ([]byte, error) {
	if b, ok := s.objects[name]; ok {
		return b, nil
	}
	return nil, fmt.Errorf("store object %s: %w", name, fs.ErrNotExist)
}

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
func (s *Store) WriteDir(dir string) error {
	objDir := filepath.Join(dir, catalog.StoreDir)
	if err := os.MkdirAll(objDir, 0o755); err != nil {
		return err
	}
	for _, name := range s.Names() {
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

// Has reports whether name is an object of s.
func (s *Store) Has(name string) bool {
	_, ok := s.objects[name]
	return ok
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
