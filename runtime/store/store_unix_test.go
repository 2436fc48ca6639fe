//go:build unix

package store

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/runtime/internal/require"
)

// An object replaced by a FIFO is an error at once, not a read that waits for a writer.
func TestDirStoreFIFO(t *testing.T) {
	dir := t.TempDir()
	name := writeObjects(t, dir, []byte("x"))[0]
	p := filepath.Join(dir, catalog.StoreDir, name)
	require.NoError(t, os.Remove(p))
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	st, err := Open(dir)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { _, err := st.Object(name); done <- err }()
	select {
	case err := <-done:
		require.Contains(t, err.Error(), "not a regular file")
	case <-time.After(5 * time.Second):
		t.Fatal("Object blocked on a FIFO")
	}
}

// An object that is a link is not followed, even to the right bytes: builds write regular
// files.
func TestDirStoreLink(t *testing.T) {
	dir := t.TempDir()
	name := writeObjects(t, dir, []byte("x"))[0]
	p := filepath.Join(dir, catalog.StoreDir, name)
	elsewhere := filepath.Join(t.TempDir(), "x")
	require.NoError(t, os.Rename(p, elsewhere))
	require.NoError(t, os.Symlink(elsewhere, p))
	st, err := Open(dir)
	require.NoError(t, err)
	_, err = st.Object(name)
	require.ErrorIs(t, err, ErrStore)
}
