package sources

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/trust"
	"github.com/skilledge/skilledge/catalog/versions"
)

// repo is a source's repository in the cache: one bare repository per URL, which fetches
// bring what a build needs into. Every commit a build used is kept by a ref of its own
// (refs/skilledge/COMMIT), so that git's housekeeping never drops it.
type repo struct {
	dir string // the bare repository
	url string
	// origin and token: the token given for url's origin (Options.Tokens), or "".
	origin, token string
}

// openRepo opens (making it the first time) the cache's repository of url under cacheDir,
// with the token tokens give url's origin, if any.
func openRepo(ctx context.Context, cacheDir, url string, tokens map[string]string) (*repo, error) {
	sum := sha256.Sum256([]byte(url))
	r := &repo{dir: filepath.Join(cacheDir, hex.EncodeToString(sum[:16])+".git"), url: url}
	if o := originOf(url); o != "" && tokens[o] != "" {
		r.origin, r.token = o, tokens[o]
	}
	if _, err := os.Stat(filepath.Join(r.dir, "HEAD")); err == nil {
		return r, nil
	}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return nil, err
	}
	if _, err := r.git(ctx, "init", "--bare", "--quiet"); err != nil {
		return nil, err
	}
	return r, nil
}

// git runs git in the repository, as the user's git, with their configuration (a
// credential helper, SSH keys: how a private source is reached), but never asking on the
// terminal and only over the transports a source may name.
func (r *repo) git(ctx context.Context, args ...string) ([]byte, error) {
	if args[0] == "ls-remote" || args[0] == "fetch" {
		// A remote that accepts the connection and never answers stops no build for long.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, networkTimeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", r.dir, "-c", "protocol.version=2",
		"-c", "http.lowSpeedLimit=1000", "-c", "http.lowSpeedTime=60"}, args...)...)
	env := []string{"GIT_TERMINAL_PROMPT=0", "GIT_ALLOW_PROTOCOL=https:http:ssh:git:file", "LC_ALL=C"}
	if r.token != "" {
		env = append(env, tokenConfig(r.origin, r.token)...)
	}
	cmd.Env = versions.Env(env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("git %s: the remote did not finish within %s; stopped", args[0], networkTimeout)
		}
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("git %s: %s", args[0], lastLines(msg, 4))
		}
		return nil, fmt.Errorf("git %s: %v", args[0], err)
	}
	return out, nil
}

// tokenConfig is the environment that gives git token for origin alone: a credential
// helper of git's configuration (GIT_CONFIG_COUNT and its keys, read by git 2.31 and
// later) for URLs of that origin only, which answers the token from the environment, and
// clears every helper the user's configuration names for that origin first. The token is
// in no argument (which any user may list) and in no file.
//
// Why a credential helper, and not an Authorization header (http.extraHeader)? git asks
// a credential helper for the URL it is about to send to, and a helper configured for one
// origin is asked for that origin only, the hosts a redirect leads to included; and the
// password of HTTP Basic authentication is what every git host takes a token as (GitHub's
// x-access-token, GitLab's oauth2, Bitbucket's x-token-auth take any user name beside it).
// A header is sent with every request of the command, whatever host answers it.
func tokenConfig(origin, token string) []string {
	helper := `!f() { test "$1" = get && printf 'username=x-access-token\npassword=%s\n' "$SKILLEDGE_SOURCE_GIT_TOKEN"; }; f`
	// After the entries the user's environment gives, if it gives any.
	n, err := strconv.Atoi(os.Getenv("GIT_CONFIG_COUNT"))
	if err != nil || n < 0 {
		n = 0
	}
	return []string{
		"SKILLEDGE_SOURCE_GIT_TOKEN=" + token,
		"GIT_CONFIG_COUNT=" + strconv.Itoa(n+2),
		fmt.Sprintf("GIT_CONFIG_KEY_%d=credential.%s.helper", n, origin), fmt.Sprintf("GIT_CONFIG_VALUE_%d=", n),
		fmt.Sprintf("GIT_CONFIG_KEY_%d=credential.%s.helper", n+1, origin), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n+1, helper),
	}
}

// networkTimeout bounds each git command that talks to a remote (ls-remote, fetch); over
// HTTP git also gives up on a transfer slower than 1000 bytes a second for a minute. A
// variable so that a test need not wait ten minutes for a remote that never answers.
var networkTimeout = 10 * time.Minute

// originOf is the origin of an http(s) URL as the CLI binds tokens to one (trust.Origin),
// "" for another URL.
func originOf(s string) string {
	u, err := neturl.Parse(s)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return ""
	}
	return trust.Origin(u)
}

// lastLines returns the last n lines of s: what git says last is why it failed.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}

// refKind is what a source's ref names on the remote.
type refKind int

const (
	kindCommit refKind = iota // a full commit name
	kindBranch
	kindTag
	kindHead // the remote's default branch (no ref given)
	kindOther
)

func (k refKind) String() string {
	return [...]string{"commit", "branch", "tag", "default branch", "ref"}[k]
}

// remoteRef asks the remote what ref names: its full name, its kind, and the commit it
// points to (a tag peeled). It reads the name as git does (refs/REF, refs/tags/REF,
// refs/heads/REF, in that order); "" is the remote's HEAD.
func (r *repo) remoteRef(ctx context.Context, ref string) (full string, kind refKind, commit string, err error) {
	if catalog.IsCommitName(ref) {
		return ref, kindCommit, ref, nil
	}
	pattern := ref
	if ref == "" {
		pattern = "HEAD"
	}
	out, err := r.git(ctx, "ls-remote", "--end-of-options", r.url, pattern)
	if err != nil {
		return "", 0, "", err
	}
	// What the remote advertises is its own: a name that is not a commit's is not taken.
	refs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if sha, name, ok := strings.Cut(line, "\t"); ok && catalog.IsCommitName(sha) {
			refs[name] = sha
		}
	}
	if ref == "" {
		if sha, ok := refs["HEAD"]; ok {
			return "HEAD", kindHead, sha, nil
		}
		return "", 0, "", fmt.Errorf("the repository has no default branch (HEAD): give the source a ref")
	}
	for _, c := range []struct {
		name string
		kind refKind
	}{{ref, kindOther}, {"refs/" + ref, kindOther}, {"refs/tags/" + ref, kindTag}, {"refs/heads/" + ref, kindBranch}} {
		sha, ok := refs[c.name]
		if !ok {
			continue
		}
		kind := c.kind
		switch {
		case strings.HasPrefix(c.name, "refs/tags/"):
			kind = kindTag
		case strings.HasPrefix(c.name, "refs/heads/"):
			kind = kindBranch
		}
		if peeled, ok := refs[c.name+"^{}"]; ok {
			sha = peeled
		}
		return c.name, kind, sha, nil
	}
	return "", 0, "", fmt.Errorf("the repository has no branch or tag %q", ref)
}

// fetch brings want (a full ref name, or a commit name) from the remote into the cache.
func (r *repo) fetch(ctx context.Context, want string) error {
	_, err := r.git(ctx, "fetch", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head", "--quiet", "--end-of-options", r.url, want)
	return err
}

// has reports whether the cache holds commit.
func (r *repo) has(ctx context.Context, commit string) bool {
	_, err := r.git(ctx, "cat-file", "-e", "--end-of-options", commit+"^{commit}")
	return err == nil
}

// keep makes the cache keep commit (a ref names it).
func (r *repo) keep(ctx context.Context, commit string) error {
	_, err := r.git(ctx, "update-ref", "refs/skilledge/"+commit, commit)
	return err
}

// tipRef is the cache's ref of where the source's ref (a branch, a tag, "" for the default
// branch) was when last fetched, by its kind: a tag's tip is the one commit it may name, a
// branch's the newest.
func tipRef(ref string, tag bool) string {
	sum := sha256.Sum256([]byte(ref))
	kind := "branch"
	if tag {
		kind = "tag"
	}
	return "refs/skilledge-tips/" + kind + "/" + hex.EncodeToString(sum[:16])
}

// setTip records that ref, of kind, was at commit when fetched.
func (r *repo) setTip(ctx context.Context, ref string, kind refKind, commit string) error {
	if kind == kindCommit {
		return nil
	}
	_, err := r.git(ctx, "update-ref", tipRef(ref, kind == kindTag), commit)
	return err
}

// tipHolds reports whether the cache can serve commit for ref without asking the remote:
// it holds the commit, and ref, when last fetched, was at it or (a branch, or the default
// branch) after it; a commit ref is its own. A commit the cache holds for another ref of
// the same repository (a pull request's) does not hold.
func (r *repo) tipHolds(ctx context.Context, ref, commit string) bool {
	if !r.has(ctx, commit) {
		return false
	}
	if catalog.IsCommitName(ref) {
		return ref == commit
	}
	for _, tag := range []bool{true, false} {
		out, err := r.git(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", tipRef(ref, tag))
		if err != nil {
			continue
		}
		tip := strings.TrimSpace(string(out))
		return tip == commit || !tag && r.isAncestor(ctx, commit, tip)
	}
	return false
}

// isAncestor reports whether commit a is an ancestor of commit b (or b itself); both must
// be in the cache.
func (r *repo) isAncestor(ctx context.Context, a, b string) bool {
	_, err := r.git(ctx, "merge-base", "--is-ancestor", "--end-of-options", a, b)
	return err == nil
}
