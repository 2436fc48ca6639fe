package sources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadLock: a lock is read as written, and one that is not what this package writes is
// refused, saying where and what to do.
func TestReadLock(t *testing.T) {
	commit, digest := strings.Repeat("ab", 20), "sha256:"+strings.Repeat("cd", 32)
	for _, c := range []struct {
		name, lock, want string
	}{
		{"git and catalog", `{"lockVersion":1,"sources":[{"path":"a","git":"file:///x","commit":"` + commit + `"},{"path":"b","catalog":"https://x","skills":["pdf"],"digest":"` + digest + `"}]}`, ""},
		{"another version", `{"lockVersion":2,"sources":[]}`, "lockVersion 2, and this skilledge reads 1"},
		{"an unknown field", `{"lockVersion":1,"sources":[],"extra":1}`, `not a sources lock (json: unknown field "extra")`},
		{"a short commit", `{"lockVersion":1,"sources":[{"path":"a","git":"file:///x","commit":"abc"}]}`, `the entry for "a" is neither`},
		{"a catalog with a commit", `{"lockVersion":1,"sources":[{"path":"a","catalog":"https://x","commit":"` + commit + `","digest":"` + digest + `"}]}`, `the entry for "a" is neither`},
		{"a catalog without a digest", `{"lockVersion":1,"sources":[{"path":"a","catalog":"https://x","digest":"sha256:xyz"}]}`, `the entry for "a" is neither`},
		{"no path", `{"lockVersion":1,"sources":[{"git":"file:///x","commit":"` + commit + `"}]}`, `the entry for "" is neither`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, LockFile), []byte(c.lock), 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := ReadLock(dir)
			switch {
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want == "":
				again := filepath.Join(t.TempDir())
				if _, err := l.write(again); err != nil {
					t.Fatal(err)
				}
				if back, err := ReadLock(again); err != nil || len(back.Sources) != len(l.Sources) {
					t.Fatalf("written and read again: %+v %v", back, err)
				}
			case err == nil || !strings.Contains(err.Error(), c.want):
				t.Fatalf("%v, want %q", err, c.want)
			}
		})
	}
}

// FuzzParseLock: no lock makes the reader panic, and one it accepts is written back to a
// lock it accepts again, equal.
func FuzzParseLock(f *testing.F) {
	f.Add([]byte(`{"lockVersion":1,"sources":[{"path":"a","git":"file:///x","commit":"` + strings.Repeat("ab", 20) + `"}]}`))
	f.Add([]byte(`{"lockVersion":1,"sources":[{"path":"b","catalog":"https://x","skills":["pdf"],"digest":"sha256:` + strings.Repeat("cd", 32) + `"}]}`))
	f.Add([]byte(`{"lockVersion":1,"sources":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := parseLock(b, LockFile)
		if err != nil {
			return
		}
		again, err := parseLock(l.encode(), LockFile)
		if err != nil || len(again.Sources) != len(l.Sources) {
			t.Fatalf("%s read, written and read again: %v %+v", b, err, again)
		}
	})
}
