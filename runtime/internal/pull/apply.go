package pull

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Apply does what the checked plan says, and nothing else: each skill installed or
// updated is swapped into place from the folder it was downloaded to, then each skill no
// longer served is removed, the lock written after each, so that it always says what the
// folder holds; then the lock gets the entries read anew and the selection this pull
// asked for. A failed write returns what was done so far with the error.
func (p *Plan) Apply() (*Result, error) {
	switch {
	case p.DryRun:
		return nil, errors.New("pull: a dry run's plan is not applied")
	case !p.checked:
		return nil, errors.New("pull: a plan is applied once checked")
	}
	res := p.result()
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return nil, err
	}
	lock := p.scope.lock
	rooted := false
	if p.Root != nil {
		if was := lock.rootOf(p.Root.Source); was == nil || *was != *p.Root {
			lock.putRoot(*p.Root) // written with the first skill, or at the end
			rooted = true
		}
	}
	for i := range p.Actions {
		a := &p.Actions[i]
		if !a.writes() {
			continue
		}
		if a.st == nil {
			// A plan that says it writes a skill it did not download (outdated's plans,
			// which download nothing, are never applied) would write nothing and say so.
			return res, fmt.Errorf("pull: %s %s was planned with nothing downloaded", a.Do, a.Name)
		}
		if err := p.write(a, res); err != nil {
			return res, err
		}
	}
	for _, a := range p.Actions {
		if a.Do == DoRemove {
			if err := p.remove(a.Name, res); err != nil {
				return res, err
			}
		}
	}
	relocked := false
	for _, a := range p.Actions {
		if a.relock {
			lock.put(a.lock)
			relocked = true
		}
	}
	if err := p.writeSelection(relocked || rooted); err != nil {
		return res, err
	}
	res.sort()
	return res, nil
}

// write swaps the downloaded skill of a into place and locks it.
func (p *Plan) write(a *Action, res *Result) error {
	if err := p.stage.swap(a.Name); err != nil {
		return err
	}
	res.Bytes += a.st.bytes
	p.scope.lock.put(a.lock)
	if err := writeLock(p.Dir, p.scope.lock); err != nil {
		return err
	}
	verb := "installed"
	if a.Do == DoUpdate {
		verb = "updated"
		res.Updated = append(res.Updated, a.Name)
	} else {
		res.Installed = append(res.Installed, a.Name)
	}
	note := ""
	if a.lock.Unverified {
		res.Unverified = append(res.Unverified, a.Name)
		note = ", unverified"
	}
	if a.lock.Named != "" {
		if res.Qualified == nil {
			res.Qualified = map[string]string{}
		}
		res.Qualified[a.Name] = a.lock.Named
		note += "; its SKILL.md names it " + a.lock.Named + ", as other skills of the source are named"
	}
	if p.progress != nil {
		fmt.Fprintf(p.progress, "%s %s (%d files, %d bytes%s)\n", verb, a.Name, a.st.files, a.st.bytes, note)
	}
	return nil
}

// remove deletes the installed skill name, no longer served, and its lock entry.
func (p *Plan) remove(name string, res *Result) error {
	if err := removeSkill(p.Dir, name); err != nil {
		return err
	}
	p.scope.lock.remove(name)
	if err := writeLock(p.Dir, p.scope.lock); err != nil {
		return err
	}
	res.Removed = append(res.Removed, name)
	if p.progress != nil {
		fmt.Fprintf(p.progress, "removed %s (no longer served)\n", name)
	}
	return nil
}

// writeSelection records in the lock what this pull asked of the source: the skills it
// names are no longer removed, and, unless frozen or the source was pulled whole, its
// names (else its paths) join the source's selection. The lock is written when that
// changed it, when entries were relocked, or when the folder had none.
func (p *Plan) writeSelection(relocked bool) error {
	s, lock := p.scope, p.scope.lock
	reselected := lock.unremove(s.source, s.names)
	if !s.frozen && !s.whole {
		if len(s.names) > 0 {
			reselected = lock.selectMore(s.source, s.names, nil) || reselected // names and paths together: the names, the narrower
		} else {
			reselected = lock.selectMore(s.source, nil, s.paths) || reselected
		}
	}
	if _, err := os.Stat(filepath.Join(p.Dir, LockName)); errors.Is(err, os.ErrNotExist) || relocked || reselected {
		return writeLock(p.Dir, lock)
	}
	return nil
}

// result is the Result of the plan before anything is written: what it keeps, leaves
// alone and refuses.
func (p *Plan) result() *Result {
	res := &Result{Source: p.Source, Via: p.Via, Skipped: p.Skipped, Root: p.Root, FirstUse: p.FirstUse, Unsigned: p.Unsigned}
	for _, a := range p.Actions {
		switch {
		case a.Do == DoKeep:
			res.Unchanged = append(res.Unchanged, a.Name)
			if a.Why == WhyCompared {
				res.Compared = append(res.Compared, a.Name)
			}
		case a.Why == WhyElsewhere:
			res.Elsewhere = append(res.Elsewhere, a.Name)
		case a.Why == WhyNew:
			res.New = append(res.New, a.Name)
		case a.Why == WhyEdited:
			res.Edited = append(res.Edited, Edited{Name: a.Name, Files: a.Files})
		}
	}
	return res
}
