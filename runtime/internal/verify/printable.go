package verify

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable is s, a string a server sent (a JSON-RPC error's message, a version), as it
// can be shown on a terminal and in one line of a report: every control character (C0
// with the line breaks and the tab, DEL, C1), every Unicode format character that
// reorders or hides text (bidi overrides and isolates, zero-width marks, U+2028/U+2029)
// and every byte that is not UTF-8 is written as a Go escape (\x1b, \u202e, \xff), and a
// backslash as "\\" so that an escape cannot be forged. Any other text is as it was.
//
// Why is a server's text escaped twice before it is printed? pull, verify, outdated and
// stats print what servers sent. Printed raw, a hostile server set the window title,
// cleared the screen and printed a forged line. Such strings are made Printable where they
// enter, so that one stays on one line; and these commands write through a filter that
// escapes any control character but the line break and the tab (Escape), for a string that
// was missed. Rejected: the filter alone (it cannot tell a server's line break from the
// command's own, so a forged line would pass), and quoting every string with %q (the
// readable text of every error would change, and a missed one would still pass raw).
func Printable(s string) string { return Escape(s, "") }

// Escape is Printable, but leaves the characters of keep as they are (a command's own
// output keeps "\n\t\\": its line breaks, tabs and a Windows path's backslashes).
func Escape(s, keep string) string {
	escaped := func(r rune) bool {
		return !strings.ContainsRune(keep, r) && (r == '\\' || unsafeRune(r))
	}
	if utf8.ValidString(s) && !strings.ContainsFunc(s, escaped) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !escaped(r):
			b.WriteString(s[i : i+n])
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

// unsafeRune reports whether r is a control character or a format character (Cf: bidi
// controls, zero-width marks) or a line or paragraph separator.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}
