package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skilledge/skilledge/catalog/sources/sourcestest"
)

// TestSourcesCLI: the sources command's and --source-token's refusals, each saying what is
// wrong, and none quoting a token.
func TestSourcesCLI(t *testing.T) {
	const token = "tok-SECRET-42"
	plain := t.TempDir()
	if err := os.MkdirAll(filepath.Join(plain, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(plain, "a", "SKILL.md"), []byte("---\nname: a\ndescription: A.\n---\n"), 0o644)
	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, "skilledge.yaml"), []byte("sources:\n  - path: x\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sources"}, 2, "missing argument"},
		{[]string{"sources", "upgrade"}, 2, `unknown subcommand "upgrade": sources has update`},
		{[]string{"sources", "update", "--dir", plain}, 1, "skilledge.yaml mounts no sources"},
		{[]string{"sources", "update", "--dir", broken}, 1, "sources[0] has no git"},
		{[]string{"sources", "update", "--dir", plain, "--source-token", token}, 2, "--source-token gives a token with no origin"},
		{[]string{"build", plain, "-o", filepath.Join(t.TempDir(), "out"), "--source-token", token}, 1, "--source-token gives a token with no origin"},
		{[]string{"validate", plain, "--source-token", "ftp://host=" + token}, 2, `"ftp://host" is not an origin`},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), c.args, nil, &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: %d %s, want %d %q", c.args, code, errb.String(), c.code, c.want)
		}
		if strings.Contains(out.String()+errb.String(), token) {
			t.Errorf("%v: the token is quoted: %s", c.args, errb.String())
		}
	}
}

// TestSourcesLockKept: validate writes sources.lock once the sources are composed; a
// skilledge.yaml with a problem (it names no sources then) leaves the lock as it was, so
// that fixing the problem serves the commits locked before, not the branch's newest.
func TestSourcesLockKept(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	r := sourcestest.NewRepo(t, filepath.Join(t.TempDir(), "platform"))
	first := r.Skill("deploy", "Deploy.")
	dir := t.TempDir()
	good := "sources:\n  - path: platform\n    git: " + r.URL() + "\n"
	validate := func(policy string) int {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "skilledge.yaml"), []byte(policy), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		return run(context.Background(), []string{"validate", dir}, nil, &out, &errb)
	}
	if code := validate(good); code != 0 {
		t.Fatalf("validate: %d", code)
	}
	lock, _ := os.ReadFile(filepath.Join(dir, "sources.lock"))
	if !strings.Contains(string(lock), first) {
		t.Fatalf("the lock: %s", lock)
	}
	r.Skill("deploy", "Deploy, newer.")
	if code := validate(good + "acess: {}\n"); code != 1 {
		t.Fatalf("validate of a policy file with a problem: %d", code)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "sources.lock")); !bytes.Equal(after, lock) {
		t.Fatalf("a policy file with a problem changed the lock:\n%s", after)
	}
	if code := validate(good); code != 0 {
		t.Fatalf("validate: %d", code)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "sources.lock")); !bytes.Equal(after, lock) {
		t.Fatalf("the lock moved to the branch's newest commit:\n%s", after)
	}
}
