package main

import (
	"fmt"
	"io"
)

func cmdValidate(args []string, stdout, stderr io.Writer) int {
	c := newCommand("validate", "skilledge validate DIR [flags]",
		`Checks every skill in DIR against the Agent Skills format and the limits of the MCP
Skills extension, and prints each problem ("path:line: message") and a summary. The exit
status is 1 if any problem is an error, else 0.`)
	var f catalogFlags
	c.fs.BoolVar(&f.allowOversize, "allow-oversize", false, "report skills over 512 files or 16 MiB as warnings instead of errors")
	pos, code, ok := c.parse(args, 1, 1, stdout, stderr)
	if !ok {
		return code
	}
	l, err := loadCatalog(pos[0], f)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge validate: %v\n", err)
		return 1
	}
	l.report(stdout)
	if l.errors > 0 {
		return 1
	}
	return 0
}
