package versions

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzParseLog: whatever git log printed, parseLog returns commits or an error, never
// panics; a subject is at most MaxSubject characters, a prefix of what was printed (or
// it with "…"), and a commit is Unreadable exactly when its date is not RFC 3339.
func FuzzParseLog(f *testing.F) {
	for _, s := range []string{
		"",
		"\n" + strings.Repeat("a", 40) + "\x002026-11-01T12:00:00+00:00\x00add a\x00",
		strings.Repeat("b", 40) + "\x0010000-01-01T00:00:00+00:00\x00from the far future\x00",
		strings.Repeat("c", 40) + "\x00not a date\x00" + strings.Repeat("é", 300) + "\x00",
		"only\x00two\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		commits, err := parseLog(out)
		if err != nil {
			return
		}
		for _, c := range commits {
			if n := utf8.RuneCountInString(c.Subject); n > MaxSubject {
				t.Fatalf("a subject of %d characters", n)
			}
			if _, perr := time.Parse(time.RFC3339, c.Date.Format(time.RFC3339)); c.Unreadable == "" && perr != nil {
				t.Fatalf("a readable commit with the date %v", c.Date)
			}
		}
	})
}
