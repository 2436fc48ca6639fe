package pull

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// snapshot is a folder as a dry run must leave it: every file's bytes (skills.lock's
// among them), and the folder's modification time, which any entry made or removed in
// it moves (a temporary folder too).
type snapshot struct {
	files map[string]string
	mtime time.Time
}

func snapshotOf(t *testing.T, dir string) snapshot {
	t.Helper()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	return snapshot{tree(t, dir), fi.ModTime()}
}

// TestPullDryRun: a dry run's plan says what the pull would do, skill by skill and why,
// writes nothing (not a temporary folder, not a folder that does not exist yet), and is
// not applied; the pull then does what it said.
func TestPullDryRun(t *testing.T) {
	srv := newCatalogServer(t, testCatalog())
	dir := t.TempDir()
	if _, err := Pull(context.Background(), srv.URL, dir, loopback()); err != nil {
		t.Fatal(err)
	}
	srv.set("alpha", map[string]string{"SKILL.md": skillMD("alpha", "Alpha, new.")})
	srv.set("gamma", map[string]string{"SKILL.md": skillMD("gamma", "Gamma.")})
	srv.mu.Lock()
	delete(srv.skills, "beta")
	srv.mu.Unlock()
	time.Sleep(10 * time.Millisecond) // a write now would move the folder's time
	before := snapshotOf(t, dir)
	opt := loopback()
	opt.DryRun = true
	p, err := MakePlan(context.Background(), srv.URL, dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	p.WriteText(&text)
	p.Close()
	if after := snapshotOf(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatalf("a dry run wrote: before %v\nafter %v", before, after)
	}
	want := "plan: pull " + srv.URL + " into " + dir + " (read: well-known)\n" +
		"  update  alpha  changed at the source: sha256:"
	if !strings.HasPrefix(text.String(), want) || !strings.Contains(text.String(), "\n  remove  beta  no longer served\n  install gamma  not installed\n") ||
		!strings.HasSuffix(text.String(), "\n1 to install, 1 to update, 1 to remove, 0 kept, 0 refused, 0 skipped; nothing written (--dry-run)\n") {
		t.Fatalf("the plan:\n%s", text.String())
	}
	if _, err := p.Apply(); err == nil {
		t.Fatal("a dry run's plan was applied")
	}

	// Into a folder that does not exist: none is made.
	fresh := filepath.Join(t.TempDir(), "skills")
	p, err = MakePlan(context.Background(), srv.URL, fresh, opt)
	if err != nil || len(p.Actions) != 2 || p.Actions[0].Do != DoInstall {
		t.Fatalf("a plan into a new folder: %+v %v", p, err)
	}
	p.Close()
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Fatalf("a dry run made the folder: %v", err)
	}

	res, err := Pull(context.Background(), srv.URL, dir, loopback())
	if err != nil || !reflect.DeepEqual(res.Installed, []string{"gamma"}) || !reflect.DeepEqual(res.Updated, []string{"alpha"}) || !reflect.DeepEqual(res.Removed, []string{"beta"}) {
		t.Fatalf("the pull after its dry run: %+v %v", res, err)
	}
}
