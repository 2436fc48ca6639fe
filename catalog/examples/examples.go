// Package examples holds a small catalog of example skills, embedded in the binary, for
// demos, tests and the conformance suites: a skill under an organisational prefix with
// nested subdirectories (acme/billing/refunds, first in listing order, as the
// conformance directory scenario needs), a single-file skill, one with a script and a
// binary asset, one containing a nested skill that declares SEP-2076 arguments and
// dependencies, and one whose frontmatter exercises YAML typing. Every skill in it is valid (catalog/compile reports no problems).
package examples

import (
	"embed"
	"io/fs"
)

//go:embed all:skills
var embedded embed.FS

// FS is the example skills folder: its root holds the skill directories
// ("acme/billing/refunds/SKILL.md", "git-workflow/SKILL.md", ...).
var FS fs.FS = mustSub(embedded, "skills")

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err)
	}
	return sub
}
