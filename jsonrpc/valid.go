package jsonrpc

import "unicode/utf8"

// checkJSON validates b in one pass: nil for one JSON value at most MaxDepth deep; -32600
// for a message nested deeper (whether or not it is also invalid, as TooDeep says);
// -32700 for anything else that is not JSON, invalid UTF-8 included (with data saying so).
//
// Why is invalid UTF-8 a parse error (-32700), and an escaped lone surrogate not? JSON
// text exchanged between systems MUST be UTF-8 (RFC 8259 §8.1), so bytes that are not are
// no JSON at all, and the JSON-RPC specification's answer to invalid JSON is -32700 with a
// null id. Before, gjson's grammar let the bytes through: an id of "\xff\xfe" was echoed
// raw, so the reply was not UTF-8 JSON, and invalid bytes in a URI or name became U+FFFD,
// so a client asking for one file could be answered about another. -32600 was rejected:
// it says the JSON is fine and the message is not, and it would echo the id, whose bytes
// are the problem. An escaped lone surrogate ("\ud800") is valid JSON text (§8.2 leaves
// its meaning to the reader), is echoed as written (ASCII) and decodes to U+FFFD, as
// encoding/json decodes it. Every writer keeps the rest: AppendString writes invalid bytes
// as \ufffd, the fuzz tests hold validate to gjson.ValidBytes and utf8.Valid together and
// every reply of edge's fuzz targets to valid UTF-8, and the index's JSON is rendered at
// build time from UTF-8 only.
func checkJSON(b []byte) *Error {
	return checkJSONTop(b, nil)
}

// checkJSONTop is checkJSON recording top-level members in top (see validate).
func checkJSONTop(b []byte, top *fields) *Error {
	ok, deep := validate(b, top)
	switch {
	case ok:
		return nil
	case deep || TooDeep(b, MaxDepth):
		return invalidRequest(reasonTooDeep)
	case !utf8.Valid(b):
		return &Error{Code: CodeParseError, Message: ErrParse.Message, Data: reasonUTF8}
	}
	return parseError()
}

// validate reports whether b is one JSON value (RFC 8259) with nothing but whitespace
// around it, nesting arrays and objects at most MaxDepth deep. It is a single pass with no
// recursion and no allocation: inside the wasm plugin every pass over a message and
// every function call costs, and recursion on hostile nesting costs stack. Strings must be
// valid UTF-8, which gjson does not check. A message that
// is too deep is reported as such (deep) only when validation had not already failed
// before the depth was reached; callers that care which comes first check TooDeep on
// failure. It accepts exactly what gjson.ValidBytes accepts for such input, when that
// input is valid UTF-8 (a fuzz test holds the two together). With top not nil and b an object, the same pass records in
// top the raw value of the first occurrence of each member Parse reads.
//
// Why validate JSON with our own single pass rather than `gjson.ValidBytes` and a depth
// check? A small 2026-07-28 request was read four times (the depth check,
// gjson.ValidBytes, the top-level walk, and again for params and _meta), and inside the
// plugin that was a large share of its time for it (BENCHMARKS.md, "Why validate JSON in
// one pass"). Now one pass checks the grammar and the depth and records the members Parse
// reads, and params and _meta are walked once (Members, without callbacks or number
// parsing). A fuzz test holds validate to gjson.ValidBytes on every input and another
// holds the recorded members to a separate walk. The cost is about 250 lines of JSON
// grammar that we own.
func validate(b []byte, top *fields) (ok, deep bool) {
	var stack [MaxDepth/64 + 1]uint64 // bit set: the container at that depth is an object
	depth := 0
	i := skipSpace(b)
	// The grammar's states: a value is expected; or, after a value, what may follow it.
	const (
		value = iota
		key   // the first key of an object, or its closing brace
		after // after a value: ',' or the closing bracket, or the end
	)
	state := value
	// The top-level member being read goes to dst, if anywhere; its value starts at start.
	// It is recorded on entering the after state at depth 1, where i is just past it: a
	// closure doing so would keep dst and start in memory, which costs in the plugin.
	var dst *[]byte
	start := 0
	for {
		switch state {
		case value:
			if i >= len(b) {
				return false, false
			}
			if depth == 1 {
				start = i
			}
			switch c := b[i]; {
			case c == '{' || c == '[':
				if depth >= MaxDepth {
					return false, true
				}
				if c == '{' {
					stack[depth/64] |= 1 << (depth % 64)
				} else {
					stack[depth/64] &^= 1 << (depth % 64)
				}
				depth++
				i = skipSpaceFrom(b, i+1)
				if c == '{' {
					state = key
					continue
				}
				if i < len(b) && b[i] == ']' {
					depth--
					i++
					state = after
					continue
				}
				continue // a value of the array
			case c == '"':
				n, ok := validString(b, i)
				if !ok {
					return false, false
				}
				i = n
			case c == '-' || '0' <= c && c <= '9':
				n, ok := validNumber(b, i)
				if !ok {
					return false, false
				}
				i = n
			case c == 't':
				if !hasPrefix(b[i:], "true") {
					return false, false
				}
				i += 4
			case c == 'f':
				if !hasPrefix(b[i:], "false") {
					return false, false
				}
				i += 5
			case c == 'n':
				if !hasPrefix(b[i:], "null") {
					return false, false
				}
				i += 4
			default:
				return false, false
			}
			state = after
			continue
		case key:
			if i < len(b) && b[i] == '}' {
				depth--
				i++
				state = after
				continue
			}
			if i >= len(b) || b[i] != '"' {
				return false, false
			}
			n, ok := validString(b, i)
			if !ok {
				return false, false
			}
			if depth == 1 && top != nil {
				dst = top.slot(b[i+1 : n-1])
			}
			i = skipSpaceFrom(b, n)
			if i >= len(b) || b[i] != ':' {
				return false, false
			}
			i = skipSpaceFrom(b, i+1)
			state = value
			continue
		case after:
			if depth == 1 && dst != nil {
				*dst = b[start:i:i]
				dst = nil
			}
			i = skipSpaceFrom(b, i)
			if depth == 0 {
				return i == len(b), false
			}
			if i >= len(b) {
				return false, false
			}
			inObject := stack[(depth-1)/64]&(1<<((depth-1)%64)) != 0
			switch c := b[i]; {
			case c == ',':
				i = skipSpaceFrom(b, i+1)
				if inObject {
					if i >= len(b) || b[i] != '"' {
						return false, false
					}
					state = key
				} else {
					state = value
				}
				continue
			case c == '}' && inObject, c == ']' && !inObject:
				depth--
				i++
				continue
			}
			return false, false
		}
	}
}

// validString returns the index after the string that starts with the quote at b[i]. Its
// raw bytes must be valid UTF-8 (RFC 8259 §8.1): outside strings JSON is ASCII, so this
// makes the whole text UTF-8. Escapes are only checked for form: an escaped lone
// surrogate ("\ud800") is valid JSON (§8.2) and decodes to U+FFFD.
func validString(b []byte, i int) (int, bool) {
	for i++; ; {
		for i+8 <= len(b) {
			if m := notPlain(word(b, i)); m != 0 {
				i += firstMarked(m)
				break
			}
			i += 8
		}
		if i >= len(b) {
			return 0, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < ' ':
			return 0, false
		case c >= utf8.RuneSelf:
			_, size := decodeRune(b, i)
			if size == 1 {
				return 0, false
			}
			i += size
		case c == '\\':
			i++
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return 0, false
				}
				for _, h := range b[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return 0, false
					}
				}
				i += 4
			default:
				return 0, false
			}
			i++
		default: // a plain byte among the last seven
			i++
		}
	}
}

// validNumber returns the index after the number that starts at b[i].
func validNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		n := digits(b, i+1)
		if n == i+1 {
			return 0, false
		}
		i = n
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		n := digits(b, i)
		if n == i {
			return 0, false
		}
		i = n
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// skipSpaceFrom returns the index of the first byte of b at or after i that is not JSON
// whitespace, or len(b).
func skipSpaceFrom(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func hasPrefix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[:len(s)]) == s
}
