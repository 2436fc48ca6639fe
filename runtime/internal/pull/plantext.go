package pull

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Close removes what the plan downloaded and Apply did not swap into place (and DIR, when
// the plan made it and it holds nothing).
func (p *Plan) Close() {
	if p.stage != nil {
		p.stage.cleanup()
	}
}

// String renders a as one line: "VERB  NAME  WHY[: DETAIL]", the changed files of a
// skill edited locally after its reason.
func (a Action) String() string {
	why := string(a.Why)
	if a.Detail != "" {
		why += ": " + a.Detail
	}
	if len(a.Files) > 0 {
		why += ": " + strings.Join(a.Files, ", ")
	}
	return fmt.Sprintf("%-7s %s  %s", a.Do, a.Name, why)
}

// WriteText prints the plan for a person: what it reads, a line per skill by name (the
// skills it skips, only when they are installed or new), and what it comes to.
func (p *Plan) WriteText(w io.Writer) {
	fmt.Fprintf(w, "plan: pull %s into %s (read: %s)\n", p.Source, p.Dir, p.Via)
	acts := slices.Clone(p.Actions)
	slices.SortStableFunc(acts, func(a, b Action) int { return strings.Compare(a.Name, b.Name) })
	count := map[Verb]int{}
	for _, a := range acts {
		count[a.Do]++
		if a.Do != DoSkip || a.Locked != nil || a.Why == WhyNew {
			fmt.Fprintf(w, "  %s\n", a)
		}
	}
	written := "nothing written (--dry-run)"
	if !p.DryRun {
		written = "not yet applied"
	}
	fmt.Fprintf(w, "%d to install, %d to update, %d to remove, %d kept, %d refused, %d skipped; %s\n",
		count[DoInstall], count[DoUpdate], count[DoRemove], count[DoKeep], count[DoRefuse], count[DoSkip], written)
}
