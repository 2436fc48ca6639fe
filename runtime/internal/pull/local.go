package pull

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/archive"
	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// Sources that are no deployment: a skills folder on this machine, or a git repository.
// Either is read as `skilledge build` reads a folder, by the loader the caller gives
// (Options.LoadFolder: the CLI's is runtime/internal/pull/loaddir, on compile.LoadDir), in
// memory; a skill the loader refuses is left out and named in Result.Skipped. A git
// repository is cloned (cloneGit) into a temporary folder that is removed after the read;
// its skills are those of its skills/ folder when it has one, else of its root. Nothing is
// verified against a publisher's digest (there is none): the lock records the manifest
// digest of what was read, and for git the commit.
//
// Why does `pull` read a folder or a git repository with the build's loader? Teams keep
// skills in repositories and folders before (or instead of) deploying them, and the
// `skills` CLI installs from both. Read by the loader `build` and `serve` use, a skill
// installs from a repository exactly when it would be served from it: same rules, same
// refusals, a refused skill named and left out rather than failing the pull. pull itself
// never links that loader, the compiler: the caller gives it (FolderLoader). Skills that
// share a name (copies, backups and forks in one repository: 1,066 in one public
// collection) are installed in folders named by their index names, as a deployment of the
// folder would publish them (catalog.IndexNames: qualified by path), the lock recording
// each one's own name ("named"); --path selects some. A git source is cloned once, by the user's own git: at a
// branch or tag with --depth 1, the whole history only for a frozen pull, which checks out
// the commit the lock records; with the ext:: transport refused (it runs a command), hooks
// off, no submodules, no prompt for a credential, and a URL or ref that begins with "-"
// refused before git sees it. Rejected: a Go git library (a large dependency for one
// clone, and the user's own git already knows their credentials and proxies), and
// requiring a deployment first (the very step these sources spare).
const (
	ViaFolder = "folder"
	ViaGit    = "git"
)

// gitHosts are the hosts whose https URLs name git repositories, not deployments.
var gitHosts = map[string]bool{"github.com": true, "gitlab.com": true, "codeberg.org": true, "bitbucket.org": true}

// sourceKind says what source is: ViaFolder for a path (no "://"), ViaGit for "git+URL",
// a URL ending in ".git" or on a git host, "" for a deployment.
func sourceKind(source string) string {
	if strings.HasPrefix(source, "git+") {
		return ViaGit
	}
	if !strings.Contains(source, "://") {
		return ViaFolder
	}
	u, err := url.Parse(source)
	if err != nil {
		return ""
	}
	if strings.HasSuffix(u.Path, ".git") || (u.Scheme == "https" && gitHosts[strings.ToLower(u.Hostname())]) {
		return ViaGit
	}
	return ""
}

// FolderSkill is one skill of a skills folder as a FolderLoader loads it.
type FolderSkill struct {
	Name string
	Path string // its folder, relative to the skills folder, "/"-separated
	// Manifest is the manifest digest of its files (PROTOCOL.md#versions), Version its
	// SKILL.md's frontmatter version ("" when it declares none).
	Manifest, Version string
	// Files reads its files, named relative to its folder: called only for a skill the
	// pull downloads.
	Files func() ([]archive.File, error)
}

// A FolderLoader reads the skills folder dir as `skilledge build` reads one, leaving out
// each skill it refuses: it returns the skills it loaded, and a line for each left out,
// its path relative to dir ("path: warning: skipped, not served: …").
//
// Why does the caller give the loader (Options.LoadFolder), rather than pull calling the
// compiler? Because reading a folder by build's rules is the compiler (catalog/compile,
// its YAML resolver and encoder), which pull would otherwise link for the one kind of
// source that needs it; the CLI, which links the compiler anyway, fills it in
// (runtime/internal/pull/loaddir).
type FolderLoader func(dir string) (skills []FolderSkill, skipped []string, err error)

// defaultLoadFolder is the loader of a pull whose Options name none: none, so that such a
// pull of a folder or git repository fails; the package's tests set it.
var defaultLoadFolder FolderLoader

// fetchLocal reads the folder or git source as fetchCatalog reads a deployment: each
// skill under opt.Paths given to want, and those it wants read (handed to
// opt.Verify.Take when set). It returns the skills and why each left out was: the
// loader's reason, or a name that other skills share.
func fetchLocal(ctx context.Context, source string, opt Options, want func(verify.Fetched) bool) ([]verify.Fetched, string, []string, error) {
	load := opt.LoadFolder
	if load == nil {
		load = defaultLoadFolder
	}
	if load == nil {
		return nil, "", nil, fmt.Errorf("pull: %s is a folder or git repository, and Options.LoadFolder is not set", source)
	}
	via := sourceKind(source)
	dir, commit := source, ""
	if via == ViaGit {
		tmp, c, err := cloneGit(ctx, source, opt.commit)
		if err != nil {
			return nil, "", nil, err
		}
		defer os.RemoveAll(tmp)
		dir, commit = tmp, c
		if fi, err := os.Stat(filepath.Join(tmp, "skills")); err == nil && fi.IsDir() {
			dir = filepath.Join(tmp, "skills")
		}
	} else if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, "", nil, usageErrorf("%s is no folder and no URL (a deployment https://…, or a git repository: git+URL, or a URL ending in .git)", source)
	}
	skills, loaderSkipped, err := load(dir)
	if err != nil {
		return nil, "", nil, err
	}
	var skipped []string
	for _, s := range loaderSkipped {
		skipped = append(skipped, verify.Printable(s))
	}
	// A skill is installed in a folder of its name, so skills that share one (a copy, a
	// backup, a fork in the same repository) are installed under their index names, as a
	// deployment of the folder would publish them (Fetched.Named, the lock's "named"):
	// named among all of them, whichever --path selects, as a skill's folder must not
	// depend on the selection.
	named := make([]catalog.Named, len(skills))
	for i, s := range skills {
		named[i] = catalog.Named{Path: s.Path, Name: s.Name}
	}
	var out []verify.Fetched
	for i, name := range catalog.IndexNames(named) {
		s := skills[i]
		if !underPaths(s.Path, opt.Paths) {
			continue
		}
		f := verify.Fetched{Name: name, Path: s.Path, URL: source, Digest: s.Manifest, Kind: verify.DigestManifest, Version: s.Version, Commit: commit}
		if name != s.Name {
			f.Named = s.Name
		}
		if commit != "" {
			f.URL = source + "#" + commit
		}
		if want(f) {
			if f.Files, err = s.Files(); err != nil {
				return nil, "", nil, err
			}
			if opt.Verify.Take != nil {
				if err := opt.Verify.Take(f); err != nil {
					return nil, "", nil, err
				}
				f.Files, f.Taken = nil, true
			}
		}
		out = append(out, f)
	}
	return out, via, skipped, nil
}

// cloneGit clones source ("git+URL" or a git URL, "#REF" naming a branch or tag) at one
// commit into a new temporary folder and returns it and the commit: the head of REF, or
// at (a frozen pull's locked commit), for which the history is cloned whole and at
// checked out. Only the https, http, ssh, git and file transports are allowed (never
// ext::, which runs a command), the URL cannot pass for an option, no credential is asked
// for on a terminal, no hook runs, and submodules are not cloned.
func cloneGit(ctx context.Context, source, at string) (dir, commit string, err error) {
	u, ref, _ := strings.Cut(strings.TrimPrefix(source, "git+"), "#")
	if strings.HasPrefix(u, "-") || strings.HasPrefix(ref, "-") {
		return "", "", usageErrorf("%s: a git URL or ref cannot begin with \"-\"", source)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return "", "", fmt.Errorf("%s is a git repository, and reading it needs the git command: %v", source, err)
	}
	dir, err = os.MkdirTemp("", "skilledge-pull-git-")
	if err != nil {
		return "", "", err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	args := []string{"-c", "core.hooksPath=/dev/null", "clone", "--quiet", "--no-tags", "--single-branch"}
	if at == "" {
		args = append(args, "--depth", "1")
	}
	if ref != "" {
		args = append(args, "--branch", ref)
	}
	args = append(args, "--", u, dir)
	if err := runGit(ctx, "", args...); err != nil {
		return "", "", fmt.Errorf("%s: git clone: %w", source, err)
	}
	if at != "" {
		if !catalog.IsCommitName(at) {
			return "", "", fmt.Errorf("%s: the lock's commit %q is no commit id", source, at)
		}
		if err := runGit(ctx, dir, "-c", "core.hooksPath=/dev/null", "checkout", "--quiet", "--detach", at, "--"); err != nil {
			return "", "", fmt.Errorf("%s: the commit %s that %s locks is not on %s: %w", source, at, LockName, u, err)
		}
	}
	var out bytes.Buffer
	cmd := gitCommand(ctx, dir, &out, "rev-parse", "HEAD")
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("%s: git rev-parse HEAD: %w", source, err)
	}
	return dir, strings.TrimSpace(out.String()), nil
}

// runGit runs git with args in dir, its output kept for the error.
func runGit(ctx context.Context, dir string, args ...string) error {
	var out bytes.Buffer
	if err := gitCommand(ctx, dir, &out, args...).Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		if len(msg) > 500 {
			msg = msg[:500] + "…"
		}
		return errors.New(verify.Printable(err.Error() + ": " + msg))
	}
	return nil
}

// gitCommand is the git command with args in dir, writing stdout and stderr to out, with
// the environment that keeps it from asking, or from running anything but git.
func gitCommand(ctx context.Context, dir string, out io.Writer, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=",
		"GIT_ALLOW_PROTOCOL=https:http:ssh:git:file", "GIT_CONFIG_NOSYSTEM=1", "GIT_LFS_SKIP_SMUDGE=1")
	return cmd
}
