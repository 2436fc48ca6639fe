package tests

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/skilledge/skilledge/catalog/build"
	"github.com/skilledge/skilledge/catalog/examples"
)

// TestPackReproducible builds the pack from two copies of the example catalog that differ
// in absolute path, file creation order, mtimes, permission bits, umask and time zone, and
// requires byte-identical packs. Packs hold every skill's .tar.gz and .zip, so the
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

	pack := func(dir string) []byte {
		c, problems, err := build.LoadDir(dir, build.Options{})
		if err != nil || build.HasErrors(problems) {
			t.Fatalf("LoadDir(%s): %v %v", dir, err, problems)
		}
		return build.Encode(c)
	}
	pa := pack(a)
	local := time.Local
	time.Local = time.FixedZone("UTC+05:45", 5*3600+45*60)
	pb := pack(b)
	time.Local = local
	if !bytes.Equal(pa, pb) {
		t.Fatalf("packs differ: %d vs %d bytes", len(pa), len(pb))
	}
	embedded, err := examplePack()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pa, embedded) {
		t.Fatal("pack from a copy on disk differs from the pack of the embedded catalog")
	}
}
