package compile

import (
	"bytes"
	"fmt"

	"github.com/skilledge/skilledge/catalog/internal/yamljson"
)

// bom is the UTF-8 byte order mark, tolerated before the opening "---".
const bom = "\xef\xbb\xbf"

// split is SKILL.md cut at its frontmatter delimiters. The YAML is data[yamlStart:yamlEnd]
// and the body data[bodyStart:]; the YAML's first line is line 2 of the file.
type split struct {
	yamlStart, yamlEnd, bodyStart int
	// closeLine is the 1-based line of the closing "---".
	closeLine int
}

// splitError is a SKILL.md that has no well-formed frontmatter.
type splitError struct {
	line int
	msg  string
}

// maxJSON caps the size of one rendered frontmatter.
const maxJSON = 1 << 20

// parseFrontmatter parses the YAML text of a frontmatter whose first line is line off+1
// of SKILL.md and converts it (yamljson.Parse). The result is a Map unless problems are
// returned: a frontmatter must be a mapping, of at most maxJSON bytes of JSON. Problems
// in values come with the mapping, so that its fields can still be checked.
func parseFrontmatter(src []byte, off int) (*yamljson.Value, []yamljson.Problem) {
	top, errs := yamljson.Parse(src, off)
	switch {
	case top == nil && len(errs) == 0:
		return nil, []yamljson.Problem{{Line: off, Msg: "frontmatter is empty: name and description are required"}}
	case len(errs) > 0:
		return top, errs
	case top.Kind != yamljson.Map:
		return nil, []yamljson.Problem{{Line: top.Line, Msg: fmt.Sprintf("frontmatter must be a YAML mapping of fields, not a %s", top.Kind)}}
	case top.Size() > maxJSON:
		return nil, []yamljson.Problem{{Line: top.Line, Msg: fmt.Sprintf("frontmatter renders to %d bytes of JSON, over the limit of %d", top.Size(), maxJSON)}}
	}
	return top, nil
}

// yamlLineOffset is added to a line of the YAML to get the line of SKILL.md: the YAML
// starts right after the opening "---", which is always line 1.
const yamlLineOffset = 1

// splitFrontmatter finds the frontmatter of a SKILL.md: the file starts with a line that
// is exactly "---" (after an optional byte order mark; trailing spaces, tabs and a
// carriage return are allowed) and the YAML runs to the next such line. The body is
// everything after the closing line, byte for byte.
func splitFrontmatter(data []byte) (split, *splitError) {
	pos := 0
	if bytes.HasPrefix(data, []byte(bom)) {
		pos = len(bom)
	}
	line, next, ok := cutLine(data, pos)
	if !isDelimiter(line) {
		return split{}, &splitError{1, `SKILL.md must start with a "---" line opening the YAML frontmatter`}
	}
	if !ok {
		return split{}, &splitError{1, `frontmatter is never closed: no "---" line follows the opening one`}
	}
	s := split{yamlStart: next}
	n := 1
	for pos = next; pos < len(data); pos = next {
		n++
		line, next, _ = cutLine(data, pos)
		if isDelimiter(line) {
			s.yamlEnd, s.bodyStart, s.closeLine = pos, next, n
			return s, nil
		}
	}
	return split{}, &splitError{1, `frontmatter is never closed: no "---" line follows the opening one`}
}

// cutLine returns the line starting at pos without its "\n", the position after the
// "\n", and whether there was one.
func cutLine(data []byte, pos int) (line []byte, next int, newline bool) {
	i := bytes.IndexByte(data[pos:], '\n')
	if i < 0 {
		return data[pos:], len(data), false
	}
	return data[pos : pos+i], pos + i + 1, true
}

func isDelimiter(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == "---"
}

// FrontmatterVersion returns the `version` of a SKILL.md's frontmatter when it is a
// string, as the skill entry serves it (skills.go); "" when the file has no frontmatter
// that reads, or no such field. It names a skill's versions in its history
// (catalog/versions.Options.VersionOf).
func FrontmatterVersion(skillMD []byte) string { return frontmatterString(skillMD, "version") }

// FrontmatterName returns the `name` of a SKILL.md's frontmatter when it is a string, ""
// otherwise: the last segment of a version's path (catalog.VersionPath).
func FrontmatterName(skillMD []byte) string { return frontmatterString(skillMD, "name") }

// frontmatterString returns the top-level field key of a SKILL.md's frontmatter when it is
// a string, "" when the file has no frontmatter that reads, or no such string field.
func frontmatterString(skillMD []byte, key string) string {
	sp, err := splitFrontmatter(skillMD)
	if err != nil {
		return ""
	}
	top, problems := parseFrontmatter(skillMD[sp.yamlStart:sp.yamlEnd], yamlLineOffset)
	if top == nil || len(problems) > 0 {
		return ""
	}
	if k, ok := top.Lookup(key); ok && k.Val.Kind == yamljson.String {
		return k.Val.Text
	}
	return ""
}

// fieldReport receives one finding at a line of SKILL.md.
type fieldReport func(sev Severity, line int, msg string)

func article(k yamljson.Kind) string {
	if k == yamljson.Null {
		return "null"
	}
	return "a " + k.String()
}

// quoteHint suggests quoting a scalar that YAML read as a number or boolean.
func quoteHint(v *yamljson.Value) string {
	if v.Kind == yamljson.Number || v.Kind == yamljson.Bool {
		return fmt.Sprintf(` (put it in quotes: "%s")`, v.Src)
	}
	return ""
}
