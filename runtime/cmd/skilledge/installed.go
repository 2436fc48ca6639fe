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
		`Lists the skills "skilledge pull" installed in DIR, from its skills.lock: each one's name,
version (pinned or not), source and size, and whether its folder still holds what was
pulled ("changed" names the files edited, added or removed since). Without DIR, it looks
at the folders of --agent NAME, or of the agents the project uses that hold a skills.lock
(as pull finds them), else `+defaultSkillsDir+`. Nothing is read from the network. The exit
status is 1 when a lock cannot be read, 2 on bad usage.`)
	asJSON := c.fs.Bool("json", false, "print the list as JSON")
	named, user := addAgentFlags(c, "look in")
	pos, code, ok := c.parse(args, 0, 1, stdout, stderr)
	if !ok {
		return code
	}
	ts, err := installedTargets(pos, named, user)
	if err != nil {
		return c.usageError(stderr, err.Error())
	}
	sayTargets(stderr, "list", ts)
	var folders []map[string]any
	for _, t := range ts {
		list, err := pull.List(t.dir)
		if err != nil {
			fmt.Fprintf(stderr, "skilledge list: %v\n", err)
			return 1
		}
		if *asJSON {
			folders = append(folders, map[string]any{"dir": t.dir, "skills": list})
			continue
		}
		printInstalled(stdout, t.dir, list)
	}
	if *asJSON {
		if len(folders) == 1 {
			writeJSON(stdout, folders[0])
		} else {
			writeJSON(stdout, folders)
		}
	}
	return 0
}

// printInstalled prints the skills installed in dir, a line each, and a count.
func printInstalled(stdout io.Writer, dir string, list []pull.Installed) {
	if len(list) == 0 {
		fmt.Fprintf(stdout, "no skills installed in %s (skilledge pull URL %s installs some)\n", dir, dir)
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
}

func cmdRemove(args []string, stdout, stderr io.Writer) int {
	c := newCommand("remove", "skilledge remove [DIR] NAME [flags]",
		`Removes the skill NAME that "skilledge pull" installed in DIR: its folder and its entry in
skills.lock, which remembers the removal, so that a later pull of its source does not
bring it back (pull --skill NAME does). Without DIR, it removes NAME from the folders of
--agent NAME, or of the agents the project uses that hold a skills.lock (as pull finds
them), else `+defaultSkillsDir+`. A skill edited since it was pulled is removed only with
--force; a folder skills.lock does not name is never touched. The exit status is 1 on
failure, 2 on bad usage.`)
	force := c.fs.Bool("force", false, "remove the skill even if it was changed locally since it was pulled")
	named, user := addAgentFlags(c, "remove from")
	pos, code, ok := c.parse(args, 1, 2, stdout, stderr)
	if !ok {
		return code
	}
	name := pos[len(pos)-1]
	ts, err := installedTargets(pos[:len(pos)-1], named, user)
	if err != nil {
		return c.usageError(stderr, err.Error())
	}
	removed := 0
	for _, t := range ts {
		gone, err := pull.Remove(t.dir, name, *force)
		switch {
		case errors.Is(err, pull.ErrNotInstalled) && len(ts) > 1:
			continue // in another of the folders, perhaps
		case err != nil:
			fmt.Fprintf(stderr, "skilledge remove: %v\n", err)
			if errors.Is(err, verify.ErrUsage) {
				return 2
			}
			return 1
		}
		removed++
		fmt.Fprintf(stdout, "removed %s from %s (%s, %s, from %s); a pull of that source leaves it out until pull --skill %s\n",
			gone.Name, t.dir, plural(gone.Files, "file"), sizeOf(gone.Bytes), gone.Source, gone.Name)
	}
	if removed == 0 {
		dirs := make([]string, len(ts))
		for i, t := range ts {
			dirs[i] = t.dir
		}
		fmt.Fprintf(stderr, "skilledge remove: %s is installed in none of %s\n", name, strings.Join(dirs, ", "))
		return 1
	}
	return 0
}
