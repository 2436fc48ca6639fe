package sources

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/sources/sourcestest"
	"github.com/skilledge/skilledge/catalog/versions"
)

// resolveErr resolves srcs for the folder dir, and returns the commits by path.
func resolveErr(t *testing.T, dir, cache string, srcs []compile.Source, opt Options) (map[string]string, error) {
	t.Helper()
	opt.CacheDir = cache
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rs, err := Resolve(ctx, dir, srcs, opt)
	if err == nil && !opt.Frozen {
		err = WriteLock(dir, rs, opt.Log)
	}
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range rs {
		out[r.Path] = r.Commit
	}
	return out, nil
}

// TestResolveLock: the first build resolves each source and writes the lock; later builds
// keep to it while the ref moves on; sources update moves it; --frozen refuses a lock
// that does not hold the configuration, a tag moved, a branch force-pushed and a locked
// commit gone, naming the source; and lets a branch that only moved on pass.
func TestResolveLock(t *testing.T) {
	root := t.TempDir()
	platform := sourcestest.NewRepo(t, filepath.Join(root, "platform"))
	first := platform.Skill("skills/deploy", "Deploy a service.")
	platform.Git("tag", "v1")
	platform.Git("tag", "-a", "-m", "annotated", "v1-annotated")
	folder, cache := filepath.Join(root, "catalog"), filepath.Join(root, "cache")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	srcs := []compile.Source{{Path: "platform", Git: platform.URL(), Ref: "main", Dir: "skills", Line: 2}}

	got, err := resolveErr(t, folder, cache, srcs, Options{})
	if err != nil || got["platform"] != first {
		t.Fatalf("first resolve: %v %v, want %s", got, err, first)
	}
	lock, err := os.ReadFile(filepath.Join(folder, LockFile))
	if err != nil || !strings.Contains(string(lock), first) {
		t.Fatalf("lock: %s %v", lock, err)
	}

	// The branch moves on: a build keeps the locked commit; --frozen passes (the locked
	// commit is still in the branch); sources update moves the lock.
	second := platform.Skill("skills/deploy", "Deploy a service, safely.")
	for _, frozen := range []bool{false, true} {
		got, err = resolveErr(t, folder, cache, srcs, Options{Frozen: frozen})
		if err != nil || got["platform"] != first {
			t.Fatalf("frozen %t after the branch moved on: %v %v, want the locked %s", frozen, got, err, first)
		}
	}
	got, err = resolveErr(t, folder, cache, srcs, Options{Update: []string{"platform"}})
	if err != nil || got["platform"] != second {
		t.Fatalf("update: %v %v, want %s", got, err, second)
	}

	// A branch force-pushed away from the locked commit: refused under --frozen.
	platform.Git("reset", "-q", "--hard", first)
	third := platform.Skill("skills/deploy", "Deploy, rewritten.")
	_, err = resolveErr(t, folder, cache, srcs, Options{Frozen: true})
	if !errors.Is(err, ErrFrozen) || !strings.Contains(err.Error(), `source "platform"`) || !strings.Contains(err.Error(), "force-pushed") {
		t.Fatalf("force-pushed branch under --frozen: %v", err)
	}

	// A tag moved: refused under --frozen.
	for _, tag := range []string{"v1", "v1-annotated"} {
		tagged := []compile.Source{{Path: "platform", Git: platform.URL(), Ref: tag, Dir: "skills"}}
		if _, err := resolveErr(t, folder, cache, tagged, Options{Update: []string{"platform"}}); err != nil {
			t.Fatal(err)
		}
		platform.Git("tag", "-f", "-a", "-m", "moved", tag, third)
		_, err = resolveErr(t, folder, cache, tagged, Options{Frozen: true})
		if !errors.Is(err, ErrFrozen) || !strings.Contains(err.Error(), "tag "+tag+" moved") {
			t.Fatalf("moved tag %s under --frozen: %v", tag, err)
		}
	}

	// A configuration the lock does not hold: refused under --frozen, resolved without.
	other := []compile.Source{{Path: "platform", Git: platform.URL(), Ref: "main", Dir: "tools"}}
	_, err = resolveErr(t, folder, cache, other, Options{Frozen: true})
	if !errors.Is(err, ErrFrozen) || !strings.Contains(err.Error(), "was locked for git "+platform.URL()+", ref v1-annotated, dir skills") {
		t.Fatalf("changed configuration under --frozen: %v", err)
	}
	_, err = resolveErr(t, folder, cache, nil, Options{Frozen: true})
	if !errors.Is(err, ErrFrozen) || !strings.Contains(err.Error(), `it locks source "platform"`) {
		t.Fatalf("a source removed, under --frozen: %v", err)
	}
	before, _ := os.ReadFile(filepath.Join(folder, LockFile))
	if _, err := resolveErr(t, folder, cache, other, Options{Frozen: true}); err == nil {
		t.Fatal("no error")
	}
	if after, _ := os.ReadFile(filepath.Join(folder, LockFile)); !bytes.Equal(before, after) {
		t.Fatal("--frozen wrote the lock")
	}
}

// TestResolveLockedCommitGone: a locked commit that the repository no longer has (the
// branch force-pushed, the old commit collected) is refused by every build, naming the
// source, from a cache that never held it.
func TestResolveLockedCommitGone(t *testing.T) {
	root := t.TempDir()
	platform := sourcestest.NewRepo(t, filepath.Join(root, "platform"))
	first := platform.Skill("deploy", "Deploy.")
	folder := filepath.Join(root, "catalog")
	os.MkdirAll(folder, 0o755)
	srcs := []compile.Source{{Path: "platform", Git: platform.URL(), Ref: "main"}}
	if _, err := resolveErr(t, folder, filepath.Join(root, "cache1"), srcs, Options{}); err != nil {
		t.Fatal(err)
	}
	platform.Git("commit", "-q", "--amend", "-m", "rewritten")
	platform.Git("reflog", "expire", "--expire=now", "--all")
	platform.Git("gc", "-q", "--prune=now")
	if _, err := exec.Command("git", "-C", platform.Dir, "cat-file", "-e", first).Output(); err == nil {
		t.Fatal("the old commit is still in the repository")
	}
	_, err := resolveErr(t, folder, filepath.Join(root, "cache2"), srcs, Options{})
	if err == nil || !strings.Contains(err.Error(), `source "platform"`) || !strings.Contains(err.Error(), "is not in the repository's branch main") {
		t.Fatalf("locked commit gone: %v", err)
	}
}

// TestResolveRemotes: a source over git's own protocol (git daemon) and over HTTP (git
// http-backend), each on loopback, resolves and fetches as a file one does.
func TestResolveRemotes(t *testing.T) {
	root := t.TempDir()
	served := filepath.Join(root, "served")
	daemonRepo := sourcestest.NewRepo(t, filepath.Join(served, "daemon.git"))
	daemonCommit := daemonRepo.Skill("notes", "Take notes.")
	httpRepo := sourcestest.NewRepo(t, filepath.Join(served, "http.git"))
	httpCommit := httpRepo.Skill("pdf", "Read PDF files.")

	daemonURL := sourcestest.Daemon(t, served)
	httpURL := sourcestest.HTTPBackend(t, served)
	folder := filepath.Join(root, "catalog")
	os.MkdirAll(folder, 0o755)
	srcs := []compile.Source{
		{Path: "team", Git: daemonURL + "/daemon.git"},
		{Path: "vendor", Git: httpURL + "/http.git", Ref: "main"},
	}
	got, err := resolveErr(t, folder, filepath.Join(root, "cache"), srcs, Options{})
	if err != nil || got["team"] != daemonCommit || got["vendor"] != httpCommit {
		t.Fatalf("got %v, %v; want team %s, vendor %s", got, err, daemonCommit, httpCommit)
	}
}

// composeFolder loads the skills folder folder, resolves its sources with the cache cache
// and composes them, as a build does (SkipInvalid); it returns the catalog and the
// problems of the sources and the whole, a line each. The folder itself must have none.
func composeFolder(t *testing.T, folder, cache string) (*compile.Catalog, string) {
	t.Helper()
	c, problems, err := compile.LoadDir(folder, compile.Options{SkipInvalid: true})
	if err != nil || len(problems) > 0 {
		t.Fatalf("load: %v %v", problems, err)
	}
	ctx := context.Background()
	rs, err := Resolve(ctx, folder, c.Sources, Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if problems, err = Compose(ctx, c, "catalog", rs, compile.Options{SkipInvalid: true}, nil); err != nil {
		t.Fatal(err)
	}
	var text []string
	for _, p := range problems {
		text = append(text, p.String())
	}
	return c, strings.Join(text, "\n")
}

// TestComposeHostile: a source is held to the limits of the folder: a link out of its
// skill, a file over the per-skill limit and a name no URI can hold make their skill
// invalid; a path no file system can hold ("..") and a submodule are not served; the
// source's own policy file is not read; the other skills are mounted under the source's
// path with their provenance, and the lock and the catalog never hold a credential.
func TestComposeHostile(t *testing.T) {
	root := t.TempDir()
	r := sourcestest.NewRepo(t, filepath.Join(root, "hostile"))
	r.Skill("good", "A good skill.")
	sourcestest.Write(t, filepath.Join(r.Dir, "skilledge.yaml"), "access:\n  default: [nobody]\n")
	r.Skill("linked", "Links out.")
	if err := os.Symlink("../../../../etc/passwd", filepath.Join(r.Dir, "linked", "passwd")); err != nil {
		t.Fatal(err)
	}
	r.Skill("big", "Too large.")
	if err := os.WriteFile(filepath.Join(r.Dir, "big", "zeros.bin"), make([]byte, compile.MaxSkillBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Skill("odd", "An odd name.")
	sourcestest.Write(t, filepath.Join(r.Dir, "odd", "a\\b.md"), "backslash\n")
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "hostile")
	// A ".." entry in the tree of good, and a submodule: what git itself would refuse to
	// check out, made with git's plumbing.
	blob := r.Git("hash-object", "-w", filepath.Join(r.Dir, "good", "SKILL.md"))
	goodTree := r.Git("rev-parse", "HEAD:good")
	entries := r.Git("ls-tree", goodTree)
	crafted := r.GitIn(entries+"\n100644 blob "+blob+"\t..\n160000 commit "+r.Git("rev-parse", "HEAD")+"\tsub\n", "mktree")
	rootTree := r.GitIn(strings.Replace(r.Git("ls-tree", "HEAD"), goodTree, crafted, 1)+"\n", "mktree")
	commit := r.Git("commit-tree", "-p", "HEAD", "-m", "crafted", rootTree)
	r.Git("update-ref", "refs/heads/main", commit)

	folder := filepath.Join(root, "catalog")
	sourcestest.Write(t, filepath.Join(folder, "local", "SKILL.md"), "---\nname: local\ndescription: The folder's own.\n---\n")
	sourcestest.Write(t, filepath.Join(folder, compile.PolicyFile), "sources:\n  - path: vendor/x\n    git: "+r.URL()+"\n")
	c, all := composeFolder(t, folder, filepath.Join(root, "cache"))
	if len(c.Sources) != 1 {
		t.Fatalf("sources: %+v", c.Sources)
	}
	for _, want := range []string{
		"catalog/vendor/x/good/..: warning: the repository holds this path, which no file system can: not served",
		"catalog/vendor/x/skilledge.yaml: warning: the source's own policy file is not read",
		"catalog/vendor/x/linked/passwd: symbolic link",
		"catalog/vendor/x/big/zeros.bin: the file is over the per-skill limit",
		`catalog/vendor/x/odd/a\b.md: file name "a\\b.md"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no problem %q in:\n%s", want, all)
		}
	}
	var paths []string
	for _, s := range c.Skills {
		paths = append(paths, s.Path)
		if s.Path == "vendor/x/good" {
			if p := s.Source; p == nil || *p != (compile.Provenance{Source: "vendor/x", Repository: r.URL(), Commit: commit, Path: "good"}) {
				t.Errorf("provenance of good: %+v", p)
			}
			for _, f := range s.Files {
				if f.Path != "vendor/x/good/SKILL.md" {
					t.Errorf("good serves %s", f.Path)
				}
			}
		}
	}
	if got := strings.Join(paths, " "); got != "local vendor/x/good" {
		t.Errorf("skills served: %s", got)
	}
	if c.Access != nil {
		t.Errorf("the source's policy was read: %+v", c.Access)
	}
}

// TestComposeHistory: in a catalog that keeps history, a source's skills keep the versions
// of the source's own history up to its locked commit, at their version paths under the
// source's path, and each of its changes names the source; a folder of the source whose
// name starts with the version mark is refused as the catalog's own would be.
func TestComposeHistory(t *testing.T) {
	root := t.TempDir()
	r := sourcestest.NewRepo(t, filepath.Join(root, "platform"))
	sourcestest.Write(t, filepath.Join(r.Dir, "deploy", "SKILL.md"), "---\nname: deploy\ndescription: One.\nversion: 1.0.0\n---\n")
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "deploy 1.0.0")
	sourcestest.Write(t, filepath.Join(r.Dir, "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Two.\nversion: 2.0.0\n---\n")
	r.Skill("@odd", "A folder named as a version.")
	folder := filepath.Join(root, "catalog")
	sourcestest.Write(t, filepath.Join(folder, compile.PolicyFile), "versions:\n  keep: 3\nsources:\n  - path: platform\n    git: "+r.URL()+"\n")
	c, all := composeFolder(t, folder, filepath.Join(root, "cache"))
	if c.Keep != 3 {
		t.Fatalf("keep %d", c.Keep)
	}
	if !strings.Contains(all, `catalog/platform/@odd: "@odd" starts with "@", which names a skill's versions`) {
		t.Errorf("the @odd folder is not refused:\n%s", all)
	}
	var deploy *compile.Skill
	for _, s := range c.Skills {
		if s.Path == "platform/deploy" {
			deploy = s
		}
	}
	if deploy == nil || deploy.Version != "2.0.0" || len(deploy.Kept) != 2 || deploy.Kept[1].Skill.Path != "platform/deploy/@1.0.0/deploy" {
		t.Fatalf("deploy's versions: %+v", deploy)
	}
	h := c.Versions
	older := deploy.Kept[1].Skill
	if h == nil || !slices.Contains(h.Older, older) {
		t.Fatalf("older versions: %+v", h)
	}
	if p := older.Source; p == nil || p.Source != "platform" || p.Path != "deploy" || p.Commit != r.Git("rev-parse", "HEAD~1") {
		t.Errorf("provenance of deploy 1.0.0: %+v", p)
	}
	var seen []string
	for _, ch := range h.Changes {
		seen = append(seen, fmt.Sprintf("%s %s %+v", ch.Source, ch.Path, ch.To))
		if ch.Source != "platform" {
			t.Errorf("a change names source %q, not platform", ch.Source)
		}
	}
	if !slices.Contains(seen, "platform platform/deploy &{Version:2.0.0 Digest:"+compile.ManifestDigest(deploy)+"}") {
		t.Errorf("changes:\n%s", strings.Join(seen, "\n"))
	}
}

// TestResolveToken: a private source over HTTP is fetched with the token given for its
// origin, as the password of git's HTTP authentication; without it the fetch fails, naming
// the source. The token goes to that origin alone: a redirect to another origin is
// followed without it; and it is in no error, no line of the log and not in the lock.
func TestResolveToken(t *testing.T) {
	const token = "tok-0123456789SECRET"
	root := t.TempDir()
	served := filepath.Join(root, "served")
	sourcestest.NewRepo(t, filepath.Join(served, "private.git")).Skill("deploy", "Deploys.")
	backend := sourcestest.HTTPBackend(t, served)
	proxy := func(h http.Handler) *httptest.Server {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv
	}
	var reached, elsewhere atomic.Int32 // requests to the other origin, and those that carried credentials
	other := proxy(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		if r.Header.Get("Authorization") != "" {
			elsewhere.Add(1)
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="other"`)
		http.Error(w, "who are you", http.StatusUnauthorized)
	}))
	target, _ := url.Parse(backend)
	forward := httputil.NewSingleHostReverseProxy(target)
	private := proxy(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pass, ok := r.BasicAuth(); !ok || pass != token {
			w.Header().Set("WWW-Authenticate", `Basic realm="private"`)
			http.Error(w, "a token, please", http.StatusUnauthorized)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/moved/") {
			http.Redirect(w, r, other.URL+strings.TrimPrefix(r.URL.Path, "/moved")+"?"+r.URL.RawQuery, http.StatusFound)
			return
		}
		forward.ServeHTTP(w, r)
	}))
	folder := filepath.Join(root, "catalog")
	os.MkdirAll(folder, 0o755)
	var log bytes.Buffer
	opt := func(tokens map[string]string) Options {
		return Options{CacheDir: filepath.Join(root, "cache"), Tokens: tokens, Log: &log}
	}
	src := []compile.Source{{Path: "private", Git: private.URL + "/private.git"}}
	_, err := resolveErr(t, folder, filepath.Join(root, "cache"), src, opt(nil))
	if err == nil || !strings.Contains(err.Error(), `source "private"`) {
		t.Fatalf("without a token: %v", err)
	}
	if _, err := resolveErr(t, folder, filepath.Join(root, "cache"), src, opt(map[string]string{other.URL: token})); err == nil {
		t.Fatal("a token for another origin opened the source")
	}
	got, err := resolveErr(t, folder, filepath.Join(root, "cache"), src, opt(map[string]string{private.URL: token}))
	if err != nil || len(got["private"]) != 40 {
		t.Fatalf("with the token: %v %v", got, err)
	}
	moved := []compile.Source{{Path: "private", Git: private.URL + "/moved/private.git"}}
	_, err = resolveErr(t, folder, filepath.Join(root, "cache2"), moved, opt(map[string]string{private.URL: token}))
	if err == nil {
		t.Fatal("the redirect to another origin was fetched")
	}
	if n := elsewhere.Load(); n > 0 || reached.Load() == 0 {
		t.Fatalf("the other origin was asked %d times, sent credentials %d times", reached.Load(), n)
	}
	lock, _ := os.ReadFile(filepath.Join(folder, LockFile))
	for what, text := range map[string]string{"the lock": string(lock), "the log": log.String(), "the error": err.Error()} {
		if strings.Contains(text, token) || strings.Contains(text, "SECRET") {
			t.Errorf("%s holds the token: %s", what, text)
		}
	}
}

// TestResolveLockHeldToRef: a lock is served only where it names a commit the ref
// published. A lock naming a commit of another branch (a pull request's) is refused,
// whether the cache lacks it or holds it for another source of the same repository; a lock
// of another commit than the commit a ref names is not taken; and GIT_DIR in the
// environment (as a git hook sets it) does not lead the cache's git into another
// repository.
func TestResolveLockHeldToRef(t *testing.T) {
	root := t.TempDir()
	r := sourcestest.NewRepo(t, filepath.Join(root, "platform"))
	first := r.Skill("deploy", "Deploy.")
	r.Git("checkout", "-q", "-b", "pr")
	other := r.Skill("deploy", "Deploy, from a pull request.")
	r.Git("checkout", "-q", "main")
	folder := filepath.Join(root, "catalog")
	os.MkdirAll(folder, 0o755)
	bystander := sourcestest.NewRepo(t, filepath.Join(root, "bystander"))
	bystander.Skill("x", "Not a source.")
	t.Setenv("GIT_DIR", filepath.Join(bystander.Dir, ".git"))

	src := []compile.Source{{Path: "platform", Git: r.URL(), Ref: "main"}}
	lock := `{"lockVersion":1,"sources":[{"path":"platform","git":"` + r.URL() + `","ref":"main","commit":"` + other + `"}]}`
	if err := os.WriteFile(filepath.Join(folder, LockFile), []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := resolveErr(t, folder, filepath.Join(root, "cache"), src, Options{})
	if err == nil || !strings.Contains(err.Error(), "the locked commit "+other[:12]+" is not in the repository's branch main") {
		t.Fatalf("a lock of another branch's commit: %v", err)
	}
	byCommit := []compile.Source{{Path: "platform", Git: r.URL(), Ref: first}}
	lock = `{"lockVersion":1,"sources":[{"path":"platform","git":"` + r.URL() + `","ref":"` + first + `","commit":"` + other + `"}]}`
	if err := os.WriteFile(filepath.Join(folder, LockFile), []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := resolveErr(t, folder, filepath.Join(root, "cache"), byCommit, Options{Frozen: true}); !errors.Is(err, ErrFrozen) {
		t.Fatalf("a commit ref locked to another commit, under --frozen: %v", err)
	}
	got, err := resolveErr(t, folder, filepath.Join(root, "cache"), byCommit, Options{})
	if err != nil || got["platform"] != first {
		t.Fatalf("a commit ref locked to another commit: %v %v, want %s", got, err, first)
	}
	if refs := bystander.Git("--git-dir", filepath.Join(bystander.Dir, ".git"), "for-each-ref", "refs/skilledge"); refs != "" {
		t.Fatalf("GIT_DIR led the cache's git into another repository: %s", refs)
	}

	// The cache holds the pull request's commit, fetched for another source of the same
	// repository: a lock of the first naming it is still not served.
	both := []compile.Source{{Path: "platform", Git: r.URL(), Ref: "main"}, {Path: "preview", Git: r.URL(), Ref: "pr"}}
	os.Remove(filepath.Join(folder, LockFile))
	if _, err := resolveErr(t, folder, filepath.Join(root, "cache"), both, Options{}); err != nil {
		t.Fatal(err)
	}
	lock = `{"lockVersion":1,"sources":[{"path":"platform","git":"` + r.URL() + `","ref":"main","commit":"` + other + `"},` +
		`{"path":"preview","git":"` + r.URL() + `","ref":"pr","commit":"` + other + `"}]}`
	if err := os.WriteFile(filepath.Join(folder, LockFile), []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = resolveErr(t, folder, filepath.Join(root, "cache"), both, Options{})
	if err == nil || !strings.Contains(err.Error(), `source "platform"`) || !strings.Contains(err.Error(), "which does not hold the locked commit "+other[:12]) {
		t.Fatalf("a lock of main naming the pull request's cached commit: %v", err)
	}
}

// TestComposeTreeBomb: a repository of a few kilobytes whose tree nests itself eighteen
// times, listing 262,144 files, is refused before its listing is read whole.
func TestComposeTreeBomb(t *testing.T) {
	root := t.TempDir()
	r := sourcestest.NewRepo(t, filepath.Join(root, "bomb"))
	blob := r.GitIn("---\nname: x\ndescription: x\n---\n", "hash-object", "-w", "--stdin")
	tree := r.GitIn("100644 blob "+blob+"\tSKILL.md\n", "mktree")
	for i := 0; i < 18; i++ {
		tree = r.GitIn("040000 tree "+tree+"\ta\n040000 tree "+tree+"\tb\n", "mktree")
	}
	r.Git("update-ref", "refs/heads/main", r.Git("commit-tree", "-m", "bomb", tree))
	folder := filepath.Join(root, "catalog")
	os.MkdirAll(folder, 0o755)
	ctx := context.Background()
	rs, err := Resolve(ctx, folder, []compile.Source{{Path: "bomb", Git: r.URL()}}, Options{CacheDir: filepath.Join(root, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compose(ctx, &compile.Catalog{}, "catalog", rs, compile.Options{SkipInvalid: true}, nil)
	if !errors.Is(err, versions.ErrTooManyFiles) || !strings.Contains(err.Error(), `source "bomb"`) {
		t.Fatalf("the tree bomb: %v", err)
	}
}

// TestResolveStalledRemote: a remote that accepts the connection and never answers stops
// the resolve after networkTimeout, with an error that names the source and says so.
func TestResolveStalledRemote(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, silent, until the listener closes
		}
	}()
	defer func(d time.Duration) { networkTimeout = d }(networkTimeout)
	networkTimeout = 2 * time.Second
	root := t.TempDir()
	folder := filepath.Join(root, "catalog")
	os.MkdirAll(folder, 0o755)
	start := time.Now()
	_, err = resolveErr(t, folder, filepath.Join(root, "cache"), []compile.Source{{Path: "stalled", Git: "git://" + ln.Addr().String() + "/x.git"}}, Options{})
	if err == nil || !strings.Contains(err.Error(), `stalled`) || !strings.Contains(err.Error(), "the remote did not finish within 2s") {
		t.Fatalf("a stalled remote: %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("a stalled remote held the resolve %s", d)
	}
}
