//go:build unix

package dirfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFS: a named pipe is refused at once, not waited on, as a file or as a directory to
// list; listings are sorted; a link leading out of the root is not followed.
func TestFS(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.txt", "a.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("../outside", filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var opened []string
	fsys := New(root, func(name string) { opened = append(opened, name) })

	done := make(chan error, 2)
	go func() {
		_, err := fsys.Open("pipe")
		done <- err
		_, err = fsys.ReadDir("pipe")
		done <- err
	}()
	for range 2 {
		select {
		case err := <-done:
			var nr *NotRegularError
			if !errors.As(err, &nr) || nr.Mode&fs.ModeNamedPipe == 0 || err.Error() != "open pipe: a named pipe, not a regular file or directory" {
				t.Errorf("opening a named pipe: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Open blocked on a named pipe")
		}
	}

	ents, err := fsys.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got, want := strings.Join(names, " "), "a.txt b.txt c.txt out pipe"; got != want {
		t.Errorf("ReadDir: %s, want %s", got, want)
	}
	if _, err := fsys.Open("out"); err == nil {
		t.Error("a link out of the root was followed")
	}
	if target, err := fsys.ReadLink("out"); err != nil || target != "../outside" {
		t.Errorf("ReadLink: %q, %v", target, err)
	}
	if fi, err := fsys.Stat("a.txt"); err != nil {
		t.Error(err)
	} else if n := LinkCount(fi); n != 1 {
		t.Errorf("LinkCount: %d, want 1", n)
	}
	if got, want := strings.Join(opened, " "), "pipe pipe . out"; got != want {
		t.Errorf("BeforeOpen saw %s, want %s", got, want)
	}
}
