// Package yamljson converts one YAML document to JSON with the types hosts see. Hosts
// re-parse a served SKILL.md with the npm "yaml" package (v2, YAML 1.2 core schema, default
// options) and compare field by field (PROTOCOL.md#skill-entries), so every scalar is resolved here by that
// package's rules from the node's style and text; yaml.v3 is used only as a parser, never
// for its YAML 1.1 flavoured resolution (timestamps, "014" as octal, ...). What the two
// parsers read differently, silently, is a problem rather than a guess.
// See https://yaml.org/spec/1.2.2/#1032-tag-resolution and
// build/node_modules/yaml/dist/schema/core/*.js.
//
// The package was written for SKILL.md frontmatter: its messages call the document "the
// frontmatter", and what a document must hold is its caller's to check.
//
// Why resolve YAML scalars ourselves instead of using yaml.v3's types? yaml.v3 resolves
// like YAML 1.1 in places: 2024-01-15 becomes a timestamp and 014 octal 12. Hosts (the
// Inspector, the conformance suite, the ext-skills client) re-parse the served SKILL.md
// with npm yaml and refuse a skill on any difference from the frontmatter we list. So
// yaml.v3 only parses, and each scalar is typed from its style and text with npm's own
// patterns; a table test runs the same documents through the real npm package. The cost
// is about 100 lines that must follow npm if it changes its schema.
//
// Why are frontmatter keys rendered as `String(value)`, not as written? Hosts compare the
// objects npm builds, and npm names properties with JavaScript's String(value): "0x10: x"
// is the key "16". Rendering the text would make hosts refuse the skill; the cost is that
// an author's odd spelling of a key is normalised (jsKey).
//
// Why refuse some valid YAML (merge keys, NEL/LS/PS, glued comments, custom tags)? Each
// is read differently by yaml.v3 and npm, silently: a quoted NEL becomes a space for one
// of them, "<<" merges for one and is a plain key for the other. A served frontmatter that
// hosts parse differently is a skill they refuse, so the build refuses it first, with the
// line; the cost is that a few documents that are valid YAML 1.2 are refused. npm's alias
// limit (maxAliasCount) is copied for the same reason, on top of our own node and size
// caps.
package yamljson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

const (
	// maxNodes caps the YAML nodes of one frontmatter after aliases are expanded.
	maxNodes = 10000
	// maxAliasCount is npm yaml's default limit (Document#toJS maxAliasCount): a document
	// that exceeds it is refused by every host, so it is refused here too.
	maxAliasCount = 100
)

// Kind is the JSON type of a value.
type Kind uint8

const (
	Invalid Kind = iota // could not be converted; a problem was reported
	Null
	Bool
	Number
	String
	List
	Map
)

// String names the kind as messages do: "boolean", "list", "mapping", ...
func (k Kind) String() string {
	return [...]string{"invalid", "null", "boolean", "number", "string", "list", "mapping"}[k]
}

// Value is one converted YAML node. Aliases share the anchored node's *Value.
type Value struct {
	Kind Kind
	// Text is the string (String), the JSON number (Number) or "true"/"false" (Bool).
	Text string
	// Src is a scalar's text as written, for messages.
	Src   string
	Line  int      // line in the file: a line of the YAML plus the off given to Parse
	Items []*Value // a List's items
	Keys  []Key    // a Map's entries, in document order
	// nodes and size are the node count and exact JSON size of the expanded value.
	nodes, size int
}

// Key is one entry of a mapping.
type Key struct {
	Name string // the key as a JSON string: the text of a string key, JS String() of others
	Kind Kind   // the key's own type
	Line int
	Val  *Value
}

// Lookup returns the entry of a Map named name.
func (v *Value) Lookup(name string) (Key, bool) {
	for _, k := range v.Keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// Problem is what makes a document unfit, at a line of the file (a line of the YAML plus
// the off given to Parse). Msg says what is wrong, never where: the line does.
type Problem struct {
	Line int
	Msg  string
}

// Parse parses src, one YAML document whose first line is line off+1 of its file, and
// converts it. It returns nil and no problems when src holds no document (it is empty,
// or only comments). Otherwise a problem that stops the conversion (a syntax error, a
// character the two parsers read differently, a limit) gives no value; problems in
// values (an unsupported tag, a duplicate key, a number JSON cannot hold) give the value,
// with Invalid where each was found, so that the caller can go on checking the rest. A
// Value returned with no problems renders exactly as npm yaml's JSON.stringify would.
// Parse never panics.
func Parse(src []byte, off int) (top *Value, errs []Problem) {
	defer func() {
		// yaml.v3 has panicked on hostile input before; a panic is one more syntax error.
		if r := recover(); r != nil {
			top, errs = nil, []Problem{{off + 1, fmt.Sprintf("YAML parser failed: %v", r)}}
		}
	}()
	if e := checkBreaks(src, off); e != nil {
		return nil, []Problem{*e}
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, []Problem{yamlErrorLine(err, src, off)}
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, []Problem{yamlErrorLine(err, src, off)}
		}
		return nil, []Problem{{more.Line + off, "frontmatter holds more than one YAML document"}}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, nil
	}
	if e := gluedComment(src, &doc, off); e != nil {
		return nil, []Problem{*e}
	}
	c := &converter{src: src, off: off, anchors: map[*yaml.Node]*anchor{}}
	c.lineStarts = append(c.lineStarts, 0)
	for i, b := range src {
		if b == '\n' {
			c.lineStarts = append(c.lineStarts, i+1)
		}
	}
	root := doc.Content[0]
	v := c.convert(root, false)
	if c.fatal {
		// A limit stopped the conversion: what follows it was not read, so there are no
		// fields to check (they would all look unknown and nameless).
		return nil, c.errs
	}
	if len(c.errs) > 0 {
		return v, c.errs
	}
	return v, nil
}

// checkBreaks refuses the characters that yaml.v3, a YAML 1.1 parser, takes for line
// breaks and npm yaml, a YAML 1.2 parser, does not: NEL, LS, PS and a carriage return not
// followed by a line feed. Where they appear the two parsers silently disagree (a comment
// ends early, a quoted NEL becomes a space), so a host would see other values.
func checkBreaks(src []byte, off int) *Problem {
	for i := 0; i < len(src); i++ {
		var what string
		switch {
		case src[i] == '\r' && (i+1 == len(src) || src[i+1] != '\n'):
			what = "a carriage return without a line feed"
		case bytes.HasPrefix(src[i:], []byte("\u0085")):
			what = "U+0085 (NEXT LINE)"
		case bytes.HasPrefix(src[i:], []byte("\u2028")):
			what = "U+2028 (LINE SEPARATOR)"
		case bytes.HasPrefix(src[i:], []byte("\u2029")):
			what = "U+2029 (PARAGRAPH SEPARATOR)"
		default:
			continue
		}
		line := bytes.Count(src[:i], []byte("\n")) + 1 + off
		return &Problem{line, "the frontmatter contains " + what + ", which YAML 1.1 parsers read as a line break and YAML 1.2 parsers (the hosts') do not; use LF or CRLF line endings, and inside double quotes the escapes \\x85, \\u2028, \\u2029"}
	}
	return nil
}

// gluedComment refuses a comment that touches the token before it ('x'#c, [x]#c, |#c):
// yaml.v3 takes it for a comment, but YAML requires white space before "#" and npm yaml
// refuses the whole document. Such a "#" is found in the source after a closing quote or
// bracket or a block scalar header, and confirmed by yaml.v3 having kept a line comment
// with exactly that text on a node of the same line.
func gluedComment(src []byte, doc *yaml.Node, off int) *Problem {
	comments := map[int][]string{} // line -> line comments of nodes on that line
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if c := strings.TrimSpace(n.LineComment); c != "" {
			comments[n.Line] = append(comments[n.Line], c)
		}
		for _, ch := range n.Content {
			walk(ch)
		}
	}
	walk(doc)
	if len(comments) == 0 {
		return nil
	}
	line, nl, eol := 1, -1, 0 // the current line, its "\n", its end without trailing blanks
	for i := 0; i < len(src); i++ {
		if i > nl {
			e := bytes.IndexByte(src[i:], '\n')
			if e < 0 {
				e = len(src) - i
			}
			nl = i + e
			eol = i + len(bytes.TrimRight(src[i:nl], " \t\r"))
		}
		switch {
		case src[i] == '\n':
			line++
		case src[i] == '#' && i > 0 && gluedTo(src[:i]):
			for _, c := range comments[line] {
				if len(c) == eol-i && string(src[i:eol]) == c {
					return &Problem{line + off, "a comment must be separated by white space from what precedes it: the YAML parser hosts use (npm yaml) refuses this frontmatter"}
				}
			}
		}
	}
	return nil
}

// gluedTo reports whether before ends with a token that a "#" may touch in yaml.v3 but
// not in YAML: a closing quote or bracket, or a block scalar header such as "|" or ">-2".
func gluedTo(before []byte) bool {
	switch before[len(before)-1] {
	case '\'', '"', ']', '}':
		return true
	}
	i := len(before) - 1
	for i >= 0 && (before[i] == '-' || before[i] == '+' || before[i] >= '0' && before[i] <= '9') {
		i--
	}
	if i < 0 || before[i] != '|' && before[i] != '>' {
		return false
	}
	return i == 0 || strings.IndexByte(" \t\n:-?", before[i-1]) >= 0
}

// yaml.v3 reports parser errors (as opposed to scanner errors) with a 0-based line and
// omits line 0; these messages are the parser's.
var yamlParserMsgs = []string{
	"did not find expected <document start>",
	"did not find expected node content",
	"did not find expected '-' indicator",
	"did not find expected key",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found duplicate %TAG directive",
	"found undefined tag handle",
}

var yamlLineRE = regexp.MustCompile(`^line ([0-9]+): (.*)$`)

// yamlErrorLine turns a yaml.v3 error into a message at a line of SKILL.md.
func yamlErrorLine(err error, src []byte, off int) Problem {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		for _, p := range yamlParserMsgs {
			if msg == p {
				line++
				break
			}
		}
	}
	if n := bytes.Count(src, []byte("\n")) + 1; line > n {
		line = n
	}
	if msg == "mapping values are not allowed in this context" && plainColon.Match(srcLine(src, line)) {
		// The commonest mistake of real frontmatter: "description: Use when: …".
		msg += `: a plain value cannot hold ": "; put the value in quotes`
	}
	return Problem{line + off, "invalid YAML: " + msg}
}

// plainColon matches a "key: value" line whose plain (unquoted) value holds ": ".
var plainColon = regexp.MustCompile(`^\s*[^\s:#'"][^:]*:\s+[^\s'"|>\[{][^#]*:\s`)

// srcLine returns line n (1-based) of src, without its end.
func srcLine(src []byte, n int) []byte {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return nil
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return bytes.TrimRight(src, "\r")
}

// anchor is the state npm yaml keeps for an anchored node while converting (see
// nodes/Alias.js in the yaml package): how often it was used, its alias count, its value.
type anchor struct {
	count, aliasCount int
	res               *Value
}

type converter struct {
	src        []byte
	off        int
	lineStarts []int
	// posLine, posCol and posOff cache the last position found by offset.
	posLine, posCol, posOff int
	anchors                 map[*yaml.Node]*anchor
	nodes                   int
	errs                    []Problem
	fatal                   bool // a limit was hit: stop converting
}

func (c *converter) errorf(line int, format string, args ...any) *Value {
	c.errs = append(c.errs, Problem{line + c.off, fmt.Sprintf(format, args...)})
	return &Value{Kind: Invalid, Line: line + c.off, nodes: 1}
}

func (c *converter) limit(line int, format string, args ...any) *Value {
	if !c.fatal {
		c.errorf(line, format, args...)
		c.fatal = true
	}
	return &Value{Kind: Invalid, Line: line + c.off, nodes: 1}
}

// convert converts n in document order, as npm yaml's toJS does.
func (c *converter) convert(n *yaml.Node, isKey bool) *Value {
	if c.fatal {
		return &Value{Kind: Invalid, Line: n.Line + c.off, nodes: 1}
	}
	if n.Kind == yaml.AliasNode {
		a := c.anchors[n.Alias]
		if a == nil || a.res == nil {
			return c.errorf(n.Line, "alias *%s is used inside the node it names", n.Value)
		}
		a.count++
		if a.aliasCount == 0 {
			a.aliasCount = c.aliasCount(n.Alias)
		}
		if a.count*a.aliasCount > maxAliasCount {
			return c.limit(n.Line, "too many aliases: the YAML parser hosts use (npm yaml) refuses this frontmatter as a possible resource exhaustion attack")
		}
		c.nodes += a.res.nodes
		if c.nodes > maxNodes {
			return c.limit(n.Line, "frontmatter too large: more than %d YAML nodes once aliases are expanded", maxNodes)
		}
		return a.res
	}
	c.nodes++
	if c.nodes > maxNodes {
		return c.limit(n.Line, "frontmatter too large: more than %d YAML nodes once aliases are expanded", maxNodes)
	}
	var a *anchor
	if n.Anchor != "" {
		a = &anchor{count: 1}
		c.anchors[n] = a
	}
	var v *Value
	switch n.Kind {
	case yaml.ScalarNode:
		v = c.scalar(n, isKey)
	case yaml.SequenceNode:
		v = c.sequence(n)
	case yaml.MappingNode:
		v = c.mapping(n)
	default:
		v = c.errorf(n.Line, "unexpected YAML node")
	}
	if a != nil {
		a.res = v
	}
	return v
}

// aliasCount is npm yaml's getAliasCount.
func (c *converter) aliasCount(n *yaml.Node) int {
	switch n.Kind {
	case yaml.AliasNode:
		if a := c.anchors[n.Alias]; a != nil {
			return a.count * a.aliasCount
		}
		return 0
	case yaml.SequenceNode, yaml.MappingNode:
		m := 0
		for _, ch := range n.Content {
			m = max(m, c.aliasCount(ch))
		}
		return m
	}
	return 1
}

func (c *converter) sequence(n *yaml.Node) *Value {
	if n.Style&yaml.TaggedStyle != 0 && n.Tag != "!!seq" {
		return c.errorf(n.Line, "tag %s is not supported on a sequence: hosts read YAML 1.2 core schema types only", n.Tag)
	}
	v := &Value{Kind: List, Line: n.Line + c.off, nodes: 1, size: 2}
	for i, ch := range n.Content {
		it := c.convert(ch, false)
		v.Items = append(v.Items, it)
		v.nodes += it.nodes
		v.size += it.size
		if i > 0 {
			v.size++
		}
	}
	return v
}

func (c *converter) mapping(n *yaml.Node) *Value {
	if n.Style&yaml.TaggedStyle != 0 && n.Tag != "!!map" {
		return c.errorf(n.Line, "tag %s is not supported on a mapping: hosts read YAML 1.2 core schema types only", n.Tag)
	}
	v := &Value{Kind: Map, Line: n.Line + c.off, nodes: 1, size: 2}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		target := kn
		if kn.Kind == yaml.AliasNode && kn.Alias != nil {
			target = kn.Alias
		}
		var k *Value
		if target.Kind != yaml.ScalarNode {
			k = c.errorf(kn.Line, "mapping keys must be scalars, not a %s", nodeKind(target))
		} else {
			k = c.convert(kn, true)
		}
		val := c.convert(vn, false)
		name := jsKey(k)
		if k.Kind != Invalid {
			if first, dup := seen[name]; dup {
				c.errorf(kn.Line, "duplicate key %q (first at line %d)", name, first+c.off)
			} else {
				seen[name] = kn.Line
			}
		}
		v.Keys = append(v.Keys, Key{Name: name, Kind: k.Kind, Line: kn.Line + c.off, Val: val})
		v.nodes += k.nodes + val.nodes
		v.size += jsonStringSize(name) + 1 + val.size
		if i > 0 {
			v.size++
		}
	}
	return v
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "sequence"
	case yaml.MappingNode:
		return "mapping"
	}
	return "scalar"
}

// jsKey is the property name JavaScript gives a scalar key: String(value), "" for null
// (npm yaml's stringifyKey).
func jsKey(k *Value) string {
	if k.Kind == Null {
		return ""
	}
	return k.Text
}

// The YAML 1.2 core schema as npm yaml writes it (schema/core/*.js), in its order.
var (
	reOct   = regexp.MustCompile(`^0o[0-7]+$`)
	reInt   = regexp.MustCompile(`^[-+]?[0-9]+$`)
	reHex   = regexp.MustCompile(`^0x[0-9a-fA-F]+$`)
	reNaN   = regexp.MustCompile(`^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$`)
	reExp   = regexp.MustCompile(`^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$`)
	reFloat = regexp.MustCompile(`^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$`)
)

func isNull(s string) bool {
	return s == "" || s == "~" || s == "null" || s == "Null" || s == "NULL"
}

func boolValue(s string) (b, ok bool) {
	switch s {
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	return false, false
}

func (c *converter) scalar(n *yaml.Node, isKey bool) *Value {
	s := n.Value
	str := func() *Value {
		return &Value{Kind: String, Text: s, Src: s, Line: n.Line + c.off, nodes: 1, size: jsonStringSize(s)}
	}
	switch {
	case n.Style&yaml.TaggedStyle != 0:
		return c.tagged(n)
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return str()
	case c.nonSpecificTag(n):
		return str() // "! 123": the non-specific tag makes a plain scalar a string
	case isKey && s == "<<":
		return c.errorf(n.Line, "merge keys are not supported: hosts parse YAML 1.2, where \"<<\" is an ordinary key")
	}
	if v := c.resolve(n, s, ""); v != nil {
		return v
	}
	return str()
}

// resolve applies the core schema's tests to a plain scalar (tag "") or checks a scalar
// against an explicit tag. It returns nil for a string.
func (c *converter) resolve(n *yaml.Node, s, tag string) *Value {
	v := &Value{Src: s, Line: n.Line + c.off, nodes: 1}
	is := func(t string) bool { return tag == "" || tag == t }
	if is("!!null") && isNull(s) {
		v.Kind, v.size = Null, 4
		return v
	}
	if b, ok := boolValue(s); ok && is("!!bool") {
		v.Kind, v.Text = Bool, strconv.FormatBool(b)
		v.size = len(v.Text)
		return v
	}
	if is("!!int") {
		switch {
		case reOct.MatchString(s):
			return c.number(v, parseRadix(s[2:], 8))
		case reInt.MatchString(s):
			f, _ := strconv.ParseFloat(s, 64) // as parseInt: "012" is 12, huge is ±Inf
			return c.number(v, f)
		case reHex.MatchString(s):
			return c.number(v, parseRadix(s[2:], 16))
		}
	}
	if is("!!float") {
		switch {
		case reNaN.MatchString(s):
			return c.errorf(n.Line, "value %s is not representable in JSON", s)
		case reExp.MatchString(s), reFloat.MatchString(s):
			f, _ := strconv.ParseFloat(s, 64) // out of range gives ±Inf or 0, as JavaScript
			return c.number(v, f)
		}
	}
	return nil
}

func (c *converter) number(v *Value, f float64) *Value {
	if math.IsInf(f, 0) {
		return c.errorf(v.Line-c.off, "number %s is not representable in JSON", v.Src)
	}
	v.Kind, v.Text = Number, jsNumber(f)
	v.size = len(v.Text)
	return v
}

// tagged resolves a scalar with an explicit standard tag. Like npm yaml, the tag applies
// whatever the scalar's style; unlike it, a value that does not match the tag's pattern is
// an error rather than a guess.
func (c *converter) tagged(n *yaml.Node) *Value {
	switch n.Tag {
	case "!!str":
		return &Value{Kind: String, Text: n.Value, Src: n.Value, Line: n.Line + c.off, nodes: 1, size: jsonStringSize(n.Value)}
	case "!!null", "!!bool", "!!int", "!!float":
		if v := c.resolve(n, n.Value, n.Tag); v != nil {
			return v
		}
		return c.errorf(n.Line, "%s %q: the value does not match its tag", n.Tag, n.Value)
	case "!!seq", "!!map":
		return c.errorf(n.Line, "tag %s cannot be on a scalar", n.Tag)
	}
	return c.errorf(n.Line, "tag %s is not supported: hosts read YAML 1.2 core schema types only", n.Tag)
}

// nonSpecificTag reports whether a plain scalar carries the non-specific tag "!", which
// yaml.v3 drops but which makes the scalar a string. The node's position is that of its
// properties (anchor and tag), so the source there is checked.
func (c *converter) nonSpecificTag(n *yaml.Node) bool {
	off, ok := c.offset(n.Line, n.Column)
	if !ok {
		return false
	}
	s := c.src[off:]
	if len(s) > 0 && s[0] == '&' {
		i := bytes.IndexAny(s, " \t\r\n")
		if i < 0 {
			return false
		}
		s = bytes.TrimLeft(s[i:], " \t\r\n")
	}
	return len(s) > 1 && s[0] == '!' && strings.IndexByte(" \t\r\n", s[1]) >= 0
}

// offset converts a yaml.v3 position (1-based line, 1-based column counted in characters)
// to a byte offset in the source. Nodes are visited in document order, so the last
// position found is reused: converting a whole document costs one pass over it.
func (c *converter) offset(line, col int) (int, bool) {
	if line < 1 || line > len(c.lineStarts) || col < 1 {
		return 0, false
	}
	off, at := c.lineStarts[line-1], 1
	if c.posLine == line && c.posCol <= col {
		off, at = c.posOff, c.posCol
	}
	for ; at < col; at++ {
		_, w := utf8.DecodeRune(c.src[off:])
		if w == 0 || c.src[off] == '\n' {
			return 0, false
		}
		off += w
	}
	c.posLine, c.posCol, c.posOff = line, col, off
	return off, true
}

// parseRadix converts digits to the nearest float64, as JavaScript's parseInt does.
func parseRadix(digits string, base int) float64 {
	var i big.Int
	i.SetString(digits, base)
	f, _ := new(big.Float).SetInt(&i).Float64()
	return f
}

// jsNumber formats f as JavaScript's Number#toString (and JSON.stringify) does:
// the shortest round-tripping digits, in fixed notation from 1e-7 up to 1e21.
// See https://tc39.es/ecma262/#sec-numeric-types-number-tostring.
func jsNumber(f float64) string {
	if f == 0 {
		return "0" // also -0
	}
	if f < 0 {
		return "-" + jsNumber(-f)
	}
	mant, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	digits := strings.Replace(mant, ".", "", 1)
	e, _ := strconv.Atoi(exp)
	k, n := len(digits), e+1
	switch {
	case k <= n && n <= 21:
		return digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return "0." + strings.Repeat("0", -n) + digits
	}
	sign := "+"
	if n-1 < 0 {
		sign = "-"
	}
	if k > 1 {
		digits = digits[:1] + "." + digits[1:]
	}
	return digits + "e" + sign + strconv.Itoa(abs(n-1))
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// Size is the length of v's JSON, as AppendJSON writes it.
func (v *Value) Size() int { return v.size }

// AppendJSON appends v as compact JSON, as JSON.stringify writes it; an Invalid value is
// null.
func (v *Value) AppendJSON(b []byte) []byte {
	switch v.Kind {
	case String:
		return appendJSONString(b, v.Text)
	case Number, Bool:
		return append(b, v.Text...)
	case List:
		b = append(b, '[')
		for i, it := range v.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = it.AppendJSON(b)
		}
		return append(b, ']')
	case Map:
		b = append(b, '{')
		for i, k := range v.Keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k.Name)
			b = append(b, ':')
			b = k.Val.AppendJSON(b)
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

// appendJSONString appends s as a JSON string escaped exactly as JavaScript's
// JSON.stringify does: only quote, backslash and C0 controls, the short forms where they
// exist. Invalid UTF-8 (which yaml.v3 rejects anyway) becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+w]...)
		}
		i += w
	}
	return append(b, '"')
}

func jsonStringSize(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			n += 6
		} else {
			n += w
		}
		i += w
	}
	return n
}
