package pull

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Installed is one skill a folder's lock names, as skilledge list shows it.
type Installed struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	// Path is the skill's path in its catalog; Version the version locked ("" when the
	// skill declares none), Pinned whether a pull leaves it there.
	Path string `json:"path"`
	// Named is its SKILL.md's name where the folder is named otherwise (LockedSkill.Named).
	Named   string `json:"named,omitempty"`
	Version string `json:"version,omitempty"`
	Pinned  bool   `json:"pinned,omitempty"`
	// Unverified is set for a skill read from a source that publishes no digest.
	Unverified bool `json:"unverified,omitempty"`
	// Files and Bytes are what the lock says the skill holds.
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	// Changed are its files changed locally since the pull, relative to its folder:
	// edited, added or removed; ["."] when the folder is gone. Empty when it is as pulled.
	Changed []string `json:"changed"`
}

// List returns the skills the lock of dir names, by name, each compared with the folder.
func List(dir string) ([]Installed, error) {
	lock, err := ReadLock(dir)
	if err != nil {
		return nil, err
	}
	out := []Installed{}
	for i := range lock.Skills {
		out = append(out, installedOf(dir, &lock.Skills[i]))
	}
	slices.SortFunc(out, func(a, b Installed) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// installedOf is the locked skill l as installed in dir, compared with its folder.
func installedOf(dir string, l *LockedSkill) Installed {
	in := Installed{Name: l.Name, Source: l.Source, Path: l.Path, Named: l.Named, Version: l.Version, Pinned: l.Pinned, Unverified: l.Unverified,
		Files: len(l.Files), Changed: LocalChanges(dir, l)}
	for _, f := range l.Files {
		in.Bytes += f.Size
	}
	if in.Changed == nil {
		in.Changed = []string{}
	}
	return in
}

// ErrNotInstalled is Remove's error for a name the lock does not name.
var ErrNotInstalled = errors.New("not installed")

// Remove deletes the installed skill name from dir and its lock entry, and records in the
// lock that it was removed, so that a later pull of its source does not bring it back
// until it is named again (pull --skill NAME). A skill changed locally since it was
// pulled is removed only with force: the error names the changed files. Nothing is
// removed but what the lock names.
func Remove(dir, name string, force bool) (*Installed, error) {
	if !validName(name) {
		return nil, usageErrorf("%q is not a skill name (1-64 of a-z, 0-9, \"-\")", name)
	}
	lock, err := ReadLock(dir)
	if err != nil {
		return nil, err
	}
	l := lock.find(name)
	if l == nil {
		return nil, fmt.Errorf("%s: %w in %s (%s does not name it)", name, ErrNotInstalled, dir, LockName)
	}
	gone := installedOf(dir, l)
	if len(gone.Changed) > 0 && !missing(gone.Changed) && !force {
		return nil, fmt.Errorf("%s was changed locally since it was pulled (%s): nothing was removed; pass --force to remove it anyway", name, strings.Join(inFolder(dir, name, gone.Changed), ", "))
	}
	if err := removeSkill(dir, name); err != nil {
		return nil, err
	}
	source := l.Source
	lock.remove(name)
	lock.markRemoved(source, name)
	if err := writeLock(dir, lock); err != nil {
		return nil, err
	}
	return &gone, nil
}

// Removal is a skill RemoveFrom removed, and the folder it was in.
type Removal struct {
	Dir string
	*Installed
}

// RemoveFrom removes the skill name from each of dirs whose lock names it (Remove); a
// folder whose lock does not name it is passed over when there are others. It returns
// what it removed, and the first error; it fails when none of dirs has the skill.
func RemoveFrom(dirs []string, name string, force bool) ([]Removal, error) {
	var out []Removal
	for _, dir := range dirs {
		gone, err := Remove(dir, name, force)
		switch {
		case errors.Is(err, ErrNotInstalled) && len(dirs) > 1:
			continue // in another of the folders, perhaps
		case err != nil:
			return out, err
		}
		out = append(out, Removal{dir, gone})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s is installed in none of %s", name, strings.Join(dirs, ", "))
	}
	return out, nil
}
