package auth

import (
	"errors"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	const sum = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
	for _, c := range []struct{ name, in, err string }{
		{"jwt by URI", `{"resource":"https://s.example/mcp","jwt":{"issuer":"https://as.example","jwksUri":"https://as.example/jwks"}}`, ""},
		{"jwt on loopback http", `{"resource":"http://127.0.0.1:8787/mcp","jwt":{"issuer":"http://localhost:9000","jwksUri":"http://[::1]:9000/jwks"}}`, ""},
		{"inline jwks", `{"resource":"https://s.example/mcp","jwt":{"issuer":"https://as.example","jwks":{"keys":[]}}}`, ""},
		{"access", `{"resource":"https://s.example/mcp","access":{"teamDomain":"https://acme.cloudflareaccess.com","aud":"abc"}}`, ""},
		{"tokens", `{"resource":"https://s.example/mcp","tokens":[{"name":"ci","sha256":"` + sum + `","scopes":["skills:read"]}]}`, ""},

		{"not an object", `[]`, "must be a JSON object"},
		{"static keys without a resource", `{"tokens":[{"name":"ci","sha256":"` + sum + `"}]}`, ""},
		{"access without a resource", `{"access":{"teamDomain":"https://acme.cloudflareaccess.com","aud":"abc"}}`, ""},
		{"jwt without a resource", `{"jwt":{"issuer":"https://as.example","jwksUri":"https://as.example/jwks"}}`, "auth.resource is required with jwt or authorizationServers"},
		{"authorization servers without a resource", `{"authorizationServers":["https://as.example"],"tokens":[{"name":"ci","sha256":"` + sum + `"}]}`, "auth.resource is required with jwt or authorizationServers"},
		{"no credential", `{"resource":"https://s.example/mcp"}`, "accepts no credential"},
		{"unknown key", `{"resource":"https://s.example/mcp","jwks":{}}`, `unknown key "jwks"`},
		{"a key twice", `{"resource":"https://s.example/mcp","resource":"https://t.example/mcp"}`, "twice"},
		{"plain http", `{"resource":"https://s.example/mcp","jwt":{"issuer":"x","jwksUri":"http://as.example/jwks"}}`, "must be https"},
		{"a relative URL", `{"resource":"/mcp","tokens":[]}`, "not an absolute URL"},
		{"jwt without keys", `{"resource":"https://s.example/mcp","jwt":{"issuer":"x"}}`, "needs jwksUri or jwks"},
		{"jwt with both", `{"resource":"https://s.example/mcp","jwt":{"issuer":"x","jwksUri":"https://a/j","jwks":{"keys":[]}}}`, "both"},
		{"a key in clear", `{"resource":"https://s.example/mcp","tokens":[{"name":"ci","sha256":"ske_abc"}]}`, "never the key"},
		{"an uppercase digest", `{"resource":"https://s.example/mcp","tokens":[{"name":"ci","sha256":"` + strings.ToUpper(sum) + `"}]}`, "lowercase"},
		{"a malformed scope", `{"resource":"https://s.example/mcp","tokens":[{"name":"ci","sha256":"` + sum + `","scopes":["a b"]}]}`, "not an OAuth scope"},
		{"access without aud", `{"resource":"https://s.example/mcp","access":{"teamDomain":"https://acme.cloudflareaccess.com"}}`, "needs teamDomain and aud"},
		{"scopes announced", `{"resource":"https://s.example/mcp","scopesSupported":["skills:read","skills:finance"],"tokens":[{"name":"ci","sha256":"abababababababababababababababababababababababababababababababab","scopes":[]}]}`, ""},
		{"a scope announced that is none", `{"resource":"https://s.example/mcp","scopesSupported":["skills read"],"tokens":[{"name":"ci","sha256":"abababababababababababababababababababababababababababababababab","scopes":[]}]}`, `auth.scopesSupported: "skills read" is not an OAuth scope`},
		{"access in a field of its own", `{"resource":"https://s.example/mcp","access":{"teamDomain":"https://acme.cloudflareaccess.com","aud":"abc","header":"X-Access-Jwt"}}`, ""},
		{"access in a field that is no field name", `{"resource":"https://s.example/mcp","access":{"teamDomain":"https://acme.cloudflareaccess.com","aud":"abc","header":"X Access"}}`, "is not an HTTP field name"},
		{"access in an empty field", `{"resource":"https://s.example/mcp","access":{"teamDomain":"https://acme.cloudflareaccess.com","aud":"abc","header":""}}`, "auth.access.header must be a non-empty string"},
		{"a skew too large", `{"resource":"https://s.example/mcp","jwt":{"issuer":"x","jwks":{"keys":[]},"skew":3600}}`, "whole seconds"},
	} {
		cfg, err := ParseConfig([]byte(c.in))
		if c.err == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			} else if cfg.JWT != nil && cfg.JWT.Audience != cfg.Resource {
				t.Errorf("%s: the audience %q is not the resource", c.name, cfg.JWT.Audience)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
}

// TestAuthenticate: each kind of credential through the configuration, with key sets the
// host handed over; a request without one is "not presented".
func TestAuthenticate(t *testing.T) {
	k := keysOnce()
	entry, key := NewStaticKey("ci", []string{"skills:read"})
	cfg, err := ParseConfig([]byte(`{"resource":"` + testResource + `",
		"jwt":{"issuer":"` + testIssuer + `","jwksUri":"https://as.example/jwks"},
		"access":{"teamDomain":"https://acme.cloudflareaccess.com","aud":"aud-tag"},
		"tokens":[{"name":"ci","sha256":"` + entry.Hex() + `","scopes":["skills:read"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Fetch(); len(got) != 2 || got[0] != "https://as.example/jwks" || got[1] != "https://acme.cloudflareaccess.com/cdn-cgi/access/certs" {
		t.Fatalf("Fetch() = %q", got)
	}
	jwt := sign(t, `{"alg":"ES256","kid":"e1","typ":"at+jwt"}`, claims(nil))
	if _, _, err := cfg.Authenticate("Bearer "+jwt, "", testNow); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("before the key set came: %v", err)
	}
	for _, u := range cfg.Fetch() {
		if err := cfg.SetKeys(u, k.doc); err != nil {
			t.Fatal(err)
		}
	}
	if err := cfg.SetKeys("https://elsewhere.example/jwks", k.doc); err == nil {
		t.Fatal("keys from a URL nobody configured were taken")
	}
	access := sign(t, `{"alg":"RS256","kid":"r1"}`, claims(map[string]any{"iss": "https://acme.cloudflareaccess.com", "aud": []string{"aud-tag"}}))
	for _, c := range []struct {
		name, authorization, assertion string
		subject                        string // "" when refused
		presented                      bool
	}{
		{"a JWT", "Bearer " + jwt, "", "agent-7", true},
		{"a static key", "Bearer " + key, "", "ci", true},
		{"an Access assertion", "", access, "agent-7", true},
		{"an Access assertion wins over a bearer token", "Bearer nonsense", access, "agent-7", true},
		{"nothing", "", "", "", false},
		{"another static key", "Bearer ske_" + strings.Repeat("A", 43), "", "", true},
		{"a JWT for Access's audience", "Bearer " + access, "", "", true},
		{"an Access assertion signed for the JWT's audience", "", jwt, "", true},
		{"an ID token (typ JWT) for the resource", "Bearer " + sign(t, `{"alg":"ES256","kid":"e1","typ":"JWT"}`, claims(nil)), "", "", true},
		{"a token without typ", "Bearer " + sign(t, `{"alg":"ES256","kid":"e1"}`, claims(nil)), "", "", true},
		{"Basic", "Basic Y2k6cGFzcw==", "", "", true},
	} {
		g, presented, err := cfg.Authenticate(c.authorization, c.assertion, testNow)
		if presented != c.presented || (c.subject == "") != (err != nil) || g.Subject != c.subject {
			t.Errorf("%s: %q presented %t, %v", c.name, g.Subject, presented, err)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v does not wrap ErrInvalid", c.name, err)
		}
	}
}

// TestWanted: the key sets a host should fetch: every URL until it gave a set from there;
// again, once, after a token named a key the set lacks (a rotation), whether or not a set
// came since; never an inline set.
func TestWanted(t *testing.T) {
	k := keysOnce()
	const jwks, certs = "https://as.example/jwks", "https://acme.cloudflareaccess.com/cdn-cgi/access/certs"
	cfg, err := ParseConfig([]byte(`{"resource":"` + testResource + `",
		"jwt":{"issuer":"` + testIssuer + `","jwksUri":"` + jwks + `"},
		"access":{"teamDomain":"https://acme.cloudflareaccess.com","aud":"aud-tag"}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := func(what string, urls ...string) {
		t.Helper()
		if got := cfg.Wanted(); strings.Join(got, " ") != strings.Join(urls, " ") {
			t.Fatalf("%s: Wanted() = %q, want %q", what, got, urls)
		}
	}
	want("before any set came", jwks, certs)
	if err := cfg.SetKeys(jwks, k.doc); err != nil {
		t.Fatal(err)
	}
	want("once the JWT's set came", certs)
	if err := cfg.SetKeys(certs, []byte(`{"keys":`)); err == nil {
		t.Fatal("a document that is no JSON was taken")
	}
	want("after a document that is no key set", certs)
	if err := cfg.SetKeys(certs, []byte(`{"keys":[]}`)); err != nil {
		t.Fatal(err)
	}
	want("once both came")
	good := sign(t, `{"alg":"ES256","kid":"e1","typ":"at+jwt"}`, claims(nil))
	if _, _, err := cfg.Authenticate("Bearer "+good, "", testNow); err != nil {
		t.Fatal(err)
	}
	forged := sign(t, `{"alg":"ES256","kid":"e1","typ":"at+jwt"}`, claims(map[string]any{"sub": "other"}))
	forged = forged[:strings.LastIndexByte(forged, '.')+1] + strings.Repeat("A", 86)
	if _, _, err := cfg.Authenticate("Bearer "+forged, "", testNow); err == nil || errors.Is(err, ErrUnknownKey) {
		t.Fatalf("a bad signature: %v", err)
	}
	want("after a bad signature by a key the set holds")
	rotated := sign(t, `{"alg":"ES256","kid":"e2","typ":"at+jwt"}`, claims(nil))
	if _, _, err := cfg.Authenticate("Bearer "+rotated, "", testNow); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("a kid the set lacks: %v", err)
	}
	want("after a kid the set lacks", jwks)
	// The host fetched it and found the same set, so gave nothing: the miss is answered, and
	// refusals that name no unknown key do not ask again.
	want("once the miss was listed")
	if _, _, err := cfg.Authenticate("", "", testNow); err == nil {
		t.Fatal("no credential was taken")
	}
	want("after a request with no credential")
	if _, _, err := cfg.Authenticate("Bearer "+forged, "", testNow); err == nil {
		t.Fatal("a bad signature was taken")
	}
	want("after another bad signature")
	if _, _, err := cfg.Authenticate("Bearer "+rotated, "", testNow); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("a kid the set lacks: %v", err)
	}
	want("after the kid the set lacks, again", jwks)
	access := sign(t, `{"alg":"RS256","kid":"r1"}`, claims(map[string]any{"iss": "https://acme.cloudflareaccess.com", "aud": "aud-tag"}))
	if _, _, err := cfg.Authenticate("Bearer "+rotated, "", testNow); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("a kid the set lacks: %v", err)
	}
	if _, _, err := cfg.Authenticate("", access, testNow); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("an assertion while Access's set is empty: %v", err)
	}
	if err := cfg.SetKeys(jwks, k.doc); err != nil {
		t.Fatal(err)
	}
	want("after both missed and the JWT's set came again", certs)
	want("once that was listed")

	inline, err := ParseConfig([]byte(`{"resource":"` + testResource + `","jwt":{"issuer":"` + testIssuer + `","jwks":` + string(k.doc) + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := inline.Authenticate("Bearer "+rotated, "", testNow); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("a kid the inline set lacks: %v", err)
	}
	if got := inline.Wanted(); got != nil {
		t.Fatalf("an inline set is wanted: %q", got)
	}
	if err := inline.SetKeys(jwks, k.doc); err == nil || !strings.Contains(err.Error(), "inline") {
		t.Fatalf("keys for an inline set: %v", err)
	}
}

// TestSkew: auth.jwt.skew is the clock skew allowed on exp and nbf, in whole seconds from
// 0 to MaxSkew: 0 allows none, and only a skew not given at all is DefaultSkew. Each case
// is a token whose exp or nbf is off by the seconds named, checked at testNow.
func TestSkew(t *testing.T) {
	k := keysOnce()
	config := func(skew string) (*Config, error) {
		return ParseConfig([]byte(`{"resource":"` + testResource + `","jwt":{"issuer":"` + testIssuer + `","jwks":` + string(k.doc) + skew + `}}`))
	}
	for _, c := range []struct {
		name, skew string // skew: the member as written, "" for none
		err        string // ParseConfig's error; "" when it parses
		expiredBy  int64  // the token's exp is this many seconds before testNow (negative: after)
		early      int64  // and its nbf this many seconds after testNow (0: no nbf)
		ok         bool
	}{
		{"no skew given: the default lets in a token expired 30 s ago", "", "", 30, 0, true},
		{"no skew given: the default ends at 60 s", "", "", 60, 0, false},
		{"no skew given: a token valid 30 s from now", "", "", -600, 30, true},
		{"skew 0: a token expired a second ago is refused", `,"skew":0`, "", 1, 0, false},
		{"skew 0: a token that expires now is refused", `,"skew":0`, "", 0, 0, false},
		{"skew 0: a token that expires in a second holds", `,"skew":0`, "", -1, 0, true},
		{"skew 0: a token valid a second from now is refused", `,"skew":0`, "", -600, 1, false},
		{"skew 0: a token valid from now holds", `,"skew":0`, "", -600, 0, true},
		{"skew 10: 9 s late holds", `,"skew":10`, "", 9, 0, true},
		{"skew 10: 10 s late is refused", `,"skew":10`, "", 10, 0, false},
		{"skew 10: 10 s early holds", `,"skew":10`, "", -600, 10, true},
		{"skew 10: 11 s early is refused", `,"skew":10`, "", -600, 11, false},
		{"skew 300, the most: 299 s late holds", `,"skew":300`, "", 299, 0, true},
		{"skew 301", `,"skew":301`, "auth.jwt.skew must be whole seconds from 0 to 300", 0, 0, false},
		{"a negative skew", `,"skew":-1`, "auth.jwt.skew must be whole seconds from 0 to 300", 0, 0, false},
		{"a fractional skew", `,"skew":1.5`, "auth.jwt.skew must be whole seconds from 0 to 300", 0, 0, false},
		{"a skew as a string", `,"skew":"60"`, "auth.jwt.skew must be whole seconds from 0 to 300", 0, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := config(c.skew)
			if c.err != "" || err != nil {
				if err == nil || c.err == "" || err.Error() != c.err {
					t.Fatalf("ParseConfig: %v, want %q", err, c.err)
				}
				return
			}
			extra := map[string]any{"exp": testNow.Unix() - c.expiredBy}
			if c.early != 0 {
				extra["nbf"] = testNow.Unix() + c.early
			}
			_, _, err = cfg.Authenticate("Bearer "+sign(t, `{"alg":"ES256","kid":"e1","typ":"at+jwt"}`, claims(extra)), "", testNow)
			if (err == nil) != c.ok {
				t.Fatalf("Authenticate: %v, want it to hold: %t", err, c.ok)
			}
		})
	}
}

// TestAccessScopes: auth.access.scopes are granted to every assertion Access signed for
// the application, beside what its claims say (Access's own assertions say nothing of
// scopes): so a team behind Access can meet a policy's default scopes. Each case is an
// assertion with the claims given, through the access section given.
func TestAccessScopes(t *testing.T) {
	k := keysOnce()
	const team, certs = "https://acme.cloudflareaccess.com", "https://acme.cloudflareaccess.com/cdn-cgi/access/certs"
	for _, c := range []struct {
		name, access string // the members of the access section beside teamDomain and aud
		claims       map[string]any
		err          string // ParseConfig's error
		scopes       string // the grant's
	}{
		{"scopes, an assertion as Access sends it", `,"scopes":["skills:read"]`, nil, "", "skills:read"},
		{"scopes, several, out of order and twice", `,"scopes":["skills:read","skills:finance","skills:read"]`, nil, "", "skills:finance skills:read"},
		{"scopes and a scope claim", `,"scopes":["skills:read"]`, map[string]any{"scope": "skills:finance"}, "", "skills:finance skills:read"},
		{"scopes and scopesClaim", `,"scopes":["skills:read"],"scopesClaim":"groups"`, map[string]any{"groups": []string{"skills:finance"}}, "", "skills:finance skills:read"},
		{"no scopes", ``, nil, "", ""},
		{"no scopes, scopesClaim", `,"scopesClaim":"groups"`, map[string]any{"groups": []string{"skills:finance"}}, "", "skills:finance"},
		{"no scopes at all", `,"scopes":[]`, nil, "", ""},
		{"scopes as a string", `,"scopes":"skills:read"`, nil, "auth.access.scopes must be a list of strings", ""},
		{"a scope that is none", `,"scopes":["skills read"]`, nil, `auth.access.scopes: "skills read" is not an OAuth scope`, ""},
		{"an unknown key", `,"scope":["skills:read"]`, nil, `auth.access: unknown key "scope" (teamDomain, aud, header, certsUrl, scopesClaim, scopes)`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := ParseConfig([]byte(`{"resource":"` + testResource + `","access":{"teamDomain":"` + team + `","aud":"aud-tag"` + c.access + `}}`))
			if c.err != "" || err != nil {
				if err == nil || err.Error() != c.err {
					t.Fatalf("ParseConfig: %v, want %q", err, c.err)
				}
				return
			}
			if err := cfg.SetKeys(certs, k.doc); err != nil {
				t.Fatal(err)
			}
			change := map[string]any{"iss": team, "aud": []string{"aud-tag"}, "scope": nil, "email": "ana@acme.example", "type": "app"}
			for k, v := range c.claims {
				change[k] = v
			}
			g, _, err := cfg.Authenticate("", sign(t, `{"alg":"RS256","kid":"r1","typ":"JWT"}`, claims(change)), testNow)
			if err != nil || string(g.Scopes) != c.scopes {
				t.Fatalf("Authenticate: %q, %v; want %q", g.Scopes, err, c.scopes)
			}
		})
	}
	// A jwt issuer's tokens say their own scopes: it has no such member.
	if _, err := ParseConfig([]byte(`{"resource":"` + testResource + `","jwt":{"issuer":"x","jwks":{"keys":[]},"scopes":["skills:read"]}}`)); err == nil ||
		!strings.Contains(err.Error(), `auth.jwt: unknown key "scopes"`) {
		t.Fatalf("scopes in jwt: %v", err)
	}
}
