package pull

import (
	"fmt"
	"io"
	"strings"

	"github.com/skilledge/skilledge/runtime/internal/words"
)

// What pull, list and remove say to a person (the CLI prints it).

// Summary is the last line of a pull into dir: what it installed, updated and removed,
// and what it left alone or could not check.
func (r *Result) Summary(dir string) string {
	elsewhere := ""
	if len(r.Elsewhere) > 0 {
		elsewhere = fmt.Sprintf("; left alone, installed from another source: %s", strings.Join(r.Elsewhere, ", "))
	}
	unverified := ""
	if r.Via == ViaWellKnownV01 {
		unverified = "; the source's v0.1 index publishes no digests: nothing was verified"
		if len(r.Unverified) > 0 {
			unverified += fmt.Sprintf(" (%s, locked as downloaded, unverified)", strings.Join(r.Unverified, ", "))
		}
	}
	switch r.Via {
	case ViaFolder, ViaGit:
		unverified = "; read as skilledge build reads a folder: a folder or repository publishes no digests to check, so skills.lock records those of what was read"
	}
	if len(r.Edited) > 0 {
		names := make([]string, len(r.Edited))
		for i, e := range r.Edited {
			names[i] = e.Name
		}
		elsewhere += fmt.Sprintf("; %s changed locally, left as %s (%s): pull --force to overwrite", words.Plural(len(r.Edited), "skill"), map[bool]string{true: "it is", false: "they are"}[len(r.Edited) == 1], strings.Join(names, ", "))
	}
	if n := len(r.Qualified); n > 0 {
		elsewhere += fmt.Sprintf("; %s in a folder named by the catalog, not by its SKILL.md, whose name other skills of the source share (%s records it as \"named\")",
			words.Plural(n, "skill"), LockName)
	}
	if len(r.New) > 0 {
		elsewhere += fmt.Sprintf("; %s in the catalog, not in this folder's selection (%s): pull --skill NAME to add one", words.Plural(len(r.New), "new skill"), strings.Join(r.New, ", "))
	}
	if len(r.Installed)+len(r.Updated)+len(r.Removed) == 0 {
		nothing := "nothing downloaded"
		if len(r.Compared) > 0 {
			nothing = fmt.Sprintf("nothing written (%s downloaded to compare: the server answered no ETag with 304)", words.Plural(len(r.Compared), "skill"))
		}
		return fmt.Sprintf("%s up to date in %s: %s unchanged, %s%s%s", r.Source, dir, words.Plural(len(r.Unchanged), "skill"), nothing, elsewhere, unverified)
	}
	return fmt.Sprintf("%s into %s: %s, %s, %d unchanged, %s; %s written%s%s",
		r.Source, dir, counted("installed", r.Installed), counted("updated", r.Updated), len(r.Unchanged), counted("removed", r.Removed), sizeOf(r.Bytes), elsewhere, unverified)
}

// Says is what a pull into dir says of the skill e left as it was.
func (e Edited) Says(dir string) string {
	return fmt.Sprintf("%s was changed locally since it was pulled (%s): left as it is; pass --force to overwrite it", e.Name, strings.Join(inFolder(dir, e.Name, e.Files), ", "))
}

// WriteInstalled prints the skills installed in dir (List), a line each, and a count.
func WriteInstalled(w io.Writer, dir string, list []Installed) {
	if len(list) == 0 {
		fmt.Fprintf(w, "no skills installed in %s (skilledge pull URL %s installs some)\n", dir, dir)
		return
	}
	for _, s := range list {
		version := s.Version
		switch {
		case version == "":
			version = "-"
		case s.Pinned:
			version += " (pinned)"
		}
		state := "as pulled"
		switch {
		case missing(s.Changed):
			state = "folder missing"
		case len(s.Changed) > 0:
			state = "changed: " + strings.Join(s.Changed, ", ")
		}
		if s.Unverified {
			state += ", unverified"
		}
		name := s.Name
		if s.Named != "" {
			name += " (named " + s.Named + ")"
		}
		fmt.Fprintf(w, "%s  %s  %s  %s, %s  %s\n", name, version, s.Source, words.Plural(s.Files, "file"), sizeOf(s.Bytes), state)
	}
	fmt.Fprintf(w, "%s installed in %s\n", words.Plural(len(list), "skill"), dir)
}

// RemovedFrom is what remove says of the skill s it removed from dir.
func (s *Installed) RemovedFrom(dir string) string {
	return fmt.Sprintf("removed %s from %s (%s, %s, from %s); a pull of that source leaves it out until pull --skill %s",
		s.Name, dir, words.Plural(s.Files, "file"), sizeOf(s.Bytes), s.Source, s.Name)
}

// sizeOf says n bytes in the unit a person reads: bytes, KiB or MiB.
func sizeOf(n int64) string {
	switch {
	case n < 1<<10:
		return words.Plural(int(n), "byte")
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// counted is "N VERB (a, b)", or "N VERB" when names is empty.
func counted(verb string, names []string) string {
	if len(names) == 0 {
		return "0 " + verb
	}
	return fmt.Sprintf("%d %s (%s)", len(names), verb, strings.Join(names, ", "))
}
