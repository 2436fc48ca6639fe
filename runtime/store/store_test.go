package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unsafe"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/runtime/internal/require"
)

// writeObjects writes a store of the given contents under dir/sha256 and returns their
// names, in order.
func writeObjects(t *testing.T, dir string, contents ...[]byte) []string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, catalog.StoreDir), 0o755))
	var names []string
	for _, c := range contents {
		sum := sha256.Sum256(c)
		name := hex.EncodeToString(sum[:])
		require.NoError(t, os.WriteFile(filepath.Join(dir, catalog.StoreDir, name), c, 0o644))
		names = append(names, name)
	}
	return names
}

func TestDirStore(t *testing.T) {
	dir := t.TempDir()
	small := []byte("a small object")
	large := bytes.Repeat([]byte("large object, mapped rather than read. "), mmapMin/16)
	names := writeObjects(t, dir, small, large)
	st, err := Open(dir)
	require.NoError(t, err)

	for i, want := range [][]byte{small, large} {
		got, err := st.Object(names[i])
		require.NoError(t, err)
		require.Equal(t, true, bytes.Equal(got, want))
		// The second time from memory: the file is not read again.
		require.NoError(t, os.Remove(filepath.Join(dir, catalog.StoreDir, names[i])))
		again, err := st.Object(names[i])
		require.NoError(t, err)
		require.Equal(t, true, bytes.Equal(again, want))
	}

	// The name a caller passes may alias a buffer it reuses (a parsed frame's reference):
	// the store must not keep that memory as its key.
	third := writeObjects(t, dir, []byte("third"))[0]
	buf := []byte(third)
	_, err = st.Object(unsafe.String(&buf[0], len(buf)))
	require.NoError(t, err)
	st.objects.Range(func(k, _ any) bool {
		if unsafe.StringData(k.(string)) == &buf[0] {
			t.Fatal("the store keeps the caller's buffer as a key")
		}
		return true
	})

	missing := strings.Repeat("0", 64)
	_, err = st.Object(missing)
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.ErrorIs(t, err, ErrStore)
	_, err = st.Object("../../etc/passwd")
	require.ErrorIs(t, err, fs.ErrNotExist)

	// A damaged object (bytes that do not hash to its name) is refused, not served, and
	// its file removed, so that the next check of the build finds it missing.
	damaged := writeObjects(t, dir, []byte("original"))[0]
	p := filepath.Join(dir, catalog.StoreDir, damaged)
	require.NoError(t, os.WriteFile(p, []byte("tampered"), 0o644))
	_, err = st.Object(damaged)
	require.ErrorIs(t, err, ErrStore)
	require.Contains(t, err.Error(), "did not hash to its name: the file was damaged, and is removed")
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the damaged file is still there: %v", err)
	}

	// Many first uses of one object at once share one load and all get it.
	shared := writeObjects(t, dir, bytes.Repeat([]byte("shared "), 1<<16))[0]
	errs := make(chan error, 16)
	for range 16 {
		go func() {
			b, err := st.Object(shared)
			if err == nil && len(b) != 7<<16 {
				err = errors.New("wrong length")
			}
			errs <- err
		}()
	}
	for range 16 {
		require.NoError(t, <-errs)
	}

	// After Close, nothing is loaded any more.
	require.NoError(t, st.Close())
	_, err = st.Object(writeObjects(t, dir, []byte("late"))[0])
	require.ErrorIs(t, err, ErrStore)
}

func TestDirStoreCheck(t *testing.T) {
	dir := t.TempDir()
	names := writeObjects(t, dir, []byte("one"), []byte("two"))
	st, err := Open(dir)
	require.NoError(t, err)
	uses := []catalog.ObjectUse{
		{Ref: catalog.Ref{Name: names[0], Size: 3}, What: "skill://a/one.md"},
		{Ref: catalog.Ref{Name: names[1], Size: 3}, What: "skill://a/two.md"},
	}
	require.NoError(t, st.Check(uses))

	uses[1].Size = 4
	uses = append(uses, catalog.ObjectUse{Ref: catalog.Ref{Name: strings.Repeat("1", 64), Size: 1}, What: "skill://a/gone.md"})
	err = st.Check(uses)
	require.ErrorIs(t, err, ErrStore)
	require.Contains(t, err.Error(), "2 of the 3 objects the catalog refers to are not in ")
	require.Contains(t, err.Error(), "(skill://a/two.md): 3 bytes, not 4")
	require.Contains(t, err.Error(), "(skill://a/gone.md): missing")
	if strings.Contains(err.Error(), "build the catalog again") {
		t.Errorf("the error advises (what to do is the CLI's to say): %v", err)
	}

	_, err = Open(t.TempDir())
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open of a folder without sha256/: %v", err)
	}
}

// TestDirStoreCheckPresent: the start-up check reads the folder, not the objects: a
// missing object is Check's error, naming it; a damaged one (the right name, other
// bytes) passes, and is refused when first used.
func TestDirStoreCheckPresent(t *testing.T) {
	c, _, err := compile.Load(fstest.MapFS{
		"a/SKILL.md":  {Data: []byte("---\nname: a\ndescription: A skill.\n---\nBody.\n")},
		"a/notes.txt": {Data: []byte("notes\n")},
	}, "test", compile.Options{})
	require.NoError(t, err)
	dir := t.TempDir()
	enc, err := compile.EncodeWith(c, compile.EncodeOptions{Dir: dir})
	require.NoError(t, err)
	p, err := catalog.Open(enc.Index)
	require.NoError(t, err)
	st, err := Open(dir)
	require.NoError(t, err)
	require.NoError(t, st.CheckPresent(p))

	uses := p.Objects()
	n := 0
	p.Refs(func(r catalog.Ref) {
		n++
		if !slices.ContainsFunc(uses, func(u catalog.ObjectUse) bool { return u.Ref == r }) {
			t.Errorf("Refs gave %v, which Objects does not", r)
		}
	})
	if n < len(uses) {
		t.Fatalf("Refs gave %d references, Objects %d objects", n, len(uses))
	}

	damaged := uses[0]
	require.NoError(t, os.WriteFile(st.path(damaged.Name), []byte("other bytes"), 0o644))
	require.NoError(t, st.CheckPresent(p))
	_, err = st.Object(damaged.Name)
	require.ErrorIs(t, err, ErrStore)

	gone := uses[len(uses)-1]
	require.NoError(t, os.Remove(st.path(gone.Name)))
	err = st.CheckPresent(p)
	require.ErrorIs(t, err, ErrStore)
	require.Contains(t, err.Error(), "("+gone.What+"): missing")
}
