package archive

import "testing"

// TestFileKey: paths that are one file on Windows or macOS share a key; others do not.
func TestFileKey(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b string
		one  bool
	}{
		{"case", "README.md", "readme.md", true},
		{"NFC and NFD", "caf\u00e9.md", "cafe\u0301.md", true},
		{"case and NFD", "CAF\u00c9.md", "cafe\u0301.md", true},
		{"folder case", "Ref/a.md", "ref/a.md", true},
		{"other names", "a.md", "b.md", false},
		{"accent is not case", "cafe.md", "caf\u00e9.md", false},
	} {
		if got := FileKey(c.a) == FileKey(c.b); got != c.one {
			t.Errorf("%s: FileKey(%q) == FileKey(%q) is %v, want %v", c.name, c.a, c.b, got, c.one)
		}
	}
}
