package verify

import (
	"io"
	"os"
)

// Escaping returns a writer for the output of a command that prints what servers sent
// (verify, pull, outdated, stats): each write goes out with every control or format
// character and every byte that is not UTF-8 escaped as Printable writes it, but the
// line break, the tab and the backslash, which are the command's own text. A server's
// string reaches the output already Printable, its line breaks escaped (verify's errors,
// versions); this is the second wall, for any string that did not: no escape sequence,
// no carriage return, no C1 control reaches the terminal. JSON is unchanged (its encoder
// escapes C0, and a \uXXXX escape inside a string is JSON's own). Each write is escaped
// whole: fmt's writes end on a character boundary.
func Escaping(w io.Writer) io.Writer { return escaping{w} }

type escaping struct{ w io.Writer }

func (e escaping) Write(p []byte) (int, error) {
	s := Escape(string(p), "\n\t\\")
	if len(s) == len(p) {
		return e.w.Write(p) // nothing was escaped: an escape always lengthens
	}
	if _, err := io.WriteString(e.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

// IsTerminal reports whether w is a character device (a terminal), written to directly
// or through Escaping.
func IsTerminal(w io.Writer) bool { return TerminalFile(w) != nil }

// TerminalFile is the terminal w writes to, directly or through Escaping, or nil when w
// does not write to one.
func TerminalFile(w io.Writer) *os.File {
	if e, ok := w.(escaping); ok {
		w = e.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return f
}
