package catalog

import (
	"errors"
	"strings"
	"testing"
)

func TestParseURI(t *testing.T) {
	tests := []struct {
		in, want string
		err      error
	}{
		{"skill://git-workflow/SKILL.md", "skill://git-workflow/SKILL.md", nil},
		{"SKILL://git-workflow/SKILL.md", "skill://git-workflow/SKILL.md", nil},
		{"skill://git-workflow/%53KILL.md", "skill://git-workflow/SKILL.md", nil},
		{"skill://a/my%20notes.md", "skill://a/my%20notes.md", nil},
		{"skill://a/my%2fnotes.md", "", ErrURIEscape},
		{"skill://a/my%2Fnotes.md", "", ErrURIEscape},
		{"skill://a/%5C", "", ErrURIEscape},
		{"skill://a/x%c3%a9", "skill://a/x%C3%A9", nil},
		{"skill://a/xé", "skill://a/x%C3%A9", nil},
		{"skill://a/my notes.md", "skill://a/my%20notes.md", nil},
		{"skill://a", "skill://a", nil},
		{"skill://a/...", "skill://a/...", nil},
		{"skill://a/.x", "skill://a/.x", nil},
		{"skill://a/../b", "", ErrURISegment},
		{"skill://a/./b", "", ErrURISegment},
		{"skill://a/%2e%2E/b", "", ErrURISegment},
		{"skill://a/%2e", "", ErrURISegment},
		{"skill://..", "", ErrURISegment},
		{"skill://a//b", "", ErrURISegment},
		{"skill:///a", "", ErrURISegment},
		{"skill://", "", ErrURISegment},
		{"skill://a/", "", ErrURITrailSlash},
		{"skill://a/b\\c", "", ErrURICharacter},
		{"skill://a/b\x00", "", ErrURICharacter},
		{"skill://a/b%00", "", ErrURIEscape},
		{"skill://a/b%0a", "", ErrURIEscape},
		{"skill://a/b%", "", ErrURIEscape},
		{"skill://a/b%zz", "", ErrURIEscape},
		{"skill://a/b?x", "", ErrURIQuery},
		{"skill://a/b#x", "", ErrURIQuery},
		{"file:///etc/passwd", "", ErrNotSkillURI},
		{"skil", "", ErrNotSkillURI},
	}
	for _, tt := range tests {
		got, err := ParseURI(tt.in)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("ParseURI(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestEscapePathIsCanonical(t *testing.T) {
	for _, p := range []string{"a/b c/d.md", "acme/billing/refunds/SKILL.md", "x/é/ü?#%.md", "a/~!$&'()*+,;=:@"} {
		uri := Scheme + EscapePath(p)
		got, err := ParseURI(uri)
		if err != nil || got != uri {
			t.Errorf("ParseURI(%q) = %q, %v; want it unchanged", uri, got, err)
		}
	}
}

// FuzzParseURI checks that ParseURI never panics, that its output is a fixed point, and
// that nothing it accepts can name a path other than it appears to.
func FuzzParseURI(f *testing.F) {
	for _, s := range []string{"skill://a/b", "skill://a/%2e%2e/b", "SKILL://x/%41", "skill://a/b c", "skill://a/\\", "skill://a/%2F",
		"skill://a/./b", "skill://a/../b", "skill://a//b", "skill://a/...", "skill://..", "skill://a/b/", "skill://git-workflow/SKILL.md"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseURI(s)
		if full, ferr := parseURI(s); got != full || err != ferr {
			t.Fatalf("ParseURI(%q) = %q, %v; the full parse gives %q, %v", s, got, err, full, ferr)
		}
		if err != nil {
			return
		}
		again, err := ParseURI(got)
		if err != nil || again != got {
			t.Fatalf("ParseURI(%q) = %q, but ParseURI of that = %q, %v", s, got, again, err)
		}
		rest := strings.TrimPrefix(got, Scheme)
		if rest == got {
			t.Fatalf("ParseURI(%q) = %q lacks the scheme", s, got)
		}
		for _, seg := range strings.Split(rest, "/") {
			if seg == "" || seg == "." || seg == ".." {
				t.Fatalf("ParseURI(%q) = %q has segment %q", s, got, seg)
			}
		}
		for i := 0; i < len(rest); i++ {
			if c := rest[i]; c < 0x21 || c >= 0x7f || c == '\\' || c == '?' || c == '#' {
				t.Fatalf("ParseURI(%q) = %q has byte %#x", s, got, c)
			}
		}
		if lower := strings.ToLower(rest); strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") || strings.Contains(lower, "%2e") || strings.Contains(lower, "%00") {
			t.Fatalf("ParseURI(%q) = %q keeps a dangerous escape", s, got)
		}
	})
}

func TestValidVersion(t *testing.T) {
	for _, c := range []struct {
		s  string
		ok bool
	}{
		{"1.2.0", true}, {"1.2.0-rc.1+build.5", true}, {"2026-11-20.143005.3f2a9c1e", true}, {"v2_final", true},
		{"", false}, {".", false}, {"..", false}, {"1.0 beta", false}, {"a/b", false}, {"%41", false},
		{"é", false}, {strings.Repeat("1", 65), false}, {strings.Repeat("1", 64), true},
	} {
		if got := ValidVersion(c.s); got != c.ok {
			t.Errorf("ValidVersion(%q) = %t", c.s, got)
		}
	}
}
