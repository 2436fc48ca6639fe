package compile

import (
	"fmt"
	"strings"
	"unicode/utf8"
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
// returns its name and description (valid or not, "" when not strings).
func validateFields(top *value, dirName string, report fieldReport) (name, desc string) {
	if k, ok := required(top, "name", report); ok {
		name = k.val.text
		validateName(k.line, name, dirName, report)
	}
	if k, ok := required(top, "description", report); ok {
		desc = k.val.text
		switch n := utf8.RuneCountInString(desc); {
		case strings.TrimSpace(desc) == "":
			report(Error, k.line, "description: must not be blank")
		case n > maxDescriptionLen:
			report(Error, k.line, fmt.Sprintf("description: must be at most %d characters (it has %d)", maxDescriptionLen, n))
		}
	}
	for _, k := range top.keys {
		switch k.name {
		case "name", "description":
		case "license", "allowed-tools":
			isString(k, report)
		case "compatibility":
			if isString(k, report) {
				switch n := utf8.RuneCountInString(k.val.text); {
				case n == 0:
					report(Error, k.line, "compatibility: must not be empty")
				case n > maxCompatibilityLen:
					report(Error, k.line, fmt.Sprintf("compatibility: must be at most %d characters (it has %d)", maxCompatibilityLen, n))
				}
			}
		case "metadata":
			validateMetadata(k, report)
		case "arguments":
			validateArguments(k, report)
		case "dependencies":
			validateDependencies(k, report)
		default:
			if want, ok := passedFields[k.name]; ok {
				if !isPassedType(k.val, want) && k.val.kind != kInvalid {
					report(Warning, k.line, fmt.Sprintf("%s: SEP-2076 clients expect a %s, not a %s", k.name, want, k.val.kind))
				}
				continue
			}
			report(Warning, k.line, fmt.Sprintf("unknown field %q: passed through verbatim", k.name))
		}
	}
	return name, desc
}

func isPassedType(v *value, want string) bool {
	if want == "string" {
		return v.kind == kString
	}
	if v.kind != kList {
		return false
	}
	for _, it := range v.items {
		if it.kind != kString {
			return false
		}
	}
	return true
}

// required finds a required string field.
func required(top *value, field string, report fieldReport) (mapKey, bool) {
	k, ok := top.lookup(field)
	if !ok {
		report(Error, 1, fmt.Sprintf("missing required field %q", field))
		return k, false
	}
	return k, isString(k, report)
}

// isString reports whether field k holds a string, reporting it if it does not.
func isString(k mapKey, report fieldReport) bool {
	switch k.val.kind {
	case kString:
		return true
	case kInvalid:
		return false
	}
	report(Error, k.line, fmt.Sprintf("%s: must be a string, not %s%s", k.name, article(k.val.kind), quoteHint(k.val)))
	return false
}

func article(k kind) string {
	if k == kNull {
		return "null"
	}
	return "a " + k.String()
}

// quoteHint suggests quoting a scalar that YAML read as a number or boolean.
func quoteHint(v *value) string {
	if v.kind == kNumber || v.kind == kBool {
		return fmt.Sprintf(` (put it in quotes: "%s")`, v.src)
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

func validateMetadata(k mapKey, report fieldReport) {
	if !isKind("metadata", k, kMap, "a mapping of strings to strings", report) {
		return
	}
	for _, e := range k.val.keys {
		if e.kind != kString && e.kind != kInvalid {
			report(Error, e.line, fmt.Sprintf("metadata key %q: must be a string, not %s", e.name, article(e.kind)))
		}
		if strings.HasPrefix(e.name, reservedMetaPrefix) {
			// The extension reserves the prefix but defines no key under it, and says
			// implementations SHOULD ignore keys they do not know; the reference server
			// serves such a skill. So: a warning, and the key is served as written.
			report(Warning, e.line, fmt.Sprintf("metadata key %q: the prefix %q is reserved for MCP extensions, which define no such key; served verbatim, and clients ignore keys they do not know", e.name, reservedMetaPrefix))
		}
		if e.val.kind != kString && e.val.kind != kInvalid {
			report(Error, e.line, fmt.Sprintf("metadata key %q: value must be a string, not %s%s", e.name, article(e.val.kind), quoteHint(e.val)))
		}
	}
}
