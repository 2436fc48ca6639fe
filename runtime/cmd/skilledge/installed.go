package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/skilledge/skilledge/runtime/internal/agents"
	"github.com/skilledge/skilledge/runtime/internal/pull"
	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// listUsage is list's help text, after its synopsis.
const listUsage = `Lists the skills "skilledge pull" installed in DIR, from its skills.lock: each one's name,
version (pinned or not), source and size, and whether its folder still holds what was
pulled ("changed" names the files edited, added or removed since). Without DIR, it looks
at the folders of --agent NAME, or of the agents the project uses that hold a skills.lock
(as pull finds them), else ` + defaultSkillsDir + `. Nothing is read from the network. The exit
status is 1 when a lock cannot be read, 2 on bad usage.`

func cmdList(args []string, stdout, stderr io.Writer) int {
	c := newCommand("list", "skilledge list [DIR] [flags]", listUsage)
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
	var folders []any
	for _, t := range ts {
		list, err := pull.List(t.Dir)
		if err != nil {
			fmt.Fprintf(stderr, "skilledge list: %v\n", err)
			return 1
		}
		if *asJSON {
			folders = append(folders, map[string]any{"dir": t.Dir, "skills": list})
			continue
		}
		pull.WriteInstalled(stdout, t.Dir, list)
	}
	if *asJSON {
		writeJSON(stdout, oneOrAll(folders))
	}
	return 0
}

// removeUsage is remove's help text, after its synopsis.
const removeUsage = `Removes the skill NAME that "skilledge pull" installed in DIR: its folder and its entry in
skills.lock, which remembers the removal, so that a later pull of its source does not
bring it back (pull --skill NAME does). Without DIR, it removes NAME from the folders of
--agent NAME, or of the agents the project uses that hold a skills.lock (as pull finds
them), else ` + defaultSkillsDir + `. A skill edited since it was pulled is removed only with
--force; a folder skills.lock does not name is never touched. The exit status is 1 on
failure, 2 on bad usage.`

func cmdRemove(args []string, stdout, stderr io.Writer) int {
	c := newCommand("remove", "skilledge remove [DIR] NAME [flags]", removeUsage)
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
	removed, err := pull.RemoveFrom(agents.Dirs(ts), name, *force)
	for _, r := range removed {
		fmt.Fprintln(stdout, r.RemovedFrom(r.Dir))
	}
	if err != nil {
		fmt.Fprintf(stderr, "skilledge remove: %v\n", err)
		if errors.Is(err, verify.ErrUsage) {
			return 2
		}
		return 1
	}
	return 0
}
