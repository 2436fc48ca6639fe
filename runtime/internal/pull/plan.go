package pull

import (
	"io"
	"maps"
	"slices"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// Plan is what a pull of one source into one folder does, skill by skill, decided before
// anything is written (MakePlan), then checked against the folder (Check), then done
// (Apply). It is also what pull --dry-run prints and what outdated reads its rows from.
type Plan struct {
	Source string `json:"source"`
	Dir    string `json:"dir"`
	// Via is how the catalog was read (Result.Via).
	Via string `json:"via"`
	// DryRun is set for a plan that wrote nothing and is not to be applied.
	DryRun bool `json:"dryRun"`
	// Actions are one per skill the source serves, the lock has from it, or the pull
	// pins, in the order Apply takes them: as the source listed them, then the pins by
	// name, then the locked skills no longer served.
	Actions []Action `json:"actions"`
	// Skipped are, for a folder or git source, the loader's reasons for each skill of it
	// left out (Result.Skipped).
	Skipped []string `json:"skipped,omitempty"`
	// Root is the source's signed root the plan was held to (holdToRoot), nil when it
	// serves none; FirstUse says its key was trusted on first use (no key pinned or
	// locked before).
	Root     *LockedRoot `json:"root,omitempty"`
	FirstUse bool        `json:"firstUse,omitempty"`
	// Unsigned are the skills asked for by name that the root names not at all: unlisted
	// ones (a root is a listing), checked against the digests served only.
	Unsigned []string `json:"unsigned,omitempty"`

	scope    *scope
	stage    *stager
	progress io.Writer
	checked  bool
}

// Verb is what an Action does to a skill.
type Verb string

// The verbs of a plan. Only install, update and remove write.
const (
	DoInstall Verb = "install" // write a skill the folder does not have
	DoUpdate  Verb = "update"  // replace an installed skill
	DoKeep    Verb = "keep"    // this pull's, left as it is
	DoRemove  Verb = "remove"  // delete an installed skill
	DoRefuse  Verb = "refuse"  // would write or remove, and the folder does not allow it (Check)
	DoSkip    Verb = "skip"    // not this pull's to change
)

// Reason says why an Action does what it does: a fixed phrase, which Action.Detail may
// complete.
type Reason string

// The reasons of a plan, by the verb they go with.
const (
	WhyNotInstalled Reason = "not installed"                                      // install
	WhyChanged      Reason = "changed at the source"                              // update
	WhyMissing      Reason = "its folder is missing"                              // update: restored
	WhyOverwrite    Reason = "edited locally, overwritten (--force)"              // update
	WhyUnpinned     Reason = "named again, no longer pinned"                      // update
	WhyPinned       Reason = "pinned"                                             // install, update, keep, skip
	WhyUnchanged    Reason = "unchanged"                                          // keep
	WhySameFiles    Reason = "the same files under another digest"                // keep: the lock is rewritten
	WhyCompared     Reason = "unchanged, downloaded to compare: no digest"        // keep (a v0.1.0 index)
	WhyGone         Reason = "no longer served"                                   // remove
	WhyEdited       Reason = "edited locally"                                     // refuse
	WhyUnmanaged    Reason = "its folder exists and skills.lock does not name it" // refuse: the pull fails
	WhyShadows      Reason = "another source's skill, or a folder, has its name"  // refuse: the pull fails
	WhyElsewhere    Reason = "installed from another source"                      // skip
	WhyNew          Reason = "new, not in this folder's selection"                // skip: pull --skill NAME adds it
	WhyRemoved      Reason = "removed from this folder"                           // skip: pull --skill NAME brings it back
	WhyNotSelected  Reason = "not selected"                                       // skip
	WhyNotLocked    Reason = "not in skills.lock (--frozen)"                      // skip
)

// Action is what the plan does to one skill, and why.
type Action struct {
	Name string `json:"name"`
	Do   Verb   `json:"do"`
	Why  Reason `json:"why"`
	// Detail completes Why where there is more to say: the other source, the version
	// pinned, the versions or digests from and to.
	Detail string `json:"detail,omitempty"`
	// Files are, for a skill refused as edited locally, its changed files, relative to
	// its folder.
	Files []string `json:"files,omitempty"`
	// Locked is the lock's entry of the skill before the pull, nil when it has none;
	// Served the skill as the source lists it, nil when it does not.
	Locked *LockedSkill    `json:"-"`
	Served *verify.Fetched `json:"-"`
	// Latest is the version the source serves ("" when unknown).
	Latest string `json:"-"`

	lock   LockedSkill // the entry the lock gets: install, update, and keep with relock
	relock bool        // keep: the lock's entry is rewritten (the same files, read anew)
	st     *staged     // install, update: the files downloaded
}

// writes reports whether a writes the skill's folder.
func (a *Action) writes() bool { return a.Do == DoInstall || a.Do == DoUpdate }

// plan decides what each skill becomes, from the lock, the folder and what r read of the
// source. It reads nothing more from the source.
func (s *scope) plan(r *reading) []Action {
	var acts []Action
	for _, f := range r.got {
		if s.pins[f.Name] != "" {
			continue // the pin decides (below)
		}
		acts = append(acts, s.decideServed(f, r))
	}
	for _, name := range slices.Sorted(maps.Keys(s.pins)) {
		acts = append(acts, s.decidePin(name, r))
	}
	for i := range s.lock.Skills {
		l := &s.lock.Skills[i]
		if _, ok := r.served[l.Name]; ok || l.Source != s.source || s.pins[l.Name] != "" {
			continue
		}
		acts = append(acts, s.decideUnserved(l))
	}
	return acts
}

// decideServed decides the skill f the source serves.
func (s *scope) decideServed(f verify.Fetched, r *reading) Action {
	old := s.lock.find(f.Name)
	a := Action{Name: f.Name, Locked: old, Served: &f, Latest: r.latest(f)}
	switch st := r.staged[f.Name]; {
	case old != nil && old.Source != s.source:
		a.Do, a.Why, a.Detail = DoSkip, WhyElsewhere, old.Source // the lock says where each skill comes from
	case s.pinnedHere(f.Name):
		a.Do, a.Why, a.Detail = DoKeep, WhyPinned, old.Version
	case st == nil:
		s.decideNotDownloaded(&a)
	default:
		s.decideDownloaded(&a, st)
	}
	return a
}

// decideNotDownloaded decides a served skill nothing was downloaded of: the lock has it
// at the digest served, or it is not this pull's.
func (s *scope) decideNotDownloaded(a *Action) {
	f, old := *a.Served, a.Locked
	switch {
	case old != nil && lockMatches(old, f):
		a.Do, a.Why = DoKeep, WhyUnchanged
	case old == nil && !s.inScope(f.Name, f.Path):
		a.Do, a.Why = DoSkip, WhyNotSelected
		if slices.Contains(s.removed, f.Name) {
			a.Why = WhyRemoved
		} else if s.sel != nil {
			a.Why = WhyNew
		}
	case !s.inScope(f.Name, f.Path):
		a.Do, a.Why = DoSkip, WhyNotSelected
	case old == nil:
		a.Do, a.Why = DoSkip, WhyNotLocked
	default:
		// Outdated's plans download no change: the lock's digest and the source's say it.
		a.Do, a.Why, a.Detail = DoUpdate, WhyChanged, fromTo(old, a.Latest, f)
	}
}

// decideDownloaded decides a skill downloaded and verified (st): written, unless its files
// are the ones installed and the folder holds them.
func (s *scope) decideDownloaded(a *Action, st *staged) {
	f, old, ls := *a.Served, a.Locked, st.lock
	if old != nil && !old.Pinned && ls.Manifest == old.Manifest && sameModes(old, &ls) && s.unchangedHere(old, f) {
		// The same files under another digest (the lock was made by a read over MCP,
		// which gives the manifest digest only), or read again from a v0.1.0 index:
		// nothing to write but the lock, which a frozen pull leaves as it is.
		a.Do, a.Why, a.lock, a.relock = DoKeep, WhySameFiles, ls, !s.frozen
		if f.Kind == verify.DigestUnpublished {
			a.Why = WhyCompared
		}
		return
	}
	a.Do, a.st, a.lock = DoInstall, st, ls
	if old == nil {
		a.Why, a.Detail = WhyNotInstalled, ls.Version
		return
	}
	a.Do = DoUpdate
	switch {
	case old.Pinned:
		a.Why = WhyUnpinned
	case ls.Manifest != old.Manifest || !sameModes(old, &ls):
		a.Why, a.Detail = WhyChanged, fromTo(old, ls.Version, f)
	case missing(s.folder.changes(old)):
		a.Why = WhyMissing
	default:
		a.Why = WhyOverwrite
	}
	if s.frozen {
		a.lock = *old // the same files (readLockedVersions): restored, the lock as it was
	}
}

// decidePin decides a version this pull pins: kept when installed already, else written
// from what readPins downloaded.
func (s *scope) decidePin(name string, r *reading) Action {
	ver, old := s.pins[name], s.lock.find(name)
	a := Action{Name: name, Locked: old, Why: WhyPinned, Detail: ver, Latest: ver}
	if s.pinKept(name) {
		a.Do = DoKeep
		return a
	}
	a.Do, a.st = DoInstall, r.staged[name]
	if old != nil {
		a.Do = DoUpdate
	}
	a.lock = a.st.lock
	a.lock.Path, a.lock.Version, a.lock.Pinned = r.pinPaths[name], ver, true
	return a
}

// decideUnserved decides a skill the lock has from the source that it serves no more:
// removed, when this pull is about it.
func (s *scope) decideUnserved(l *LockedSkill) Action {
	a := Action{Name: l.Name, Locked: l, Do: DoSkip, Why: WhyNotSelected}
	switch {
	case s.pinnedHere(l.Name):
		a.Why, a.Detail = WhyPinned, l.Version
	case s.inScope(l.Name, l.Path) && len(s.names) == 0:
		a.Do, a.Why = DoRemove, WhyGone
	}
	return a
}

// fromTo says, for a skill that changed at the source, the version (else the digest)
// installed and the one served: "1.0.0 -> 1.1.0".
func fromTo(old *LockedSkill, latest string, f verify.Fetched) string {
	from, to := old.Version, latest
	if from == "" || to == "" || from == to {
		from, to = short(fromDigest(old, &f)), short(f.Digest)
	}
	return from + " -> " + to
}

// fromDigest is the digest of the installed skill l to compare with f's: the artifact's,
// or the manifest digest when that is what the source gives (or all the lock has).
func fromDigest(l *LockedSkill, f *verify.Fetched) string {
	if l.Unverified || f != nil && (f.Kind == verify.DigestManifest || f.Kind == verify.DigestUnpublished) {
		return l.Manifest // an unverified skill has no artifact digest
	}
	return l.Artifact
}
