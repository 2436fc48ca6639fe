// Package sources composes a catalog from several places: the git repositories the policy
// file's sources section mounts at path prefixes (compile.Source), each resolved to a
// commit recorded in sources.lock beside the policy file, fetched into a cache of bare
// repositories, loaded by the compiler's own rules from git's objects (versions.Tree),
// and mounted into the folder's catalog with their provenance (compile.Mount).
//
// A build with a lock is reproducible: each source whose configuration is the one locked
// is served at its locked commit, whatever its ref says now, and the same commits make the
// same catalog byte for byte. A source that is new or configured otherwise is resolved
// afresh and the lock written; Options.Update moves named sources to their ref's newest
// commit (skilledge sources update); Options.Frozen writes nothing and refuses a lock that
// does not hold the configuration, and a ref that no longer leads to its locked commit.
package sources

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing/fstest"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/versions"
)

// Options say how sources are resolved.
type Options struct {
	// CacheDir holds the fetched repositories, one bare repository per URL.
	CacheDir string
	// Frozen refuses a lock that does not hold every source as configured (and holds no
	// other), and a source whose ref no longer leads to its locked commit (a tag moved, a
	// branch force-pushed); the lock is never written.
	Frozen bool
	// Update are the paths of the sources to resolve afresh, whatever the lock says; All
	// resolves every source.
	Update []string
	All    bool
	// Tokens are tokens for private sources by origin ("https://git.example.com"): the
	// one for a source's origin is given to git as the password of its HTTP
	// authentication, for that origin alone (repo.git). Without one, git's own
	// configuration applies (a credential helper, an SSH key).
	Tokens map[string]string
	// Catalogs reads the remote catalog sources; without it one is an error.
	Catalogs CatalogReader
	// Log is told what each source is served at, and of each fetch.
	Log io.Writer
}

// A CatalogReader reads a remote catalog source into a folder of the cache, verified as
// pull verifies a deployment (runtime/serving gives one: this package reads no catalog
// over the network itself).
type CatalogReader interface {
	// Read reads into dir the skills of the catalog at url (those named in skills, every
	// one when it is empty), each file verified against the digests the catalog
	// publishes, and returns them; nothing that does not verify is left in dir.
	Read(ctx context.Context, url string, skills []string, dir string) ([]RemoteSkill, error)
	// Cached returns the skills a former Read left in dir, none when it left none.
	Cached(dir string) ([]RemoteSkill, error)
}

// RemoteSkill is one skill read from a remote catalog.
type RemoteSkill struct {
	// Path is its path in the catalog: where the catalog says no path (a well-known
	// index), its name, and for a skill the catalog names by a qualified index name
	// (PROTOCOL.md#index-names), that name and its own ("x-gamma/gamma"), so that the
	// folder it is mounted at ends in its name as every skill's must.
	Path     string
	Folder   string // the folder its files are in, relative to the folder read into
	Manifest string // its manifest digest, as the catalog published it
}

// catalogDigest is what sources.lock records of a remote catalog's skills read: the
// SHA-256 of their paths and manifest digests, a line each ("PATH MANIFEST\n"), sorted by
// path, as "sha256:HEX". Equal skills, equal digest; a file changed, another digest.
func catalogDigest(skills []RemoteSkill) string {
	lines := make([]string, len(skills))
	for i, s := range skills {
		lines[i] = s.Path + " " + s.Manifest + "\n"
	}
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ErrFrozen is wrapped by Resolve's error when Options.Frozen finds the lock out of date.
var ErrFrozen = errors.New("sources.lock does not hold the sources as configured")

// Resolved is a source and the commit it is served at (a git source), or the skills read
// from it and their digest (a remote catalog).
type Resolved struct {
	compile.Source
	Commit string
	repo   *repo
	Digest string
	remote []RemoteSkill
	folder string // where remote's skills are
}

// At names what r is served at, short: its commit's first 12 digits, or its digest's.
func (r Resolved) At() string { return short(r.Commit, r.Digest) }

// Resolve returns each of srcs at the commit it is served at, from dir's sources.lock or
// its remote (Options). It writes nothing: WriteLock does, once the sources are composed.
func Resolve(ctx context.Context, dir string, srcs []compile.Source, opt Options) ([]Resolved, error) {
	lock, err := ReadLock(dir)
	if err != nil {
		return nil, err
	}
	if opt.Frozen {
		for _, e := range lock.Sources {
			if !slices.ContainsFunc(srcs, func(s compile.Source) bool { return s.Path == e.Path }) {
				return nil, fmt.Errorf("%w: it locks source %q, which %s does not have: run skilledge sources update, or build without --frozen", ErrFrozen, e.Path, compile.PolicyFile)
			}
		}
	}
	for _, u := range opt.Update {
		if !slices.ContainsFunc(srcs, func(s compile.Source) bool { return s.Path == u }) {
			return nil, fmt.Errorf("no source at path %q in %s", u, compile.PolicyFile)
		}
	}
	out := make([]Resolved, 0, len(srcs))
	for _, s := range srcs {
		r, err := resolve(ctx, s, lock, opt)
		if err != nil {
			return nil, fmt.Errorf("source %q (%s line %d): %w", s.Path, compile.PolicyFile, s.Line, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// WriteLock writes dir's sources.lock for the sources rs resolved (Resolve), when that
// changes it: once they are composed into a catalog that may be served, so that a build
// that fails, or a policy file that cannot be read, leaves the lock as it was. A folder
// without sources and without a lock gets none.
func WriteLock(dir string, rs []Resolved, log io.Writer) error {
	next := &Lock{LockVersion: lockVersion}
	for _, r := range rs {
		if r.Catalog != "" {
			next.Sources = append(next.Sources, Locked{Path: r.Path, Catalog: r.Catalog, Skills: r.Skills, Digest: r.Digest})
			continue
		}
		next.Sources = append(next.Sources, Locked{Path: r.Path, Git: r.Git, Ref: r.Ref, Dir: r.Dir, Commit: r.Commit})
	}
	if len(rs) == 0 {
		if _, err := os.Stat(filepath.Join(dir, LockFile)); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	wrote, err := next.write(dir)
	if err == nil && wrote {
		logf(log, "skilledge: sources: wrote %s\n", path.Join(dir, LockFile))
	}
	return err
}

// resolve finds what source s is served at.
func resolve(ctx context.Context, s compile.Source, lock *Lock, opt Options) (Resolved, error) {
	locked, ok := lock.Locked(s.Path)
	fresh := opt.All || slices.Contains(opt.Update, s.Path) || !ok || !locked.matches(s)
	if fresh && opt.Frozen {
		if !ok {
			return Resolved{}, fmt.Errorf("%w: %s has no entry for it: run skilledge sources update %s, or build without --frozen", ErrFrozen, LockFile, s.Path)
		}
		return Resolved{}, fmt.Errorf("%w: its entry in %s was locked for %s: run skilledge sources update %s, or build without --frozen", ErrFrozen, LockFile, lockedConfig(locked), s.Path)
	}
	if s.Catalog != "" {
		return resolveCatalog(ctx, s, locked, fresh, opt)
	}
	r, err := openRepo(ctx, opt.CacheDir, s.Git, opt.Tokens)
	if err != nil {
		return Resolved{}, err
	}
	res := Resolved{Source: s, repo: r}
	if fresh {
		_, _, commit, err := fetchRef(ctx, r, s, opt.Log)
		if err != nil {
			return res, err
		}
		res.Commit = commit
	} else {
		res.Commit = locked.Commit
		if opt.Frozen || !r.tipHolds(ctx, s.Ref, locked.Commit) {
			full, kind, now, err := fetchRef(ctx, r, s, opt.Log)
			if err != nil {
				return res, err
			}
			// The locked commit must be one the ref published: the ref's commit, or, for a
			// branch, one before it. Nothing else is fetched: a lock that names another
			// commit of the repository (a pull request's) is not served.
			if !r.has(ctx, locked.Commit) {
				return res, fmt.Errorf("the locked commit %s is not in the repository's %s, which is at %s now (was it force-pushed?): check what changed, then skilledge sources update %s",
					locked.Commit[:12], refName(kind, full), now[:12], s.Path)
			}
			frozen := func(err error) error {
				if opt.Frozen {
					return fmt.Errorf("%w: %w", ErrFrozen, err)
				}
				return err
			}
			switch {
			case now == locked.Commit:
			case kind == kindTag:
				return res, frozen(fmt.Errorf("its tag %s moved from the locked commit %s to %s: a published tag was rewritten; check what changed, then skilledge sources update %s",
					shortRef(full), locked.Commit[:12], now[:12], s.Path))
			case kind == kindCommit || !r.isAncestor(ctx, locked.Commit, now):
				return res, frozen(fmt.Errorf("its %s was force-pushed: it is at %s now, which does not hold the locked commit %s; check what changed, then skilledge sources update %s",
					refName(kind, full), now[:12], locked.Commit[:12], s.Path))
			}
		}
	}
	if err := r.keep(ctx, res.Commit); err != nil {
		return res, err
	}
	return res, nil
}

// resolveCatalog reads the remote catalog source s, unless the cache holds what the lock
// says (fresh false) already: a catalog keeps no history, so what was locked is built
// again from the cache, and a catalog that no longer serves it is refused.
func resolveCatalog(ctx context.Context, s compile.Source, locked Locked, fresh bool, opt Options) (Resolved, error) {
	if opt.Catalogs == nil {
		return Resolved{}, errors.New("this command reads no remote catalog")
	}
	sum := sha256.Sum256([]byte(s.Catalog + "\n" + strings.Join(s.Skills, "\n")))
	res := Resolved{Source: s, folder: filepath.Join(opt.CacheDir, "catalogs", hex.EncodeToString(sum[:16]))}
	if !fresh {
		if cached, err := opt.Catalogs.Cached(res.folder); err == nil && len(cached) > 0 && catalogDigest(cached) == locked.Digest {
			res.remote, res.Digest = cached, locked.Digest
			return res, nil
		}
	}
	logf(opt.Log, "skilledge: sources: %s: reading the catalog %s\n", s.Path, s.Catalog)
	got, err := opt.Catalogs.Read(ctx, s.Catalog, s.Skills, res.folder)
	if err != nil {
		return res, err
	}
	res.remote, res.Digest = got, catalogDigest(got)
	if !fresh && res.Digest != locked.Digest {
		return res, fmt.Errorf("the catalog serves other skills than %s locked (%s, now %s), and a catalog keeps no history to read the locked ones from: check what changed, then skilledge sources update %s",
			LockFile, locked.Digest[:19], res.Digest[:19], s.Path)
	}
	return res, nil
}

// fetchRef asks the remote where source s's ref is, fetches it into the cache, and records
// it there as the ref's tip (tipHolds); it returns the ref's full name, its kind and its
// commit.
func fetchRef(ctx context.Context, r *repo, s compile.Source, log io.Writer) (full string, kind refKind, commit string, err error) {
	if full, kind, commit, err = r.remoteRef(ctx, s.Ref); err != nil {
		return "", 0, "", err
	}
	logf(log, "skilledge: sources: %s: fetching %s (%s)\n", s.Path, s.Git, refName(kind, full))
	if err := fetchCommit(ctx, r, full, commit); err != nil {
		return "", 0, "", err
	}
	return full, kind, commit, r.setTip(ctx, s.Ref, kind, commit)
}

// fetchCommit fetches full, which the remote said is at commit, and checks that it came.
func fetchCommit(ctx context.Context, r *repo, full, commit string) error {
	if r.has(ctx, commit) {
		return nil
	}
	if err := r.fetch(ctx, full); err != nil {
		return err
	}
	if !r.has(ctx, commit) {
		return fmt.Errorf("fetched %s, and commit %s did not come with it (did it move while fetching? build again)", shortRef(full), commit[:12])
	}
	return nil
}

// lockedConfig says what a lock entry was locked for.
func lockedConfig(l Locked) string {
	if l.Catalog != "" {
		s := "catalog " + l.Catalog
		if len(l.Skills) > 0 {
			s += ", skills " + strings.Join(l.Skills, " ")
		}
		return s
	}
	s := "git " + l.Git
	if l.Ref != "" {
		s += ", ref " + l.Ref
	}
	if l.Dir != "" {
		s += ", dir " + l.Dir
	}
	return s
}

// refName names a ref and its kind, as people write them: "branch main", "tag v1", "the
// default branch".
func refName(kind refKind, full string) string {
	if kind == kindHead {
		return "the default branch"
	}
	return kind.String() + " " + shortRef(full)
}

// shortRef is a full ref name as people write it.
func shortRef(full string) string {
	for _, p := range []string{"refs/heads/", "refs/tags/"} {
		if s, ok := strings.CutPrefix(full, p); ok {
			return s
		}
	}
	return full
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}

// Compose loads every resolved source by the rules the folder is loaded by (copt; each
// source's own policy file is not read: c's applies) and mounts its skills into c
// (compile.Mount), with the versions its own history keeps when c keeps history
// (versions.Attach, compile.MergeVersions), then checks the whole (compile.CheckComposed). It returns the problems
// of every source, named by their catalog paths (the source's path, then the skill's),
// and those of the whole; an error for a source that cannot be read. An Error among the
// whole's problems means c must not be served (compile.CheckComposed).
func Compose(ctx context.Context, c *compile.Catalog, label string, rs []Resolved, copt compile.Options, log io.Writer) ([]compile.Problem, error) {
	copt.NoPolicy, copt.VersionMarks = true, c.Keep > 0
	var problems []compile.Problem
	for _, r := range rs {
		if r.Catalog != "" {
			p, err := composeCatalog(c, label, r, copt, log)
			if err != nil {
				return nil, err
			}
			problems = append(problems, p...)
			continue
		}
		src := versions.GitAt(r.repo.dir, r.Commit, r.Dir)
		// The source's tree at its path: its skills load at their paths in the catalog.
		tree, bad, err := versions.Tree(ctx, versions.Mounted(src, r.Path), r.Commit)
		if err != nil {
			return nil, fmt.Errorf("source %q: reading commit %s: %w", r.Path, r.Commit[:12], err)
		}
		if isEmpty(tree, r.Path) {
			where := "the repository"
			if r.Dir != "" {
				where = "folder " + r.Dir
			}
			return nil, fmt.Errorf("source %q: %s is empty or missing at commit %s", r.Path, where, r.Commit[:12])
		}
		for _, b := range bad {
			problems = append(problems, compile.Problem{Path: join(label, b), Severity: compile.Warning,
				Msg: "the repository holds this path, which no file system can: not served"})
		}
		if _, err := fs.Stat(tree, r.Path+"/"+compile.PolicyFile); err == nil {
			problems = append(problems, compile.Problem{Path: join(label, r.Path+"/"+compile.PolicyFile), Severity: compile.Warning,
				Msg: "the source's own policy file is not read: the catalog's (" + compile.PolicyFile + " of the folder) applies to its skills"})
		}
		sc, sp, err := compile.Load(tree, label, copt)
		if err != nil {
			return nil, fmt.Errorf("source %q: %w", r.Path, err)
		}
		problems = append(problems, ownProblems(sp, label, r)...)
		repoPath := func(p string) string {
			p = strings.TrimPrefix(p, r.Path+"/")
			if r.Dir == "" {
				return p
			}
			return r.Dir + "/" + p
		}
		mounted := compile.Mount(c, sc, func(p string) *compile.Provenance {
			return &compile.Provenance{Source: r.Path, Repository: r.Git, Commit: r.Commit, Path: repoPath(p)}
		})
		if c.Keep > 0 {
			// The source's history, read as that of its skills where they are mounted,
			// under the catalog's policy (versions.Attach), and added to the catalog's.
			alone := &compile.Catalog{Skills: mounted, Access: c.Access, Keep: c.Keep, Declassify: c.Declassify}
			hp, err := versions.Attach(ctx, alone, versions.Mounted(src, r.Path), label, copt.Strict)
			if err != nil {
				return nil, fmt.Errorf("source %q: reading its history: %w", r.Path, err)
			}
			problems = append(problems, hp...)
			compile.MergeVersions(c, alone.Versions, r.Path)
		}
		where := ""
		if r.Dir != "" {
			where = ", folder " + r.Dir
		}
		logf(log, "skilledge: sources: %s: %s at %s%s: %s\n", r.Path, r.Git, r.Commit[:12], where, skillCount(len(sc.Skills)))
	}
	return append(problems, compile.CheckComposed(c, label)...), nil
}

// composeCatalog loads the skills read from the remote catalog source r, each at its path
// in that catalog, and mounts them into c with their provenance.
func composeCatalog(c *compile.Catalog, label string, r Resolved, copt compile.Options, log io.Writer) ([]compile.Problem, error) {
	fsys := fstest.MapFS{}
	for _, s := range r.remote {
		root := filepath.Join(r.folder, filepath.FromSlash(s.Folder))
		err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
			if err != nil {
				return err
			}
			fsys[r.Path+"/"+s.Path+"/"+p] = &fstest.MapFile{Data: data, Mode: 0o644}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("source %q: reading what was read of %s: %w", r.Path, s.Path, err)
		}
	}
	sc, problems, err := compile.Load(fsys, label, copt)
	if err != nil {
		return nil, fmt.Errorf("source %q: %w", r.Path, err)
	}
	problems = ownProblems(problems, label, r)
	compile.Mount(c, sc, func(p string) *compile.Provenance {
		return &compile.Provenance{Source: r.Path, Catalog: r.Catalog, Digest: r.Digest, Path: strings.TrimPrefix(p, r.Path+"/")}
	})
	logf(log, "skilledge: sources: %s: the catalog %s, %s: %s\n", r.Path, r.Catalog, r.Digest[:19], skillCount(len(sc.Skills)))
	return problems, nil
}

// ownProblems are the problems of loading source r's tree as they concern it: a source
// without skills is said to be one, where the loader would say the folder has none.
func ownProblems(problems []compile.Problem, label string, r Resolved) []compile.Problem {
	out := problems[:0]
	for _, p := range problems {
		if p.Path == label && strings.HasPrefix(p.Msg, "no skills found") {
			p.Path = join(label, r.Path)
			p.Msg = "source " + strconv.Quote(r.Path) + ": no skills found: a skill is a directory holding a file named SKILL.md"
		}
		out = append(out, p)
	}
	return out
}

// isEmpty reports whether the folder dir of fsys holds nothing, or is not there.
func isEmpty(fsys fs.FS, dir string) bool {
	ents, err := fs.ReadDir(fsys, dir)
	return err != nil || len(ents) == 0
}

// join is the path p of the folder label, as problems name it.
func join(label, p string) string {
	if label == "" || label == "." {
		return p
	}
	return label + "/" + p
}

// skillCount is "1 skill" or "N skills".
func skillCount(n int) string {
	if n == 1 {
		return "1 skill"
	}
	return fmt.Sprintf("%d skills", n)
}
