package versions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repo is a git work tree in a temporary folder, with its skills in skills/.
type repo struct {
	t   *testing.T
	dir string
	n   int
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git command on this machine")
	}
	r := &repo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	return r.gitEnv(nil, args...)
}

func (r *repo) gitEnv(env []string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir}, args...)...)
	cmd.Env = append(append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// commit writes files (path -> content; "" removes it) and commits them, dated a day
// after the previous commit.
func (r *repo) commit(subject string, files map[string]string) {
	r.t.Helper()
	for p, data := range files {
		full := filepath.Join(r.dir, filepath.FromSlash(p))
		if data == "" {
			os.Remove(full)
			continue
		}
		os.MkdirAll(filepath.Dir(full), 0o755)
		if target, ok := strings.CutPrefix(data, "->"); ok {
			os.Symlink(target, full)
			continue
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.n++
	r.git("add", "-A")
	date := fmt.Sprintf("2026-11-%02dT12:00:00Z", r.n)
	r.gitEnv([]string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, "commit", "-q", "-m", subject+"\n\nthe body is not the subject")
}

// TestGit: the git command's history of a folder inside a work tree, read through Git:
// only the folder's commits, its files relative to it, links marked, a move followed.
func TestGit(t *testing.T) {
	r := newRepo(t)
	r.commit("outside", map[string]string{"README.md": "repo"})
	r.commit("add a", map[string]string{"skills/a/SKILL.md": skill("1.0.0", "one"), "skills/a/ref.md": "r"})
	r.commit("link", map[string]string{"skills/a/link.md": "->ref.md"})
	r.commit("outside again", map[string]string{"README.md": "repo 2"})
	os.Chmod(filepath.Join(r.dir, "skills/a/ref.md"), 0o755) // a script now: mode 100755
	r.commit("bump", map[string]string{"skills/a/SKILL.md": skill("1.1.0", "two")})
	r.git("mv", "skills/a", "skills/b")
	r.commit("rename a to b", nil)
	os.WriteFile(filepath.Join(r.dir, "skills/b/ref.md"), []byte("uncommitted"), 0o644)

	h := readGit(t, filepath.Join(r.dir, "skills"))
	if h.Commits != 4 || h.Shallow {
		t.Fatalf("%d commits, shallow %t; want 4, false", h.Commits, h.Shallow)
	}
	skills, changes := summary(h)
	wantSkills := []string{"b: 1.1.0 1.0.0+" + h.Skills[0].Versions[1].Content[:8] + " 1.0.0 (dropped 0)"}
	if !slices.Equal(skills, wantSkills) {
		t.Fatalf("skills %q, want %q", skills, wantSkills)
	}
	subjects := []string{}
	for _, c := range changes {
		subjects = append(subjects, c[:strings.Index(c, " ")])
	}
	if !slices.Equal(subjects, []string{"rename", "bump", "link", "add"}) {
		t.Fatalf("changes:\n%s", strings.Join(changes, "\n"))
	}
	if h.Changes[0].Moved != "a" || h.Changes[0].Commit.Subject != "rename a to b" || h.Changes[0].Commit.Date.Day() != 6 {
		t.Fatalf("the rename: %+v", h.Changes[0])
	}
	files := h.Skills[0].Versions[0].Files
	var names []string
	for _, f := range files {
		names = append(names, f.Path)
		if f.Path == "link.md" && !f.Link {
			t.Errorf("link.md is not marked a link")
		}
		if f.Exec != (f.Path == "ref.md") {
			t.Errorf("%s: Exec %v; only ref.md is 100755", f.Path, f.Exec)
		}
	}
	if !slices.Equal(names, []string{"SKILL.md", "link.md", "ref.md"}) {
		t.Fatalf("files %q", names)
	}
	if len(h.Problems) != 1 || !strings.Contains(h.Problems[0].String(), `a/SKILL.md: version 1.0.0 changed in `) {
		t.Fatalf("problems %q: the link was added without a bump", h.Problems)
	}

	// A shallow clone: history is cut, and says so.
	shallow := t.TempDir()
	out, err := exec.Command("git", "clone", "-q", "--depth", "1", "file://"+r.dir, shallow).CombinedOutput()
	if err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	h = readGit(t, filepath.Join(shallow, "skills"))
	if !h.Shallow || h.Commits != 1 || len(h.Skills) != 1 || len(h.Skills[0].Versions) != 1 {
		t.Fatalf("shallow clone: shallow %t, %d commits, skills %+v", h.Shallow, h.Commits, h.Skills)
	}
}

// readGit reads the history of the skills folder dir through Git.
func readGit(t *testing.T, dir string) *Versions {
	t.Helper()
	src, err := Git(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Read(context.Background(), src, Options{VersionOf: versionOf})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestGitNotRepo: a folder in no work tree is ErrNotRepo; a repository without commits
// has no history.
func TestGitNotRepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git command on this machine")
	}
	if _, err := Git(context.Background(), t.TempDir()); !errors.Is(err, ErrNotRepo) {
		t.Fatalf("a folder in no work tree: %v", err)
	}
	r := newRepo(t)
	os.MkdirAll(filepath.Join(r.dir, "skills"), 0o755)
	src, err := Git(context.Background(), filepath.Join(r.dir, "skills"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := Read(context.Background(), src, Options{})
	if err != nil || h.Commits != 0 || len(h.Skills) != 0 {
		t.Fatalf("no commits: %+v, %v", h, err)
	}
}

// TestGitMerges: what a branch published is what it received: a version made on a branch
// merged later is published by the merge, in the branch's order, not by its own commit's
// date; and a subject with the characters git's own formats separate fields with is read
// as it is.
func TestGitMerges(t *testing.T) {
	r := newRepo(t)
	r.commit("add a\x1e\x1f odd", map[string]string{"skills/a/SKILL.md": skill("1.0.0", "one")})
	r.git("checkout", "-q", "-b", "feature")
	r.commit("a 2.0.0 on a branch", map[string]string{"skills/a/SKILL.md": skill("2.0.0", "two")})
	r.git("checkout", "-q", "main")
	r.commit("b on main, later", map[string]string{"skills/b/SKILL.md": skill("1.1.0", "b")})
	r.gitEnv([]string{"GIT_AUTHOR_DATE=2026-11-20T12:00:00Z", "GIT_COMMITTER_DATE=2026-11-20T12:00:00Z"},
		"merge", "-q", "--no-ff", "-m", "Merge the feature", "feature")

	h := readGit(t, filepath.Join(r.dir, "skills"))
	skills, changes := summary(h)
	if !slices.Equal(skills, []string{"a: 2.0.0 1.0.0 (dropped 0)", "b: 1.1.0 (dropped 0)"}) {
		t.Fatalf("skills %q\nchanges:\n%s", skills, strings.Join(changes, "\n"))
	}
	a := h.Skill("a").Versions
	if a[0].Commit.Subject != "Merge the feature" || a[1].Commit.Subject != "add a\x1e\x1f odd" {
		t.Fatalf("published by %q and %q", a[0].Commit.Subject, a[1].Commit.Subject)
	}
	if h.Commits != 3 {
		t.Fatalf("%d commits read, want 3 (the branch's own commit is not main's)", h.Commits)
	}
}

// TestGitHostileCommits: a commit whose committer date git keeps but RFC 3339 cannot
// write (past year 9999) is skipped with a warning naming it, its changes becoming the
// next commit's, where it stopped every build; a subject of 1 MiB is cut to MaxSubject
// characters, the last "…".
func TestGitHostileCommits(t *testing.T) {
	r := newRepo(t)
	r.commit("add a", map[string]string{"skills/a/SKILL.md": skill("1.0.0", "one")})
	os.WriteFile(filepath.Join(r.dir, "skills/a/SKILL.md"), []byte(skill("1.1.0", "two")), 0o644)
	r.git("add", "-A")
	r.gitEnv([]string{"GIT_COMMITTER_DATE=@253402300800 +0000"}, "commit", "-q", "-m", "from the far future")
	long := strings.Repeat("é", 1<<19) // 1 MiB: too long for an argument, so from a file
	msg := filepath.Join(t.TempDir(), "message")
	os.WriteFile(msg, []byte(long+"\n"), 0o644)
	os.WriteFile(filepath.Join(r.dir, "skills/a/SKILL.md"), []byte(skill("1.2.0", "three")), 0o644)
	r.git("add", "-A")
	r.gitEnv([]string{"GIT_COMMITTER_DATE=2026-11-20T12:00:00Z"}, "commit", "-q", "-F", msg)

	h := readGit(t, filepath.Join(r.dir, "skills"))
	if len(h.Problems) != 1 || h.Problems[0].Path != "" || !strings.Contains(h.Problems[0].String(), "is skipped: its committer date \"10000-01-01T00:00:00+00:00\" is not an RFC 3339 date") {
		t.Fatalf("problems %q", h.Problems)
	}
	skills, _ := summary(h)
	if want := []string{"a: 1.2.0 1.0.0 (dropped 0)"}; !slices.Equal(skills, want) {
		t.Fatalf("skills %q, want %q", skills, want)
	}
	subject := h.Changes[0].Commit.Subject
	if n := len([]rune(subject)); n != MaxSubject || !strings.HasSuffix(subject, "é…") {
		t.Fatalf("a subject of 1 MiB is kept as %d characters: %.40q", n, subject)
	}
}

// TestCutSubject: a subject of MaxSubject characters or fewer is as it was.
func TestCutSubject(t *testing.T) {
	for _, c := range []struct {
		n    int
		want int
		cut  bool
	}{{0, 0, false}, {1, 1, false}, {MaxSubject - 1, MaxSubject - 1, false}, {MaxSubject, MaxSubject, false}, {MaxSubject + 1, MaxSubject, true}, {5 * MaxSubject, MaxSubject, true}} {
		got := cutSubject(strings.Repeat("ж", c.n))
		if n := len([]rune(got)); n != c.want || strings.HasSuffix(got, "…") != c.cut {
			t.Errorf("cutSubject of %d characters: %d, cut %t", c.n, n, strings.HasSuffix(got, "…"))
		}
	}
}

// TestGitAtBounded: a source (GitAt) lists at most DefaultMaxCommits+1 commits, whatever
// its history holds: the one more than Read keeps, so that Read knows it is cut.
func TestGitAtBounded(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", "--bare", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	var stream strings.Builder
	const n = DefaultMaxCommits + 3
	for i := 1; i <= n; i++ {
		body := fmt.Sprintf("---\nname: s\ndescription: version %d\n---\n", i)
		fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter t <t@example.com> %d +0000\ndata 1\nc\n", 1_700_000_000+i)
		fmt.Fprintf(&stream, "M 100644 inline s/SKILL.md\ndata %d\n%s\n", len(body), body)
	}
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	cmd.Stdin = strings.NewReader(stream.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v %s", err, out)
	}
	head, err := exec.Command("git", "-C", dir, "rev-parse", "main").Output()
	if err != nil {
		t.Fatal(err)
	}
	src := GitAt(dir, strings.TrimSpace(string(head)), "")
	commits, err := src.Log(context.Background())
	if err != nil || len(commits) != DefaultMaxCommits+1 {
		t.Fatalf("Log: %d commits, %v; want %d", len(commits), err, DefaultMaxCommits+1)
	}
}
