package catalog

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Scheme is the URI scheme of every skill resource. See PROTOCOL.md#uris and RFC 3986.
const Scheme = "skill://"

// Errors of ParseURI. They say what is wrong so that clients get an informative -32602.
var (
	ErrNotSkillURI   = errors.New("not a skill:// URI")
	ErrURIQuery      = errors.New("query and fragment are not allowed")
	ErrURISegment    = errors.New("empty, \".\" or \"..\" path segment")
	ErrURIEscape     = errors.New("malformed or forbidden percent-encoding")
	ErrURICharacter  = errors.New("forbidden character")
	ErrURITrailSlash = errors.New("trailing slash (directory URIs have none)")
)

// EscapePath renders a "/"-separated relative path as the path part of a skill URI: each
// segment keeps RFC 3986 unreserved characters, sub-delims, ':' and '@', and everything
// else (space, '%', '?', '#', non-ASCII UTF-8 bytes) is percent-encoded with uppercase hex.
// The result is canonical: ParseURI(Scheme+EscapePath(p)) returns it unchanged for every p
// the loader accepts.
func EscapePath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '/' || keep(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigit[c>>4])
		b.WriteByte(hexDigit[c&15])
	}
	return b.String()
}

const hexDigit = "0123456789ABCDEF"

// keep reports whether c stands for itself in a canonical skill URI path segment.
func keep(c byte) bool { return keeps[c] }

// keeps holds keep for every byte: one load where a search of the punctuation list was a
// call per character inside the plugin, on the path of every resources/read.
var keeps = func() (t [256]bool) {
	for c := range 256 {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			t[c] = true
		default:
			t[c] = strings.IndexByte("-._~!$&'()*+,;=:@", byte(c)) >= 0
		}
	}
	return t
}()

// ParseURI checks that s is a well-formed skill URI and returns its canonical form, the
// form under which the pack stores URIs: scheme lowercased, percent-encodings of
// characters that stand for themselves decoded, other percent-encodings uppercased, and
// every other character that needs it encoded. It refuses (never "fixes") anything that
// could name a different path than it appears to: "." and ".." segments, empty segments,
// backslashes, encoded "/" or "\", NUL and other control characters, raw or encoded,
// queries, fragments and a trailing slash. ParseURI is pure and allocates at most once.
func ParseURI(s string) (string, error) {
	if len(s) > len(Scheme) && s[:len(Scheme)] == Scheme && plainPath(s[len(Scheme):]) {
		return s, nil // already canonical: the common case, one cheap pass
	}
	return parseURI(s)
}

// plainPath reports whether p is a path that parseURI returns unchanged without looking
// further: segments of characters that stand for themselves (no '%' at all), none of them
// empty, "." or "..". Anything else takes the full parse.
func plainPath(p string) bool {
	segDots := 0 // as in parseURI
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '/' {
			if segDots >= 0 && segDots <= 2 {
				return false
			}
			segDots = 0
			continue
		}
		if !keeps[c] {
			return false
		}
		segDots = dots(segDots, c)
	}
	return !(segDots >= 0 && segDots <= 2)
}

// parseURI is ParseURI's full parse, for every input.
func parseURI(s string) (string, error) {
	if len(s) < len(Scheme) || !strings.EqualFold(s[:len(Scheme)], Scheme) {
		return "", ErrNotSkillURI
	}
	rest := s[len(Scheme):]
	if rest == "" {
		return "", ErrURISegment
	}
	if strings.HasSuffix(rest, "/") {
		return "", ErrURITrailSlash
	}
	var b []byte // nil while s[:len(Scheme)+i] is already canonical
	flush := func(i int) {
		if b == nil {
			b = make([]byte, 0, len(s)+8)
			b = append(b, Scheme...)
			b = append(b, rest[:i]...)
		}
	}
	if s[:len(Scheme)] != Scheme {
		flush(0)
	}
	segDots := 0 // dots in the current segment so far, or -1 once it has anything else
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == '/':
			if segDots >= 0 && segDots <= 2 { // "", "." or ".."
				return "", ErrURISegment
			}
			if b != nil {
				b = append(b, c)
			}
			segDots = 0
			continue
		case c == '?' || c == '#':
			return "", ErrURIQuery
		case c == '%':
			if i+2 >= len(rest) || unhex(rest[i+1]) < 0 || unhex(rest[i+2]) < 0 {
				return "", ErrURIEscape
			}
			d := byte(unhex(rest[i+1])<<4 | unhex(rest[i+2]))
			if d < 0x20 || d == 0x7f || d == '/' || d == '\\' {
				return "", ErrURIEscape
			}
			if keep(d) {
				flush(i)
				b = append(b, d)
			} else {
				if rest[i+1] != hexDigit[d>>4] || rest[i+2] != hexDigit[d&15] {
					flush(i)
				}
				if b != nil {
					b = append(b, '%', hexDigit[d>>4], hexDigit[d&15])
				}
			}
			segDots = dots(segDots, d)
			i += 2
			continue
		case c < 0x20 || c == 0x7f || c == '\\':
			return "", ErrURICharacter
		case keep(c):
			if b != nil {
				b = append(b, c)
			}
		default: // space, '"', '<', non-ASCII bytes and other characters that need encoding
			flush(i)
			b = append(b, '%', hexDigit[c>>4], hexDigit[c&15])
		}
		segDots = dots(segDots, c)
	}
	if segDots >= 0 && segDots <= 2 {
		return "", ErrURISegment
	}
	if b == nil {
		return s, nil
	}
	return string(b), nil
}

// dots tracks whether a segment so far decodes to dots only: n is the count so far, or -1
// once another character was seen. Segments of three or more dots are ordinary names.
func dots(n int, c byte) int {
	if n >= 0 && c == '.' {
		return n + 1
	}
	return -1
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// NameProblem returns why s cannot stand in the name of a file or directory served as part
// of a skill:// URI (PROTOCOL.md#uris), or "": it is not valid UTF-8, or it contains a
// backslash, a control character or another non-printable character. Whether s is empty,
// "." or ".." is the caller's to check. Messages read after the name: "contains a
// backslash".
func NameProblem(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	case strings.ContainsRune(s, '\\'):
		return "contains a backslash"
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return "contains a control character"
		}
		if !unicode.IsPrint(r) {
			return fmt.Sprintf("contains the non-printable character %U", r)
		}
	}
	return ""
}

// WindowsNameProblem returns why seg cannot be a file or directory name on Windows, or "":
// a reserved device name (CON, PRN, AUX, NUL, COM0–9, LPT0–9 and their superscript-digit
// forms, in any case, with or without an extension: "con", "LPT1.md"), a character
// Windows forbids in names, or a trailing dot or space, which Windows drops. Such a file
// is served, but archives of its skill do not unpack there, and a checkout of the folder
// fails: catalog/compile warns of it, and a client writing a skill's files (pull) refuses
// it. See https://learn.microsoft.com/windows/win32/fileio/naming-a-file.
func WindowsNameProblem(seg string) string {
	if i := strings.IndexAny(seg, `<>:"|?*`); i >= 0 {
		return fmt.Sprintf("contains %q, which Windows does not allow in file names", seg[i])
	}
	if strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " ") {
		return "ends in a dot or a space, which Windows drops from file names"
	}
	stem, _, _ := strings.Cut(seg, ".")
	stem = strings.TrimRight(stem, " ")
	switch strings.ToUpper(stem) {
	case "CON", "PRN", "AUX", "NUL":
		return "is a device name reserved on Windows"
	}
	if len(stem) >= 4 {
		prefix, digit := strings.ToUpper(stem[:3]), stem[3:]
		if (prefix == "COM" || prefix == "LPT") && (len(digit) == 1 && digit[0] >= '0' && digit[0] <= '9' || digit == "¹" || digit == "²" || digit == "³") {
			return "is a device name reserved on Windows"
		}
	}
	return ""
}
