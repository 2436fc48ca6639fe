package tests

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/examples"
)

// TestPackReproducible builds the catalog from two copies of the example catalog that
// differ in absolute path, file creation order, mtimes, permission bits, umask and time
// zone, and requires byte-identical indexes and content stores (the same object names
// holding the same bytes). The store holds every skill's .tar.gz and .zip, so the
// archives (and their digests in the indexes) are reproducible too.
func TestPackReproducible(t *testing.T) {
	var files []string
	fs.WalkDir(examples.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if len(files) < 5 {
		t.Fatalf("example catalog has only %d files", len(files))
	}
	copyTo := func(dir string, order []string, mtime time.Time, mode fs.FileMode) {
		for _, p := range order {
			b, err := fs.ReadFile(examples.FS, p)
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, b, mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(dst, mtime, mtime); err != nil {
				t.Fatal(err)
			}
		}
	}
	a := filepath.Join(t.TempDir(), "one")
	b := filepath.Join(t.TempDir(), "some", "other", "place")
	copyTo(a, files, time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC), 0o644)
	reversed := slices.Clone(files)
	slices.Reverse(reversed)
	old := syscall.Umask(0o077)
	copyTo(b, reversed, time.Now(), 0o666)
	syscall.Umask(old)

	pack := func(dir string) *compile.Encoded {
		c, problems, err := compile.LoadDir(dir, compile.Options{})
		if err != nil || compile.HasErrors(problems) {
			t.Fatalf("LoadDir(%s): %v %v", dir, err, problems)
		}
		enc, err := compile.Encode(c)
		if err != nil {
			t.Fatal(err)
		}
		return enc
	}
	pa := pack(a)
	local := time.Local
	time.Local = time.FixedZone("UTC+05:45", 5*3600+45*60)
	pb := pack(b)
	time.Local = local
	sameBuild(t, "copies on disk", pa, pb)
	embedded, err := exampleBuild()
	if err != nil {
		t.Fatal(err)
	}
	sameBuild(t, "a copy on disk and the embedded catalog", pa, embedded)

	// Written out, the stores are the same files, whatever the umask.
	out := func(enc *compile.Encoded, umask int) map[string][]byte {
		dir := t.TempDir()
		old := syscall.Umask(umask)
		err := enc.Store.WriteDir(dir)
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := fs.ReadFile(os.DirFS(dir), p)
				info, _ := d.Info()
				files[p+" "+info.Mode().String()] = b
			}
			return err
		})
		return files
	}
	if fa, fb := out(pa, 0o022), out(pb, 0o077); !maps.EqualFunc(fa, fb, bytes.Equal) || len(fa) != pa.Store.Len() {
		t.Fatalf("written stores differ: %d and %d files for %d objects", len(fa), len(fb), pa.Store.Len())
	}
}

// sameBuild fails t unless a and b have equal indexes and equal stores.
func sameBuild(t *testing.T, what string, a, b *compile.Encoded) {
	t.Helper()
	if !bytes.Equal(a.Index, b.Index) {
		t.Fatalf("%s: indexes differ: %d vs %d bytes", what, len(a.Index), len(b.Index))
	}
	if !slices.Equal(a.Store.Names(), b.Store.Names()) {
		t.Fatalf("%s: stores hold different objects", what)
	}
	for _, name := range a.Store.Names() {
		x, _ := a.Store.Object(name)
		y, _ := b.Store.Object(name)
		if !bytes.Equal(x, y) {
			t.Fatalf("%s: object %s differs", what, name)
		}
	}
}
