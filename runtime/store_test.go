package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/skilledge/skilledge/catalog"
)

// writeObjects writes a store of the given contents under dir/sha256 and returns their
// names, in order.
func writeObjects(t *testing.T, dir string, contents ...[]byte) []string {
	t.Helper()
	requireNoError(t, os.MkdirAll(filepath.Join(dir, catalog.StoreDir), 0o755))
	var names []string
	for _, c := range contents {
		sum := sha256.Sum256(c)
		name := hex.EncodeToString(sum[:])
		requireNoError(t, os.WriteFile(filepath.Join(dir, catalog.StoreDir, name), c, 0o644))
		names = append(names, name)
	}
	return names
}

func TestDirStore(t *testing.T) {
	dir := t.TempDir()
	small := []byte("a small object")
	large := bytes.Repeat([]byte("large object, mapped rather than read. "), mmapMin/16)
	names := writeObjects(t, dir, small, large)
	st, err := OpenStore(dir)
	requireNoError(t, err)
	defer st.Close()

	for i, want := range [][]byte{small, large} {
		for range 2 { // the second time from memory
			got, err := st.Object(names[i])
			requireNoError(t, err)
			requireEqual(t, true, bytes.Equal(got, want))
		}
	}

	// The name a caller passes may alias a buffer it reuses (a parsed frame's reference):
	// the store must not keep that memory as its key.
	third := writeObjects(t, dir, []byte("third"))[0]
	buf := []byte(third)
	_, err = st.Object(unsafe.String(&buf[0], len(buf)))
	requireNoError(t, err)
	st.objects.Range(func(k, _ any) bool {
		if unsafe.StringData(k.(string)) == &buf[0] {
			t.Fatal("the store keeps the caller's buffer as a key")
		}
		return true
	})

	missing := strings.Repeat("0", 64)
	_, err = st.Object(missing)
	requireErrorIs(t, err, fs.ErrNotExist)
	requireErrorIs(t, err, ErrStore)
	_, err = st.Object("../../etc/passwd")
	requireErrorIs(t, err, fs.ErrNotExist)

	// A damaged object (bytes that do not hash to its name) is refused, not served.
	damaged := writeObjects(t, dir, []byte("original"))[0]
	requireNoError(t, os.WriteFile(filepath.Join(dir, catalog.StoreDir, damaged), []byte("tampered"), 0o644))
	_, err = st.Object(damaged)
	requireErrorIs(t, err, ErrStore)
	requireContains(t, err.Error(), "does not hash to its name: the file is damaged")
}

// An object replaced by a FIFO is an error at once, not a read that waits for a writer.
func TestDirStoreFIFO(t *testing.T) {
	dir := t.TempDir()
	name := writeObjects(t, dir, []byte("x"))[0]
	p := filepath.Join(dir, catalog.StoreDir, name)
	requireNoError(t, os.Remove(p))
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	st, err := OpenStore(dir)
	requireNoError(t, err)
	done := make(chan error, 1)
	go func() { _, err := st.Object(name); done <- err }()
	select {
	case err := <-done:
		requireContains(t, err.Error(), "not a regular file")
	case <-time.After(5 * time.Second):
		t.Fatal("Object blocked on a FIFO")
	}
}

func TestDirStoreCheck(t *testing.T) {
	dir := t.TempDir()
	names := writeObjects(t, dir, []byte("one"), []byte("two"))
	st, err := OpenStore(dir)
	requireNoError(t, err)
	uses := []catalog.ObjectUse{
		{Ref: catalog.Ref{Name: names[0], Size: 3}, What: "skill://a/one.md"},
		{Ref: catalog.Ref{Name: names[1], Size: 3}, What: "skill://a/two.md"},
	}
	requireNoError(t, st.Check(uses))

	uses[1].Size = 4
	uses = append(uses, catalog.ObjectUse{Ref: catalog.Ref{Name: strings.Repeat("1", 64), Size: 1}, What: "skill://a/gone.md"})
	err = st.Check(uses)
	requireErrorIs(t, err, ErrStore)
	requireContains(t, err.Error(), "2 of the 3 objects the catalog refers to are not in ")
	requireContains(t, err.Error(), "(skill://a/two.md): 3 bytes, not 4")
	requireContains(t, err.Error(), "(skill://a/gone.md): missing")
	requireContains(t, err.Error(), "rebuild it with skilledge build")

	_, err = OpenStore(t.TempDir())
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("OpenStore of a folder without sha256/: %v", err)
	}
}
