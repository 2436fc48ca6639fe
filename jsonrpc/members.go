package jsonrpc

import (
	"github.com/tidwall/gjson"
)

// Members iterates over the members of a JSON object that has been validated (Parse
// checks the whole message), without callbacks or allocation:
//
//	for m := jsonrpc.NewMembers(raw); m.Next(); {
//		use(m.Key, m.Value)
//	}
//
// Key is the decoded member name, aliasing raw unless it has escapes; Value is the raw
// JSON of the value, a sub-slice of raw. On input that is not a valid object the
// iteration stops early; it never reads out of bounds.
type Members struct {
	b      []byte
	i      int
	keyRaw []byte
	Key    string
	Value  []byte
}

// KeyRaw returns the member name as written, escapes and all, without its quotes.
func (m *Members) KeyRaw() string { return aliasString(m.keyRaw) }

// NewMembers starts iterating over the object raw.
func NewMembers(raw []byte) Members {
	i := skipSpace(raw)
	if i >= len(raw) || raw[i] != '{' {
		return Members{b: raw, i: len(raw)}
	}
	return Members{b: raw, i: i + 1}
}

// Next moves to the next member; false at the end of the object.
func (m *Members) Next() bool {
	b := m.b
	i := skipSpaceFrom(b, m.i)
	if i < len(b) && b[i] == ',' {
		i = skipSpaceFrom(b, i+1)
	}
	if i >= len(b) || b[i] != '"' {
		m.i = len(b)
		return false
	}
	end := skipString(b, i)
	key := b[i+1 : max(end-1, i+1)]
	m.keyRaw = key
	m.Key = decodeBody(key)
	i = skipSpaceFrom(b, end)
	if i >= len(b) || b[i] != ':' {
		m.i = len(b)
		return false
	}
	i = skipSpaceFrom(b, i+1)
	end = skipValue(b, i)
	m.Value = b[i:end:end]
	m.i = end
	return true
}

// Value returns the valid JSON value raw as a gjson.Result with Type, Raw and, for a
// string, Str set (aliasing raw unless it has escapes); the Num of a number is not
// computed. It does less than gjson.Parse, which matters where every call counts.
func Value(raw []byte) gjson.Result {
	r := gjson.Result{Raw: aliasString(raw)}
	if len(raw) == 0 {
		return r
	}
	switch raw[0] {
	case '"':
		r.Type = gjson.String
		r.Str, _ = Str(raw)
	case '{', '[':
		r.Type = gjson.JSON
	case 't':
		r.Type = gjson.True
	case 'f':
		r.Type = gjson.False
	case 'n':
		r.Type = gjson.Null
	default:
		r.Type = gjson.Number
	}
	return r
}

// Str returns the decoded value of a JSON string value (aliasing it unless it has
// escapes), and false for any other kind of value.
func Str(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	return decodeBody(raw[1 : len(raw)-1]), true
}

// skipString returns the index after the string starting with the quote at b[i].
func skipString(b []byte, i int) int {
	for i++; ; i++ {
		for i+8 <= len(b) {
			if m := quoteOrEscape(word(b, i)); m != 0 {
				i += firstMarked(m)
				break
			}
			i += 8
		}
		if i >= len(b) {
			return len(b)
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i++
		}
	}
}

// skipValue returns the index after the JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return len(b)
}
