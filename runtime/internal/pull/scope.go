package pull

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// scope is what one plan is about, from the options and the lock: which skills of the
// source it selects, which it leaves at a pinned version, and which it downloads.
type scope struct {
	source string
	lock   *Lock
	folder *folderState
	names  []string          // --skill NAME, and NAME of NAME@VERSION
	pins   map[string]string // --skill NAME@VERSION: the version by name
	paths  []string          // --path, without a trailing "/"
	// sel is the lock's selection of the source that a pull naming no skill and no path
	// keeps to, nil when the pull names some, is frozen, or the source was pulled whole.
	sel *Selection
	// removed are the source's skills removed from the folder (skilledge remove): not
	// brought back unless named.
	removed       []string
	frozen, force bool
	whole         bool // the source was pulled whole, and stays so
	// check is set for outdated's plans: every skill the lock has from the source, and
	// only those, is in scope; nothing is named, pinned or frozen.
	check bool
}

// newScope reads the lock of dir and the selection of opt, and returns the scope and the
// options a read of the source takes (opt.Paths: the selection's paths; opt.commit: a
// frozen pull's locked commit of a git repository). A folder source is made absolute:
// the lock is read from other folders too.
func newScope(source, dir string, opt Options) (*scope, Options, error) {
	if sourceKind(source) == ViaFolder {
		abs, err := filepath.Abs(source)
		if err != nil {
			return nil, opt, err
		}
		source = abs
	}
	lock, err := ReadLock(dir)
	if err != nil {
		return nil, opt, err
	}
	names, pins, err := parseSelection(opt.Skills)
	if err != nil {
		return nil, opt, err
	}
	if kind := sourceKind(source); kind != "" {
		if len(pins) > 0 {
			return nil, opt, usageErrorf("%s keeps no versions to pin: a git repository is read at a branch or tag (%s#REF), a folder as it is", source, source)
		}
		if opt.Frozen && kind == ViaGit {
			for _, l := range lock.Skills {
				if l.Source == source && l.Commit != "" {
					opt.commit = l.Commit // every skill of the source was read at one commit
				}
			}
		}
	}
	paths, err := cleanPaths(opt.Paths)
	if err != nil {
		return nil, opt, err
	}
	s := &scope{source: source, lock: lock, folder: newFolderState(dir), names: names, pins: pins, paths: paths,
		removed: lock.removed(source), frozen: opt.Frozen, force: opt.Force, whole: lock.pulledWhole(source)}
	// A pull that names no skill and no path keeps to what earlier pulls of the source
	// were asked for (the lock's selection): a skill of the catalog outside it is new,
	// reported, and never installed unasked. Frozen: what the lock locks, and no more.
	explicit := len(names) > 0 || len(paths) > 0
	if sel := lock.selection(source); !explicit && !opt.Frozen && sel != nil && !sel.whole() {
		s.sel = sel
	}
	opt.Paths = paths
	if s.sel != nil {
		opt.Paths = s.sel.Paths // a path is read over MCP
	}
	return s, opt, nil
}

// checkScope is the scope of outdated's plan of source: the skills lock has from it.
func checkScope(lock *Lock, folder *folderState, source string) *scope {
	return &scope{source: source, lock: lock, folder: folder, check: true}
}

// locked returns the skill called name that the lock has from this source, or nil.
func (s *scope) locked(name string) *LockedSkill {
	if l := s.lock.find(name); l != nil && l.Source == s.source {
		return l
	}
	return nil
}

// inSelection says whether the skill called name at path is one the pull was asked for:
// named, under a --path, in the lock's selection, or, with none, any not removed.
func (s *scope) inSelection(name, path string) bool {
	if s.check {
		return s.locked(name) != nil
	}
	if slices.Contains(s.removed, name) && !slices.Contains(s.names, name) {
		return false
	}
	if s.sel != nil {
		return slices.Contains(s.sel.Skills, name) || len(s.sel.Paths) > 0 && underPaths(path, s.sel.Paths)
	}
	return (len(s.names) == 0 || slices.Contains(s.names, name)) && underPaths(path, s.paths)
}

// pinnedHere says whether the skill called name stays at a pinned version: pinned by
// this pull, or pinned before and not named again.
func (s *scope) pinnedHere(name string) bool {
	if s.pins[name] != "" {
		return true
	}
	l := s.locked(name)
	return l != nil && l.Pinned && !slices.Contains(s.names, name)
}

// inScope says whether the skill called name at path is one this plan may change:
// selected, and not left pinned.
func (s *scope) inScope(name, path string) bool {
	return s.inSelection(name, path) && !s.pinnedHere(name)
}

// want says whether a pull downloads the skill f, as listed: one in scope (and, frozen,
// locked from this source), unless the lock has it at this digest and the folder holds
// exactly what the lock says.
func (s *scope) want(f verify.Fetched) bool {
	if !s.inScope(f.Name, f.Path) || s.frozen && s.locked(f.Name) == nil {
		return false
	}
	if f.Kind == verify.DigestUnpublished {
		return true // no digest to compare: only the files say whether it changed
	}
	l := s.locked(f.Name)
	if l == nil {
		return true
	}
	if !lockMatches(l, f) {
		// Frozen compares files, not how they were packed: an archive whose digest
		// is not the lock's (a skill locked from a read over MCP, which gives the
		// manifest digest only) is downloaded to compare its manifest digest; a
		// mismatch of that reads the locked version (readLockedVersions).
		return !s.frozen || f.Kind == verify.DigestArtifact
	}
	// Unchanged at the source: a skill folder deleted is restored, a local edit is
	// kept unless Force.
	ch := s.folder.changes(l)
	return len(ch) > 0 && (s.force || missing(ch))
}

// wantToCompare says whether outdated downloads the skill f: from a v0.1.0 index, which
// publishes no digest, to compare its files; a locked skill that changed, when the listing
// names no version, to read the version its SKILL.md says. It is let go at once.
func (s *scope) wantToCompare(f verify.Fetched) bool {
	if f.Kind == verify.DigestUnpublished {
		return true
	}
	l := s.locked(f.Name)
	return l != nil && f.Version == "" && !lockMatches(l, f)
}

// pinKept says whether the pin of name that this pull asks for is what is installed
// already: a version's name always names the same bytes, so nothing is downloaded,
// unless the folder is gone (or Force restores an edit).
func (s *scope) pinKept(name string) bool {
	old := s.locked(name)
	if old == nil || !old.Pinned || old.Version != s.pins[name] {
		return false
	}
	ch := s.folder.changes(old)
	return len(ch) == 0 || !missing(ch) && !s.force
}

// unchangedHere says whether the installed skill old, whose files the source serves
// unchanged as f, is to be left as it is: when the folder holds what the lock says, or,
// for a skill read from a v0.1.0 index (downloaded at every pull, having no digest to
// compare first), when it was edited locally and Force is not set: the edit is kept, as
// it is when an index's digest says the source has not changed.
func (s *scope) unchangedHere(old *LockedSkill, f verify.Fetched) bool {
	ch := s.folder.changes(old)
	return len(ch) == 0 || f.Kind == verify.DigestUnpublished && !s.force && !missing(ch)
}

// edited returns the files of the installed skill l changed locally that a write over it
// would lose: none when the folder is as pulled or gone, or with Force.
func (s *scope) edited(l *LockedSkill) []string {
	ch := s.folder.changes(l)
	if missing(ch) || s.force {
		return nil
	}
	return ch
}

// etags gives, for a skill of this source read through a v0.1.0 index, the ETags of its
// files as locked, when every file has one and the folder holds exactly what the lock
// says; else nil (the files are downloaded).
func (s *scope) etags(name string) map[string]string {
	l := s.locked(name)
	if l == nil || !l.Unverified || l.Pinned || len(s.folder.changes(l)) > 0 {
		return nil
	}
	m := make(map[string]string, len(l.Files))
	for _, f := range l.Files {
		if f.ETag == "" {
			return nil
		}
		m[f.Path] = f.ETag
	}
	return m
}

// parseSelection splits --skill values, NAME or NAME@VERSION, into the names and the
// pinned versions by name.
func parseSelection(skills []string) ([]string, map[string]string, error) {
	var names []string
	pins := map[string]string{}
	for _, s := range skills {
		name, ver, pinned := strings.Cut(s, "@")
		if !validName(name) {
			return nil, nil, usageErrorf("--skill %q: %q is not a skill name (1-64 of a-z, 0-9, \"-\")", s, name)
		}
		if pinned && (ver == "" || strings.ContainsAny(ver, "/\\@") || strings.ContainsFunc(ver, func(r rune) bool { return r <= ' ' || r == 0x7f })) {
			return nil, nil, usageErrorf("--skill %q: %q is not a version name", s, ver)
		}
		if slices.Contains(names, name) {
			return nil, nil, usageErrorf("--skill %s is given twice", name)
		}
		names = append(names, name)
		if pinned {
			pins[name] = ver
		}
	}
	return names, pins, nil
}
