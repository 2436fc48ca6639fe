package pull

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// Check holds the plan to the folder, changing nothing on disk: a skill to install whose
// folder exists though the lock does not name it is refused, and so is one whose SKILL.md
// would take the name of another source's skill or of such a folder (shadows), and so is
// the whole plan (the error names the first); an installed skill edited locally since it was pulled,
// which the plan would update or remove, is refused unless Force, while the others go on
// (Result.Edited). Apply applies only a checked plan.
//
// Why a check apart from the plan? Because the plan says what the source and the lock
// ask for, and the check what the folder allows: outdated reads the plan alone, and a
// dry run shows both, each refusal with its reason.
//
// Why does a local edit keep its skill from an update instead of being overwritten or
// merged? Someone who edits an installed skill has a reason, and an update that silently
// drops the edit loses work no one sees. The lock's file digests tell an edit from the
// pulled bytes (LocalChanges), so an edited skill is refused here and left as it is, each
// changed file named (Result.Edited), and Force takes the source's. An edit is kept when
// the source has not changed too (scope.want downloads nothing for it). The other skills
// are updated all the same, and the pull exits 1: one edited skill once held back every
// update of the folder, which made a team choose between its edit and every fix upstream.
// Rejected: a three-way merge (skills are not only text), a backup copy beside the skill
// (an agent would load it as a skill), and stopping the whole pull (the old behaviour).
func (p *Plan) Check() error {
	var first error
	for i := range p.Actions {
		a := &p.Actions[i]
		if a.writes() {
			if why, other := p.shadows(a); why != "" {
				a.Do, a.Why, a.Detail = DoRefuse, WhyShadows, other
				if first == nil {
					first = fmt.Errorf("%s: its SKILL.md names it %s, as %s: agents that key skills by name would load one in place of the other; nothing was written",
						a.Name, cmp.Or(a.lock.Named, a.Name), why)
				}
				continue
			}
		}
		switch {
		case a.Do == DoInstall:
			folder := filepath.Join(p.Dir, a.Name)
			if _, err := os.Lstat(folder); err != nil {
				continue
			}
			a.Do, a.Why, a.Detail = DoRefuse, WhyUnmanaged, folder
			if first == nil {
				first = fmt.Errorf("%s exists and %s does not name it: pull manages only the skills it installed; move it away to install %s from %s",
					folder, LockName, a.Name, p.Source)
			}
		case a.Do == DoUpdate || a.Do == DoRemove:
			if files := p.scope.edited(a.Locked); len(files) > 0 {
				a.Do, a.Why, a.Detail, a.Files = DoRefuse, WhyEdited, "", files
			}
		}
	}
	p.checked = first == nil
	return first
}

// Refused reports whether Check refused a skill of the plan.
func (p *Plan) Refused() bool {
	for _, a := range p.Actions {
		if a.Do == DoRefuse {
			return true
		}
	}
	return false
}

// shadows says why the skill a would install or update, whose SKILL.md's name is not its
// folder's (LockedSkill.Named), would take the name of a skill it must not (and names
// that skill), or "": a skill installed from another source with that name (its own or
// its SKILL.md's), or a folder of that name that the lock does not name. A catalog whose
// skills share a name installs them under distinct folders (PROTOCOL.md#index-names), and
// agents key skills by their SKILL.md's name: within one source that is the publisher's
// choice, across sources it would let one source's skill stand in for another's.
func (p *Plan) shadows(a *Action) (why, other string) {
	named := a.lock.Named
	for _, l := range p.scope.lock.Skills {
		if l.Source == p.Source || l.Name == a.Name {
			continue
		}
		own := cmp.Or(l.Named, l.Name)
		if own == cmp.Or(named, a.Name) && (named != "" || l.Named != "") {
			return fmt.Sprintf("is %s, installed from %s", l.Name, l.Source), l.Source
		}
	}
	if named == "" {
		return "", ""
	}
	// A folder the lock does not name, called so or holding a SKILL.md called so (not a
	// hidden one: pull's own staging, a version control's).
	entries, _ := os.ReadDir(p.Dir)
	for _, e := range entries {
		if p.scope.lock.find(e.Name()) != nil || e.Name() == a.Name || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		folder := filepath.Join(p.Dir, e.Name())
		if e.Name() == named {
			return fmt.Sprintf("is the folder %s, which %s does not name", folder, LockName), folder
		}
		if b, err := readSmall(filepath.Join(folder, "SKILL.md")); err == nil {
			if n, err := verify.FrontmatterName(b); err == nil && n == named {
				return fmt.Sprintf("is the skill in the folder %s, which %s does not name", folder, LockName), folder
			}
		}
	}
	return "", ""
}

// readSmall reads the file at path when it is a regular file of at most 1 MiB (a
// SKILL.md a person put in a skills folder), else fails: a link, a pipe or a device is
// never opened.
func readSmall(path string) ([]byte, error) {
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return nil, fmt.Errorf("%s: not a small regular file", path)
	}
	return io.ReadAll(io.LimitReader(f, 1<<20))
}
