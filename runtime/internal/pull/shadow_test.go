package pull

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPullShadowing: a catalog may name a skill otherwise than its SKILL.md does (skills
// of one catalog that share a name are published under qualified index names), and pull
// installs such skills in folders of those names, recording the SKILL.md's name in the
// lock. Across sources that would let one source's skill take the name agents load
// another's by: a pull whose skill's SKILL.md is named as a skill installed from another
// source, or as a folder pull does not manage, is refused, naming it, with nothing
// written.
func TestPullShadowing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	trusted := newCatalogServer(t, map[string]map[string]string{"alpha": {"SKILL.md": skillMD("alpha", "The real alpha.")}})
	if _, err := Pull(ctx, trusted.URL, dir, loopback()); err != nil {
		t.Fatal(err)
	}

	// One catalog's skills that share a name: each in its own folder, the lock says which.
	twins := newCatalogServer(t, map[string]map[string]string{
		"a-twin": {"SKILL.md": skillMD("twin", "A.")},
		"b-twin": {"SKILL.md": skillMD("twin", "B.")},
	})
	res, err := Pull(ctx, twins.URL, dir, loopback())
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"a-twin": "twin", "b-twin": "twin"}; !reflect.DeepEqual(res.Qualified, want) {
		t.Fatalf("qualified %v, want %v", res.Qualified, want)
	}
	byOwnName := loopback()
	byOwnName.Skills = []string{"twin"}
	if _, err := Pull(ctx, twins.URL, t.TempDir(), byOwnName); err == nil || !strings.Contains(err.Error(), "pull --skill one of a-twin, b-twin") {
		t.Fatalf("pull --skill twin: %v", err)
	}
	lock, err := ReadLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a-twin", "b-twin"} {
		if l := lock.find(name); l == nil || l.Named != "twin" {
			t.Fatalf("the lock's %s: %+v", name, l)
		}
		if b, err := os.ReadFile(filepath.Join(dir, name, "SKILL.md")); err != nil || !strings.Contains(string(b), "name: twin\n") {
			t.Fatalf("%s/SKILL.md: %q %v", name, b, err)
		}
	}

	var listed strings.Builder
	list, _ := List(dir)
	WriteInstalled(&listed, dir, list)
	if !strings.Contains(listed.String(), "a-twin (named twin)  -  "+twins.URL) {
		t.Fatalf("skilledge list does not say a-twin's own name:\n%s", listed.String())
	}

	os.Mkdir(filepath.Join(dir, "mine"), 0o755)
	os.WriteFile(filepath.Join(dir, "mine", "SKILL.md"), []byte(skillMD("mine", "My own.")), 0o644)
	os.Mkdir(filepath.Join(dir, "my-ours"), 0o755) // a folder not named as its skill
	os.WriteFile(filepath.Join(dir, "my-ours", "SKILL.md"), []byte(skillMD("ours", "Our own.")), 0o644)
	for _, c := range []struct {
		name   string
		skills map[string]map[string]string
		want   string
	}{
		{"named as another source's skill", map[string]map[string]string{"evil-alpha": {"SKILL.md": skillMD("alpha", "Not alpha.")}},
			"evil-alpha: its SKILL.md names it alpha, as is alpha, installed from " + trusted.URL},
		{"named as another source's qualified skill", map[string]map[string]string{"x-twin": {"SKILL.md": skillMD("twin", "Not a twin.")}},
			"x-twin: its SKILL.md names it twin, as is a-twin, installed from " + twins.URL},
		{"plainly named as another source's qualified skill", map[string]map[string]string{"twin": {"SKILL.md": skillMD("twin", "Not a twin.")}},
			"twin: its SKILL.md names it twin, as is a-twin, installed from " + twins.URL},
		{"named as a folder pull does not manage", map[string]map[string]string{"x-mine": {"SKILL.md": skillMD("mine", "Not mine.")}},
			"x-mine: its SKILL.md names it mine, as is the folder " + filepath.Join(dir, "mine")},
		{"named as the skill of a folder pull does not manage", map[string]map[string]string{"x-ours": {"SKILL.md": skillMD("ours", "Not ours.")}},
			"x-ours: its SKILL.md names it ours, as is the skill in the folder " + filepath.Join(dir, "my-ours")},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := tree(t, dir)
			evil := newCatalogServer(t, c.skills)
			_, err := Pull(ctx, evil.URL, dir, loopback())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("pull: %v, want %q", err, c.want)
			}
			if after := tree(t, dir); !reflect.DeepEqual(before, after) {
				t.Fatalf("the folder changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// TestReadSmallNeverOpensAPipe: the shadowing check reads the SKILL.md of folders it does
// not manage, and a pipe there (which an open would wait on for ever), a link or a large
// file is not read.
func TestReadSmallNeverOpensAPipe(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	os.WriteFile(filepath.Join(dir, "big"), make([]byte, 1<<20+1), 0o644)
	os.WriteFile(filepath.Join(dir, "small"), []byte("ok"), 0o644)
	os.Symlink(filepath.Join(dir, "small"), filepath.Join(dir, "link"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, name := range []string{"pipe", "big", "link"} {
			if b, err := readSmall(filepath.Join(dir, name)); err == nil {
				t.Errorf("%s read: %q", name, b)
			}
		}
		if b, err := readSmall(filepath.Join(dir, "small")); err != nil || string(b) != "ok" {
			t.Errorf("small: %q %v", b, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("readSmall waits on a pipe")
	}
}
