package compile

import (
	"fmt"
	"strconv"
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

// fields is what validateFields makes of a frontmatter.
type fields struct {
	// name and description are the frontmatter's (valid or not, "" when not strings);
	// description as every listing carries it: cut to the Agent Skills limit.
	name, description string
	// entry holds the fields the skill entry carries otherwise than SKILL.md (entry.go).
	entry entryFields
	// arguments and dependencies report that the frontmatter declares the field in
	// SEP-2076's shape, so that entries carry it as a SEP-2076 member too.
	arguments, dependencies bool
}

// validateFields checks the frontmatter mapping top of the skill in directory dirName.
// What the skill's URI, name and entry depend on is an error: a missing, blank or
// misnamed name, a missing or blank description. A field in another shape than the
// Agent Skills format's or SEP-2076's is a warning naming its line, or an error when
// strict, and the skill is served: SKILL.md as written, its entry as entry.go says.
func validateFields(top *yamljson.Value, dirName string, strict bool, report fieldReport) fields {
	var f fields
	// shape reports a field in another shape than the format's (problem): an error when
	// strict, else a warning saying how it is served.
	shape := func(line int, problem, served string) {
		if strict {
			report(Error, line, problem)
			return
		}
		report(Warning, line, problem+"; "+served)
	}
	if k, ok := required(top, "name", report); ok {
		f.name = k.Val.Text
		validateName(k.Line, f.name, dirName, report)
	}
	if k, ok := required(top, "description", report); ok {
		f.description = k.Val.Text
		switch n := utf8.RuneCountInString(f.description); {
		case strings.TrimSpace(f.description) == "":
			report(Error, k.Line, "description: must not be blank")
		case n > maxDescriptionLen:
			f.description = cut(f.description, maxDescriptionLen)
			f.entry.set(k, jsonString(f.description))
			shape(k.Line, fmt.Sprintf("description: has %d characters, over the Agent Skills limit of %d", n, maxDescriptionLen),
				fmt.Sprintf("SKILL.md is served as written, and every listing and skill entry carries it cut to %d", maxDescriptionLen))
		}
	}
	for _, k := range top.Keys {
		switch k.Name {
		case "name", "description":
		case "license", "allowed-tools":
			if k.Val.Kind != yamljson.String && k.Val.Kind != yamljson.Invalid {
				want := "a string"
				if k.Name == "allowed-tools" {
					want = "a string of tool names separated by spaces"
				}
				shape(k.Line, fmt.Sprintf("%s: %s, where the Agent Skills format wants %s%s", k.Name, article(k.Val.Kind), want, quoteHint(k.Val)),
					"served as written, in SKILL.md and skill entries alike (clients accept it)")
			}
		case "compatibility":
			validateCompatibility(k, &f.entry, shape)
		case "metadata":
			validateMetadata(k, &f.entry, shape, report)
		case "arguments":
			f.arguments = sep2076Shaped(k, strict, report, validateArguments)
		case "dependencies":
			f.dependencies = sep2076Shaped(k, strict, report, validateDependencies)
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
	if len(f.entry.names) > 0 && !strict {
		report(Warning, f.entry.line, f.entry.differsWarning())
	}
	return f
}

// validateCompatibility checks the field compatibility (k), a string of 1 to 500
// characters, and records its entry form in e when it has another.
func validateCompatibility(k yamljson.Key, e *entryFields, shape func(line int, problem, served string)) {
	if k.Val.Kind == yamljson.Invalid {
		return
	}
	text := entryText(k.Val)
	var was string
	if k.Val.Kind != yamljson.String {
		was = fmt.Sprintf("compatibility: %s, where the Agent Skills format wants a string%s", article(k.Val.Kind), quoteHint(k.Val))
	}
	switch n := utf8.RuneCountInString(text); {
	case n == 0:
		e.set(k, nil)
		if was == "" {
			was = "compatibility: is empty, where the Agent Skills format wants 1 to 500 characters or no field"
		}
		shape(k.Line, was, "SKILL.md is served as written, and skill entries leave the field out")
	case n > maxCompatibilityLen:
		e.set(k, jsonString(cut(text, maxCompatibilityLen)))
		if was == "" {
			was = fmt.Sprintf("compatibility: has %d characters, over the Agent Skills limit of %d", n, maxCompatibilityLen)
		}
		shape(k.Line, was, fmt.Sprintf("SKILL.md is served as written, and skill entries carry it cut to %d", maxCompatibilityLen))
	case was != "":
		e.set(k, jsonString(text))
		shape(k.Line, was, fmt.Sprintf("SKILL.md is served as written, and skill entries carry it as the string %q", text))
	}
}

// sep2076Shaped runs check, the checks of the SEP-2076 field k, and reports whether k is
// in SEP-2076's shape. What check finds wrong is an error when strict; otherwise a
// warning, and entries carry the field in the frontmatter only, not as a SEP-2076 member.
func sep2076Shaped(k yamljson.Key, strict bool, report fieldReport, check func(yamljson.Key, fieldReport)) bool {
	shaped := k.Val.Kind != yamljson.Invalid
	check(k, func(sev Severity, line int, msg string) {
		if sev == Error {
			shaped = false
			if !strict {
				sev = Warning
			}
		}
		report(sev, line, msg)
	})
	if !shaped && !strict {
		report(Warning, k.Line, fmt.Sprintf("%s: not in SEP-2076's shape (PROTOCOL.md#sep-2076), so skill entries carry it in their frontmatter only, as written, and not as the SEP-2076 member %q", k.Name, k.Name))
	}
	return shaped
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

// validateMetadata checks the field metadata (k), a mapping of strings to strings, and
// records its entry form in e when it has another: flattened (flattenMetadata) when it is
// a mapping, left out when it is not. A key under reservedMetaPrefix is a warning, and
// served as written.
//
// Why is a reserved `io.modelcontextprotocol/` metadata key a warning, served verbatim? The
// protocol summary this project started from had the build refuse it
// (PROTOCOL.md#skill-format has the rule as built), but the primary sources disagree: the
// stable extension reserves the prefix for MCP extensions, defines no key under it, and
// says implementations SHOULD ignore keys they do not know, and the reference TypeScript
// server serves such a skill. Refusing the whole folder punished an author for what no
// client misreads; dropping the key would break the verbatim frontmatter that hosts compare
// with the SKILL.md they parse again (the Inspector's --verify would refuse the skill). So
// the warning names the line, and the key is served as written;
// TestInspectorReservedMetadata (tests/inspector_test.go) has the Inspector verify such a
// skill on both servers and eras.
func validateMetadata(k yamljson.Key, e *entryFields, shape func(line int, problem, served string), report fieldReport) {
	switch k.Val.Kind {
	case yamljson.Map:
	case yamljson.Invalid:
		return
	default:
		e.set(k, nil)
		shape(k.Line, fmt.Sprintf("metadata: %s, where the Agent Skills format wants a mapping of strings to strings", article(k.Val.Kind)),
			"SKILL.md is served as written, and skill entries leave the field out")
		return
	}
	flat := true
	for _, m := range k.Val.Keys {
		if m.Kind != yamljson.String && m.Kind != yamljson.Invalid {
			shape(m.Line, fmt.Sprintf("metadata key %q: %s, where the Agent Skills format wants a string", m.Name, article(m.Kind)),
				fmt.Sprintf("read as the string %q, in SKILL.md and skill entries alike, but some YAML readers refuse such a key: put it in quotes", m.Name))
		}
		if strings.HasPrefix(m.Name, reservedMetaPrefix) {
			// A warning, and the key served as written: see validateMetadata.
			report(Warning, m.Line, fmt.Sprintf("metadata key %q: the prefix %q is reserved for MCP extensions, which define no such key; served verbatim, and clients ignore keys they do not know", m.Name, reservedMetaPrefix))
		}
		switch m.Val.Kind {
		case yamljson.String, yamljson.Invalid:
			continue
		case yamljson.Map:
			pairs, _ := flattenMetadata(&yamljson.Value{Kind: yamljson.Map, Keys: []yamljson.Key{m}})
			keys := make([]string, len(pairs))
			for i, p := range pairs {
				keys[i] = strconv.Quote(p.key)
			}
			shape(m.Line, fmt.Sprintf("metadata key %q: a mapping, where the Agent Skills format wants a string", m.Name),
				"skill entries carry it flattened, as "+strings.Join(keys, ", "))
		default:
			shape(m.Line, fmt.Sprintf("metadata key %q: %s, where the Agent Skills format wants a string%s", m.Name, article(m.Val.Kind), quoteHint(m.Val)),
				fmt.Sprintf("skill entries carry it as the string %q", entryText(m.Val)))
		}
		flat = false
	}
	if flat {
		return
	}
	pairs, dropped := flattenMetadata(k.Val)
	for _, d := range dropped {
		shape(k.Line, fmt.Sprintf("metadata: flattened, two keys are %q", d), "skill entries carry the first")
	}
	e.set(k, appendFlat(nil, pairs))
}
