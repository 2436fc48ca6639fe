package verify

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/skilledge/skilledge/catalog/trust"
)

// Credentials are bearer tokens, each bound to the one origin it was given for (its key,
// as Origin writes it). A read of a deployment sends the token of the deployment's own
// origin, and only to that origin: a read of any other source (another entry of
// skills.lock, a redirect, a skill URL elsewhere) gets none, whatever else the map holds.
//
// Why does `skilledge verify --token` send the token to the deployment's origin only? A
// bearer token is good for whoever holds it. A private deployment's indexes, files and MCP
// endpoint are all on its origin, so that is where an agent sends the token, and where
// verify does; a skill URL elsewhere, or a redirect that leaves the origin, gets no
// Authorization (Go's client would keep it for a subdomain). Rejected: every request, as a
// literal reading of "check it as an agent would" suggests (one index naming another host
// would hand it the token).
//
// Why is a token bound to an origin, and does `outdated` refuse a bare one? outdated reads
// every source that skills.lock names, and the README tells teams to commit that file: a
// line anyone adds to it (a pull request, a vendored folder) names a source. A token given
// once for "the catalog" and sent to each source's own origin went to every origin the
// lock named, so one lure entry collected the token of whoever ran outdated, CI included.
// So a bare --token TOKEN is bound to the origin of the URL on the command line, --token
// ORIGIN=TOKEN to ORIGIN, and each read sends only its own origin's token. A command with
// no URL (outdated) has nothing to bind a bare token to and refuses it, naming the form to
// use. Rejected: binding a bare token to the lock's only source when there is one (a pull
// request that rewrites that source's URL hands the token over just the same), and keeping
// a bare token and warning (a warning in CI is read by nobody).
type Credentials map[string]string

// For returns the token bound to u's origin, or "".
func (c Credentials) For(u *url.URL) string {
	if c == nil || u == nil {
		return ""
	}
	return c[Origin(u)]
}

// Add binds token to the origin of the URL origin ("https://skills.example.com", with or
// without a path, which is ignored). It refuses an origin that is not an absolute http(s)
// URL, and a token that is empty or holds a space or a control character (it could not be
// sent in one header).
func (c Credentials) Add(origin, token string) error {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return usagef("%q is not an origin: write https://HOST[:PORT]", origin)
	}
	if token == "" || !sendable(token) {
		return usagef("the token for %s is empty or holds a space, a line break or another control character: give the token alone", Origin(u))
	}
	c[Origin(u)] = token
	return nil
}

// ParseCredentials binds the credentials of values, each as the command line gives it
// (SplitCredential), to their origins: "ORIGIN=TOKEN" to ORIGIN, a bare TOKEN to the
// origin of target, the URL the command was given. A command given none (outdated reads
// every source its lock names) refuses a bare token: it would go to whatever origin the
// lock says, and a lock is a file anyone can add a line to. from names where values
// came from ("--token", "$SKILLEDGE_TOKEN"), in the errors.
func ParseCredentials(values []string, from, target string) (Credentials, error) {
	creds := Credentials{}
	for _, v := range values {
		origin, token := SplitCredential(v)
		if origin == "" {
			if target == "" {
				return nil, fmt.Errorf("%s gives a token with no origin, and outdated reads every source %s names: bind it to one, ORIGIN=TOKEN (for example https://skills.example.com=TOKEN)", from, "skills.lock")
			}
			origin = target
		}
		if err := creds.Add(origin, token); err != nil {
			return nil, fmt.Errorf("%s: %v", from, err)
		}
	}
	return creds, nil
}

// Has reports whether c holds a token for the origin of the URL u.
func (c Credentials) Has(u string) bool {
	p, err := url.Parse(u)
	return err == nil && c.For(p) != ""
}

// sendable reports whether token can be sent as it is in one Authorization header: no
// space, line break or other control character.
func sendable(token string) bool {
	return !strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f })
}

// SplitCredential splits a credential as the command line gives it: "ORIGIN=TOKEN" binds
// the token to ORIGIN (an http or https URL: a token never holds "://"), anything else is
// a bare TOKEN, with origin "".
func SplitCredential(s string) (origin, token string) {
	if o, t, ok := strings.Cut(s, "="); ok && strings.Contains(o, "://") {
		return o, t
	}
	return "", s
}

// Origin renders u's origin (trust.Origin): scheme and host in lower case, and the port
// unless it is the scheme's default ("https://skills.example.com").
func Origin(u *url.URL) string { return trust.Origin(u) }
