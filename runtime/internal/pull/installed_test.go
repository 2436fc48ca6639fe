package pull

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestListAndRemove: List reads the lock and compares each skill with its folder; Remove
// deletes a skill and its lock entry, refuses an edited one without force, and touches
// nothing the lock does not name. A removed skill stays out of later pulls of its source,
// pulled whole or by selection, until it is named again, which brings it back.
func TestListAndRemove(t *testing.T) {
	srv := newCatalogServer(t, testCatalog())
	dir := t.TempDir()
	if _, err := Pull(context.Background(), srv.URL, dir, loopback()); err != nil {
		t.Fatal(err)
	}
	list, err := List(dir)
	if err != nil || len(list) != 2 || list[0].Name != "alpha" || list[1].Name != "beta" || list[1].Version != "1.2.0" ||
		list[0].Files != 3 || list[0].Source != srv.URL || len(list[0].Changed) != 0 {
		t.Fatalf("List: %+v %v", list, err)
	}
	edited := filepath.Join(dir, "alpha", "ref", "a.md")
	os.WriteFile(edited, []byte("mine\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "alpha", "extra.md"), []byte("added\n"), 0o644)
	if list, _ := List(dir); !reflect.DeepEqual(list[0].Changed, []string{"extra.md", "ref/a.md"}) {
		t.Errorf("List of an edited skill: %+v", list[0])
	}
	if _, err := Remove(dir, "alpha", false); err == nil || !strings.Contains(err.Error(), edited) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("Remove of an edited skill: %v", err)
	}
	if _, err := Remove(dir, "gamma", false); err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Errorf("Remove of a skill the lock does not name: %v", err)
	}
	os.MkdirAll(filepath.Join(dir, "mine"), 0o755)
	if _, err := Remove(dir, "mine", true); err == nil {
		t.Errorf("Remove of a folder the lock does not name succeeded")
	}
	if _, err := Remove(dir, "../x", true); err == nil {
		t.Errorf("Remove of a path succeeded")
	}
	gone, err := Remove(dir, "alpha", true)
	if err != nil || gone.Name != "alpha" || gone.Files != 3 {
		t.Fatalf("Remove --force: %+v %v", gone, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "alpha")); !os.IsNotExist(err) {
		t.Errorf("alpha's folder is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "mine")); err != nil {
		t.Errorf("the folder the lock does not name was touched: %v", err)
	}
	// Pulled whole: a later pull leaves alpha out, even when it changes at the source.
	srv.set("alpha", map[string]string{"SKILL.md": skillMD("alpha", "Alpha, new.")})
	res, err := Pull(context.Background(), srv.URL, dir, loopback())
	if err != nil || len(res.Installed)+len(res.Updated) != 0 || len(res.New) != 0 {
		t.Fatalf("a pull after remove: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "alpha")); !os.IsNotExist(err) {
		t.Fatal("a pull brought alpha back")
	}
	// Named again, it comes back, and the lock forgets the removal.
	opt := loopback()
	opt.Skills = []string{"alpha"}
	if res, err := Pull(context.Background(), srv.URL, dir, opt); err != nil || !reflect.DeepEqual(res.Installed, []string{"alpha"}) {
		t.Fatalf("pull --skill alpha: %+v %v", res, err)
	}
	lock, err := ReadLock(dir)
	if err != nil || len(lock.Selections) != 0 || lock.find("alpha") == nil {
		t.Fatalf("the lock after alpha came back: %+v %v", lock, err)
	}
	// Whole again: a new skill at the source is installed.
	srv.set("gamma", map[string]string{"SKILL.md": skillMD("gamma", "Gamma.")})
	if res, err := Pull(context.Background(), srv.URL, dir, loopback()); err != nil || !reflect.DeepEqual(res.Installed, []string{"gamma"}) {
		t.Fatalf("a pull of the whole catalog: %+v %v", res, err)
	}
	// A selection keeps a removed skill out too, and does not become the whole catalog
	// when its last named skill is removed.
	sel := t.TempDir()
	opt.Skills = []string{"beta"}
	if _, err := Pull(context.Background(), srv.URL, sel, opt); err != nil {
		t.Fatal(err)
	}
	if _, err := Remove(sel, "beta", false); err != nil {
		t.Fatal(err)
	}
	if res, err := Pull(context.Background(), srv.URL, sel, loopback()); err != nil || len(res.Installed) != 0 {
		t.Fatalf("a pull of a selection whose only skill was removed: %+v %v", res, err)
	}
	if ents, _ := os.ReadDir(sel); len(ents) != 1 { // skills.lock
		t.Errorf("the folder holds %d entries", len(ents))
	}
}

// TestPullModes: a file the archive marks executable is installed 0755 and locked so, every
// other 0644; a chmod of it is a local change; a hostile archive's set-id, sticky and
// world-writable bits are never set, only the execute bits.
func TestPullModes(t *testing.T) {
	srv := newCatalogServer(t, testCatalog())
	md := []byte(skillMD("evil", "Evil."))
	srv.raw["evil"] = rawTarGz(tarEntry{name: "SKILL.md", data: md}, tarEntry{name: "run", data: []byte("#!/bin/sh\n"), mode: 0o7777})
	srv.set("evil", map[string]string{"SKILL.md": string(md), "run": "#!/bin/sh\n"})
	dir := t.TempDir()
	if _, err := Pull(context.Background(), srv.URL, dir, loopback()); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{"alpha/scripts/run.sh": true, "alpha/SKILL.md": false, "alpha/ref/a.md": false, "evil/run": true} {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		if executable(fi.Mode()) != want || fi.Mode()&(os.ModeSetuid|os.ModeSetgid|os.ModeSticky) != 0 || fi.Mode().Perm()&0o022 != 0 {
			t.Errorf("%s: mode %v", p, fi.Mode())
		}
	}
	lock, _ := ReadLock(dir)
	for _, f := range lock.find("alpha").Files {
		if f.Exec != (f.Path == "scripts/run.sh") {
			t.Errorf("the lock says %s exec %v", f.Path, f.Exec)
		}
	}
	os.Chmod(filepath.Join(dir, "alpha", "scripts", "run.sh"), 0o644)
	if list, _ := List(dir); !reflect.DeepEqual(list[0].Changed, []string{"scripts/run.sh"}) {
		t.Errorf("a chmod -x is no local change: %+v", list[0])
	}
}

// TestOutdatedString: a line says current, wanted and latest as npm outdated does.
func TestOutdatedString(t *testing.T) {
	d1, d2 := "sha256:"+strings.Repeat("a", 64), "sha256:"+strings.Repeat("b", 64)
	for _, c := range []struct {
		o    Outdated
		want string
	}{
		{Outdated{Name: "x", Source: "https://s", FromVersion: "1.0", FromDigest: d1, ToVersion: "1.1", ToDigest: d2},
			"x  1.0 " + short(d1) + " current -> 1.1 " + short(d2) + " wanted, latest  (https://s)"},
		{Outdated{Name: "x", Source: "https://s", FromVersion: "1.0", FromDigest: d1, ToVersion: "1.1", ToDigest: d2, Pinned: true},
			"x  1.0 " + short(d1) + " current, wanted (pinned) -> 1.1 " + short(d2) + " latest  (https://s)"},
		{Outdated{Name: "x", Source: "https://s", FromDigest: d1, Removed: true},
			"x  " + short(d1) + " current -> (no longer served: a pull removes it)  (https://s)"},
	} {
		if got := c.o.String(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}
