package verify

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// TestCredentials: a token is bound to the origin it was given for, as Origin writes it,
// and For finds it for any URL of that origin only.
func TestCredentials(t *testing.T) {
	for _, c := range []struct{ url, origin string }{
		{"https://Skills.Example.com/x/y", "https://skills.example.com"},
		{"https://skills.example.com:443/", "https://skills.example.com"},
		{"https://skills.example.com:8443", "https://skills.example.com:8443"},
		{"HTTP://127.0.0.1:80/mcp", "http://127.0.0.1"},
		{"http://127.0.0.1:8787", "http://127.0.0.1:8787"},
		{"http://[::1]:8787/", "http://[::1]:8787"},
		{"https://[::1]/", "https://[::1]"},
	} {
		u, _ := url.Parse(c.url)
		if got := Origin(u); got != c.origin {
			t.Errorf("Origin(%s) = %s, want %s", c.url, got, c.origin)
		}
	}
	creds := Credentials{}
	if err := creds.Add("http://127.0.0.1:8787/some/path", "tok"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		url  string
		want string
	}{
		{"http://127.0.0.1:8787/.well-known/agent-skills/index.json", "tok"},
		{"http://127.0.0.1:8788/", ""},
		{"https://127.0.0.1:8787/", ""},
		{"http://localhost:8787/", ""},
	} {
		u, _ := url.Parse(c.url)
		if got := creds.For(u); got != c.want {
			t.Errorf("For(%s) = %q, want %q", c.url, got, c.want)
		}
	}
	for _, c := range []struct{ origin, token string }{
		{"skills.example.com", "tok"},
		{"ftp://skills.example.com", "tok"},
		{"https://user@skills.example.com", "tok"},
		{"https://skills.example.com", ""},
		{"https://skills.example.com", "a b"},
		{"https://skills.example.com", "a\x1b[2J"},
	} {
		if err := (Credentials{}).Add(c.origin, c.token); !errors.Is(err, ErrUsage) {
			t.Errorf("Add(%q, %q) = %v, want a usage error", c.origin, c.token, err)
		}
	}
	for _, c := range []struct{ in, origin, token string }{
		{"https://skills.example.com=ske_1", "https://skills.example.com", "ske_1"},
		{"http://127.0.0.1:8787=a=b==", "http://127.0.0.1:8787", "a=b=="},
		{"ske_abc==", "", "ske_abc=="},
		{"plain", "", "plain"},
	} {
		if o, tok := SplitCredential(c.in); o != c.origin || tok != c.token {
			t.Errorf("SplitCredential(%q) = %q, %q", c.in, o, tok)
		}
	}
}

// TestPrintable: what a server sends is shown with its controls escaped, in one line.
func TestPrintable(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1.2.0", "1.2.0"},
		{"café ✓", "café ✓"},
		{"\x1b[2J\x1b]0;pwned\x07", `\x1b[2J\x1b]0;pwned\x07`},
		{"ok\nskilledge pull: 9 installed\r", `ok\x0askilledge pull: 9 installed\x0d`},
		{"\u009b31m\u202egnp.exe", `\u009b31m\u202egnp.exe`},
		{"a\xffb", `a\xffb`},
		{`a\x1b`, `a\\x1b`},
		{"tab\there", `tab\x09here`},
	} {
		if got := Printable(c.in); got != c.want {
			t.Errorf("Printable(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestParseCredentials: a bare token is bound to the target's origin, or refused without
// one; ORIGIN=TOKEN to ORIGIN; Has finds a token by a URL of its origin.
func TestParseCredentials(t *testing.T) {
	for _, tt := range []struct {
		values  []string
		target  string
		want    Credentials
		wantErr string
	}{
		{[]string{"https://a.example=ta", "http://127.0.0.1:8787=tb"}, "", Credentials{"https://a.example": "ta", "http://127.0.0.1:8787": "tb"}, ""},
		{[]string{"bare"}, "https://skills.example.com/team", Credentials{"https://skills.example.com": "bare"}, ""},
		{[]string{"bare"}, "", nil, "--token gives a token with no origin, and outdated reads every source skills.lock names"},
		{[]string{"ftp://x=t"}, "", nil, "--token: \"ftp://x\" is not an origin"},
	} {
		got, err := ParseCredentials(tt.values, "--token", tt.target)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%v: %v, want %q", tt.values, err, tt.wantErr)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) {
			t.Fatalf("%v: %v %v", tt.values, got, err)
		}
		for o, tok := range tt.want {
			if got[o] != tok || !got.Has(o+"/path") {
				t.Errorf("%v: %v", tt.values, got)
			}
		}
	}
}
