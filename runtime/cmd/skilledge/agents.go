package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skilledge/skilledge/runtime/internal/pull"
)

// The skills folders of the common agents (README, "Install skills into an agent"): where
// pull, list, outdated and remove look when given --agent NAME instead of a folder, or
// neither. Each agent has its own folder per project (the repository's root, the working
// directory) and per user (--user: the home directory); shared says the agent also reads
// .agents/skills, so that one folder serves every such agent a project has.
type agent struct {
	name, title string
	// marker is the entry, under the project or home directory, whose presence says the
	// agent is used there.
	marker        string
	project, user string // skills folders, relative to the project and the home directory
	shared        bool
}

var agents = []agent{
	{name: "claude", title: "Claude Code", marker: ".claude", project: ".claude/skills", user: ".claude/skills"},
	{name: "codex", title: "Codex", marker: ".codex", project: ".agents/skills", user: ".agents/skills", shared: true},
	{name: "cursor", title: "Cursor", marker: ".cursor", project: ".cursor/skills", user: ".cursor/skills", shared: true},
	{name: "gemini", title: "Gemini CLI", marker: ".gemini", project: ".gemini/skills", user: ".gemini/skills", shared: true},
	{name: "copilot", title: "VS Code / GitHub Copilot", marker: ".github/skills", project: ".github/skills", user: ".copilot/skills"},
	{name: "opencode", title: "OpenCode", marker: ".opencode", project: ".opencode/skills", user: ".config/opencode/skills", shared: true},
	{name: "agents", title: "agents reading .agents/skills", marker: ".agents", project: ".agents/skills", user: ".agents/skills", shared: true},
}

// addAgentFlags adds --agent and --user, which choose the folders a command works on when
// it is given none (targets); verb says what the command does there.
func addAgentFlags(c *command, verb string) (named *stringList, user *bool) {
	named = &stringList{}
	c.fs.Var(named, "agent", verb+" the skills folder of agent `NAME` ("+agentNames()+"; repeatable), instead of DIR")
	user = c.fs.Bool("user", false, "with --agent, or when finding the agents, use the folders in your home directory, not the project's")
	return named, user
}

// agentNames lists the names --agent takes.
func agentNames() string {
	names := make([]string, len(agents))
	for i, a := range agents {
		names[i] = a.name
	}
	return strings.Join(names, ", ")
}

// findAgent returns the agent called name ("vscode" is copilot's other name).
func findAgent(name string) (agent, bool) {
	if name == "vscode" {
		name = "copilot"
	}
	i := slices.IndexFunc(agents, func(a agent) bool { return a.name == name })
	if i < 0 {
		return agent{}, false
	}
	return agents[i], true
}

// target is one skills folder a command works on, and why it was chosen.
type target struct {
	dir, why string
	// implicit: chosen from --agent or by detection, not given by the user, so it must
	// not lead out of its base (checked by contained).
	implicit bool
	base     string
}

// targets returns the folders a command works on: dir when given; else each --agent's
// folder; else the folders of the agents found in the project (or, with user, the home
// directory), .agents/skills standing for every agent that reads it; else
// .agents/skills. installed keeps, when nothing was named, only folders holding a
// skills.lock (list, outdated and remove look at what pull installed). It refuses a
// folder chosen for the user that is, or lies under, a symbolic link leading out of its
// project or home directory: a cloned repository could otherwise point pull's writes
// anywhere.
func targets(dir string, named []string, user, installed bool) ([]target, error) {
	if dir != "" {
		if len(named) > 0 {
			return nil, errors.New("give a folder or --agent, not both")
		}
		return []target{{dir: dir}}, nil
	}
	base, where := ".", "the project"
	if user {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("--user: %v", err)
		}
		base, where = home, "your home directory"
	}
	folder := func(a agent) string {
		if user {
			return filepath.Join(base, filepath.FromSlash(a.user))
		}
		return filepath.FromSlash(a.project)
	}
	var out []target
	add := func(dir, why string) {
		if i := slices.IndexFunc(out, func(t target) bool { return t.dir == dir }); i >= 0 {
			out[i].why += ", " + why
			return
		}
		out = append(out, target{dir: dir, why: why, implicit: true, base: base})
	}
	for _, n := range named {
		a, ok := findAgent(n)
		if !ok {
			return nil, fmt.Errorf("--agent %q is none of %s", n, agentNames())
		}
		add(folder(a), a.title)
	}
	if len(named) == 0 {
		shared, _ := findAgent("agents")
		for _, a := range agents {
			if _, err := os.Lstat(filepath.Join(base, filepath.FromSlash(a.marker))); err != nil {
				continue
			}
			why := fmt.Sprintf("%s: %s is in %s", a.title, a.marker, where)
			if a.shared {
				add(folder(shared), why)
			} else {
				add(folder(a), why)
			}
		}
		if installed {
			out = slices.DeleteFunc(out, func(t target) bool {
				_, err := os.Stat(filepath.Join(t.dir, pull.LockName))
				return err != nil
			})
			if len(out) == 0 {
				for _, a := range agents {
					if _, err := os.Stat(filepath.Join(folder(a), pull.LockName)); err == nil {
						add(folder(a), a.title)
					}
				}
			}
		}
		if len(out) == 0 {
			add(folder(shared), "no agent's folder found in "+where+": the folder most agents read")
		}
	}
	for _, t := range out {
		if err := contained(t.dir, t.base); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// installedTargets is targets for list, outdated and remove: the folder pos names (DIR,
// when the command was given one), or the folders --agent names or the project's agents
// hold a skills.lock in.
func installedTargets(pos []string, named *stringList, user *bool) ([]target, error) {
	dir := ""
	if len(pos) == 1 {
		dir = pos[0]
	}
	return targets(dir, *named, *user, true)
}

// contained returns an error when dir, or a folder between base and it, is a symbolic
// link that leads out of base. Folders that do not exist yet are fine: pull makes them.
func contained(dir, base string) error {
	root, err := filepath.EvalSymlinks(base)
	if err != nil {
		return err
	}
	root, _ = filepath.Abs(root)
	rel, err := filepath.Rel(base, dir)
	if err != nil {
		return err
	}
	at := base
	for _, seg := range strings.Split(rel, string(filepath.Separator)) {
		at = filepath.Join(at, seg)
		fi, err := os.Lstat(at)
		if err != nil {
			return nil // the rest is made by pull, inside what was checked
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(at)
		if err != nil {
			return fmt.Errorf("%s is a symbolic link that leads nowhere: give the folder as DIR to use it", at)
		}
		real, _ = filepath.Abs(real)
		if r, err := filepath.Rel(root, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return fmt.Errorf("%s is a symbolic link to %s, out of %s: skilledge writes only inside it unless you give the folder as DIR", at, real, root)
		}
	}
	return nil
}

// sayTargets tells, when the folders were chosen for the user, which and why.
func sayTargets(w io.Writer, cmd string, ts []target) {
	for _, t := range ts {
		if t.implicit {
			fmt.Fprintf(w, "skilledge %s: %s (%s)\n", cmd, t.dir, t.why)
		}
	}
}
