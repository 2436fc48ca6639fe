//go:build !skilledge_public

package edge

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/auth"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// The parts of authorization that check credentials, with edge/auth and the crypto it
// needs: every build but the public plugin's (authz_public.go, build tag
// skilledge_public), which serves no auth option.

// authConfig is the auth option, parsed.
type authConfig = *auth.Config

// Check reports whether a server can serve with opt: the auth option parses. The plugin
// calls it before New, which assumes it. Any catalog can be served with any options that
// pass: a private catalog without the auth option is served over stdio, and refused over
// HTTP on every request (Server.route).
func Check(opt wire.Options) error {
	if opt.Auth == nil {
		return nil
	}
	cfg, err := auth.ParseConfig(opt.Auth)
	if err != nil {
		return err
	}
	if f := strings.ToLower(cfg.AccessHeader); cfg.Access != nil && f != hdrAccessAssertion && slices.Contains(RequestFields, f) {
		return errors.New("auth.access.header " + strconv.Quote(cfg.AccessHeader) + " is a field the server reads for something else")
	}
	return nil
}

// KeysWanted lists the URLs of the key sets the server wants the host to fetch and give
// it (SetKeys): every one the auth option names until the host gave a set from there, and
// one from which a token named a key the set lacks since KeysWanted last listed it
// (auth.Config.Wanted; edge/wire: key sets). Nil without the auth option, or with an
// inline key set only.
func (s *Server) KeysWanted() []string {
	if s.auth == nil {
		return nil
	}
	return s.auth.cfg.Wanted()
}

// SetKeys gives the server the key set doc the host fetched from url, one of the URLs the
// auth option names. It fails, keeping the set it had, for another URL or a document that
// is no key set. It is safe to call while the server answers.
func (s *Server) SetKeys(url string, doc []byte) error {
	if s.auth == nil {
		return errors.New("auth: no auth option: no key set comes from " + url)
	}
	return s.auth.cfg.SetKeys(url, doc)
}

// newAuthz reads opt.Auth (nil when unset); New assumes Check passed.
func newAuthz(p *catalog.Pack, opt wire.Options) *authz {
	if opt.Auth == nil {
		return nil
	}
	cfg, err := auth.ParseConfig(opt.Auth)
	if err != nil {
		panic("edge: New with options Check refuses: " + err.Error())
	}
	a := &authz{cfg: cfg, needed: p.DefaultScopes(), now: time.Now, vary: "Authorization"}
	if cfg.Access != nil {
		a.vary += ", " + cfg.AccessHeader
	}
	a.oauth = cfg.JWT != nil || len(cfg.AuthorizationServers) > 0
	var needs, realms, nouns []string
	if cfg.JWT != nil {
		needs, nouns = append(needs, "an OAuth access token"), append(nouns, "access token")
	}
	if cfg.Access != nil {
		needs, realms, nouns = append(needs, "a Cloudflare Access assertion"), append(realms, "Cloudflare Access"), append(nouns, "Access assertion")
	}
	if len(cfg.Tokens) > 0 {
		needs, realms, nouns = append(needs, "a static API key (Authorization: Bearer "+auth.StaticPrefix+"…)"), append(realms, "static API keys"), append(nouns, "API key")
	}
	a.needs, a.realm, a.noun = strings.Join(needs, " or "), strings.Join(realms, " or "), "credential"
	if len(nouns) == 1 {
		a.noun = nouns[0]
	}
	if !a.oauth {
		return a // no metadata to name or serve, and perhaps no resource
	}
	u, _ := url.Parse(cfg.Resource) // ParseConfig checked it, given for OAuth
	a.metadata = u.Scheme + "://" + u.Host + prmPath + strings.TrimSuffix(u.EscapedPath(), "/")
	scopes := strings.Fields(string(p.DefaultScopes())) // what every caller needs, and nothing of what some may not see
	if cfg.ScopesSupported != nil {
		scopes = cfg.ScopesSupported
	}
	b := []byte(`{"resource":`)
	b = jsonrpc.AppendString(b, cfg.Resource)
	b = append(b, `,"authorization_servers":`...)
	b = jsonrpc.AppendStrings(b, cfg.AuthorizationServers)
	b = append(b, `,"scopes_supported":`...)
	b = jsonrpc.AppendStrings(b, scopes)
	b = append(b, `,"bearer_methods_supported":["header"]}`...)
	a.prm = b
	return a
}

// gate answers a request the server may not answer for this caller (401, 403), or nil
// when it may, with who the caller is.
func (s *Server) gate(r *wire.Request, hd *headers, path string) (*wire.Response, caller) {
	a := s.auth
	if a == nil {
		return nil, caller{}
	}
	if a.oauth && (path == prmPath || path == prmPath+s.opt.Endpoint) {
		return s.protectedResource(r), caller{}
	}
	if r.Method == "OPTIONS" {
		return nil, caller{} // a CORS preflight carries no credential (and no answer)
	}
	refused := caller{authorized: true}
	if hd.manyCredentials {
		return a.challenge(401, true), refused
	}
	now := a.now()
	g, presented, err := a.cfg.Authenticate(hd.authorization, hd.assertion, now)
	if err != nil {
		return a.challenge(401, presented), refused
	}
	if !catalog.HasScopes(g.Scopes, a.needed) {
		return a.challenge(403, true), refused
	}
	return nil, caller{authorized: true, granted: g.Scopes, expires: g.Expires, checked: now, subject: g.Subject, client: g.ClientID}
}

// assertionField is the field, in lowercase, an Access assertion comes in under opt (which
// passed Check): auth.access.header, by default Cf-Access-Jwt-Assertion.
func assertionField(opt wire.Options) string {
	if opt.Auth != nil {
		if cfg, err := auth.ParseConfig(opt.Auth); err == nil && cfg.Access != nil {
			return strings.ToLower(cfg.AccessHeader)
		}
	}
	return hdrAccessAssertion
}

// assertionHeader is the field, in lowercase, an Access assertion comes in under a (nil
// without the auth option).
func (a *authz) assertionHeader() string {
	if a != nil && a.cfg.Access != nil {
		return strings.ToLower(a.cfg.AccessHeader)
	}
	return hdrAccessAssertion
}
