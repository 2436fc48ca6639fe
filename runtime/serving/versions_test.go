package serving

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitIn runs git in dir with a fixed identity and no user configuration.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// validate loads dir as skilledge validate does, and returns its errors and what it
// prints: the problems, the summary and the history line.
func validate(t *testing.T, dir string, strict bool) (errors int, out string) {
	t.Helper()
	f, err := Load(dir, BuildOptions{Strict: strict})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	f.Report(&b)
	VersionsLine(&b, f.Catalog, false)
	return f.Errors, b.String()
}

// expectValidate fails t unless dir, validated, has errors errors and prints want.
func expectValidate(t *testing.T, dir string, strict bool, errors int, want string) string {
	t.Helper()
	n, out := validate(t, dir, strict)
	if n != errors || !strings.Contains(out, want) {
		t.Fatalf("validate %s: %d errors (want %d)\n%s\n(want %q)", dir, n, errors, out, want)
	}
	return out
}

func versionedMD(version, body string) string {
	return "---\nname: a\ndescription: A.\nversion: " + version + "\n---\n" + body + "\n"
}

// TestValidateHistory: validate (Load, Report, VersionsLine) says what the history keeps;
// a forgotten bump is a warning, an error with Strict; a shallow clone says how much it
// could read and how to get the rest; a folder in no work tree is served without
// history, with a warning.
func TestValidateHistory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git command")
	}
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(repo, "skills", "skilledge.yaml"), "versions:\n  keep: 10\n")
	for i, md := range []string{versionedMD("1.0.0", "one"), versionedMD("1.1.0", "two"), versionedMD("1.1.0", "two, edited")} {
		writeFile(t, filepath.Join(repo, "skills", "a", "SKILL.md"), md)
		gitIn(t, repo, "add", "-A")
		gitIn(t, repo, "commit", "-q", "-m", "commit "+string(rune('1'+i)))
	}
	skills := filepath.Join(repo, "skills")
	stdout := expectValidate(t, skills, false, 0, "skilledge: history: 2 older versions of 1 skill kept (at most 10 a skill) from 3 commits")
	if !strings.Contains(stdout, `warning: version 1.1.0 changed in`) || !strings.Contains(stdout, `the new content is published as 1.1.0+`) {
		t.Errorf("the forgotten bump: %s", stdout)
	}
	expectValidate(t, skills, true, 1, "1 skill checked: 1 error, 0 warnings")

	shallow := filepath.Join(t.TempDir(), "shallow")
	gitIn(t, repo, "clone", "-q", "--depth", "1", "file://"+repo, shallow)
	expectValidate(t, filepath.Join(shallow, "skills"), false, 0, "the clone is shallow (1 commit of its history could be read): fetch the whole history")

	plain := t.TempDir()
	writeFile(t, filepath.Join(plain, "skilledge.yaml"), "versions:\n  keep: 10\n")
	writeFile(t, filepath.Join(plain, "a", "SKILL.md"), versionedMD("1.0.0", "one"))
	expectValidate(t, plain, false, 0, "warning: versions: the folder is in no git work tree (or git is not installed), so it has no history to keep")
}
