// Package history reads the published history of a skills folder kept in git: for each
// skill, the distinct versions its commits published, newest first, and the changes
// between them. It reads git through Source (Git runs the git command; tests give their
// own), so that it needs no Go dependency and can be fed any history.
//
// A version is a skill's content as a commit left it: every file under the skill's
// directory, nested skills' included. A skill's version is named by the `version` of its
// SKILL.md frontmatter (Options.VersionOf reads it) or, without one, by the commit's date
// and time of day (UTC) and a short digest of its content ("2026-11-20.143005.3f2a9c1e").
// A name, once published, always names the same bytes: content that changed while its
// SKILL.md kept the same `version` (a bump forgotten) is published as that version with a
// short digest of its own appended ("1.2.0+3f2a9c1e"), and a Problem says so, naming both
// commits. Content that goes back to an earlier version's is that version again, not a
// new one.
//
// Why is a skill's history read from git with the git command, and a version named as it
// is? The history is git's, so it is read from git, by the git command the folder's owner
// already has, through one small interface (Source) that tests feed from memory: no Go
// library of git (a large dependency for four commands: log, ls-tree, cat-file,
// rev-parse), and nothing read but what was committed, since what is not committed is not
// published. A version is named by its SKILL.md's `version` when it has one, because that
// is the name its authors use, and otherwise by the commit date and a short digest of its
// content, which sorts by time and says which bytes it is. A pin must mean something, so a
// forgotten bump gets a digest appended and a Problem naming both commits, rather than a
// refused history (a team cannot rewrite published commits) or a name that moves (a
// pinned agent would silently get other bytes).
//
// Why does a dated version name carry the time of day? Named by date alone
// ("2026-11-20.3f2a9c1e"), two versions of one day sorted by digest, not by time, so a
// client or a person could not tell from the names which came later. With the time of
// day, names sort as the commits came, and the digest still tells two of one second
// apart. The change renamed the dated versions of catalogs built before it; no release
// carried the old names, so no lock pinned one. Rejected: the time alone (two commits of
// one second), a counter per day (it changes when history is rewritten or cut by keep),
// and leaving the order to _meta's list and published (the name is what people and locks
// see).
//
// A skill is known by its path. A path that disappears in a commit in which a path appears
// with the same content is a move: the skill's history goes with it, under the new path.
// So is one that appears with the same content but for its name (its last segment and the
// `name` line of its SKILL.md): a rename; the renamed content, changed, is a version of its
// own. Rejected: git's own rename detection (it pairs files, not skill directories, and
// its similarity threshold would make a skill's history depend on how much of it changed
// in the move).
// A skill whose path is gone at the newest commit is removed: it has no versions to serve,
// and its removal is a Change; one added again at its path goes on with its history. A
// version name is never used at one path for two contents, whichever skill held the path.
//
// Why does a removed skill serve no versions, and does a moved one keep them? Deleting a
// skill is how a team withdraws it: a skill removed for a wrong instruction or a leaked
// secret must stop being served, pinned or not, so a pin to it breaks loudly (not found)
// rather than serving a withdrawn skill quietly. A skill moved or renamed is the same
// skill (its content arrives where it left), so its history follows it, each version
// under its own name. Rejected: keeping removed skills' versions (a withdrawal would need
// a history rewrite).
//
// The history is the branch's: its first-parent commits, so that a version made on a
// branch merged later is published by the merge (Git).
package versions

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
)

// SkillMD is the file that makes a directory a skill (catalog.SkillMD).
const SkillMD = "SKILL.md"

// DefaultKeep is the number of versions kept per skill when the policy names none.
const DefaultKeep = 10

// MaxKeep bounds Options.Keep.
const MaxKeep = 100

// DefaultMaxCommits is the number of commits read when Options.MaxCommits is 0: each costs
// a listing of the folder's tree, so a history of many thousands is read only so far back.
const DefaultMaxCommits = 5000

// A Commit is one commit that touched the skills folder.
type Commit struct {
	Hash    string    // the full object name
	Date    time.Time // the committer date
	Subject string    // the first line of its message, cut to MaxSubject characters
	// Unreadable, when not "", says why the commit's metadata cannot be read (a date
	// past year 9999, say): Read skips the commit with a Problem, and its changes are
	// the next commit's.
	Unreadable string
}

// MaxSubject is how many characters of a commit's subject are kept: a longer one is cut
// there and ends in "…" (a subject is repeated in every change of its commit, in the
// feeds and in warnings).
const MaxSubject = 200

// cutSubject cuts s to MaxSubject characters, the last of them "…".
func cutSubject(s string) string {
	n := 0
	for i := range s {
		if n == MaxSubject-1 {
			if utf8.RuneCountInString(s[i:]) > 1 {
				return s[:i] + "…"
			}
			return s
		}
		n++
	}
	return s
}

// Short is the commit's abbreviated name, as a person quotes it.
func (c Commit) Short() string {
	if len(c.Hash) > 12 {
		return c.Hash[:12]
	}
	return c.Hash
}

// A File is one file of the skills folder at a commit.
type File struct {
	Path string // relative to the skills folder, slash-separated
	Blob string // the git object name of its content
	Link bool   // a symbolic link (its content is the link's target)
	Exec bool   // executable (git's mode 100755): served as a script
	// Size is the content's size in bytes, as the object's header gives it: known before
	// the content is read, so that a file too large to serve is never read.
	Size int64
}

// A Source is the git history of a skills folder.
type Source interface {
	// Log lists the commits that touched the folder, newest first.
	Log(ctx context.Context) ([]Commit, error)
	// Files lists every file of the folder at commit, in any order.
	Files(ctx context.Context, commit string) ([]File, error)
	// Read returns the content of a blob that Files named.
	Read(ctx context.Context, blob string) ([]byte, error)
	// Shallow reports whether the history is cut short (a shallow clone), so that Log
	// ends before the folder's first commit.
	Shallow(ctx context.Context) (bool, error)
}

// Options say how much history to keep and how to read a version.
type Options struct {
	// Keep is the number of distinct versions kept per skill, the newest included
	// (DefaultKeep when 0).
	Keep int
	// VersionOf returns the `version` of a SKILL.md's frontmatter, "" when it has none
	// or cannot be read. Nil reads none: every version is named by its date and digest.
	VersionOf func(skillMD []byte) string
	// MaxCommits is the most commits read, the newest (DefaultMaxCommits when 0); a
	// longer history is read as a shallow one is, and History.Cut says so.
	MaxCommits int
}

// A Version is one published version of a skill.
type Version struct {
	Name    string // the version: the frontmatter's, or derived (see the package doc)
	Commit  Commit // the commit that first published this content
	Files   []File // its files, Path relative to the skill's directory, sorted by Path
	Content string // the hex SHA-256 of its file list (paths and blobs): equal content, equal Content
	// Paths are the paths the skill had while this was its content, in the order it had
	// them: where the version was published, then where a move (or a return to it) took
	// it; and so who could see it.
	Paths []string
}

// seenAt records that v was the skill's content at path p.
func (v *Version) seenAt(p string) {
	if !slices.Contains(v.Paths, p) {
		v.Paths = append(v.Paths, p)
	}
}

// A Skill is the history of one skill at the newest commit.
type Skill struct {
	Path     string    // the skill's path in the folder at the newest commit
	Versions []Version // newest first, at most Options.Keep
	// Dropped is the number of older versions published and not kept.
	Dropped int
}

// A Change is what one commit did to one skill.
type Change struct {
	Commit Commit
	Path   string   // the skill's path after the commit (before it, for a removal)
	From   *Version // nil for a skill the commit added
	To     *Version // nil for a skill the commit removed
	// Added, Changed and Removed are the files, relative to the skill's directory.
	Added, Changed, Removed []string
	// Moved is the skill's path before the commit, when the commit moved it.
	Moved string
}

// A Problem is something a person should know about the history: a version published
// twice with different content. Path is the skill's SKILL.md, relative to the folder, or
// "" for a commit skipped as a whole (Commit.Unreadable), which is always a warning.
type Problem struct {
	Path    string
	Message string
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// A History is what Read found.
type Versions struct {
	Skills  []Skill  // the skills at the newest commit, by Path
	Changes []Change // newest first; within a commit, by Path
	// Commits is the number of commits read; Shallow says the history was cut short
	// (a shallow clone), and Cut that it was longer than Options.MaxCommits, so older
	// versions may be missing.
	Commits int
	Shallow bool
	Cut     bool
	// Problems are in the order of the commits that caused them, oldest first.
	Problems []Problem
}

// Skill returns the history of the skill at p, or nil.
func (h *Versions) Skill(p string) *Skill {
	i, ok := slices.BinarySearchFunc(h.Skills, p, func(s Skill, p string) int { return strings.Compare(s.Path, p) })
	if !ok {
		return nil
	}
	return &h.Skills[i]
}

// Read reads the history of src. It fails only when src does; what it finds odd in the
// history is a Problem.
func Read(ctx context.Context, src Source, opt Options) (*Versions, error) {
	if opt.Keep <= 0 {
		opt.Keep = DefaultKeep
	}
	if opt.MaxCommits <= 0 {
		opt.MaxCommits = DefaultMaxCommits
	}
	opt.Keep = min(opt.Keep, MaxKeep)
	commits, err := src.Log(ctx)
	if err != nil {
		return nil, err
	}
	shallow, err := src.Shallow(ctx)
	if err != nil {
		return nil, err
	}
	cut := len(commits) > opt.MaxCommits
	if cut {
		commits = commits[:opt.MaxCommits]
	}
	r := &reader{src: src, opt: opt, skills: map[string]*trail{}, names: map[string]map[string]*Version{}, removed: map[string]*trail{}, h: &Versions{Commits: len(commits), Shallow: shallow, Cut: cut}}
	for i := len(commits) - 1; i >= 0; i-- {
		if c := commits[i]; c.Unreadable != "" {
			r.h.Problems = append(r.h.Problems, Problem{Message: fmt.Sprintf("commit %s is skipped: %s; what it changed is the next commit's", c.Short(), c.Unreadable)})
			continue
		}
		if err := r.commit(ctx, commits[i]); err != nil {
			return nil, err
		}
	}
	r.finish()
	return r.h, nil
}

// trail is the history of one skill so far, while Read walks the commits oldest first.
type trail struct {
	versions []*Version // every version published, oldest first
	cur      *Version   // the content at the last commit read
}

type reader struct {
	src     Source
	opt     Options
	skills  map[string]*trail // by path, the skills present at the last commit read
	changes [][]Change        // each commit's, oldest first
	// names are, by path, what each version name published there first named: kept
	// when the skill is removed, so that one added again at the path cannot publish
	// other bytes under a name already used, and carried along when a skill moves.
	names map[string]map[string]*Version
	// removed are the trails of skills removed, by their last path: a skill added again
	// there goes on with its history.
	removed map[string]*trail
	h       *Versions
}

// commit reads one commit, oldest first, and records what it did to each skill.
func (r *reader) commit(ctx context.Context, c Commit) error {
	files, err := r.src.Files(ctx, c.Hash)
	if err != nil {
		return err
	}
	now := skillFiles(files)
	var changes []Change
	// Paths gone in this commit, by their last content: a path that appears with that
	// content is the same skill, moved. Paths of one content pair up in sorted order, so
	// that two identical skills moved together are followed the same way every time.
	gone := map[string][]string{} // content -> paths, sorted
	for _, p := range sortedKeys(r.skills) {
		if _, ok := now[p]; !ok {
			last := r.skills[p].cur.Content
			gone[last] = append(gone[last], p)
		}
	}
	// A skill renamed changes its folder and the name in its SKILL.md, nothing else: a path
	// gone and a new one whose contents are equal but for that name are the same skill.
	renamed := map[string][]string{} // renameKey -> gone paths, sorted
	if len(gone) > 0 {
		for _, p := range sortedKeys(r.skills) {
			if _, ok := now[p]; !ok {
				k, err := r.renameKey(ctx, p, r.skills[p].cur.Files)
				if err != nil {
					return err
				}
				renamed[k] = append(renamed[k], p)
			}
		}
	}
	take := func(from string) { // from is no longer gone
		last := r.skills[from].cur.Content
		gone[last] = slices.DeleteFunc(gone[last], func(p string) bool { return p == from })
	}
	next := make(map[string]*trail, len(now))
	for _, p := range sortedKeys(now) {
		fs := now[p]
		content := contentOf(fs)
		t, moved := r.skills[p], ""
		if t == nil && len(gone[content]) == 0 && len(renamed) > 0 {
			k, err := r.renameKey(ctx, p, fs)
			if err != nil {
				return err
			}
			if from := renamed[k]; len(from) > 0 {
				renamed[k] = from[1:]
				t, moved = r.skills[from[0]], from[0]
				take(moved)
				r.carryNames(moved, p)
			}
		}
		if t == nil {
			if from := gone[content]; len(from) > 0 {
				t, moved = r.skills[from[0]], from[0]
				gone[content] = from[1:]
				for k, ps := range renamed {
					renamed[k] = slices.DeleteFunc(ps, func(p string) bool { return p == moved })
				}
				r.carryNames(moved, p)
			} else if t = r.removed[p]; t != nil {
				delete(r.removed, p) // added again: the same skill, its history goes on
				t.cur = nil
			} else {
				t = &trail{}
			}
		}
		next[p] = t
		if t.cur != nil && t.cur.Content == content {
			if moved != "" {
				t.cur.seenAt(p)
				changes = append(changes, Change{Commit: c, Path: p, From: t.cur, To: t.cur, Moved: moved})
			}
			continue
		}
		v, err := r.version(ctx, p, t, c, fs, content)
		if err != nil {
			return err
		}
		ch := Change{Commit: c, Path: p, From: t.cur, To: v, Moved: moved}
		ch.Added, ch.Changed, ch.Removed = diffFiles(t.cur, v)
		changes = append(changes, ch)
		t.cur = v
	}
	for _, content := range sortedKeys(gone) {
		for _, from := range gone[content] {
			t := r.skills[from]
			changes = append(changes, Change{Commit: c, Path: from, From: t.cur, Removed: names(t.cur.Files)})
			r.removed[from] = t
		}
	}
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	r.changes = append(r.changes, changes)
	r.skills = next
	return nil
}

// version returns the version of skill p whose files at c are fs (content, their digest):
// an earlier version of the same content, or a new one, named.
func (r *reader) version(ctx context.Context, p string, t *trail, c Commit, fs []File, content string) (*Version, error) {
	for _, v := range t.versions {
		if v.Content == content {
			v.seenAt(p)
			return v, nil // back to an earlier version
		}
	}
	name := ""
	if r.opt.VersionOf != nil {
		for _, f := range fs {
			if f.Path == SkillMD && !f.Link && f.Size <= compile.MaxSkillBytes { // larger: never served, never read
				b, err := r.src.Read(ctx, f.Blob)
				if err != nil {
					return nil, err
				}
				name = r.opt.VersionOf(b)
			}
		}
	}
	used := r.names[p]
	if used == nil {
		used = map[string]*Version{}
		r.names[p] = used
	}
	short := content[:8]
	dated := c.Date.UTC().Format("2006-01-02.150405") + "." + short // ordered by name, within a day too
	switch {
	case name == "":
		name = dated
	case !catalog.ValidVersion(name):
		r.problem(p, fmt.Sprintf("version %q (in %s) cannot be part of a URI path segment (letters, digits, \".\", \"-\", \"+\" and \"_\", at most 64): published as %s",
			name, c.Short(), dated))
		name = dated
	}
	if first, ok := used[name]; ok {
		bumped := withBuild(name, short)
		if !catalog.ValidVersion(bumped) {
			bumped = dated
		}
		for n := 2; used[bumped] != nil; n++ {
			bumped = fmt.Sprintf("%s.%d", dated, n) // the same content date and digest, published again
		}
		r.problem(p, fmt.Sprintf("version %s changed in %s (%q) without a new version: %s published it in %s (%q); the new content is published as %s",
			name, c.Short(), c.Subject, name, first.Commit.Short(), first.Commit.Subject, bumped))
		name = bumped
	}
	v := &Version{Name: name, Commit: c, Files: fs, Content: content, Paths: []string{p}}
	t.versions = append(t.versions, v)
	used[name] = v
	return v, nil
}

// renameKey identifies the content of the skill at p, whose files are fs, but for its name:
// the last segment of p and the `name` line of its SKILL.md's frontmatter are left out.
func (r *reader) renameKey(ctx context.Context, p string, fs []File) (string, error) {
	name := path.Base(p)
	out := make([]File, 0, len(fs))
	for _, f := range fs {
		if f.Path == SkillMD && !f.Link && f.Size <= compile.MaxSkillBytes {
			b, err := r.src.Read(ctx, f.Blob)
			if err != nil {
				return "", err
			}
			var kept []string
			for _, line := range strings.SplitAfter(string(b), "\n") {
				v, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "name:")
				if ok && strings.Trim(strings.TrimSpace(v), `"'`) == name {
					continue
				}
				kept = append(kept, line)
			}
			sum := sha256.Sum256([]byte(strings.Join(kept, "")))
			f.Blob = "renamed:" + hex.EncodeToString(sum[:])
		}
		out = append(out, f)
	}
	return contentOf(out), nil
}

// carryNames gives the path to, where a skill moved, the version names used at from.
func (r *reader) carryNames(from, to string) {
	if r.names[to] == nil {
		r.names[to] = map[string]*Version{}
	}
	for n, v := range r.names[from] {
		if _, ok := r.names[to][n]; !ok {
			r.names[to][n] = v
		}
	}
}

func (r *reader) problem(skill, msg string) {
	r.h.Problems = append(r.h.Problems, Problem{Path: path.Join(skill, SkillMD), Message: msg})
}

// finish lists the skills present at the newest commit with their last Keep versions,
// newest first (by when each was last published: a version returned to is the newest),
// and puts the changes newest first.
func (r *reader) finish() {
	for i := len(r.changes) - 1; i >= 0; i-- {
		r.h.Changes = append(r.h.Changes, r.changes[i]...)
	}
	for _, p := range sortedKeys(r.skills) {
		t := r.skills[p]
		var vs []Version
		// The newest first: the current content, then the others by their last
		// publication, which is the order of the changes that made them current.
		seen := map[string]bool{}
		for _, ch := range r.h.Changes {
			if len(vs) == r.opt.Keep {
				break
			}
			if ch.To == nil || !trailHas(t, ch.To) || seen[ch.To.Content] {
				continue
			}
			seen[ch.To.Content] = true
			vs = append(vs, *ch.To)
		}
		dropped := 0
		for _, v := range t.versions {
			if !seen[v.Content] {
				dropped++
			}
		}
		r.h.Skills = append(r.h.Skills, Skill{Path: p, Versions: vs, Dropped: dropped})
	}
}

// trailHas reports whether v is one of t's versions (the same element, not only the same
// content: two skills may once have held the same bytes).
func trailHas(t *trail, v *Version) bool {
	return slices.Contains(t.versions, v)
}

// withBuild is the version name with suffix added to its build metadata: after a "+",
// or after its own "+" and a "." when it has one (semver has one "+").
func withBuild(name, suffix string) string {
	if strings.Contains(name, "+") {
		return name + "." + suffix
	}
	return name + "+" + suffix
}

// skillFiles groups the folder's files by the skill they belong to: the directories that
// hold a SKILL.md, each with every file under it (a nested skill's files are its holder's
// too), paths relative to the skill's directory, sorted.
func skillFiles(files []File) map[string][]File {
	out := map[string][]File{}
	for _, f := range files {
		if d := path.Dir(f.Path); path.Base(f.Path) == SkillMD && d != "." {
			out[d] = nil // a SKILL.md at the folder's root makes no skill
		}
	}
	for _, f := range files {
		for d := path.Dir(f.Path); d != "." && d != "/"; d = path.Dir(d) {
			if _, ok := out[d]; ok {
				out[d] = append(out[d], File{Path: strings.TrimPrefix(f.Path, d+"/"), Blob: f.Blob, Link: f.Link, Exec: f.Exec, Size: f.Size})
			}
		}
	}
	for _, fs := range out {
		slices.SortFunc(fs, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	}
	return out
}

// contentOf is the hex SHA-256 of a sorted file list: each file's path, kind and blob.
func contentOf(fs []File) string {
	h := sha256.New()
	for _, f := range fs {
		kind := "f"
		if f.Link {
			kind = "l"
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\n", f.Path, kind, f.Blob)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// diffFiles lists the files to has that from lacks, those both have with another content,
// and those from has that to lacks.
func diffFiles(from, to *Version) (added, changed, removed []string) {
	old := map[string]File{}
	if from != nil {
		for _, f := range from.Files {
			old[f.Path] = f
		}
	}
	for _, f := range to.Files {
		o, ok := old[f.Path]
		switch {
		case !ok:
			added = append(added, f.Path)
		case o != f:
			changed = append(changed, f.Path)
		}
		delete(old, f.Path)
	}
	removed = sortedKeys(old)
	return added, changed, removed
}

func names(fs []File) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Path
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
