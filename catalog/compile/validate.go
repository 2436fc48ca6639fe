package compile

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/skilledge/skilledge/catalog/internal/yamljson"
)

// Frontmatter limits of the Agent Skills format (PROTOCOL.md#skill-format).
// See https://agentskills.io/specification#frontmatter-required.
const (
	maxNameLen          = 64
	maxDescriptionLen   = 1024
	maxCompatibilityLen = 500
	reservedMetaPrefix  = "io.modelcontextprotocol/"
)

// passedFields are not Agent Skills fields but are read by the SEP-2076 surface
// (PROTOCOL.md#sep-2076), so they are expected rather than unknown.
var passedFields = map[string]string{"title": "string", "version": "string", "tags": "list of strings"}

// fieldReport receives one finding at a line of SKILL.md.
type fieldReport func(sev Severity, line int, msg string)

// validateFields checks the frontmatter mapping top of the skill in directory dirName and
// returns its name and description (valid or not, "" when not strings). A length limit of
// the Agent Skills format that nothing served depends on (overLimit) is a warning, or an
// error when strict.
func validateFields(top *yamljson.Value, dirName string, strict bool, report fieldReport) (name, desc string) {
	if k, ok := required(top, "name", report); ok {
		name = k.Val.Text
		validateName(k.Line, name, dirName, report)
	}
	if k, ok := required(top, "description", report); ok {
		desc = k.Val.Text
		switch n := utf8.RuneCountInString(desc); {
		case strings.TrimSpace(desc) == "":
			report(Error, k.Line, "description: must not be blank")
		case n > maxDescriptionLen:
			overLimit(k, n, maxDescriptionLen, strict, report)
		}
	}
	for _, k := range top.Keys {
		switch k.Name {
		case "name", "description":
		case "license", "allowed-tools":
			isString(k, report)
		case "compatibility":
			if isString(k, report) {
				switch n := utf8.RuneCountInString(k.Val.Text); {
				case n == 0 && strict:
					report(Error, k.Line, "compatibility: must not be empty")
				case n == 0:
					report(Warning, k.Line, fmt.Sprintf("compatibility: is empty, and the Agent Skills format wants 1 to %d characters or no field; served as written", maxCompatibilityLen))
				case n > maxCompatibilityLen:
					overLimit(k, n, maxCompatibilityLen, strict, report)
				}
			}
		case "metadata":
			validateMetadata(k, report)
		case "arguments":
			validateArguments(k, report)
		case "dependencies":
			validateDependencies(k, report)
		default:
			if want, ok := passedFields[k.Name]; ok {
				if !isPassedType(k.Val, want) && k.Val.Kind != yamljson.Invalid {
					report(Warning, k.Line, fmt.Sprintf("%s: SEP-2076 clients expect a %s, not a %s", k.Name, want, k.Val.Kind))
				}
				continue
			}
			report(Warning, k.Line, fmt.Sprintf("unknown field %q: passed through verbatim", k.Name))
		}
	}
	return name, desc
}

// overLimit reports the string field k, of n characters, over the Agent Skills format's
// limit: an error when strict, else a warning, and the skill is served as written.
// Nothing served depends on these lengths (no URI, name or index holds the value, and the
// entry's frontmatter is bounded as a whole), and the major clients differ on them (some
// skip such a skill, some take it): refusing the whole folder for one of them would hide
// every skill from every client. See PROTOCOL.md#skill-format.
func overLimit(k yamljson.Key, n, limit int, strict bool, report fieldReport) {
	if strict {
		report(Error, k.Line, fmt.Sprintf("%s: must be at most %d characters (it has %d)", k.Name, limit, n))
		return
	}
	also := ""
	if k.Name == "description" {
		also = fmt.Sprintf(" (the discovery indexes carry it cut to %d)", limit)
	}
	report(Warning, k.Line, fmt.Sprintf("%s: has %d characters, over the Agent Skills limit of %d; served as written%s, but clients that hold to the limit may skip the skill", k.Name, n, limit, also))
}

func isPassedType(v *yamljson.Value, want string) bool {
	if want == "string" {
		return v.Kind == yamljson.String
	}
	if v.Kind != yamljson.List {
		return false
	}
	for _, it := range v.Items {
		if it.Kind != yamljson.String {
			return false
		}
	}
	return true
}

// required finds a required string field.
func required(top *yamljson.Value, field string, report fieldReport) (yamljson.Key, bool) {
	k, ok := top.Lookup(field)
	if !ok {
		report(Error, 1, fmt.Sprintf("missing required field %q", field))
		return k, false
	}
	return k, isString(k, report)
}

// isString reports whether field k holds a string, reporting it if it does not.
func isString(k yamljson.Key, report fieldReport) bool {
	switch k.Val.Kind {
	case yamljson.String:
		return true
	case yamljson.Invalid:
		return false
	}
	report(Error, k.Line, fmt.Sprintf("%s: must be a string, not %s%s", k.Name, article(k.Val.Kind), quoteHint(k.Val)))
	return false
}

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

func validateName(line int, name, dirName string, report fieldReport) {
	bad := func(why string) { report(Error, line, fmt.Sprintf("name %q: %s", name, why)) }
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		bad("must not be empty")
	case n > maxNameLen:
		bad(fmt.Sprintf("must be at most %d characters (it has %d)", maxNameLen, n))
	case strings.IndexFunc(name, func(r rune) bool { return !isNameChar(r) }) >= 0:
		bad("must be lowercase letters, digits and hyphens")
	case name[0] == '-' || name[len(name)-1] == '-':
		bad("must not start or end with a hyphen")
	case strings.Contains(name, "--"):
		bad(`must not contain "--"`)
	}
	if name != dirName {
		bad(fmt.Sprintf("must equal the skill's directory name %q", dirName))
	}
}

func isNameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-'
}

func validateMetadata(k yamljson.Key, report fieldReport) {
	if !isKind("metadata", k, yamljson.Map, "a mapping of strings to strings", report) {
		return
	}
	for _, e := range k.Val.Keys {
		if e.Kind != yamljson.String && e.Kind != yamljson.Invalid {
			report(Error, e.Line, fmt.Sprintf("metadata key %q: must be a string, not %s", e.Name, article(e.Kind)))
		}
		if strings.HasPrefix(e.Name, reservedMetaPrefix) {
			// The extension reserves the prefix but defines no key under it, and says
			// implementations SHOULD ignore keys they do not know; the reference server
			// serves such a skill. So: a warning, and the key is served as written.
			report(Warning, e.Line, fmt.Sprintf("metadata key %q: the prefix %q is reserved for MCP extensions, which define no such key; served verbatim, and clients ignore keys they do not know", e.Name, reservedMetaPrefix))
		}
		if e.Val.Kind != yamljson.String && e.Val.Kind != yamljson.Invalid {
			report(Error, e.Line, fmt.Sprintf("metadata key %q: value must be a string, not %s%s", e.Name, article(e.Val.Kind), quoteHint(e.Val)))
		}
	}
}
