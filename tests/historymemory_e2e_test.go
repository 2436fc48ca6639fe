//go:build e2e

package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHistoryMemory: a git "bomb" (issue 38, item 4) does not take the build's memory.
// A history of 5 versions of a skill whose file is 24 MiB of zeros (some kilobytes in
// .git), over the per-skill limit, then 24 more of 12 MiB each, at versions.keep 1:
// the versions over the limit are never read (their sizes come from git's object
// headers) and not named by the feed, and the others are read one at a time for their
// digests and let go. validate held every blob it read, 400 MiB and more here; now its
// peak stays under a fixed bound, a small multiple of the per-skill limit.
func TestHistoryMemory(t *testing.T) {
	cli, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	git := func(date string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(gitEnv(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("", "init", "-q", "-b", "main")
	if err := writeFiles(dir, map[string]string{"skills/skilledge.yaml": "versions:\n  keep: 1\n"}); err != nil {
		t.Fatal(err)
	}
	for i := range 29 {
		size := 12 << 20
		if i < 5 {
			size = 24 << 20
		}
		data := append([]byte(fmt.Sprintf("version %d\n", i)), make([]byte, size)...)
		md := fmt.Sprintf("---\nname: bomb\ndescription: Zeros.\nversion: 1.0.%d\n---\n", i)
		if err := os.MkdirAll(filepath.Join(dir, "skills", "bomb"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "skills", "bomb", "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "skills", "bomb", "zeros.bin"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		date := fmt.Sprintf("2026-01-%02dT10:00:00Z", i+1)
		git(date, "add", "-A")
		git(date, "commit", "-q", "-m", fmt.Sprint("version ", i))
	}
	out, peak, err := runPeak(exec.Command(cli, "validate", filepath.Join(dir, "skills")))
	if err != nil {
		t.Fatalf("validate: %v\n%s", err, out)
	}
	t.Logf("peak RSS %.1f MiB\n%s", float64(peak)/(1<<20), out)
	if limit := int64(200 << 20); peak > limit {
		t.Fatalf("validate of a history of 29 large versions peaked at %.1f MiB, over %d MiB", float64(peak)/(1<<20), limit>>20)
	}
}
