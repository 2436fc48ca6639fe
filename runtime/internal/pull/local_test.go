package pull

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeSkills writes files (path -> content) under dir, a path ending in ".sh" executable.
func writeSkills(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(c), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPullFromFolder: a skills folder is read as build reads it: its valid skills are
// installed (a script keeping its execute bit), an invalid one is skipped and named, the
// lock records the folder's absolute path and the manifest digests, a second pull
// downloads nothing, and an edit at the source is an update.
func TestPullFromFolder(t *testing.T) {
	src := t.TempDir()
	writeSkills(t, src, map[string]string{
		"team/alpha/SKILL.md":       skillMD("alpha", "Alpha."),
		"team/alpha/scripts/run.sh": "#!/bin/sh\n",
		"broken/SKILL.md":           "no frontmatter\n",
	})
	dir := t.TempDir()
	t.Chdir(filepath.Dir(src))
	res, err := Pull(context.Background(), filepath.Base(src), dir, Options{})
	if err != nil || !reflect.DeepEqual(res.Installed, []string{"alpha"}) || res.Via != ViaFolder || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0], "broken/SKILL.md") {
		t.Fatalf("pull from a folder: %+v %v", res, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "alpha", "scripts", "run.sh")); err != nil || !executable(fi.Mode()) {
		t.Errorf("the script: %v %v", fi, err)
	}
	lock, _ := ReadLock(dir)
	if l := lock.find("alpha"); l == nil || l.Source != src || l.Path != "team/alpha" || !strings.HasPrefix(l.Manifest, "sha256:") {
		t.Fatalf("the lock: %+v", lock)
	}
	if res, err := Pull(context.Background(), src, dir, Options{}); err != nil || len(res.Unchanged) != 1 || len(res.Updated) != 0 {
		t.Fatalf("a second pull: %+v %v", res, err)
	}
	writeSkills(t, src, map[string]string{"team/alpha/SKILL.md": skillMD("alpha", "Alpha, new.")})
	if res, err := Pull(context.Background(), src, dir, Options{}); err != nil || !reflect.DeepEqual(res.Updated, []string{"alpha"}) {
		t.Fatalf("a pull after an edit at the source: %+v %v", res, err)
	}
	if _, err := Pull(context.Background(), filepath.Join(src, "nowhere"), dir, Options{}); err == nil || !strings.Contains(err.Error(), "is no folder and no URL") {
		t.Errorf("a folder that does not exist: %v", err)
	}
}

// TestPullFromGit: a git repository is cloned at one commit, its skills/ folder read as
// build reads it, and the commit locked; a branch is named with #REF; a link out of a
// skill is not followed: that skill is skipped; skills that share a name are installed
// under their index names, whichever --path selects (hostile URLs: TestHostileServer).
func TestPullFromGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git command")
	}
	repo := t.TempDir()
	writeSkills(t, repo, map[string]string{
		"README.md":                   "# skills\n",
		"skills/alpha/SKILL.md":       skillMD("alpha", "Alpha."),
		"skills/alpha/scripts/run.sh": "#!/bin/sh\n",
		"skills/evil/SKILL.md":        skillMD("evil", "Evil."),
		"skills/a/twin/SKILL.md":      skillMD("twin", "One twin."),
		"skills/b/twin/SKILL.md":      skillMD("twin", "The other."),
	})
	if err := os.Symlink("/etc/passwd", filepath.Join(repo, "skills", "evil", "passwd")); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", args, err, out)
		}
	}
	head := gitInit(t, repo)
	git("branch", "stable")
	dir := t.TempDir()
	source := "git+file://" + repo + "#stable"
	res, err := Pull(context.Background(), source, dir, Options{})
	if err != nil || !reflect.DeepEqual(res.Installed, []string{"a-twin", "alpha", "b-twin"}) || res.Via != ViaGit || len(res.Skipped) != 1 ||
		!strings.Contains(strings.Join(res.Skipped, "\n"), "evil/SKILL.md: warning: skipped, not served") ||
		!reflect.DeepEqual(res.Qualified, map[string]string{"a-twin": "twin", "b-twin": "twin"}) {
		t.Fatalf("pull from git: %+v %v", res, err)
	}
	// A skill whose name others share is asked for by its index name, and --path selects
	// one without renaming it.
	if res, err := Pull(context.Background(), source, t.TempDir(), Options{Skills: []string{"b-twin"}}); err != nil || !reflect.DeepEqual(res.Installed, []string{"b-twin"}) {
		t.Fatalf("pull --skill b-twin: %+v %v", res, err)
	}
	if res, err := Pull(context.Background(), source, t.TempDir(), Options{Paths: []string{"b"}}); err != nil || !reflect.DeepEqual(res.Installed, []string{"b-twin"}) {
		t.Fatalf("pull --path b: %+v %v", res, err)
	}
	if _, err := Pull(context.Background(), source, t.TempDir(), Options{Skills: []string{"twin"}}); err == nil || !strings.HasSuffix(err.Error(), `serves no skill by the name "twin": skills that share a name are served under names of their own; pull --skill one of a-twin, b-twin`) {
		t.Fatalf("pull --skill twin: %v", err)
	}
	lock, _ := ReadLock(dir)
	if l := lock.find("alpha"); l == nil || l.Commit != head || l.Source != source || l.URL != source+"#"+head {
		t.Fatalf("the lock: %+v", lock.Skills)
	}
	if fi, err := os.Stat(filepath.Join(dir, "alpha", "scripts", "run.sh")); err != nil || !executable(fi.Mode()) {
		t.Errorf("the script: %v %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "evil")); !os.IsNotExist(err) {
		t.Errorf("the skill with a link out of it was installed")
	}
	// The repository moves on: a frozen pull reads the commit the lock records, a plain
	// pull the new head.
	writeSkills(t, repo, map[string]string{"skills/alpha/SKILL.md": skillMD("alpha", "Alpha, new.")})
	git("commit", "-q", "-am", "alpha, new")
	git("branch", "-f", "stable")
	os.RemoveAll(filepath.Join(dir, "alpha"))
	if res, err := Pull(context.Background(), source, dir, Options{Frozen: true}); err != nil || !reflect.DeepEqual(res.Updated, []string{"alpha"}) {
		t.Fatalf("a frozen pull after the repository moved on: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "alpha", "SKILL.md")); string(b) != skillMD("alpha", "Alpha.") {
		t.Fatalf("a frozen pull installed %q", b)
	}
	if res, err := Pull(context.Background(), source, dir, Options{}); err != nil || !reflect.DeepEqual(res.Updated, []string{"alpha"}) {
		t.Fatalf("a pull after the repository moved on: %+v %v", res, err)
	}
	if lock, _ := ReadLock(dir); lock.find("alpha").Commit == head {
		t.Error("the lock still names the old commit")
	}
}
