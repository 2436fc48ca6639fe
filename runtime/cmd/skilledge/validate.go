package main

import (
	"fmt"
	"io"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/runtime/serving"
)

// cmdValidate checks a skills folder and prints its problems and their summary, as text
// or as GitHub Actions workflow commands.
//
// Why does only validate take --strict? It is for CI: a pipeline that wants the
// specification's limits held runs `skilledge validate --strict` before it builds, and the
// build then serves what was validated. On serve, stdio and build it would only bring back
// the refusal that made fields in other shapes warnings (RATIONALE.md, "Why are fields in
// other shapes warnings, served in entries strict clients accept, and the name an
// error?"), and it would be one more input to the build cache's key. Rejected: --strict
// on every command (no one asked to have a local server refuse a skill its clients would
// take).
func cmdValidate(args []string, stdout, stderr io.Writer) int {
	c := newCommand("validate", "skilledge validate DIR [flags]",
		`Checks every skill in DIR against the Agent Skills format and the limits of the MCP
Skills extension, and prints each problem ("path:line: message") and a summary. The exit
status is 1 if any problem is an error, or DIR holds no skill at all, else 0.

A field in another shape than the Agent Skills format's (metadata holding mappings or
numbers, allowed-tools as a list, a description over 1024 characters) is a warning, and
serve, stdio and build serve such a skill: its SKILL.md as written, its entry with the
field as strict clients accept it (the warning says how, and whether such clients will
load the skill). --strict makes each an error, as the format words it, for CI. What skills
cannot be served without (SKILL.md's frontmatter, a name that is the skill's directory,
names usable in URIs) is an error either way.

With --format github each problem is printed as a GitHub Actions workflow command
("::error file=PATH,line=N,title=skilledge::MESSAGE"), which annotates that line of the
pull request; PATH is DIR joined with the file's path in it, so give DIR relative to the
repository's root.`)
	var opt serving.BuildOptions
	c.fs.BoolVar(&opt.AllowOversize, "allow-oversize", false, "report skills over 512 files or 16 MiB as warnings instead of errors")
	c.fs.BoolVar(&opt.Strict, "strict", false, "report every field in another shape than the Agent Skills format's, a warning by default, and a version\npublished twice with different content (versions: in skilledge.yaml), as errors")
	var tokenFlags stringList
	c.fs.Var(&tokenFlags, "source-token", sourceTokenUsage)
	c.fs.BoolVar(&opt.Frozen, "frozen", false, "check the sources at the commits sources.lock holds, and fail, writing nothing, when it does not hold them as configured")
	format := c.fs.String("format", "text", "print problems as `FORMAT`: text (path:line: message) or github (GitHub Actions workflow commands)")
	pos, code, ok := c.parse(args, 1, 1, stdout, stderr)
	if !ok {
		return code
	}
	var line func(compile.Problem) string
	switch *format {
	case "text":
		line = compile.Problem.String
	case "github":
		line = compile.Problem.GitHub
	default:
		return c.usageError(stderr, fmt.Sprintf("--format %q: want text or github", *format))
	}
	opt.Log = stderr
	var err error
	if opt.SourceTokens, err = sourceTokens(tokenFlags); err != nil {
		fmt.Fprintf(stderr, "skilledge validate: %v\n", err)
		return 2
	}
	f, err := serving.Load(pos[0], opt)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge validate: %v\n", err)
		return 1
	}
	f.Print(stdout, line)
	serving.VersionsLine(stdout, f.Catalog, false)
	if f.Checked == 0 {
		// An empty or mistyped folder validates nothing: a CI step that passes on it
		// checks nothing either.
		fmt.Fprintf(stderr, "skilledge validate: %s holds no skill (no folder in it has a %s): is it the skills folder?\n", pos[0], "SKILL.md")
		return 1
	}
	if f.Errors > 0 {
		return 1
	}
	return 0
}
