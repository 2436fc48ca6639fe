package main

import (
	"fmt"
	"io"

	"github.com/skilledge/skilledge/runtime/internal/agents"
)

// addAgentFlags adds --agent and --user, which choose the folders a command works on when
// it is given none (agents.Targets); verb says what the command does there.
func addAgentFlags(c *command, verb string) (named *stringList, user *bool) {
	named = &stringList{}
	c.fs.Var(named, "agent", verb+" the skills folder of agent `NAME` ("+agents.Names()+"; repeatable), instead of DIR")
	user = c.fs.Bool("user", false, "with --agent, or when finding the agents, use the folders in your home directory, not the project's")
	return named, user
}

// installedTargets is agents.Targets for list, outdated and remove: the folder pos names
// (DIR, when the command was given one), or the folders --agent names or the project's
// agents hold a skills.lock in.
func installedTargets(pos []string, named *stringList, user *bool) ([]agents.Target, error) {
	dir := ""
	if len(pos) == 1 {
		dir = pos[0]
	}
	return agents.Targets(dir, *named, *user, true)
}

// sayTargets tells, when the folders were chosen for the user, which and why.
func sayTargets(w io.Writer, cmd string, ts []agents.Target) {
	for _, t := range ts {
		if t.Implicit {
			fmt.Fprintf(w, "skilledge %s: %s (%s)\n", cmd, t.Dir, t.Why)
		}
	}
}
