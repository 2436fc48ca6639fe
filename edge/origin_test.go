package edge

import (
	"strings"
	"testing"

	"github.com/skilledge/skilledge/edge/wire"
)

func TestStripPort(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"localhost", "localhost"},
		{"localhost:8080", "localhost"},
		{"localhost:", "localhost"}, // an empty port is still a port separator
		{"localhost:8a", "localhost:8a"},
		{"localhost:+80", "localhost:+80"},
		{"localhost:-1", "localhost:-1"},
		{"localhost: 80", "localhost: 80"},
		{"localhost:８０", "localhost:８０"}, // full-width digits are not digits
		{"host:1:2", "host:1"},
		{"a:b:c", "a:b:c"},
		{":80", ""},
		{"127.0.0.1:8787", "127.0.0.1"},
		{"[::1]", "[::1]"},
		{"[::1]:80", "[::1]"},
		{"[::1]:", "[::1]"},
		{"[::1]:http", "[::1]:http"},
		{"[fe80::1%25eth0]:443", "[fe80::1%25eth0]"},
		// A bare IPv6 address is not a Host value: its last group reads as a port.
		{"::1", ":"},
	} {
		if got := stripPort(tc.in); got != tc.want {
			t.Errorf("stripPort(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLoopbackHost(t *testing.T) {
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"LOCALHOST", true},
		{"localhoſt", false}, // U+017F folds to 's' only under Unicode rules
		{"::1]", false},
		{"::1]:80", false},
		{"[127.0.0.1", false},
		{"127.0.0.1]", false},
		{"[127.0.0.1]", false},
		{"[127.0.0.1]:80", false},
		{"LocalHost:8080", true},
		{"localhost:", true},
		{"localhost:6274", true},
		{"127.0.0.1", true},
		{"127.0.0.1:8787", true},
		{"127.1.2.3", true},
		{"127.1.2.3:1", true},
		{"127.255.255.255:65535", true},
		{"[::1]", true},
		{"[::1]:8080", true},
		{"[0:0:0:0:0:0:0:1]:80", true},
		{"[::ffff:127.0.0.1]", true}, // IPv4-mapped loopback

		{"", false},
		{"::1", false}, // unbracketed: "::" with port 1
		{"[::1", false},
		{"[::1]:http", false},
		{"localhost:80a", false},
		{"localhost:-1", false},
		{"localhost: 80", false},
		{"localhost.", false},
		{"localhost.evil.com", false},
		{"localhost.evil.com:80", false},
		{"evil.localhost.com", false},
		{"127.0.0.1.evil.com", false},
		{"127.0.0.1.evil.com:8787", false},
		{"evil.com", false},
		{"localhost@evil.com", false},
		{"evil.com#localhost", false},
		{"[localhost]", false},
		{"[::1%eth0]", false},
		{"[::1%eth0]:80", false},
		{"[fe80::1%25lo0]", false},
		{"127.0.0.1%lo", false},
		{"0.0.0.0", false},
		{"[::]", false},
		{"10.0.0.1", false},
		{"128.0.0.1", false},
		{"0x7f.0.0.1", false},
		{"2130706433", false}, // 127.0.0.1 as an integer is not accepted
		{"127.1", false},
		{"127.0.0.1:8080:80", false},
		{"localhost:8080:80", false},
	} {
		if got := loopbackHost(tc.host); got != tc.want {
			t.Errorf("loopbackHost(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
}

func TestLoopbackOrigin(t *testing.T) {
	for _, tc := range []struct {
		origin string
		want   bool
	}{
		{"http://localhost", true},
		{"https://localhost", true},
		{"http://localhost:6274", true},
		{"https://localhost:443", true},
		{"http://LOCALHOST", true},
		{"http://LocalHost:1", true},
		{"http://127.0.0.1", true},
		{"http://127.0.0.1:8787", true},
		{"https://127.1.2.3", true},
		{"https://127.1.2.3:9", true},
		{"http://[::1]", true},
		{"http://[::1]:3000", true},
		{"https://[::1]:3000", true},

		{"", false},
		{"null", false},
		{"localhost", false},
		{"localhost:8080", false},
		{"//localhost", false},
		{"http://", false},
		{"http://:80", false},
		{"HTTP://localhost", false}, // browsers serialize the scheme in lowercase
		{"ftp://localhost", false},
		{"ws://localhost", false},
		{"file://", false},
		{"chrome-extension://abcdef", false},
		{"http://localhost/", false},
		{"http://localhost:80/path", false},
		{"http://localhost?x=1", false},
		{"http://localhost#frag", false},
		{"http://localhost@evil.com", false},
		{"http://evil.com@localhost", false},
		{"http://user@localhost", false},
		{"http://localhost.evil.com", false},
		{"https://127.0.0.1.evil.com", false},
		{"http://evil.com", false},
		{"http://localhost:80a", false},
		{"http://::1", false},
		{"http://[::1%25eth0]:80", false},
		{"http://[::1%eth0]", false},
		{"http://0.0.0.0", false},
		{" http://localhost", false},
		{"http://localhost ", false},
		{"http:/localhost", false},
	} {
		if got := loopbackOrigin(tc.origin); got != tc.want {
			t.Errorf("loopbackOrigin(%q) = %v, want %v", tc.origin, got, tc.want)
		}
	}
}

func TestOriginAllowed(t *testing.T) {
	type check struct {
		origin  string
		present bool
		want    bool
	}
	for _, tc := range []struct {
		name   string
		allow  []string
		checks []check
	}{
		{"default is loopback only", nil, []check{
			{"", false, true},
			{"https://evil.example", false, true}, // absent: the value is ignored
			{"http://localhost:6274", true, true},
			{"http://127.0.0.1", true, true},
			{"http://[::1]:1", true, true},
			{"", true, false},
			{"null", true, false},
			{"https://evil.example", true, false},
			{"http://localhost@evil.com", true, false},
			{"http://localhost.evil.com", true, false},
		}},
		{"empty list is the default", []string{}, []check{
			{"http://localhost", true, true},
			{"https://app.example", true, false},
		}},
		{"loopback keyword adds to a list", []string{wire.Loopback, "https://app.example"}, []check{
			{"http://localhost:6274", true, true},
			{"http://[::1]:6274", true, true},
			{"https://app.example", true, true},
			{"https://evil.example", true, false},
			{"loopback", true, false}, // the keyword is not an origin
		}},
		{"star", []string{"*"}, []check{
			{"", false, true},
			{"", true, true},
			{"null", true, true},
			{"https://evil.example", true, true},
			{"http://localhost", true, true},
		}},
		{"explicit list", []string{"https://app.example", "http://other.example:8080"}, []check{
			{"", false, true},
			{"https://app.example", true, true},
			{"HTTPS://APP.EXAMPLE", true, true},
			{"http://other.example:8080", true, true},
			{"https://app.example:443", true, false},
			{"https://app.example/", true, false},
			{"http://app.example", true, false},
			{"https://evil.app.example", true, false},
			{"http://other.example", true, false},
			// A configured list replaces the loopback default.
			{"http://localhost", true, false},
			{"null", true, false},
			{"", true, false},
		}},
		{"list with star", []string{"https://app.example", "*"}, []check{
			{"https://evil.example", true, true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := exampleServer(t, wire.Options{AllowOrigins: tc.allow})
			for _, c := range tc.checks {
				if got := s.originAllowed(c.origin, c.present); got != c.want {
					t.Errorf("originAllowed(%q, %v) = %v, want %v", c.origin, c.present, got, c.want)
				}
			}
		})
	}
}

func TestHostAllowed(t *testing.T) {
	type check struct {
		host    string
		present bool
		want    bool
	}
	for _, tc := range []struct {
		name   string
		allow  []string
		checks []check
	}{
		{"loopback keyword adds to a list", []string{wire.Loopback, "skills.example"}, []check{
			{"127.0.0.1:8787", true, true},
			{"skills.example", true, true},
			{"evil.example", true, false},
			{"loopback", true, false},
		}},
		{"default is loopback only", nil, []check{
			{"", false, true}, // no Host header: not a browser
			{"evil.example", false, true},
			{"localhost", true, true},
			{"localhost:8787", true, true},
			{"LOCALHOST:8787", true, true},
			{"127.0.0.1:8787", true, true},
			{"127.1.2.3", true, true},
			{"[::1]:8787", true, true},
			{"", true, false},
			{"::1", true, false},
			{"evil.example", true, false},
			{"localhost.evil.com", true, false},
			{"127.0.0.1.evil.com", true, false},
			{"[::1%eth0]:80", true, false},
		}},
		{"star", []string{"*"}, []check{
			{"", false, true},
			{"", true, true},
			{"evil.example:1", true, true},
		}},
		{"names without port", []string{"example.com", "[::1]"}, []check{
			{"example.com", true, true},
			{"EXAMPLE.com", true, true},
			{"example.com:443", true, true},
			{"example.com:", true, true},
			{"[::1]:80", true, true},
			{"example.com:abc", true, false},
			{"sub.example.com", true, false},
			{"example.com.evil", true, false},
			{"example.com@evil", true, false},
			// A configured list replaces the loopback default.
			{"localhost", true, false},
			{"127.0.0.1:8787", true, false},
			// With a list, a request without Host is refused (unlike the default).
			{"", false, false},
		}},
		{"name with port", []string{"example.com:8080"}, []check{
			{"example.com:8080", true, true},
			{"Example.COM:8080", true, true},
			{"example.com", true, false},
			{"example.com:9090", true, false},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := exampleServer(t, wire.Options{AllowHosts: tc.allow})
			for _, c := range tc.checks {
				if got := s.hostAllowed(c.host, c.present); got != c.want {
					t.Errorf("hostAllowed(%q, %v) = %v, want %v", c.host, c.present, got, c.want)
				}
			}
		})
	}
}

// TestRepeatedHostOrigin: a request with more than one Host or Origin is refused (403),
// whichever comes first and whatever the options allow: checking only the first let
// `Origin: http://localhost` then `Origin: http://evil.com` through. An Origin holding a
// comma is several joined (as the Fetch API and proxies join repeated fields).
func TestRepeatedHostOrigin(t *testing.T) {
	for _, opt := range []wire.Options{{}, {AllowOrigins: []string{"*"}, AllowHosts: []string{"*"}}} {
		s := exampleServer(t, opt)
		for _, tc := range []struct {
			header string
			status int
			says   string
		}{
			{"Origin: http://localhost\nOrigin: http://evil.com\n", 403, "more than one Origin"},
			{"Origin: http://evil.com\nOrigin: http://localhost\n", 403, "more than one Origin"},
			{"Origin: http://localhost\norigin: http://localhost\n", 403, "more than one Origin"},
			{"Origin: http://localhost, http://evil.com\n", 403, "more than one Origin"},
			{"Host: localhost\n", 403, "more than one Host"},
			{"HOST: evil.com\n", 403, "more than one Host"},
			{"Origin: http://localhost\n", 200, ""},
		} {
			resp := s.ServeHTTP(postLegacy(request(1, "ping", ""), tc.header))
			if resp.Status != tc.status || !strings.Contains(string(resp.Body), tc.says) {
				t.Errorf("%v, %q: %d %s", opt.AllowOrigins, tc.header, resp.Status, resp.Body)
			}
		}
		// A Host value holding a comma is two joined (how workerd passes two fields).
		r := &wire.Request{Method: "POST", Target: "/mcp", Header: wire.Header{{Name: "Host", Value: "127.0.0.1, evil.com"},
			{Name: "Content-Type", Value: "application/json"}}, Body: []byte(request(1, "ping", ""))}
		if resp := s.ServeHTTP(r); resp.Status != 403 || !strings.Contains(string(resp.Body), "more than one Host") {
			t.Errorf("Host with a comma: %d %s", resp.Status, resp.Body)
		}
		// Well-known files too.
		r = postLegacy("", "Origin: http://localhost\nOrigin: http://evil.com\n")
		r.Method, r.Target = "GET", "/.well-known/skills/index.json"
		if resp := s.ServeHTTP(r); resp.Status != 403 {
			t.Errorf("well-known GET with two origins: %d", resp.Status)
		}
	}
}
