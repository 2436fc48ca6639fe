package trust

import (
	"net/url"
	"strings"
	"testing"
)

func TestParseRoot(t *testing.T) {
	good := map[string]string{
		"https://skills.example.com/":         "https://skills.example.com/",
		"https://skills.example.com":          "https://skills.example.com/",
		"HTTPS://Skills.Example.COM/":         "https://skills.example.com/",
		"https://github.com/acme/":            "https://github.com/acme/",
		"https://github.com/acme/skills/":     "https://github.com/acme/skills/",
		"https://example.com:443/":            "https://example.com/",
		"https://example.com:8443/x/":         "https://example.com:8443/x/",
		"https://[::1]:8443/":                 "https://[::1]:8443/",
		"https://127.0.0.1/":                  "https://127.0.0.1/",
		"https://user.github.io/":             "https://user.github.io/",
		"https://huggingface.co/acme/":        "https://huggingface.co/acme/",
		"https://huggingface.co/spaces/acme/": "https://huggingface.co/spaces/acme/",
		"https://example.com/a%20b/":          "https://example.com/a%20b/",
		"https://example.com/%61cme/":         "https://example.com/acme/",
	}
	for in, want := range good {
		r, err := ParseRoot(in)
		if err != nil {
			t.Errorf("ParseRoot(%q): %v", in, err)
			continue
		}
		if r.String() != want {
			t.Errorf("ParseRoot(%q) = %q, want %q", in, r.String(), want)
		}
		if !r.Contains(r.String()) {
			t.Errorf("%q does not contain itself", r)
		}
	}

	bad := map[string]string{
		"":                                   "empty",
		"https://github.com/":                "any user",
		"https://GitHub.com":                 "any user",
		"https://www.github.com/":            "any user",
		"https://gitlab.com/":                "any user",
		"https://huggingface.co/":            "any user",
		"https://huggingface.co/spaces/":     "any user",
		"https://pypi.org/project/":          "any user",
		"https://raw.githubusercontent.com/": "any user",
		"https://github.io/":                 "any user",
		"https://gist.github.com/":           "any user",
		"http://example.com/":                "must be https",
		"ftp://example.com/":                 "must be https",
		"https://example.com/x?y":            "query",
		"https://example.com/x/?":            "query",
		"https://example.com/x/#f":           "fragment",
		"https://u@example.com/":             "userinfo",
		"https://u:p@example.com/":           "userinfo",
		"example.com/":                       "not an absolute URL",
		"/acme/":                             "not an absolute URL",
		"//example.com/":                     "not an absolute URL",
		"https:example.com/":                 "not a hierarchical URL",
		"https:///x/":                        "not a hierarchical URL",
		"https://example.com/acme":           "must end in \"/\"",
		"https://example.com/a/../b/":        "\"..\" segment",
		"https://example.com/a/./":           "\".\" segment",
		"https://example.com/a/%2e%2e/":      "\"..\" segment",
		"https://example.com/a%2Fb/":         "encoded",
		"https://example.com/a%5cb/":         "encoded",
		"https://example.com/a\\b/":          "",
		"https://example.com//a/":            "empty segment",
		"https://example.com:0/":             "port",
		"https://example.com:99999/":         "",
		"https://example.com./":              "dot",
		"https://bücher.example/":            "A-label",
		"https://example.com/%00/":           "control",
		"https://example.com/%zz/":           "",
	}
	for in, want := range bad {
		r, err := ParseRoot(in)
		if err == nil {
			t.Errorf("ParseRoot(%q) = %q, want an error", in, r)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRoot(%q): %v, want it to say %q", in, err, want)
		}
	}
}

func TestContains(t *testing.T) {
	tests := []struct {
		root string
		url  string
		want bool
	}{
		{"https://github.com/acme/", "https://github.com/acme/x/SKILL.md", true},
		{"https://github.com/acme/", "https://GitHub.com/acme/x/SKILL.md", true},
		{"https://github.com/acme/", "HTTPS://github.com/acme/x/SKILL.md", true},
		{"https://github.com/acme/", "https://github.com:443/acme/x/SKILL.md", true},
		{"https://github.com/acme/", "https://github.com/acme/", true},
		{"https://github.com/acme/", "https://github.com/acme/x.tar.gz?raw=1#top", true},
		{"https://github.com/acme/", "https://github.com/%61cme/x/SKILL.md", true},
		{"https://github.com/acme/", "https://github.com/acme/a%20b/SKILL.md", true},

		{"https://github.com/acme/", "https://github.com/acme-evil/x/SKILL.md", false},
		{"https://github.com/acme/", "https://github.com/acme/../evil/SKILL.md", false},
		{"https://github.com/acme/", "https://github.com/acme/x/../../evil/SKILL.md", false},
		{"https://github.com/acme/", "https://github.com/acme/./x/SKILL.md", false},
		{"https://github.com/acme/", "https://github.com/acme/%2e%2e/evil/SKILL.md", false},
		{"https://github.com/acme/", "https://github.com.evil.io/acme/SKILL.md", false},
		{"https://github.com/acme/", "https://user@github.com/acme/x/SKILL.md", false},
		{"https://github.com/acme/", "https://user:pw@github.com/acme/x/SKILL.md", false},
		{"https://github.com/acme/", "http://github.com/acme/x/SKILL.md", false},
		{"https://github.com/acme/", "https://github.com/acme%2F../evil", false},
		{"https://github.com/acme/", "https://github.com/acme%2f../evil", false},
		{"https://github.com/acme/", "https://github.com/acme/x%5c..%5c..%5cevil", false},
		{"https://github.com/acme/", "https://github.com/acme\\..\\evil", false},
		{"https://github.com/acme/", "https://github.com:8443/acme/x", false},
		{"https://github.com/acme/", "https://github.com./acme/x", false},
		{"https://github.com/acme/", "https://github.com/acme", false},
		{"https://github.com/acme/", "https://github.com/ACME/x", false},
		{"https://github.com/acme/", "https://github.com//acme/x", false},
		{"https://github.com/acme/", "https://github.com/acme/x%00/SKILL.md", false},
		{"https://github.com/acme/", "//github.com/acme/x/SKILL.md", false},
		{"https://github.com/acme/", "/acme/x/SKILL.md", false},
		{"https://github.com/acme/", "acme/x/SKILL.md", false},
		{"https://github.com/acme/", "https:github.com/acme/x", false},
		{"https://github.com/acme/", "", false},
		{"https://github.com/acme/", "https://github.com/acme/%zz", false},

		{"https://skills.example.com/", "https://skills.example.com", true},
		{"https://skills.example.com/", "https://skills.example.com/.well-known/agent-skills/a/SKILL.md", true},
		{"https://skills.example.com/", "https://evil.example.com/a/SKILL.md", false},
		{"https://skills.example.com/", "https://example.com/a/SKILL.md", false},
		{"https://example.com:8443/", "https://example.com:8443/a", true},
		{"https://example.com:8443/", "https://example.com/a", false},
		{"https://[::1]:8443/", "https://[::1]:8443/a", true},
		{"https://[::1]:8443/", "https://[::2]:8443/a", false},
	}
	for _, tc := range tests {
		r, err := ParseRoot(tc.root)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Contains(tc.url); got != tc.want {
			t.Errorf("%s.Contains(%q) = %v, want %v", tc.root, tc.url, got, tc.want)
		}
	}
	if (Root{}).Contains("https://example.com/") {
		t.Error("the zero Root contains something")
	}
}

// FuzzContains checks that Contains never panics and never accepts a URL on another host
// or port, outside the root's path, or with userinfo.
func FuzzContains(f *testing.F) {
	for _, s := range []string{
		"https://github.com/acme/x/SKILL.md", "https://github.com/acme-evil/x", "https://github.com.evil.io/acme/",
		"https://user@github.com/acme/x", "https://github.com/acme%2F../evil", "https://github.com:8443/acme/x",
		"https://GITHUB.com/acme/%2e%2e/x", "https://[::1]/acme/", "https://github.com/acme/\x00", "https://github%2ecom/acme/",
		"https://git%68ub.com/acme/x",
	} {
		f.Add(s)
	}
	roots := []Root{MustParseRoot("https://github.com/acme/"), MustParseRoot("https://example.com:8443/"), MustParseRoot("https://[::1]/a/b/")}
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range roots {
			if !r.Contains(s) {
				continue
			}
			u, err := url.Parse(s)
			if err != nil {
				t.Fatalf("%s contains unparsable %q", r, s)
			}
			if !strings.EqualFold(u.Hostname(), r.host) {
				t.Fatalf("%s contains %q, whose host is %q", r, s, u.Hostname())
			}
			if port, _ := effectivePort(u.Port()); port != r.port {
				t.Fatalf("%s contains %q, on port %d", r, s, port)
			}
			if u.User != nil || !strings.EqualFold(u.Scheme, "https") {
				t.Fatalf("%s contains %q", r, s)
			}
			if !strings.HasPrefix(u.Path, r.path) || strings.Contains(u.Path, "/../") || strings.HasSuffix(u.Path, "/..") {
				t.Fatalf("%s contains %q, whose path is %q", r, s, u.Path)
			}
		}
	})
}

// FuzzParseRoot: a trust root comes from a flag or a remote index; ParseRoot takes any
// string, and a root it accepts is a fixed point (its String parses to itself) that
// contains the URLs under it.
func FuzzParseRoot(f *testing.F) {
	for _, s := range []string{"https://skills.example.com/", "https://a.example", "https://github.com/", "https://github.com/acme/",
		"http://x/", "https://x:443/a/", "https://x/a/../", "https://x/%2F/", "https://u@x/", "https://x/?q", "https://XN--bcher-kva.example/", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRoot(s)
		if err != nil {
			return
		}
		back, err := ParseRoot(r.String())
		if err != nil || back.String() != r.String() {
			t.Fatalf("%q parsed to %q, which parses to %q (%v)", s, r.String(), back.String(), err)
		}
		if !r.Contains(r.String()+"x/SKILL.md") || !strings.HasSuffix(r.String(), "/") {
			t.Fatalf("%q: root %q does not contain %q", s, r.String(), r.String()+"x/SKILL.md")
		}
	})
}
