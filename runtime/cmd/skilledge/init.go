package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/runtime/internal/verify"
)

func cmdInit(args []string, stdout, stderr io.Writer) int {
	c := newCommand("init", "skilledge init NAME [DIR]",
		`Makes a new skill: DIR/NAME/SKILL.md (DIR defaults to skills), whose frontmatter holds
NAME and a description to replace, and a body to write. It passes "skilledge validate" as
it is. NAME is 1-64 of a-z, 0-9 and "-", and is the skill's folder. A folder that exists
already is left as it is. The exit status is 1 on failure, 2 on bad usage.`)
	pos, code, ok := c.parse(args, 1, 2, stdout, stderr)
	if !ok {
		return code
	}
	name, dir := pos[0], "skills"
	if len(pos) == 2 {
		dir = pos[1]
	}
	if !verify.ValidName(name) {
		return c.usageError(stderr, fmt.Sprintf("%q is not a skill name: 1-64 of a-z, 0-9 and \"-\", no \"-\" first, last or twice", name))
	}
	folder := filepath.Join(dir, name)
	if _, err := os.Lstat(folder); !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "skilledge init: %s exists already: nothing was written\n", folder)
		return 1
	}
	if err := os.MkdirAll(folder, 0o755); err != nil {
		fmt.Fprintf(stderr, "skilledge init: %v\n", err)
		return 1
	}
	title := strings.ToUpper(name[:1]) + strings.ReplaceAll(name[1:], "-", " ")
	md := "---\nname: " + name + "\n" +
		"description: What " + name + " does, and when an agent should use it. Agents read this line to choose a skill; say both in a sentence or two.\n" +
		"---\n\n# " + title + "\n\n" +
		"Write the steps an agent follows, the files of this folder it should read (link each\n" +
		"by its path in the folder), and how it checks its work.\n"
	path := filepath.Join(folder, catalog.SkillMD)
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		fmt.Fprintf(stderr, "skilledge init: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "created %s: write its description and instructions, then skilledge validate %s\n", path, dir)
	return 0
}
