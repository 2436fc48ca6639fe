package pull

import (
	"fmt"
	"os"
	"path/filepath"
)

// Check holds the plan to the folder, changing nothing on disk: a skill to install whose
// folder exists though the lock does not name it is refused, and so is the whole plan
// (the error names the first); an installed skill edited locally since it was pulled,
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
