package compile

import (
	"errors"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Severity of a Problem.
type Severity uint8

const (
	// Error means the affected skill is invalid: it is left out of the catalog, and the
	// catalog must not be served unless Options.SkipInvalid was given.
	Error Severity = iota
	// Warning is worth telling the author but changes nothing that is served, or is about
	// something that was left out on purpose (a symbolic link to a directory).
	Warning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Problem is one finding of Load, located in a file and, where known, a line.
type Problem struct {
	// Path names the file as the user should see it: the label given to Load joined
	// with the path relative to the folder ("skills/acme/x/SKILL.md").
	Path string
	// Line is 1-based; 0 when the problem is not about one line.
	Line     int
	Severity Severity
	// Skill is the affected skill's path relative to the folder ("acme/x"); "" when the
	// problem belongs to no skill. A problem with a file of a nested skill names the
	// innermost skill, although it affects the enclosing ones too.
	Skill string
	Msg   string
	// Skipped marks the warning that Options.SkipInvalid adds for each invalid skill it
	// leaves out (one per skill, whatever its number of errors).
	Skipped bool
}

// String formats p the way compilers do: "path:line: msg", without ":line" when Line is 0
// and with "warning: " before the message of a warning. A path holding non-printable
// characters or bytes that are not UTF-8 is quoted, as Go quotes strings.
func (p Problem) String() string {
	s := printable(p.Path)
	if p.Line > 0 {
		s += ":" + strconv.Itoa(p.Line)
	}
	s += ": "
	if p.Severity == Warning {
		s += "warning: "
	}
	return s + p.Msg
}

// GitHub formats p as a GitHub Actions workflow command that annotates its file
// and line: "::error file=PATH,line=N,title=skilledge::MESSAGE" (or ::warning, and no
// line= when the problem is about no line). The path is cleaned ("./skills/x" is
// "skills/x") and escaped as a property, the message as data, the way the runner
// unescapes them (actions/toolkit, command.ts): %, CR and LF in both, and : and , in
// properties, so that no file name or message can end the command early or start
// another one. Other control characters are left as they are: the runner would not
// unescape them.
//
// Why `--format github` workflow commands, not a problem matcher? A problem matcher is a
// JSON file registered by a step, whose regular expressions parse the text format: a
// second file to copy, and paths holding ":" or messages spanning lines break it.
// Workflow commands are the runner's own protocol, escaped as above. The path is DIR
// joined with the file's path in it: the workflow names the skills folder relative to the
// checkout, which is the repository root annotations are relative to.
func (p Problem) GitHub() string {
	var b strings.Builder
	b.WriteString("::")
	b.WriteString(p.Severity.String())
	b.WriteString(" ")
	if p.Path != "" {
		b.WriteString("file=")
		b.WriteString(escapeProperty(path.Clean(p.Path)))
		b.WriteString(",")
		if p.Line > 0 {
			b.WriteString("line=")
			b.WriteString(strconv.Itoa(p.Line))
			b.WriteString(",")
		}
	}
	b.WriteString("title=skilledge::")
	b.WriteString(escapeData(p.Msg))
	return b.String()
}

var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func escapeData(s string) string     { return dataEscaper.Replace(s) }
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }

// printable returns s, or s quoted as Go quotes strings when it holds non-printable
// characters or bytes that are not UTF-8: control characters, or bytes that are not
// text, are never sent to a terminal.
func printable(s string) string {
	if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// HasErrors reports whether any problem is an Error.
func HasErrors(ps []Problem) bool {
	for _, p := range ps {
		if p.Severity == Error {
			return true
		}
	}
	return false
}

// sortProblems orders problems by Path, then Line, keeping the order in which they were
// found otherwise (which is itself deterministic).
func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Path != ps[j].Path {
			return ps[i].Path < ps[j].Path
		}
		return ps[i].Line < ps[j].Line
	})
}

// errText is err without the path a *fs.PathError repeats.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
