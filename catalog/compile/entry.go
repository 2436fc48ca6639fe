package compile

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/skilledge/skilledge/catalog/internal/yamljson"
)

// A skill's entry (the skills/list entry, skill://index.json, the discovery indexes) carries
// the frontmatter of its SKILL.md as JSON, verbatim, with one exception: a field in a shape
// that strict clients refuse in an entry is carried in the nearest shape they accept,
// and SKILL.md itself is served as written (PROTOCOL.md#skill-format). Strict clients (the
// MCP TypeScript SDK's SkillsClient) refuse a whole listing for one entry whose
// description is over 1024 characters, whose compatibility is not a string of 1 to 500,
// or whose metadata does not map strings to strings; they accept every other field in
// any shape. So exactly those three are rewritten, by these rules:
//
//   - description over 1024 characters: its first 1023 and "…";
//   - compatibility: a value that is not a string becomes its text (entryText), one over
//     500 characters its first 499 and "…", an empty one is left out;
//   - metadata: a mapping is flattened (flattenMetadata), anything else is left out.
//
// The same clients compare the entry's frontmatter with SKILL.md's, field by field, and
// will not load a skill whose two differ: such a skill is listed everywhere but loads only
// in clients that do not hold to the format's limits, and the build says so
// (differsWarning).

// cut returns s when it has at most limit characters, else its first limit-1 and "…".
func cut(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	n := 0
	for i := range s {
		if n == limit-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// entryText is a value that is not a string as entries carry it where a string is
// wanted: a number or boolean as written in the YAML ("1.0", "yes" stays a string in
// YAML 1.2 anyway), null as "", a list or mapping as its compact JSON.
func entryText(v *yamljson.Value) string {
	switch v.Kind {
	case yamljson.String:
		return v.Text
	case yamljson.Number, yamljson.Bool:
		return v.Src
	case yamljson.Null, yamljson.Invalid:
		return ""
	}
	return string(v.AppendJSON(nil))
}

// flatPair is one entry of a flattened metadata mapping.
type flatPair struct{ key, value string }

// flattenMetadata flattens the metadata mapping m into strings: a string value is kept, a
// nested mapping's entries become keys joined with "." ("author.name"), any other value
// becomes its entryText. A key that a flattened one already took is dropped and returned
// in dropped. An empty nested mapping gives no key.
func flattenMetadata(m *yamljson.Value) (pairs []flatPair, dropped []string) {
	seen := map[string]bool{}
	var walk func(prefix string, m *yamljson.Value)
	walk = func(prefix string, m *yamljson.Value) {
		for _, k := range m.Keys {
			key := prefix + k.Name
			if k.Val.Kind == yamljson.Map {
				walk(key+".", k.Val)
				continue
			}
			if seen[key] {
				dropped = append(dropped, key)
				continue
			}
			seen[key] = true
			pairs = append(pairs, flatPair{key, entryText(k.Val)})
		}
	}
	walk("", m)
	return pairs, dropped
}

// appendFlat appends pairs as a JSON object.
func appendFlat(b []byte, pairs []flatPair) []byte {
	b = append(b, '{')
	for i, p := range pairs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, jsonString(p.key)...)
		b = append(b, ':')
		b = append(b, jsonString(p.value)...)
	}
	return append(b, '}')
}

// entryFields collects the fields whose entry form differs from SKILL.md's.
type entryFields struct {
	// fix maps a top-level field to its JSON in the entry, or to nil when the entry leaves
	// it out; every other field is carried verbatim.
	fix map[string][]byte
	// names are the fixed fields with their lines ("description (line 3)"), in the order
	// they were found, and line is the first of those lines.
	names []string
	line  int
}

// set records the entry form of field k: its JSON, or nil to leave it out.
func (e *entryFields) set(k yamljson.Key, json []byte) {
	if e.fix == nil {
		e.fix = map[string][]byte{}
	}
	if _, again := e.fix[k.Name]; !again {
		e.names = append(e.names, fmt.Sprintf("%s (line %d)", k.Name, k.Line))
		if e.line == 0 || k.Line < e.line {
			e.line = k.Line
		}
	}
	e.fix[k.Name] = json
}

// frontmatterJSON renders the mapping top as the entry carries it.
func (e *entryFields) frontmatterJSON(top *yamljson.Value) []byte {
	if len(e.fix) == 0 {
		return top.AppendJSON(nil)
	}
	b := []byte{'{'}
	for _, k := range top.Keys {
		v, fixed := e.fix[k.Name]
		if fixed && v == nil {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, jsonString(k.Name)...)
		b = append(b, ':')
		if fixed {
			b = append(b, v...)
		} else {
			b = k.Val.AppendJSON(b)
		}
	}
	return append(b, '}')
}

// differsWarning says what a skill whose entry differs from its SKILL.md is to clients.
func (e *entryFields) differsWarning() string {
	it := "it"
	if len(e.names) > 1 {
		it = "them"
	}
	return fmt.Sprintf("the skill entry carries %s otherwise than SKILL.md: strict MCP clients list the skill but will not load it, since the two differ; write %s as the Agent Skills format says to serve it to every client (validate --strict makes this an error)",
		strings.Join(e.names, " and "), it)
}
