// Package sourcestest makes git repositories for tests of catalogs composed from sources,
// and serves them on loopback as remotes are served: by git daemon (git://) and by git
// http-backend (http://), each the real git program, stopped when the test ends.
package sourcestest

import (
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Repo is a git repository a test publishes skills from.
type Repo struct {
	t   testing.TB
	Dir string
}

// NewRepo makes an empty repository at dir, on branch main.
func NewRepo(t testing.TB, dir string) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: install it (apt-get install git)")
	}
	r := &Repo{t, dir}
	r.Git("init", "-q", "-b", "main", dir)
	return r
}

// Git runs git in the repository (init: anywhere) with a fixed author and date, and
// returns what it printed, trimmed; a failure fails the test.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	out, err := r.run(nil, args...)
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// GitIn is Git with stdin.
func (r *Repo) GitIn(stdin string, args ...string) string {
	r.t.Helper()
	out, err := r.run(strings.NewReader(stdin), args...)
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (r *Repo) run(stdin *strings.Reader, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	if args[0] != "init" {
		cmd.Dir = r.Dir
	}
	if stdin != nil {
		cmd.Stdin = stdin
	}
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr), err
	}
	return strings.TrimSpace(string(out)), err
}

// Skill writes the skill at p (its name the last segment of p, its description what) and
// commits it; it returns the commit.
func (r *Repo) Skill(p, what string) string {
	r.t.Helper()
	name := filepath.Base(p)
	Write(r.t, filepath.Join(r.Dir, p, "SKILL.md"), fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n# %s\n", name, what, name))
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "skill "+p+": "+what)
	return r.Git("rev-parse", "HEAD")
}

// URL is the repository's file:// URL.
func (r *Repo) URL() string { return "file://" + r.Dir }

// Write writes s to the file name, making its folders.
func Write(t testing.TB, name, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Daemon serves the repositories under dir with git daemon on a loopback port until the
// test ends, and returns the base URL (git://127.0.0.1:PORT).
func Daemon(t testing.TB, dir string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	// git-daemon itself, not the git command that would start it: stopping it stops the
	// daemon, which the wrapper would leave running.
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(strings.TrimSpace(string(execPath)), "git-daemon"), "--reuseaddr", "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port),
		"--export-all", "--base-path="+dir, "--informative-errors", dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("git daemon did not start")
		}
	}
	return "git://" + addr
}

// HTTPBackend serves the repositories under dir with git http-backend (through
// net/http/cgi) on a loopback port until the test ends, and returns the base URL.
func HTTPBackend(t testing.TB, dir string) string {
	t.Helper()
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	h := &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + dir, "GIT_HTTP_EXPORT_ALL=1"},
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String()
}
