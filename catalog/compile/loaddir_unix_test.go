//go:build unix

package compile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadDirFIFORace: a file or directory replaced by a named pipe between the listing
// and the open is reported, not waited on (an ordinary open blocked validate, build and
// serve until a writer came, forever).
func TestLoadDirFIFORace(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"x/SKILL.md":     "---\nname: x\ndescription: d\n---\n",
		"x/data.txt":     "data",
		"x/sub/more.txt": "more",
		"x/keep.txt":     "keep",
	}, []string{"x/SKILL.md", "x/data.txt", "x/sub/more.txt", "x/keep.txt"}, 0o644)
	var fifos []string
	toFIFO := func(rel string) {
		p := filepath.Join(root, rel)
		if err := os.RemoveAll(p); err != nil {
			t.Error(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		fifos = append(fifos, p)
	}
	testHookListed = func() { toFIFO("x/data.txt") }
	defer func() { testHookListed = nil }()
	done := false
	testHookOpen = func(name string) { // between listing x and listing x/sub
		if name == "x/sub" && !done {
			done = true
			toFIFO(name)
		}
	}
	defer func() { testHookOpen = nil }()

	type result struct {
		ps  []Problem
		c   *Catalog
		err error
	}
	out := make(chan result, 1)
	go func() {
		c, ps, err := LoadDir(root, Options{})
		out <- result{ps, c, err}
	}()
	var r result
	select {
	case r = <-out:
	case <-time.After(10 * time.Second):
		for _, p := range fifos { // let the blocked open go: a reader and writer at once
			if f, err := os.OpenFile(p, os.O_RDWR, 0); err == nil {
				defer f.Close()
			}
		}
		t.Fatal("LoadDir blocked opening a named pipe")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	got := strings.Join(strs(r.ps), "\n")
	for _, want := range []string{
		root + "/x/data.txt: warning: not a regular file (named pipe); not served",
		root + "/x/sub: cannot list directory: a named pipe, not a regular file or directory",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems:\n%s\nwant %q", got, want)
		}
	}
}
