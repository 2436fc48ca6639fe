// Package agents knows the skills folders of the common agents (README, "Install skills
// into an agent"): where skilledge pull, list, outdated and remove work when given --agent
// NAME instead of a folder, or neither. Each agent has its own folder per project (the
// repository's root, the working directory) and per user (the home directory); an agent
// that also reads .agents/skills shares that folder with every other such agent a
// project has.
//
// Why does `pull` without a folder install where the project's agents read? A project says
// which agents it uses: .claude/, .cursor/, .gemini/ in its root. So pull without DIR
// installs into their folders, .agents/skills standing for every agent that reads it
// (Codex, Cursor, Gemini CLI, OpenCode), and prints each folder and why (Target.Why); with
// none found, .agents/skills, the folder the most agents read. --agent NAME names them
// outright, as the `skills` CLI does. It stays in the project unless --user says the home
// directory: a pull never writes to a home folder unasked. A folder chosen this way is
// refused when it leads out of the project by a symbolic link (Targets); a folder given as
// DIR is the user's own choice, and followed. Rejected: .agents/skills alone (Claude Code
// does not read it, and its users had to know the folder), and installing into every
// known agent's folder (folders for agents the project does not use).
package agents

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skilledge/skilledge/runtime/internal/pull"
)

// agent is one agent and its skills folders.
type agent struct {
	name, title string
	// marker is the entry, under the project or home directory, whose presence says the
	// agent is used there.
	marker        string
	project, user string // skills folders, relative to the project and the home directory
	shared        bool   // it reads .agents/skills too
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

// Names lists the names --agent takes.
func Names() string {
	names := make([]string, len(agents))
	for i, a := range agents {
		names[i] = a.name
	}
	return strings.Join(names, ", ")
}

// find returns the agent called name ("vscode" is copilot's other name).
func find(name string) (agent, bool) {
	if name == "vscode" {
		name = "copilot"
	}
	i := slices.IndexFunc(agents, func(a agent) bool { return a.name == name })
	if i < 0 {
		return agent{}, false
	}
	return agents[i], true
}

// Target is one skills folder a command works on, and why it was chosen.
type Target struct {
	Dir, Why string
	// Implicit is set for a folder chosen from --agent or by detection, not given by the
	// user: it must not lead out of its base (contained).
	Implicit bool
	base     string
}

// Targets returns the folders a command works on: dir when given; else each named
// agent's folder; else the folders of the agents found in the project (or, with user,
// the home directory), .agents/skills standing for every agent that reads it; else
// .agents/skills. installed keeps, when nothing was named, only folders holding a
// skills.lock (list, outdated and remove look at what pull installed).
//
// Why refuse a folder chosen for the user that is, or lies under, a symbolic link leading
// out of its project or home directory? Because a cloned repository could otherwise point
// pull's writes anywhere; a folder given as DIR is the user's own choice, and used as it
// is.
func Targets(dir string, named []string, user, installed bool) ([]Target, error) {
	if dir != "" {
		if len(named) > 0 {
			return nil, errors.New("give a folder or --agent, not both")
		}
		return []Target{{Dir: dir}}, nil
	}
	f, err := newFinder(user)
	if err != nil {
		return nil, err
	}
	for _, n := range named {
		a, ok := find(n)
		if !ok {
			return nil, fmt.Errorf("--agent %q is none of %s", n, Names())
		}
		f.add(f.folder(a), a.title)
	}
	if len(named) == 0 {
		f.detect(installed)
	}
	for _, t := range f.out {
		if err := contained(t.Dir, t.base); err != nil {
			return nil, err
		}
	}
	return f.out, nil
}

// finder gathers the folders Targets chooses, under the project or the home directory.
type finder struct {
	user        bool
	base, where string
	out         []Target
}

func newFinder(user bool) (*finder, error) {
	f := &finder{user: user, base: ".", where: "the project"}
	if user {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("--user: %v", err)
		}
		f.base, f.where = home, "your home directory"
	}
	return f, nil
}

// folder is a's skills folder under the finder's base.
func (f *finder) folder(a agent) string {
	if f.user {
		return filepath.Join(f.base, filepath.FromSlash(a.user))
	}
	return filepath.FromSlash(a.project)
}

// add adds dir, chosen for why, or adds why to it when it is there already.
func (f *finder) add(dir, why string) {
	if i := slices.IndexFunc(f.out, func(t Target) bool { return t.Dir == dir }); i >= 0 {
		f.out[i].Why += ", " + why
		return
	}
	f.out = append(f.out, Target{Dir: dir, Why: why, Implicit: true, base: f.base})
}

// detect adds the folders of the agents whose markers are under the base (with
// installed, those holding a skills.lock, else any agent's that does), else
// .agents/skills.
func (f *finder) detect(installed bool) {
	shared, _ := find("agents")
	for _, a := range agents {
		if _, err := os.Lstat(filepath.Join(f.base, filepath.FromSlash(a.marker))); err != nil {
			continue
		}
		why := fmt.Sprintf("%s: %s is in %s", a.title, a.marker, f.where)
		if a.shared {
			f.add(f.folder(shared), why)
		} else {
			f.add(f.folder(a), why)
		}
	}
	if installed {
		f.out = slices.DeleteFunc(f.out, func(t Target) bool { return !hasLock(t.Dir) })
		if len(f.out) == 0 {
			for _, a := range agents {
				if hasLock(f.folder(a)) {
					f.add(f.folder(a), a.title)
				}
			}
		}
	}
	if len(f.out) == 0 {
		f.add(f.folder(shared), "no agent's folder found in "+f.where+": the folder most agents read")
	}
}

func hasLock(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, pull.LockName))
	return err == nil
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

// Dirs are the folders of ts.
func Dirs(ts []Target) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Dir
	}
	return out
}
