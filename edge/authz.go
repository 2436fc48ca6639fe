package edge

import (
	"html"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// Authorization (MCP 2026-07-28 basic/authorization; PROTOCOL.md#authorization): with the
// auth option, the server is an OAuth 2.1 resource server (with jwt; an option of static
// keys or Access assertions only is not, and says so: see authz). Every request over HTTP
// but the RFC 9728 metadata and CORS preflights must carry a credential (edge/auth)
// granting the catalog's default scopes: without one, or with one that does not hold, 401
// with a Bearer challenge naming the metadata (or the realm) and invalid_token when one
// was sent; with one lacking the scopes, 403 insufficient_scope. Every answer to such a
// request depends on the caller and says so: Cache-Control private, Vary on the
// credential fields, cacheScope "private", and a replay hint that expires with the
// credential (none once it has), so that a host gives the answer again only for the same
// credential (which the request frame holds) and never after it stops holding (edge/wire:
// replays). And none is kept longer than the
// credential holds: a max-age is at most its remaining lifetime, in whole seconds rounded
// down (0 under a second); a ttlMs at most that less replayHeld, and the replay hint
// expires that ttlMs before the credential does, so that an answer given again is not
// kept past it either.
// Over stdio, a local process, no credential is asked.
//
// A private catalog (an access policy) is answered over HTTP only with the auth option
// (without it, every HTTP request is a 503 saying why), one view per caller (views.go);
// over stdio, with every skill. See https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization and
// RFC 9728 (protected resource metadata), RFC 6750 §3 (the challenge).

// prmPath is the path of the RFC 9728 metadata; the resource's own path follows it.
const prmPath = "/.well-known/oauth-protected-resource"

// authz is a server's authorization: its configuration, the scopes every caller needs,
// and the challenge parts.
//
// It is an OAuth resource server only when the option has jwt (or names authorization
// servers): then the challenge names its RFC 9728 metadata, which it serves. An option of
// static keys, or Cloudflare Access assertions, has no authorization server for a client
// to find, and a metadata document listing none would send OAuth clients into a sign-in
// that cannot succeed: its challenge names instead the realm of the credentials it takes,
// and the metadata's path is answered like any other.
type authz struct {
	cfg      authConfig // edge/auth's Config, in the build that has it (authz_credentials.go)
	needed   []byte     // space-separated
	oauth    bool       // an OAuth resource server: the metadata is served and named
	metadata string     // the absolute URL of the RFC 9728 document for the endpoint
	prm      []byte     // that document
	realm    string     // without OAuth, the challenge's realm: the credentials taken
	needs    string     // what a 401 says the server needs: every kind of credential it takes
	noun     string     // what a 403 calls the credential
	vary     string
	now      func() time.Time
}

// caller is who a request comes from, as gate found: the zero caller when the server
// tells no callers apart (or the request needs no credential).
type caller struct {
	// authorized says the auth option let the caller in: the answer depends on them.
	authorized bool
	// granted are the scopes their credential grants.
	granted []byte
	// expires is when the credential stops holding (auth.Grant.Expires: a token's exp;
	// zero for a static key, which holds as long as the configuration names it), and
	// checked when the server checked it.
	expires, checked time.Time
	// subject and client say who it is (auth.Grant), for the facts of the answer.
	subject, client string
}

// lifetime is how long an answer to the caller may be kept: the whole seconds, rounded
// down, from when the credential was checked to when it stops holding, 0 when that is
// under a second (or past: a token the clock skew let in); bounded is false when there is
// no such end (a static key, or a caller the server does not tell apart).
func (c caller) lifetime() (seconds int64, bounded bool) {
	if !c.authorized || c.expires.IsZero() {
		return 0, false
	}
	return max(int64(c.expires.Sub(c.checked)/time.Second), 0), true
}

// replayHeld bounds how long an answer to an authorized caller is replayed: a key set
// that changed (a key withdrawn, a set given up) or a static key taken out of the
// configuration is heeded within it, as the plugin verifies the credential again.
const replayHeld = time.Minute

// replayUntil is the expiry of the replay hint of an answer, at now, to a caller whose
// credential holds until expires (gate; zero for a static key), that says it may be kept
// for fresh seconds (its ttlMs; 0 when it says nothing): the earlier of expires less fresh
// and replayHeld from now, in unix seconds, rounded down; false when that is not in the
// future, and the answer may not be replayed at all. A host gives the answer again only
// before the expiry, so a cache that keeps it for fresh seconds from then keeps it no
// later than expires.
func replayUntil(expires, now time.Time, fresh int64) (int64, bool) {
	if !expires.IsZero() {
		expires = expires.Add(-time.Duration(fresh) * time.Second)
	}
	if limit := now.Add(replayHeld); expires.IsZero() || expires.After(limit) {
		expires = limit
	}
	sec := expires.Unix() // rounded down, after 1970
	return sec, sec > 0 && time.Unix(sec, 0).After(now)
}

// challenge is the 401 or 403 of RFC 6750 §3, with a JSON-RPC error body saying the same.
// It names the metadata (or, without OAuth, the realm of the credentials taken), the
// kinds of credential the server takes and the scopes every caller needs, which are
// public, and never why a credential failed: every failure looks alike to the caller.
func (a *authz) challenge(status int, presented bool) *wire.Response {
	v := `Bearer realm="` + a.realm + `"`
	msg := "Unauthorized: this server needs " + a.needs
	if a.oauth {
		v = `Bearer resource_metadata="` + a.metadata + `"`
		msg += " (see WWW-Authenticate and " + a.metadata + ")"
	}
	if len(a.needed) > 0 {
		v += `, scope="` + string(a.needed) + `"`
	}
	switch {
	case status == 403:
		v += `, error="insufficient_scope"`
		msg = "Forbidden: the " + a.noun + " does not grant the scopes this server needs: " + string(a.needed)
	case presented:
		v += `, error="invalid_token"`
	}
	resp := jsonResponse(status, jsonrpc.AppendError(nil, nil, jsonrpc.NewError(codeUnauthorized, msg)))
	resp.Header = append(resp.Header, wire.Field{Name: "WWW-Authenticate", Value: v},
		wire.Field{Name: "Cache-Control", Value: "no-store"})
	return resp
}

// pageRefusal makes resp, the 401 or 403 of a browser's request for the catalog page,
// readable there: a browser cannot send a bearer token from its address bar, so the page
// says what the catalog needs and how to give it (an MCP host's sign-in, or the token on
// a command line). Status and challenge stay as they are; the page names nothing of the
// catalog, only the origin the browser asked.
func (a *authz) pageRefusal(resp *wire.Response, hd *headers) {
	base := html.EscapeString(origin(hd))
	why := "Its page, like its MCP endpoint, is served to callers with a credential: " + html.EscapeString(a.needs) + "."
	if resp.Status == 403 {
		why = "The credential sent does not grant the scopes its page needs: " + html.EscapeString(string(a.needed)) + "."
	}
	resp.Body = []byte("<!doctype html>\n<meta charset=\"utf-8\">\n<title>A private skills catalog</title>\n" +
		"<h1>A private skills catalog</h1>\n<p>" + why + " A browser cannot send a bearer token from its address bar.</p>\n" +
		"<p>Add the MCP endpoint, <code>" + base + "/mcp</code>, to an MCP host, which signs in or takes the token, or read the page with the token:</p>\n" +
		"<pre>curl -H \"Authorization: Bearer $TOKEN\" -H \"Accept: text/html\" " + base + "/ -o catalog.html\nskilledge verify " + base + " --token " + base + "=$TOKEN</pre>\n")
	for i, f := range resp.Header {
		if wire.EqualFold(f.Name, "Content-Type") {
			resp.Header[i].Value = "text/html; charset=utf-8"
		}
	}
	resp.Header = append(resp.Header, wire.Field{Name: "Vary", Value: "Accept"})
}

// codeUnauthorized is the JSON-RPC error of a 401 or 403 (an implementation-defined
// server error, JSON-RPC 2.0 §5.1).
const codeUnauthorized = -32001

// protectedResource answers the RFC 9728 metadata, public.
func (s *Server) protectedResource(r *wire.Request) *wire.Response {
	if r.Method != "GET" && r.Method != "HEAD" {
		resp := s.httpText(405, "skilledge: GET the protected resource metadata\n")
		resp.Header = append(resp.Header, wire.Field{Name: "Allow", Value: "GET, HEAD"})
		return resp
	}
	// A copy: the body of an answer becomes the buffer the next answer is built in
	// (reply.keep), and the document is the server's.
	return &wire.Response{Status: 200, Header: header("Content-Type", "application/json", "Cache-Control", s.cacheControl()), Body: slices.Clone(s.auth.prm)}
}

// private marks resp, an answer to an authorized caller, as one that depends on the
// caller: Cache-Control private (keeping a max-age or no-cache, never public; a max-age at
// most the lifetime of the caller's credential), and Vary on the credential fields.
func (a *authz) private(resp *wire.Response, who caller) {
	cc := "private"
	for i, f := range resp.Header {
		if wire.EqualFold(f.Name, "Cache-Control") {
			switch v := f.Value; {
			case v == "no-store":
				cc = v
			case strings.HasPrefix(v, "public, "):
				cc = "private, " + strings.TrimPrefix(v, "public, ")
			case v != "" && !strings.HasPrefix(v, "public"):
				cc = "private, " + v
			}
			resp.Header = append(resp.Header[:i], resp.Header[i+1:]...)
			break
		}
	}
	if sec, bounded := who.lifetime(); bounded {
		cc = capMaxAge(cc, sec)
	}
	resp.Header = append(resp.Header, wire.Field{Name: "Cache-Control", Value: cc}, wire.Field{Name: "Vary", Value: a.vary})
}

// capMaxAge is the Cache-Control value cc with its max-age, if any, at most sec seconds.
func capMaxAge(cc string, sec int64) string {
	i := strings.Index(cc, "max-age=")
	if i < 0 {
		return cc
	}
	from := i + len("max-age=")
	to := from
	for to < len(cc) && cc[to] >= '0' && cc[to] <= '9' {
		to++
	}
	if n, err := strconv.ParseInt(cc[from:to], 10, 64); err == nil && n <= sec {
		return cc
	}
	return cc[:from] + strconv.FormatInt(sec, 10) + cc[to:]
}

// cacheScopeOf is the cacheScope of the modern era's cacheable results.
func (s *Server) cacheScopeOf() string {
	if s.auth != nil {
		return "private"
	}
	return cacheScope
}
