package auth

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
)

// Config is the plugin option auth: how the server tells callers apart. A server without
// it serves every caller alike; with it, every request over HTTP must carry a credential
// of one of the kinds it names.
//
//	{"resource": "https://skills.example.com/mcp",
//	 "authorizationServers": ["https://auth.example.com"], "scopesSupported": ["skills:read"],
//	 "jwt": {"issuer": "https://auth.example.com", "jwksUri": "https://auth.example.com/jwks",
//	         "audience": "…", "jwks": {…}, "scopesClaim": "groups", "skew": 60},
//	 "access": {"teamDomain": "https://acme.cloudflareaccess.com", "aud": "<AUD tag>",
//	            "header": "Cf-Access-Jwt-Assertion", "certsUrl": "…", "scopes": ["skills:read"],
//	            "scopesClaim": "groups"},
//	 "tokens": [{"name": "ci", "sha256": "<64 hex>", "scopes": ["skills:read"]}]}
//
// resource is the server's canonical URI (RFC 8707; the audience tokens must hold, and
// the resource of its RFC 9728 metadata). authorizationServers are announced in that
// metadata (default: the jwt issuer), and so are scopesSupported (default: the scopes the
// catalog's policy asks of every caller; naming the others tells anyone that skills some
// callers may not see exist, so a deployment says so only on purpose). jwt takes a key set inline (jwks) or from jwksUri,
// which the host fetches; its skew is the clock skew allowed on exp and nbf, in whole
// seconds from 0 (none) to 300, 60 when not given. access is Cloudflare Access, whose
// certificates are fetched from certsUrl (default: the team domain's
// /cdn-cgi/access/certs); its scopes are granted to every assertion Access signed for the
// application (Access's assertions carry no scope claim: Access itself decided who may
// reach the application), beside those of the scope claims or scopesClaim, as for jwt.
// At least one of jwt, access and tokens is required. Every URL is https, or http to a
// loopback address.
type Config struct {
	Resource             string
	AuthorizationServers []string
	// ScopesSupported, when not nil, are the scopes the metadata announces.
	ScopesSupported []string
	JWT             *Issuer
	// JWKSURI is where the host fetches JWT's key set; "" when it is inline.
	JWKSURI string
	// Access verifies Cloudflare Access assertions; AccessHeader is the field they come in
	// (Cf-Access-Jwt-Assertion).
	Access       *Issuer
	AccessHeader string
	// AccessCerts is where the host fetches Access's key set.
	AccessCerts string
	Tokens      []StaticKey

	// inline is the key set given in the option (jwt.jwks), and fetched the key sets of
	// each URL of Fetch, made once by ParseConfig (so that reading them takes no lock).
	inline  *KeySet
	fetched map[string]*fetchedKeys
}

// fetchedKeys is what a Config holds of the key set at one URL: the set the host gave
// (nil before the first), and whether a token has named a key it lacks since Wanted last
// said so.
type fetchedKeys struct {
	set    atomic.Pointer[KeySet]
	missed atomic.Bool
}

// ParseConfig reads the auth option. An unknown key, a value of the wrong type, a URL that
// is neither https nor loopback http, or a configuration that accepts no credential is an
// error that says which.
func ParseConfig(b []byte) (*Config, error) {
	if !gjson.ValidBytes(b) {
		return nil, errors.New("auth is not valid JSON")
	}
	root := gjson.ParseBytes(b)
	if !root.IsObject() {
		return nil, errors.New("auth must be a JSON object")
	}
	c := &Config{fetched: map[string]*fetchedKeys{}}
	var err error
	each(root, "auth", &err, func(key string, v gjson.Result) {
		switch key {
		case "resource":
			c.Resource = urlValue(v, "auth.resource", &err)
		case "authorizationServers":
			c.AuthorizationServers = urlList(v, "auth.authorizationServers", &err)
		case "scopesSupported":
			c.ScopesSupported = strList(v, "auth.scopesSupported", &err)
			for _, s := range c.ScopesSupported {
				if err == nil && !catalog.ValidScope(s) {
					err = fmt.Errorf("auth.scopesSupported: %q is not an OAuth scope", s)
				}
			}
		case "jwt":
			c.JWT, c.JWKSURI = c.issuer(v, "auth.jwt", &err)
			if c.JWT != nil {
				c.JWT.Type = "at+jwt" // an access token, never an ID token
			}
		case "access":
			c.access(v, &err)
		case "tokens":
			c.tokens(v, &err)
		default:
			err = fmt.Errorf("auth: unknown key %q (resource, authorizationServers, scopesSupported, jwt, access, tokens)", key)
		}
	})
	if err != nil {
		return nil, err
	}
	switch {
	case c.Resource == "" && (c.JWT != nil || len(c.AuthorizationServers) > 0):
		// Only an OAuth resource server needs it: its tokens' audience and its metadata.
		// Static keys and Access assertions name no resource.
		return nil, errors.New("auth.resource is required with jwt or authorizationServers: the server's canonical URI, the audience its access tokens must hold, such as https://skills.example.com/mcp")
	case c.JWT == nil && c.Access == nil && len(c.Tokens) == 0:
		return nil, errors.New("auth accepts no credential: give jwt, access or tokens")
	}
	if c.JWT != nil && c.JWT.Audience == "" {
		c.JWT.Audience = c.Resource
	}
	if len(c.AuthorizationServers) == 0 && c.JWT != nil {
		c.AuthorizationServers = []string{c.JWT.Issuer}
	}
	for _, u := range c.Fetch() {
		c.fetched[u] = &fetchedKeys{}
	}
	return c, nil
}

// issuer reads a jwt section.
//
// Why does a `skew` of 0 allow none? 0 used to read as "not given" and allow the default
// minute, so a deployment that asked for none (its issuer's clock is its own, or it wants
// exp to the second) silently got 60 seconds. Now a skew that is given, 0 included, is the
// skew, and only one not given at all is DefaultSkew (the issuer starts with it before the
// section is read; Issuer.Skew is used as it is). The bounds are 0 to MaxSkew: more than
// five minutes is a clock to fix, not to allow. Rejected: refusing 0 with a message (0 is
// a sensible thing to ask for, and the natural reading of the number), and keeping 0 as
// the default with a negative value for none (a value that reads as one thing and means
// another is the mistake being fixed).
func (c *Config) issuer(v gjson.Result, what string, err *error) (*Issuer, string) {
	is := &Issuer{Skew: DefaultSkew} // a skew given, 0 included, replaces it
	var uri string
	inline := false
	each(v, what, err, func(key string, e gjson.Result) {
		switch key {
		case "issuer":
			is.Issuer = str(e, what+".issuer", err)
		case "audience":
			is.Audience = str(e, what+".audience", err)
		case "jwksUri":
			uri = urlValue(e, what+".jwksUri", err)
		case "jwks":
			ks, perr := ParseKeySet([]byte(e.Raw))
			if perr != nil {
				*err = fmt.Errorf("%s.jwks: %w", what, perr)
				return
			}
			c.inline, inline = ks, true
		case "scopesClaim":
			is.ScopesClaim = str(e, what+".scopesClaim", err)
		case "skew":
			is.Skew = seconds(e, what+".skew", err)
		default:
			*err = fmt.Errorf("%s: unknown key %q (issuer, audience, jwksUri, jwks, scopesClaim, skew)", what, key)
		}
	})
	if *err == nil {
		switch {
		case is.Issuer == "":
			*err = fmt.Errorf("%s.issuer is required", what)
		case uri == "" && !inline:
			*err = fmt.Errorf("%s needs jwksUri or jwks: the issuer's signing keys", what)
		case uri != "" && inline:
			*err = fmt.Errorf("%s has both jwksUri and jwks: give one", what)
		}
	}
	return is, uri
}

// access reads the access section (Cloudflare Access).
//
// Why does `access` grant the scopes it names, rather than read them from the assertion?
// Cloudflare Access signs an application token for whoever its policy lets through: its
// claims name the user and the application (email, sub, aud, country, identity_nonce,
// Cloudflare's "Application token" page), and none says a scope or a group (groups come
// from Access's identity endpoint, a request per sign-in the plugin cannot make). So with
// the README's own policy (default: [skills:read]) every assertion was answered 403, and a
// team behind Access needed another identity provider after all. Who may reach the skills
// is already Access's policy; access.scopes says what getting through it is worth here,
// granted to every valid assertion, beside what a scope claim or scopesClaim holds (for an
// identity provider that passes one on). TestPrivateAccessREADME serves the README's
// example as written with an assertion such as Access sends. Rejected: granting the
// catalog's default scopes to every assertion without being told (the option would mean
// different things under different catalogs, and a scope added to default later would let
// every Access user past it unasked); scopesClaim alone (Access's assertions have no such
// claim to name); and asking Access's identity endpoint for groups (a network call per
// new assertion, from a plugin that makes none).
func (c *Config) access(v gjson.Result, err *error) {
	const what = "auth.access"
	is := &Issuer{Skew: DefaultSkew}
	c.AccessHeader = "Cf-Access-Jwt-Assertion"
	each(v, what, err, func(key string, e gjson.Result) {
		switch key {
		case "teamDomain":
			is.Issuer = strings.TrimSuffix(urlValue(e, what+".teamDomain", err), "/")
		case "aud":
			is.Audience = str(e, what+".aud", err)
		case "header":
			c.AccessHeader = fieldName(str(e, what+".header", err), what+".header", err)
		case "certsUrl":
			c.AccessCerts = urlValue(e, what+".certsUrl", err)
		case "scopesClaim":
			is.ScopesClaim = str(e, what+".scopesClaim", err)
		case "scopes":
			is.Scopes = strList(e, what+".scopes", err)
			for _, s := range is.Scopes {
				if *err == nil && !catalog.ValidScope(s) {
					*err = fmt.Errorf("%s.scopes: %q is not an OAuth scope", what, s)
				}
			}
		default:
			*err = fmt.Errorf("%s: unknown key %q (teamDomain, aud, header, certsUrl, scopesClaim, scopes)", what, key)
		}
	})
	if *err != nil {
		return
	}
	switch {
	case is.Issuer == "" || is.Audience == "":
		*err = fmt.Errorf("%s needs teamDomain and aud (the application's AUD tag)", what)
	default:
		if c.AccessCerts == "" {
			c.AccessCerts = is.Issuer + "/cdn-cgi/access/certs"
		}
		c.Access = is
	}
}

// tokens reads the static keys.
func (c *Config) tokens(v gjson.Result, err *error) {
	if !v.IsArray() {
		*err = errors.New("auth.tokens must be a list of {name, sha256, scopes}")
		return
	}
	v.ForEach(func(_, e gjson.Result) bool {
		what := fmt.Sprintf("auth.tokens[%d]", len(c.Tokens))
		var k StaticKey
		var sum string
		var scopes []string
		each(e, what, err, func(key string, f gjson.Result) {
			switch key {
			case "name":
				k.Name = str(f, what+".name", err)
			case "sha256":
				sum = str(f, what+".sha256", err)
			case "scopes":
				scopes = strList(f, what+".scopes", err)
			default:
				*err = fmt.Errorf("%s: unknown key %q (name, sha256, scopes)", what, key)
			}
		})
		if *err != nil {
			return false
		}
		d, herr := hex.DecodeString(sum)
		if herr != nil || len(d) != 32 || strings.ToLower(sum) != sum {
			*err = fmt.Errorf("%s.sha256 must be the key's SHA-256 in 64 lowercase hex digits (sha256sum of the key), never the key", what)
			return false
		}
		copy(k.SHA256[:], d)
		for _, s := range scopes {
			if !catalog.ValidScope(s) {
				*err = fmt.Errorf("%s.scopes: %q is not an OAuth scope", what, s)
				return false
			}
		}
		if k.Name == "" {
			*err = fmt.Errorf("%s.name is required: it names the caller in logs", what)
			return false
		}
		k.Scopes = normalScopes(scopes)
		c.Tokens = append(c.Tokens, k)
		return true
	})
}

// Fetch lists the URLs whose key sets the host fetches and hands over (SetKeys): none
// when the key set is inline.
func (c *Config) Fetch() []string {
	var out []string
	if c.JWKSURI != "" {
		out = append(out, c.JWKSURI)
	}
	if c.Access != nil && !slices.Contains(out, c.AccessCerts) {
		out = append(out, c.AccessCerts)
	}
	return out
}

// SetKeys makes doc, a JWKS document the host fetched from url (one of Fetch), the key set
// of the credentials whose keys come from there, and url no longer Wanted. On error the
// previous set stays. It is safe to call while other goroutines Authenticate.
func (c *Config) SetKeys(url string, doc []byte) error {
	f := c.fetched[url]
	if f == nil {
		return fmt.Errorf("auth: no credential's keys come from %s (the auth option names %s)", url, names(c.Fetch()))
	}
	ks, err := ParseKeySet(doc)
	if err != nil {
		return err
	}
	f.set.Store(ks)
	f.missed.Store(false)
	return nil
}

// Wanted lists the URLs of Fetch whose key sets the host should fetch now: those it has
// given none from yet, until it does, and those from which a token named a key the set
// lacks (the issuer may have rotated its keys) since Wanted last listed them. A miss is
// listed once: the host's fetch answers it, whether or not that brings a set other than
// the one given, and only another token that names a key the set lacks asks again, so a
// set that was fetched again and found the same is not asked for by every later refusal.
// The host fetches them, within the limits of its schedule (edge/wire: key sets), and
// calls SetKeys when a set differs from the one it gave.
func (c *Config) Wanted() []string {
	var out []string
	for _, u := range c.Fetch() {
		f := c.fetched[u]
		// Swap first: a miss is consumed even when the set is still wanted for want of one.
		if missed := f.missed.Swap(false); missed || f.set.Load() == nil {
			out = append(out, u)
		}
	}
	return out
}

// keySet returns the key set of the credentials whose keys come from url ("" for the
// inline set), nil when there is none yet.
func (c *Config) keySet(url string) *KeySet {
	if url == "" {
		return c.inline
	}
	return c.fetched[url].set.Load()
}

// missed marks the key set from url wanted again when err says a token named a key it
// lacks, and returns err.
func (c *Config) missed(url string, err error) error {
	if url != "" && errors.Is(err, ErrUnknownKey) {
		c.fetched[url].missed.Store(true)
	}
	return err
}

// names is a list of URLs for a message.
func names(urls []string) string {
	if len(urls) == 0 {
		return "none: its key set is inline"
	}
	return strings.Join(urls, " and ")
}

// each calls f for every member of the object v, stopping at the first error, and fails
// when v is not an object or names a member twice.
func each(v gjson.Result, what string, err *error, f func(key string, v gjson.Result)) {
	if *err != nil {
		return
	}
	if !v.IsObject() {
		*err = fmt.Errorf("%s must be an object", what)
		return
	}
	seen := map[string]bool{}
	v.ForEach(func(k, e gjson.Result) bool {
		if seen[k.Str] {
			*err = fmt.Errorf("%s names %q twice", what, k.Str)
			return false
		}
		seen[k.Str] = true
		f(k.Str, e)
		return *err == nil
	})
}

func str(v gjson.Result, what string, err *error) string {
	if v.Type != gjson.String || v.Str == "" {
		*err = fmt.Errorf("%s must be a non-empty string", what)
	}
	return v.Str
}

func strList(v gjson.Result, what string, err *error) []string {
	if !v.IsArray() {
		*err = fmt.Errorf("%s must be a list of strings", what)
		return nil
	}
	out := []string{}
	v.ForEach(func(_, e gjson.Result) bool {
		out = append(out, str(e, what+" element", err))
		return *err == nil
	})
	return out
}

func seconds(v gjson.Result, what string, err *error) time.Duration {
	if v.Type != gjson.Number || v.Num < 0 || v.Num > MaxSkew.Seconds() || v.Num != float64(int(v.Num)) {
		*err = fmt.Errorf("%s must be whole seconds from 0 to %d", what, int(MaxSkew.Seconds()))
		return 0
	}
	return time.Duration(v.Num) * time.Second
}

func urlList(v gjson.Result, what string, err *error) []string {
	list := strList(v, what, err)
	for _, u := range list {
		if *err == nil {
			urlValue(gjson.Result{Type: gjson.String, Str: u}, what+" element", err)
		}
	}
	return list
}

// urlValue reads an absolute URL that is https, or http to a loopback address (for a
// server and an authorization server on one machine, as in tests).
func urlValue(v gjson.Result, what string, err *error) string {
	s := str(v, what, err)
	if *err != nil {
		return ""
	}
	u, perr := url.Parse(s)
	if perr != nil || u.Host == "" || u.User != nil || u.Fragment != "" {
		*err = fmt.Errorf("%s %q is not an absolute URL", what, s)
		return ""
	}
	if u.Scheme == "https" || u.Scheme == "http" && loopback(u.Hostname()) {
		return s
	}
	*err = fmt.Errorf("%s %q must be https (or http to a loopback address)", what, s)
	return ""
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// Authenticate checks a request's credential: authorization is its Authorization field,
// assertion the AccessHeader field ("" for a field the request lacks). presented reports
// whether it sent one at all (a 401 then says invalid_token). A Cloudflare Access assertion
// is checked when access is configured and the request has one; otherwise the bearer
// token, as a static key when it has a static key's form and keys are configured, else as
// a JWT. Every error wraps ErrInvalid. A token that names a key the fetched set lacks
// (ErrUnknownKey) makes that set Wanted again, once.
func (c *Config) Authenticate(authorization, assertion string, now time.Time) (g Grant, presented bool, err error) {
	if c.Access != nil && assertion != "" {
		g, err = c.Access.Verify(assertion, c.keySet(c.AccessCerts), now)
		return g, true, c.missed(c.AccessCerts, err)
	}
	if authorization == "" {
		return Grant{}, false, fail("no credential")
	}
	token, err := Bearer(authorization)
	if err != nil {
		return Grant{}, true, err
	}
	if len(c.Tokens) > 0 && strings.HasPrefix(token, StaticPrefix) {
		g, err = CheckStatic(c.Tokens, token)
		return g, true, err
	}
	if c.JWT == nil {
		return Grant{}, true, fail("a bearer token that is no static key, and no jwt is configured")
	}
	g, err = c.JWT.Verify(token, c.keySet(c.JWKSURI), now)
	return g, true, c.missed(c.JWKSURI, err)
}

// fieldName checks that v, which auth.access.header names, is an HTTP field name (RFC 9110
// §5.1: a token). (edge.Check refuses one the server reads for something else.) It
// returns v, or "" with *err set.
func fieldName(v, what string, err *error) string {
	if *err != nil {
		return ""
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			*err = fmt.Errorf("%s %q is not an HTTP field name", what, v)
			return ""
		}
	}
	return v
}
