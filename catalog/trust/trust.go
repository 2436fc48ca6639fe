// Package trust implements the trust roots of DVS, Domain-Verified Skills
// (draft-zzn-dvs): a skill is identified by its HTTPS URL and is verified under a trust
// root, an HTTPS URL prefix, only if the URL matches the root "origin then path".
//
// The draft's four steps are: parse both URLs per RFC 3986; both schemes are https; the
// hosts are equal, compared case-insensitively; the root's path, which ends in "/", is a
// segment-by-segment prefix of the URL's path (so https://github.com/acme/ does not hold
// https://github.com/acme-evil/). The draft is silent on ports, userinfo and percent-
// encoding; this package decides them in the safe direction: the effective ports must be
// equal, a URL with userinfo is never under a root, and a path that could name something
// other than it appears to (a "." or ".." segment, raw or percent-encoded; an encoded "/"
// or "\"; a raw "\"; a control character) is never under a root. A URL that is refused
// is simply not contained: Contains has no error to give.
//
// The draft also forbids a bare user-generated-content platform domain
// (https://github.com/) as a root, but names no platforms; ParseRoot keeps a short list
// (see ugcHosts).
//
// The package uses the standard library only: both the catalog build and the verifier use
// it.
package trust

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Root is a parsed DVS trust root: an https URL prefix whose path ends in "/". The zero
// Root contains nothing.
type Root struct {
	host string // lowercase ASCII, without brackets for IPv6
	port int    // the effective port: 443 unless the root names another
	path string // decoded, begins and ends with "/"
}

// ParseRoot validates a trust root given in configuration or declared by an index.
//
// The root must be an absolute https URL with a non-empty ASCII host (written in A-label
// form for an internationalised name, with no trailing dot), no userinfo, no query and no
// fragment. Its path must end in "/": an origin with an empty path ("https://a.example")
// is read as "https://a.example/", since it can mean nothing else, but a non-empty path
// without the final "/" ("https://a.example/acme") is refused rather than guessed at. The
// path may not hold an empty, "." or ".." segment, an encoded "/" or "\", a raw "\" or a
// control character. An explicit port 443 is dropped. A bare user-generated-content
// platform (https://github.com/, and the shared namespaces of some: see ugcHosts) is
// refused: it would trust every user of the platform.
//
// Errors say what is wrong and, where there is one, what would be right.
func ParseRoot(s string) (Root, error) {
	fail := func(format string, args ...any) (Root, error) {
		return Root{}, fmt.Errorf("trust root %q: %s", s, fmt.Sprintf(format, args...))
	}
	if s == "" {
		return Root{}, errors.New("trust root: empty (it must be an https URL ending in \"/\", e.g. https://skills.example.com/)")
	}
	u, err := url.Parse(s)
	if err != nil {
		return fail("not a URL: %v", err)
	}
	if u.Scheme == "" {
		return fail("not an absolute URL: a trust root starts with https://")
	}
	if !strings.EqualFold(u.Scheme, "https") {
		return fail("the scheme is %q: a trust root must be https (DVS never trusts plain http)", u.Scheme)
	}
	if u.Opaque != "" || (u.Host == "" && strings.HasPrefix(u.Path, "/")) {
		return fail("not a hierarchical URL: write https://HOST/PATH/")
	}
	if u.User != nil {
		return fail("it has userinfo (%q): a trust root names a host and a path only", u.User.String()+"@")
	}
	if strings.ContainsRune(s, '?') {
		return fail("it has a query: a trust root is a URL prefix, ending in \"/\"")
	}
	if strings.ContainsRune(s, '#') {
		return fail("it has a fragment: a trust root is a URL prefix, ending in \"/\"")
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "":
		return fail("it has no host")
	case !isASCII(host):
		return fail("the host is not ASCII: write an internationalised name in its A-label (xn--) form")
	case strings.HasSuffix(host, "."):
		return fail("the host ends in a dot: write it without")
	}
	port, ok := effectivePort(u.Port())
	if !ok {
		return fail("the port %q is not a number from 1 to 65535", u.Port())
	}
	raw := u.EscapedPath()
	if raw == "" {
		raw = "/"
	}
	if why := unsafePath(raw); why != "" {
		return fail("the path %s", why)
	}
	path, err := url.PathUnescape(raw)
	if err != nil {
		return fail("the path is badly percent-encoded")
	}
	if !strings.HasSuffix(path, "/") {
		return fail("the path must end in \"/\" (did you mean %q?)", s+"/")
	}
	if strings.Contains(path, "//") {
		return fail("the path has an empty segment")
	}
	r := Root{host: host, port: port, path: path}
	if why := ugc(host, path); why != "" {
		return fail("%s", why)
	}
	return r, nil
}

// MustParseRoot is ParseRoot for roots known to be valid; it panics on an error.
func MustParseRoot(s string) Root {
	r, err := ParseRoot(s)
	if err != nil {
		panic(err)
	}
	return r
}

// IsZero reports whether r is the zero Root, which contains nothing.
func (r Root) IsZero() bool { return r.host == "" }

// String returns the root in canonical form: "https://", the lowercase host, the port
// unless 443, and the path percent-encoded where it needs it, ending in "/".
func (r Root) String() string {
	if r.IsZero() {
		return ""
	}
	host := r.host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if r.port != 443 {
		host += ":" + strconv.Itoa(r.port)
	}
	return (&url.URL{Scheme: "https", Host: host, Path: r.path}).String()
}

// Host returns the root's host, lowercase, without a port.
func (r Root) Host() string { return r.host }

// Contains reports whether the URL u is under r, per draft-zzn-dvs: u parses per RFC 3986
// (net/url) as an absolute https URL without userinfo; its host equals r's, compared
// case-insensitively; its effective port equals r's (443 when absent); and its path,
// decoded, starts with r's path, segment by segment (r's path ends in "/", so
// "/acme/x" is under "/acme/" and "/acme-evil/x" is not). A URL whose path has a "." or
// ".." segment (raw or percent-encoded), an encoded "/" or "\", a raw "\" or a control
// character is not under any root: it could name something other than it appears to,
// and a verifier must not guess how a server resolves it. Resolve references
// (url.ResolveReference) before asking. The query and fragment do not matter.
func (r Root) Contains(u string) bool { return r.Explain(u) == "" }

// Explain returns why the URL u is not under r (see Contains), as a phrase about u such
// as `its host "github.com.evil.io" is not "github.com"`, or "" when it is under r.
func (r Root) Explain(u string) string {
	if r.IsZero() {
		return "the zero trust root contains nothing"
	}
	p, err := url.Parse(u)
	switch {
	case err != nil:
		return "it is not a URL"
	case p.Scheme == "":
		return "it is not an absolute URL"
	case !strings.EqualFold(p.Scheme, "https"):
		return fmt.Sprintf("its scheme is %s, not https", p.Scheme)
	case p.Opaque != "" || p.Host == "":
		return "it has no host"
	case p.User != nil:
		return "it has userinfo (a name before \"@\")"
	}
	if host := p.Hostname(); !strings.EqualFold(host, r.host) || strings.HasSuffix(host, ".") {
		return fmt.Sprintf("its host %q is not %q", host, r.host)
	}
	port, ok := effectivePort(p.Port())
	if !ok {
		return fmt.Sprintf("its port %q is not a number from 1 to 65535", p.Port())
	}
	if port != r.port {
		return fmt.Sprintf("its port %d is not %d", port, r.port)
	}
	raw := p.EscapedPath()
	if raw == "" {
		raw = "/"
	}
	if why := unsafePath(raw); why != "" {
		return "its path " + why
	}
	path, err := url.PathUnescape(raw)
	if err != nil {
		return "its path is badly percent-encoded"
	}
	if !strings.HasPrefix(path, r.path) {
		return fmt.Sprintf("its path %q is not under %q", path, r.path)
	}
	return ""
}

// effectivePort returns the port a URL with port string p (from url.URL.Port) reaches
// over https.
func effectivePort(p string) (int, bool) {
	if p == "" {
		return 443, true
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return 0, false
	}
	return n, true
}

// unsafePath returns why the escaped path raw could name something other than it
// appears to, or "". raw must begin with "/".
func unsafePath(raw string) string {
	if !strings.HasPrefix(raw, "/") {
		return "does not begin with \"/\""
	}
	if strings.ContainsRune(raw, '\\') {
		return "contains a backslash"
	}
	lower := strings.ToLower(raw)
	if strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") {
		return "contains an encoded \"/\" or \"\\\""
	}
	path, err := url.PathUnescape(raw)
	if err != nil {
		return "is badly percent-encoded"
	}
	for _, c := range []byte(path) {
		if c < 0x20 || c == 0x7f {
			return "contains a control character"
		}
	}
	for seg := range strings.SplitSeq(path[1:], "/") {
		if seg == "." || seg == ".." {
			return fmt.Sprintf("has a %q segment", seg)
		}
	}
	return ""
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
