package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/skilledge/skilledge/runtime/internal/pull"
	"github.com/skilledge/skilledge/runtime/internal/verify"
)

func cmdList(args []string, stdout, stderr io.Writer) int {
	c := newCommand("list", "skilledge list [DIR] [flags]",
		`Lists the skills "skilledge pull" installed in DIR (default `+defaultSkillsDir+`), from its
skills.lock: each one's name, version (pinned or not), source and size, and whether its
folder still holds what was pulled ("changed" names the files edited, added or removed
since). Nothing is read from the network. The exit status is 1 when the lock cannot be
read, 2 on bad usage.`)
	asJSON := c.fs.Bool("json", false, "print the list as JSON")
	pos, code, ok := c.parse(args, 0, 1, stdout, stderr)
	if !ok {
		return code
	}
	dir := defaultSkillsDir
	if len(pos) == 1 {
		dir = pos[0]
	}
	list, err := pull.List(dir)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge list: %v\n", err)
		return 1
	}
	if *asJSON {
		writeJSON(stdout, map[string]any{"dir": dir, "skills": list})
		return 0
	}
	if len(list) == 0 {
		fmt.Fprintf(stdout, "no skills installed in %s (skilledge pull URL %s installs some)\n", dir, dir)
		return 0
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
		case len(s.Changed) == 1 && s.Changed[0] == ".":
			state = "folder missing"
		case len(s.Changed) > 0:
			state = "changed: " + strings.Join(s.Changed, ", ")
		}
		if s.Unverified {
			state += ", unverified"
		}
		fmt.Fprintf(stdout, "%s  %s  %s  %s, %s  %s\n", s.Name, version, s.Source, plural(s.Files, "file"), sizeOf(s.Bytes), state)
	}
	fmt.Fprintf(stdout, "%s installed in %s\n", plural(len(list), "skill"), dir)
	return 0
}

func cmdRemove(args []string, stdout, stderr io.Writer) int {
	c := newCommand("remove", "skilledge remove [DIR] NAME [flags]",
		`Removes the skill NAME that "skilledge pull" installed in DIR (default `+defaultSkillsDir+`):
its folder and its entry in skills.lock, which remembers the removal, so that a later pull
of its source does not bring it back (pull --skill NAME does). A skill edited since it was
pulled is removed only with --force; a folder skills.lock does not name is never touched.
The exit status is 1 on failure, 2 on bad usage.`)
	force := c.fs.Bool("force", false, "remove the skill even if it was changed locally since it was pulled")
	pos, code, ok := c.parse(args, 1, 2, stdout, stderr)
	if !ok {
		return code
	}
	dir, name := defaultSkillsDir, pos[0]
	if len(pos) == 2 {
		dir, name = pos[0], pos[1]
	}
	gone, err := pull.Remove(dir, name, *force)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge remove: %v\n", err)
		if errors.Is(err, verify.ErrUsage) {
			return 2
		}
		return 1
	}
	fmt.Fprintf(stdout, "removed %s from %s (%s, %s, from %s); a pull of that source leaves it out until pull --skill %s\n",
		gone.Name, dir, plural(gone.Files, "file"), sizeOf(gone.Bytes), gone.Source, gone.Name)
	return 0
}
