package jsonrpc

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// AppendString appends s to dst as a JSON string, quotes included, and returns
// it. It escapes '"', '\\' and the control characters (\b \f \n \r \t by
// name, the others as \u00XX), and also U+2028 and U+2029 (as \u2028 and
// \u2029) so the output is safe inside JavaScript source. Each byte that is
// not part of valid UTF-8 is written as \ufffd, as encoding/json.Marshal
// does. Everything else, including other non-ASCII text, is copied as is, in
// runs. It allocates only when dst must grow.
//
// See https://www.rfc-editor.org/rfc/rfc8259#section-7
func AppendString(dst []byte, s string) []byte {
	return appendString(dst, s)
}

// AppendStrings appends ss as a JSON array of strings, each as [AppendString] writes it.
func AppendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s)
	}
	return append(dst, ']')
}

// AppendStringBytes is [AppendString] for a byte slice.
func AppendStringBytes(dst, s []byte) []byte {
	return appendString(dst, s)
}

// Unquote returns the Go value of the raw JSON string token raw (quotes
// included, surrounding JSON whitespace allowed), and false if raw is not
// exactly one JSON string. It validates raw with gjson.ValidBytes. The value
// is decoded as encoding/json decodes it: an unpaired surrogate escape and
// each byte that is not part of valid UTF-8 become U+FFFD.
//
// The result never aliases raw. It allocates once (not at all for "").
func Unquote(raw []byte) (string, bool) {
	t := trimSpace(raw)
	if len(t) < 2 || t[0] != '"' || !gjson.ValidBytes(t) {
		return "", false
	}
	inner := t[1 : len(t)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	return unquoteBody(inner), true
}

// decodeBody returns the value of a JSON string whose bytes between the quotes are inner,
// in a message validate accepted (so valid UTF-8): inner itself, aliased, when it has no
// escape; otherwise decoded into a new string.
func decodeBody(inner []byte) string {
	if bytes.IndexByte(inner, '\\') < 0 {
		return aliasString(inner)
	}
	return unquoteBody(inner)
}

const hexDigits = "0123456789abcdef"

// safeASCII[c] reports whether the ASCII byte c is written as is in a JSON
// string.
var safeASCII = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func appendString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start := 0 // start of the pending run of bytes copied as is
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safeASCII[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := decodeRune(s, i)
		switch {
		case size == 1: // invalid UTF-8
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// decodeRune decodes the multi-byte UTF-8 sequence at s[i] (s[i] >= 0x80). It
// returns size 1 exactly when the sequence is invalid, with the same reading
// of validity as utf8.DecodeRune (no overlong forms, no surrogates, nothing
// above U+10FFFF).
func decodeRune[S ~string | ~[]byte](s S, i int) (rune, int) {
	n := len(s) - i
	c0 := s[i]
	switch {
	case c0 < 0xc2:
		// A continuation byte, or the lead of an overlong 2-byte form.
	case c0 < 0xe0:
		if n >= 2 && isCont(s[i+1]) {
			return rune(c0&0x1f)<<6 | rune(s[i+1]&0x3f), 2
		}
	case c0 < 0xf0:
		lo, hi := byte(0x80), byte(0xbf)
		if c0 == 0xe0 {
			lo = 0xa0 // overlong
		} else if c0 == 0xed {
			hi = 0x9f // surrogates
		}
		if n >= 3 && lo <= s[i+1] && s[i+1] <= hi && isCont(s[i+2]) {
			return rune(c0&0x0f)<<12 | rune(s[i+1]&0x3f)<<6 | rune(s[i+2]&0x3f), 3
		}
	case c0 < 0xf5:
		lo, hi := byte(0x80), byte(0xbf)
		if c0 == 0xf0 {
			lo = 0x90 // overlong
		} else if c0 == 0xf4 {
			hi = 0x8f // above U+10FFFF
		}
		if n >= 4 && lo <= s[i+1] && s[i+1] <= hi && isCont(s[i+2]) && isCont(s[i+3]) {
			return rune(c0&0x07)<<18 | rune(s[i+1]&0x3f)<<12 | rune(s[i+2]&0x3f)<<6 | rune(s[i+3]&0x3f), 4
		}
	}
	return utf8.RuneError, 1
}

func isCont(c byte) bool { return c&0xc0 == 0x80 }

// unquoteBody returns the decoded value of the body (without quotes) of a JSON
// string that has been validated, in a new string.
func unquoteBody(body []byte) string {
	buf := appendUnquoted(make([]byte, 0, len(body)), body)
	// buf is new and never written again, so the string may share it.
	return unsafe.String(unsafe.SliceData(buf), len(buf))
}

// appendUnquoted appends the decoded value of the body of a valid JSON string
// to dst, as encoding/json decodes it. A malformed escape, which validation
// rules out, is copied as is rather than panicking.
func appendUnquoted(dst, s []byte) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			e := s[i+1]
			var r rune
			switch e {
			case '"', '\\', '/':
				r = rune(e)
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			case 'u':
				r = hex4(s, i+2)
				if r < 0 {
					i++
					continue
				}
			default:
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			if e != 'u' {
				dst = append(dst, byte(r))
				i += 2
				start = i
				continue
			}
			i += 6
			if utf16.IsSurrogate(r) {
				// A valid pair is consumed whole; otherwise only the first
				// half is replaced and the next escape is read on its own.
				if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if d := utf16.DecodeRune(r, hex4(s, i+2)); d != utf8.RuneError {
						r = d
						i += 6
					}
				}
				if utf16.IsSurrogate(r) {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
			start = i
			continue
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		if _, size := decodeRune(s, i); size > 1 {
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = append(dst, "\uFFFD"...)
		i++
		start = i
	}
	return append(dst, s[start:]...)
}

// hex4 returns the value of the four hex digits at s[i:], or -1.
func hex4(s []byte, i int) rune {
	if i+4 > len(s) {
		return -1
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// trimSpace returns b without leading and trailing JSON whitespace.
func trimSpace(b []byte) []byte {
	b = b[skipSpace(b):]
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// aliasString returns a string sharing b's memory, so that gjson can walk b
// without a copy. The string must not outlive b's contents staying unchanged;
// this is the aliasing contract of [Parse] and [SplitBatch].
func aliasString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
