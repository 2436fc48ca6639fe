package main

import (
	"fmt"
	"io"

	"github.com/skilledge/skilledge/runtime/internal/verify"
	"github.com/skilledge/skilledge/runtime/serving"
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
	path, err := serving.NewSkill(dir, name)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge init: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "created %s: write its description and instructions, then skilledge validate %s\n", path, dir)
	return 0
}
