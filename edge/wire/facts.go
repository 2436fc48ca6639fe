package wire

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Facts: what an answer was, as the plugin tells its host.
//
// The plugin decides every answer, so it is the one that knows what the answer was: the
// route, the MCP method and protocol revision, the skill it concerned and what of it was
// read, the JSON-RPC error code, and, under the auth option, who asked. A host counts,
// logs and traces answers from these facts (and from what it knows itself: the status,
// the bytes, the time taken, whether a replay answered). After a skilledge_http call the
// raw ABI's skilledge_facts gives the facts of that answer (AppendFacts); a host that
// keeps the answer to replay keeps its facts with it, and counts each replay with them:
// they never depend on the request's id.
//
// The encoding is a line a fact, in the order of the fields of Facts, each line its name,
// a space and its value; a fact without a value (an empty string, a zero code) has no
// line:
//
//	facts = *(NAME SP VALUE LF)
//
// A value is percent-encoded where it holds a control character (below 0x20, or 0x7f)
// or "%": "%" and two uppercase hex digits. A parser takes the names it knows and skips
// the others, so that a fact added later breaks no host; a line without a space, an empty
// name or value, a malformed escape or code, or a name given twice is malformed
// (ParseFacts fails, and the host counts the answer with no facts: telemetry never fails
// a request).
//
// Why are the facts lines of `NAME SP VALUE`, percent-encoded, with unknown names skipped?
// They are read in Go and in JavaScript, where a line scan is a few lines of code and no
// JSON parser runs per request; a fact added later (a skill's version, say) is a line an
// older host skips, so a plugin and a host need not be upgraded together. A value may hold
// anything a token's sub holds, so a control character (and "%") is percent-encoded: a
// line never breaks, and a host's log line never takes a caller's LF as its own. The
// caller and client are cut to 128 bytes. Facts that do not parse are counted as none,
// where a malformed response frame is the instance's failure.
//
// What the facts never hold: a token, a request or response body, or a file's contents.
// A skill is named only when the answer found it in the caller's view: a request for a
// skill the caller may not see, or for one that does not exist, names none, so nothing a
// host records of it tells a hidden skill's name. Method and Version hold only names
// the server knows (MethodOther for any other method), so a client cannot fill a host's
// metrics with names of its own.

// Facts are the facts of one answer. Every string is one of the values this package
// names (Route*, Read*, MethodOther, MethodBatch), a method or revision the server knows,
// or, for Skill, Caller and Client, any string without LF (Caller and Client at most
// FactMax bytes).
type Facts struct {
	// Route is where the request went: RouteMCP, RouteWellKnown, RoutePage, RouteChanges,
	// RouteMetadata, or RouteOther (anything else: a 404, a refused Host or Origin).
	Route string
	// Method is the JSON-RPC method of a request to the MCP endpoint: a method the
	// server knows, MethodOther for another, MethodBatch for a batch; "" when the body
	// held no request (a notification the server does not know, a response, a parse error).
	Method string
	// Version is the MCP revision the request was answered under, when it is one the
	// server knows.
	Version string
	// Read is what of a skill, or of the catalog, was read: ReadListing, ReadActivation,
	// ReadFile, ReadArchive, ReadDirectory; "" for nothing (an error, initialize).
	Read string
	// Skill is the path of the skill concerned ("acme/billing/refunds", as in its URIs),
	// when the answer found one; SkillName is its name.
	Skill string
	// URI is the canonical URI of the resource (or directory) read, when one was: a file
	// of a skill the caller may see, or the catalog's index.
	URI string
	// Code is the JSON-RPC error code of the answer, 0 for a result or no JSON-RPC answer.
	Code int64
	// Caller is who asked, when the auth option let them in: a token's sub, or a static
	// key's name. Client is the token's client_id, when it has one.
	Caller, Client string
}

// Routes (Facts.Route).
const (
	RouteMCP       = "mcp"        // the MCP endpoint
	RouteWellKnown = "well-known" // /.well-known/ discovery
	RoutePage      = "page"       // the catalog page, the sitemap
	RouteChanges   = "changes"    // the change feeds
	RouteMetadata  = "metadata"   // OAuth protected resource metadata
	RouteOther     = "other"      // anything else
)

// What was read (Facts.Read). An activation is a read of a skill's SKILL.md, by
// resources/read, skills/get, prompts/get, the load_skill tool or its well-known URL.
const (
	ReadListing    = "listing"
	ReadActivation = "activation"
	ReadFile       = "file"
	ReadArchive    = "archive"
	ReadDirectory  = "directory"
)

// Method names that are no MCP method (Facts.Method).
const (
	MethodOther = "_OTHER" // a method the server does not know (OpenTelemetry's name for it)
	MethodBatch = "batch"  // a JSON-RPC batch (2025-03-26)
)

// FactMax is the most bytes of Caller and Client the plugin gives: a longer value is cut
// at a character's boundary.
const FactMax = 128

// factNames are the lines of the encoding, in order.
var factNames = [...]string{"route", "method", "version", "read", "skill", "uri", "code", "caller", "client"}

// ErrFacts is returned for facts that do not follow the encoding.
var ErrFacts = errors.New("wire: malformed facts")

// SkillName is the skill's name: the last segment of its path.
func (f *Facts) SkillName() string {
	return f.Skill[strings.LastIndexByte(f.Skill, '/')+1:]
}

// AppendFacts appends the encoding of f to dst.
func AppendFacts(dst []byte, f *Facts) []byte {
	for i, name := range factNames {
		var v string
		switch i {
		case 0:
			v = f.Route
		case 1:
			v = f.Method
		case 2:
			v = f.Version
		case 3:
			v = f.Read
		case 4:
			v = f.Skill
		case 5:
			v = f.URI
		case 6:
			if f.Code != 0 {
				dst = append(dst, "code "...)
				dst = strconv.AppendInt(dst, f.Code, 10)
				dst = append(dst, '\n')
			}
			continue
		case 7:
			v = ClipFact(f.Caller)
		case 8:
			v = ClipFact(f.Client)
		}
		if v == "" {
			continue
		}
		dst = append(dst, name...)
		dst = append(dst, ' ')
		dst = appendEscaped(dst, v)
		dst = append(dst, '\n')
	}
	return dst
}

// ClipFact is s cut to at most FactMax bytes at a character's boundary.
func ClipFact(s string) string {
	if len(s) <= FactMax {
		return s
	}
	n := FactMax
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func appendEscaped(dst []byte, v string) []byte {
	const hex = "0123456789ABCDEF"
	plain := 0 // the bytes before the first that needs escaping, appended in one copy
	for plain < len(v) && v[plain] >= 0x20 && v[plain] != 0x7f && v[plain] != '%' {
		plain++
	}
	dst = append(dst, v[:plain]...)
	for i := plain; i < len(v); i++ {
		c := v[i]
		if c < 0x20 || c == 0x7f || c == '%' {
			dst = append(dst, '%', hex[c>>4], hex[c&15])
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// ParseFacts decodes facts (AppendFacts). Strings are copies, for a host keeps them with
// a replay.
func ParseFacts(b []byte) (Facts, error) {
	var f Facts
	var seen [len(factNames)]bool
	for len(b) > 0 {
		line, rest, ok := cutLine(b)
		if !ok {
			return Facts{}, ErrFacts
		}
		b = rest
		name, value, ok := strings.Cut(line, " ")
		if !ok || name == "" || value == "" {
			return Facts{}, ErrFacts
		}
		k := -1
		for i, n := range factNames {
			if n == name {
				k = i
			}
		}
		if k < 0 {
			continue // a fact of a later plugin
		}
		if seen[k] {
			return Facts{}, ErrFacts
		}
		seen[k] = true
		v, ok := known(value)
		if !ok {
			if v, ok = unescape(value); !ok {
				return Facts{}, ErrFacts
			}
		}
		switch k {
		case 0:
			f.Route = v
		case 1:
			f.Method = v
		case 2:
			f.Version = v
		case 3:
			f.Read = v
		case 4:
			f.Skill = v
		case 5:
			f.URI = v
		case 6:
			code, ok := parseCode(v)
			if !ok {
				return Facts{}, ErrFacts
			}
			f.Code = code
		case 7:
			f.Caller = v
		case 8:
			f.Client = v
		}
	}
	return f, nil
}

// knownValues are the values ParseFacts gives without a copy of its own.
var knownValues = [...]string{
	RouteMCP, RouteWellKnown, RoutePage, RouteChanges, RouteMetadata, RouteOther,
	ReadListing, ReadActivation, ReadFile, ReadArchive, ReadDirectory, MethodOther, MethodBatch,
	"initialize", "ping", "server/discover", "skills/list", "skills/get", "resources/list", "resources/read",
	"resources/templates/list", "resources/directory/read", "completion/complete", "tools/list", "tools/call",
	"prompts/list", "prompts/get", "notifications/initialized",
	"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28",
}

// known returns the value of knownValues that s is, so that a host parsing the facts of
// every request copies only what is its own (a skill, a caller).
func known(s string) (string, bool) {
	for _, k := range knownValues {
		if s == k {
			return k, true
		}
	}
	return "", false
}

// parseCode reads a canonical non-zero decimal of at most 15 digits, with an optional "-".
func parseCode(s string) (int64, bool) {
	digits := strings.TrimPrefix(s, "-")
	if len(digits) == 0 || len(digits) > 15 || digits[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// unescape decodes a percent-encoded value (a copy), false for a malformed escape or a
// raw control character.
func unescape(s string) (string, bool) {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 || c == 0x7f:
			return "", false
		case c == '%':
			if i+2 >= len(s) || unhex(s[i+1]) < 0 || unhex(s[i+2]) < 0 {
				return "", false
			}
			c = byte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
		}
		b = append(b, c)
	}
	return string(b), true
}

// unhex is the value of an uppercase hex digit, or -1.
func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
