package verify

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/skilledge/skilledge/catalog"
)

// ValidName reports whether s follows the Agent Skills name rules: 1 to 64 characters of
// a-z, 0-9 and "-", no leading, trailing or doubled "-".
func ValidName(s string) bool {
	if len(s) == 0 || len(s) > 64 || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// skillMDName reads the frontmatter name of skillMD, the SKILL.md of the entry named name,
// and returns it where it is not name (Fetched.Named), else "". A name that cannot be
// read, is not a valid skill name, or differs from name otherwise than a qualified index
// name does (catalog.MayQualify: "platform-deploy" for "deploy"), is an error.
//
// Why may an index name a skill otherwise than its SKILL.md does? The discovery RFC asks
// only that an entry's name be a valid skill name, and a catalog whose skills share a
// name (composed from several repositories) publishes each under a name of its own, the
// SKILL.md's bytes unchanged (skilledge qualifies it by the skill's path). Requiring the
// two to be equal refused every such skill. The SKILL.md's name must still be a valid
// one, and the index's a shape skilledge qualifies a name to (its path, ending in the
// name; or the name and hex digits), so that an entry "pdf" cannot serve a skill "docx";
// and pull records it beside the folder it installs the skill in (skills.lock's
// "named"). Rejected: rewriting the installed SKILL.md to the folder's name, which would
// break every digest the publisher gave.
func skillMDName(skillMD []byte, name string) (string, error) {
	named, err := FrontmatterName(skillMD)
	switch {
	case err != nil:
		return "", err
	case named == name:
		return "", nil
	case !ValidName(named):
		return "", fmt.Errorf("SKILL.md frontmatter name %q is not a valid skill name", named)
	case !catalog.MayQualify(named, name):
		return "", fmt.Errorf("SKILL.md frontmatter name is %q, not the index's %q, nor a name the index could qualify as %q", named, name, name)
	}
	return named, nil
}

// FrontmatterName returns the top-level name field of the YAML frontmatter of a SKILL.md:
// the file is UTF-8, its first line is "---", a later line "---" closes the frontmatter,
// and one line between them, not indented, is "name: VALUE". VALUE may be a plain scalar
// (up to a " #" comment), a single-quoted or a double-quoted string on that one line. This
// is all a verifier needs to compare names; it is not a YAML parser, and refuses what it
// cannot read exactly (a block scalar, a flow collection, a value continued on the next
// line, a name given twice) rather than guess.
func FrontmatterName(b []byte) (string, error) {
	if !utf8.Valid(b) {
		return "", errors.New("SKILL.md is not valid UTF-8")
	}
	s := strings.TrimPrefix(string(b), "\ufeff")
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	isFence := func(l string) bool { return strings.TrimRight(l, " \t") == "---" }
	if !isFence(lines[0]) {
		return "", errors.New("SKILL.md does not begin with a \"---\" frontmatter line")
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if isFence(lines[i]) {
			end = i
			break
		}
	}
	if end < 0 {
		return "", errors.New("SKILL.md frontmatter has no closing \"---\" line")
	}
	name, found := "", false
	for i := 1; i < end; i++ {
		rest, ok := strings.CutPrefix(lines[i], "name:")
		if !ok {
			continue
		}
		if found {
			return "", errors.New("SKILL.md frontmatter has two name fields")
		}
		found = true
		var err error
		if name, err = scalar(rest); err != nil {
			return "", fmt.Errorf("SKILL.md frontmatter name: %v", err)
		}
		if next := lines[i+1]; i+1 < end && next != "" && (next[0] == ' ' || next[0] == '\t') &&
			!strings.HasPrefix(strings.TrimSpace(next), "#") {
			return "", errors.New("SKILL.md frontmatter name continues on the next line; write it on one")
		}
	}
	if !found {
		return "", errors.New("SKILL.md frontmatter has no name field")
	}
	return name, nil
}

// scalar reads the value after "name:" on one line.
func scalar(rest string) (string, error) {
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", errors.New("no space after the colon")
	}
	v := strings.TrimLeft(rest, " \t")
	var val, after string
	switch {
	case v == "" || v[0] == '#':
		return "", errors.New("it is empty or not on the same line")
	case v[0] == '"':
		end := -1
		for i := 1; i < len(v); i++ {
			if v[i] == '\\' {
				i++
				continue
			}
			if v[i] == '"' {
				end = i
				break
			}
		}
		if end < 0 {
			return "", errors.New("the double-quoted string does not end on its line")
		}
		s, err := strconv.Unquote(strings.ReplaceAll(v[:end+1], `\/`, `/`))
		if err != nil {
			return "", fmt.Errorf("cannot read the double-quoted string %s", v[:end+1])
		}
		val, after = s, v[end+1:]
	case v[0] == '\'':
		var b strings.Builder
		i := 1
		for ; i < len(v); i++ {
			if v[i] == '\'' {
				if i+1 < len(v) && v[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				break
			}
			b.WriteByte(v[i])
		}
		if i >= len(v) {
			return "", errors.New("the single-quoted string does not end on its line")
		}
		val, after = b.String(), v[i+1:]
	case strings.ContainsRune("|>[{&*!%@`", rune(v[0])):
		return "", fmt.Errorf("%q is not a plain or quoted string", v)
	default:
		val = v
		for i := 1; i < len(v); i++ {
			if v[i] == '#' && (v[i-1] == ' ' || v[i-1] == '\t') {
				val = v[:i]
				break
			}
		}
		val = strings.TrimRight(val, " \t")
	}
	if a := strings.TrimLeft(after, " \t"); a != "" && a[0] != '#' {
		return "", fmt.Errorf("unexpected %q after the string", a)
	}
	if a := strings.TrimLeft(after, " \t"); a != "" && len(a) == len(after) {
		return "", fmt.Errorf("unexpected %q after the string", a)
	}
	return val, nil
}
