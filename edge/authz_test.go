//go:build !skilledge_public

package edge

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/auth"
	"github.com/skilledge/skilledge/edge/wire"
)

// authTest is a server of a private catalog behind the auth option: JWTs from a test
// issuer whose key set is inline, and one static key.
type authTest struct {
	s   *Server
	key ed25519.PrivateKey
	ske string // a static key granting skills:read
}

const (
	authIssuer   = "https://as.example"
	authResource = "https://skills.example/mcp"
)

var authNow = time.Unix(1_900_000_000, 0)

func newAuthTest(t *testing.T, policy string) *authTest {
	t.Helper()
	return newAuthTestFiles(t, map[string]string{"a/SKILL.md": skillMD("a"), "b/SKILL.md": skillMD("b"), "skilledge.yaml": policy})
}

// The test issuer's key and the static key, the same for every test server, so that a
// caller's credential is the same at two of them.
var (
	authPub, authKey, _ = ed25519.GenerateKey(rand.Reader)
	authEntry, authSKE  = auth.NewStaticKey("ci", []string{"skills:read"})
)

// newAuthTestFiles is newAuthTest of the catalog of files, with the tools and prompts
// fallbacks on, and the page size given (0: the default).
func newAuthTestFiles(t *testing.T, files map[string]string, pageSize ...int) *authTest {
	t.Helper()
	pub, key, entry, ske := authPub, authKey, authEntry, authSKE
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{{"kty": "OKP", "crv": "Ed25519", "kid": "k1",
		"x": base64.RawURLEncoding.EncodeToString(pub)}}})
	opts := wire.Options{AllowHosts: []string{"*"}, AllowOrigins: []string{"*"}, Tools: true, Prompts: true, Auth: []byte(`{"resource":"` + authResource + `",
		"jwt":{"issuer":"` + authIssuer + `","jwks":` + string(jwks) + `},
		"tokens":[{"name":"ci","sha256":"` + entry.Hex() + `","scopes":["skills:read"]}]}`)}
	if len(pageSize) > 0 {
		opts.PageSize = pageSize[0]
	}
	p := packOf(t, files)
	if err := Check(opts); err != nil {
		t.Fatal(err)
	}
	s := New(p, opts)
	s.auth.now = func() time.Time { return authNow }
	return &authTest{s: s, key: key, ske: ske}
}

// token is a JWT the test issuer signed, with scope and aud as given.
func (a *authTest) token(scope, aud string, exp time.Time) string {
	enc := base64.RawURLEncoding.EncodeToString
	claims, _ := json.Marshal(map[string]any{"iss": authIssuer, "aud": aud, "sub": "agent", "exp": exp.Unix(), "scope": scope})
	in := enc([]byte(`{"alg":"EdDSA","kid":"k1","typ":"at+jwt"}`)) + "." + enc(claims)
	return in + "." + enc(ed25519.Sign(a.key, []byte(in)))
}

// do answers a request with the given header fields ("Name", "value", …) and body, as the
// plugin does, and gives the answer's replay hint.
func (a *authTest) do(t *testing.T, method, target, body string, fields ...string) (*wire.Response, wire.Replay) {
	t.Helper()
	req := &wire.Request{Method: method, Target: target, Header: header(append([]string{"Host", "skills.example"}, fields...)...), Body: []byte(body)}
	out, replay := a.s.AppendHTTP(nil, req)
	resp, err := wire.ParseResponse(out)
	if err != nil {
		t.Fatal(err)
	}
	return &resp, replay
}

func TestCheck(t *testing.T) {
	opts := wire.Options{Auth: []byte(`{"resource":"https://s.example/mcp","jwt":{"issuer":"x","jwks":{"keys":[]}}}`)}
	for _, c := range []struct {
		name string
		err  string
		err2 error
	}{
		{"no auth option", "", Check(wire.Options{})},
		{"a bad auth option", "auth accepts no credential", Check(wire.Options{Auth: []byte(`{"tokens":[]}`)})},
		{"an auth option", "", Check(opts)},
		{"an Access field the server reads for another thing", "auth.access.header \"Authorization\" is a field the server reads for something else",
			Check(wire.Options{Auth: []byte(`{"resource":"https://s.example/mcp","access":{"teamDomain":"https://t.example","aud":"a","header":"Authorization"}}`)})},
		{"a key set the host fetches", "", Check(wire.Options{Auth: []byte(`{"resource":"https://s.example/mcp","jwt":{"issuer":"x","jwksUri":"https://x.example/jwks"}}`)})},
	} {
		if (c.err == "") != (c.err2 == nil) || c.err2 != nil && !strings.Contains(c.err2.Error(), c.err) {
			t.Errorf("%s: %v, want %q", c.name, c.err2, c.err)
		}
	}
}

// TestGate: every surface over HTTP asks for a credential granting the default scopes; the
// metadata and CORS preflights do not; answers to authorized callers are private, and
// replayable until the credential expires (a token's exp; never, for a static key), not
// at all once it has (a token let in by the clock skew); refusals name no skill and are
// never replayable.
func TestGate(t *testing.T) {
	a := newAuthTest(t, "access:\n  default: [skills:read]\n")
	const meta = `resource_metadata="https://skills.example/.well-known/oauth-protected-resource/mcp"`
	list := request(7, "skills/list", `{`+modernMeta+`}`)
	modern := []string{"Content-Type", "application/json", "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "skills/list"}
	good := a.token("skills:read other", authResource, authNow.Add(time.Hour))
	for _, c := range []struct {
		name, method, target, body string
		fields                     []string
		status                     int
		challenge                  string // WWW-Authenticate, when refused
		expires                    int64  // the replay hint's expiry, of an answer to /mcp; -1: no hint
	}{
		{"no credential", "POST", "/mcp", list, modern, 401, `Bearer ` + meta + `, scope="skills:read"`, -1},
		{"a token in the query string", "POST", "/mcp?access_token=" + good, list, modern, 401, `Bearer ` + meta + `, scope="skills:read"`, -1},
		{"a valid token", "POST", "/mcp", list, append(modern, "Authorization", "Bearer "+good), 200, "", authNow.Add(time.Minute).Unix()},
		// The answer says it may not be kept (ttlMs 0: less than a minute left), and is
		// given again until exp.
		{"a token with seconds left", "POST", "/mcp", list, append(modern, "Authorization", "Bearer "+a.token("skills:read", authResource, authNow.Add(10*time.Second))), 200, "", authNow.Add(10 * time.Second).Unix()},
		{"a static key", "POST", "/mcp", list, append(modern, "Authorization", "Bearer "+a.ske), 200, "", authNow.Add(time.Minute).Unix()},
		{"a token past its exp, within the clock skew", "POST", "/mcp", list, append(modern, "Authorization", "Bearer "+a.token("skills:read", authResource, authNow.Add(-time.Second))), 200, "", -1},
		{"a token that expires now", "POST", "/mcp", list, append(modern, "Authorization", "Bearer "+a.token("skills:read", authResource, authNow)), 200, "", -1},
		{"an expired token", "POST", "/mcp", list, append(modern, "Authorization", "Bearer "+a.token("skills:read", authResource, authNow.Add(-time.Hour))), 401,
			`Bearer ` + meta + `, scope="skills:read", error="invalid_token"`, -1},
		{"another audience", "POST", "/mcp", list, append(modern, "Authorization", "Bearer "+a.token("skills:read", "https://other.example/mcp", authNow.Add(time.Hour))), 401,
			`Bearer ` + meta + `, scope="skills:read", error="invalid_token"`, -1},
		{"too few scopes", "POST", "/mcp", list, append(modern, "Authorization", "Bearer "+a.token("other", authResource, authNow.Add(time.Hour))), 403,
			`Bearer ` + meta + `, scope="skills:read", error="insufficient_scope"`, -1},
		{"two Authorization fields", "POST", "/mcp", list, append(modern, "Authorization", "Bearer "+good, "Authorization", "Bearer "+a.ske), 401,
			`Bearer ` + meta + `, scope="skills:read", error="invalid_token"`, -1},
		{"two Authorization fields, joined as hosts frame them", "POST", "/mcp", list, append(modern, "Authorization", "Bearer "+good+", Bearer "+a.ske), 401,
			`Bearer ` + meta + `, scope="skills:read", error="invalid_token"`, -1},
		{"a well-known index", "GET", "/.well-known/agent-skills/index.json", "", nil, 401, `Bearer ` + meta + `, scope="skills:read"`, -1},
		{"a well-known file", "GET", "/.well-known/skills/a/SKILL.md", "", nil, 401, `Bearer ` + meta + `, scope="skills:read"`, -1},
		{"the page", "GET", "/", "", []string{"Accept", "text/html"}, 401, `Bearer ` + meta + `, scope="skills:read"`, -1},
		{"the page, too few scopes", "GET", "/", "", []string{"Accept", "text/html", "Authorization", "Bearer " + a.token("other", authResource, authNow.Add(time.Hour))}, 403,
			`Bearer ` + meta + `, scope="skills:read", error="insufficient_scope"`, -1},
		{"/ not asking for HTML", "GET", "/", "", nil, 200, "", -1},
		{"the sitemap", "GET", "/sitemap.xml", "", nil, 401, `Bearer ` + meta + `, scope="skills:read"`, -1},
		{"the metadata", "GET", "/.well-known/oauth-protected-resource/mcp", "", nil, 200, "", -1},
		{"the metadata at the root", "GET", "/.well-known/oauth-protected-resource", "", nil, 200, "", -1},
		{"a CORS preflight", "OPTIONS", "/mcp", "", []string{"Origin", "https://app.example"}, 204, "", -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, replay := a.do(t, c.method, c.target, c.body, c.fields...)
			if resp.Status != c.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, c.status, resp.Body)
			}
			got, _ := resp.Header.Get("WWW-Authenticate")
			if got != c.challenge {
				t.Fatalf("WWW-Authenticate %q, want %q", got, c.challenge)
			}
			if c.status >= 400 && (strings.Contains(string(resp.Body), `"a"`) || strings.Contains(string(resp.Body), "skill://")) {
				t.Fatalf("a refusal names a skill: %s", resp.Body)
			}
			if c.status >= 400 && replay.IDLen > 0 {
				t.Fatalf("a refusal is replayable: %+v", replay)
			}
			if c.status == 200 && strings.HasPrefix(c.target, "/mcp") {
				cc, _ := resp.Header.Get("Cache-Control")
				vary, _ := resp.Header.Get("Vary")
				if cc != "private" || vary != "Authorization" || !strings.Contains(string(resp.Body), `"cacheScope":"private"`) {
					t.Fatalf("an authorized answer: Cache-Control %q, Vary %q, body %s", cc, vary, resp.Body)
				}
				switch {
				case c.expires < 0 && replay.IDLen > 0:
					t.Fatalf("an answer to an expired credential is replayable: %+v", replay)
				case c.expires >= 0 && (replay.IDLen == 0 || replay.Expires != c.expires):
					t.Fatalf("an authorized answer's replay %+v, want one expiring at %d", replay, c.expires)
				}
			}
		})
	}
	// A browser refused the page is shown why, and how to give a credential; a plain GET
	// of / (curl) is told where the page and the endpoint are, credential or not.
	for _, c := range []struct {
		fields []string
		status int
		says   string
	}{
		{[]string{"Accept", "text/html"}, 401, "Its page, like its MCP endpoint, is served to callers with a credential"},
		{[]string{"Accept", "text/html", "Authorization", "Bearer " + a.token("other", authResource, authNow.Add(time.Hour))}, 403, "does not grant the scopes its page needs: skills:read"},
		{nil, 200, "MCP endpoint: POST https://skills.example/mcp"},
		{[]string{"Authorization", "Bearer " + good}, 200, "MCP endpoint: POST https://skills.example/mcp"},
	} {
		resp, _ := a.do(t, "GET", "/", "", c.fields...)
		ct, _ := resp.Header.Get("Content-Type")
		want := "text/html; charset=utf-8"
		if c.status == 200 {
			want = "text/plain; charset=utf-8"
		}
		if resp.Status != c.status || ct != want || !strings.Contains(string(resp.Body), c.says) {
			t.Errorf("GET / %q: %d %s\n%s", c.fields, resp.Status, ct, resp.Body)
		}
	}
	resp, _ := a.do(t, "GET", "/.well-known/oauth-protected-resource/mcp", "")
	var prm map[string]any
	if err := json.Unmarshal(resp.Body, &prm); err != nil {
		t.Fatal(err)
	}
	want := `{"authorization_servers":["https://as.example"],"bearer_methods_supported":["header"],"resource":"https://skills.example/mcp","scopes_supported":["skills:read"]}`
	if b, _ := json.Marshal(prm); string(b) != want {
		t.Fatalf("metadata %s, want %s", b, want)
	}
	// An authorized well-known file keeps its max-age, privately.
	resp, _ = a.do(t, "GET", "/.well-known/skills/a/SKILL.md", "", "Authorization", "Bearer "+good)
	if cc, _ := resp.Header.Get("Cache-Control"); resp.Status != 200 || cc != "private, max-age=300" {
		t.Fatalf("an authorized well-known file: %d, Cache-Control %q", resp.Status, cc)
	}
}

// TestCacheLifetime: an answer to an authorized caller is kept no longer than the
// credential holds. Its max-age (a well-known file) and ttlMs (a modern result) are the
// usual five minutes or the credential's remaining lifetime in whole seconds, rounded
// down, whichever is shorter, and 0 under a second; a static key has no end. And a
// replay never makes it outlive the credential: the hint of an answer that says it may be
// kept for ttlMs expires that long before the credential does (so that an answer given
// again at the hint's last moment is still kept no later than exp); an answer that says
// nothing of how long it may be kept (the 2025 era's) is replayed until exp, as before.
func TestCacheLifetime(t *testing.T) {
	a := newAuthTest(t, "access:\n  default: [skills:read]\n")
	modern := []string{"Content-Type", "application/json", "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "skills/list"}
	token := func(exp time.Duration) string {
		return "Bearer " + a.token("skills:read", authResource, authNow.Add(exp))
	}
	T := authNow.Unix()
	for _, c := range []struct {
		name          string
		authorization string
		now           time.Duration // after authNow
		cacheControl  string        // of a well-known file, the page, the sitemap
		ttl           int64         // ttlMs of a modern skills/list
		replay        int64         // its replay hint's expiry; -1: none
		legacyReplay  int64         // that of the same request in the 2025 era
	}{
		{"an hour left", token(time.Hour), 0, "private, max-age=300", 300000, T + 60, T + 60},
		{"a static key", "Bearer " + a.ske, 0, "private, max-age=300", 300000, T + 60, T + 60},
		{"six minutes left", token(6 * time.Minute), 0, "private, max-age=300", 300000, T + 60, T + 60},
		{"five and a half minutes left: ttlMs a minute short of it, replayed for the minute", token(330 * time.Second), 0, "private, max-age=300", 270000, T + 60, T + 60},
		{"a minute and a half left", token(90 * time.Second), 0, "private, max-age=90", 30000, T + 60, T + 60},
		{"four seconds left", token(4 * time.Second), 0, "private, max-age=4", 0, T + 4, T + 4},
		{"three and a half seconds left, rounded down", token(4 * time.Second), 500 * time.Millisecond, "private, max-age=3", 0, T + 4, T + 4},
		{"half a second left", token(time.Second), 500 * time.Millisecond, "private, max-age=0", 0, T + 1, T + 1},
		{"expires now", token(0), 0, "private, max-age=0", 0, -1, -1},
		{"past exp, within the clock skew", token(-time.Second), 0, "private, max-age=0", 0, -1, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			a.s.auth.now = func() time.Time { return authNow.Add(c.now) }
			defer func() { a.s.auth.now = func() time.Time { return authNow } }()
			for _, target := range []string{"/.well-known/skills/a/SKILL.md", "/.well-known/agent-skills/index.json", "/sitemap.xml", "/"} {
				resp, _ := a.do(t, "GET", target, "", "Accept", "text/html", "Authorization", c.authorization)
				if cc, _ := resp.Header.Get("Cache-Control"); resp.Status != 200 || cc != c.cacheControl {
					t.Errorf("%s: %d, Cache-Control %q, want %q", target, resp.Status, cc, c.cacheControl)
				}
			}
			resp, replay := a.do(t, "POST", "/mcp", request(7, "skills/list", `{`+modernMeta+`}`), append(modern, "Authorization", c.authorization)...)
			ttl := gjson.GetBytes(resp.Body, "result.ttlMs")
			if resp.Status != 200 || !ttl.Exists() || ttl.Int() != c.ttl {
				t.Errorf("skills/list: %d, ttlMs %s, want %d: %s", resp.Status, ttl.Raw, c.ttl, resp.Body)
			}
			if got := replayExpiry(replay); got != c.replay {
				t.Errorf("skills/list: replayed until %d, want %d", got, c.replay)
			}
			_, replay = a.do(t, "POST", "/mcp", request(7, "skills/list", ""), "Content-Type", "application/json", "Authorization", c.authorization)
			if got := replayExpiry(replay); got != c.legacyReplay {
				t.Errorf("skills/list in the 2025 era: replayed until %d, want %d", got, c.legacyReplay)
			}
		})
	}
}

// replayExpiry is the expiry of a replay hint, -1 for none.
func replayExpiry(r wire.Replay) int64 {
	if r.IDLen == 0 {
		return -1
	}
	return r.Expires
}

// TestGateStdio: a local process asks for no credential.
func TestGateStdio(t *testing.T) {
	a := newAuthTest(t, "access:\n  default: [skills:read]\n")
	reply, _, _ := a.s.HandleMessage(V20251125, []byte(request(1, "skills/list", "")))
	if !strings.Contains(string(reply), `"skills":[`) {
		t.Fatalf("over stdio: %s", reply)
	}
}

// TestProtectedResourceKept: the metadata document is the server's, not an answer's
// buffer: answers built after it was served leave it as it was. (The reply scratch kept
// the body it was handed for the next answer to be built in.)
func TestProtectedResourceKept(t *testing.T) {
	a := newAuthTest(t, "access:\n  default: [skills:read]\n")
	first, _ := a.do(t, "GET", "/.well-known/oauth-protected-resource/mcp", "")
	want := string(first.Body)
	good := a.token("skills:read", authResource, authNow.Add(time.Hour))
	for i := range 3 {
		a.do(t, "POST", "/mcp", request(i, "skills/list", `{`+modernMeta+`}`),
			"Content-Type", "application/json", "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "skills/list", "Authorization", "Bearer "+good)
		again, _ := a.do(t, "GET", "/.well-known/oauth-protected-resource/mcp", "")
		if string(again.Body) != want {
			t.Fatalf("after %d answers, the metadata is %q, want %q", i+1, again.Body, want)
		}
	}
}

// TestGateFetchedKeys: with a key set the host fetches, a token is refused alike (401,
// nothing said) until the host gave the set, and the server names the URL it wants; a
// token of a key the set lacks (a rotation) makes it want the set again.
func TestGateFetchedKeys(t *testing.T) {
	const jwksURI = "https://as.example/jwks"
	pub, key, _ := ed25519.GenerateKey(rand.Reader)
	jwks := func(kid string, pub ed25519.PublicKey) []byte {
		b, _ := json.Marshal(map[string]any{"keys": []map[string]string{{"kty": "OKP", "crv": "Ed25519", "kid": kid,
			"x": base64.RawURLEncoding.EncodeToString(pub)}}})
		return b
	}
	opts := wire.Options{AllowHosts: []string{"*"}, Auth: []byte(`{"resource":"` + authResource + `",
		"jwt":{"issuer":"` + authIssuer + `","jwksUri":"` + jwksURI + `"}}`)}
	p := packOf(t, map[string]string{"a/SKILL.md": skillMD("a"), "skilledge.yaml": "access:\n  default: [skills:read]\n"})
	if err := Check(opts); err != nil {
		t.Fatal(err)
	}
	a := &authTest{s: New(p, opts), key: key}
	a.s.auth.now = func() time.Time { return authNow }
	list := request(7, "skills/list", `{`+modernMeta+`}`)
	modern := []string{"Content-Type", "application/json", "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "skills/list"}
	status := func(token string) int {
		resp, _ := a.do(t, "POST", "/mcp", list, append(modern, "Authorization", "Bearer "+token)...)
		if resp.Status != 200 && strings.Contains(string(resp.Body), jwksURI) {
			t.Fatalf("a refusal names the key set: %s", resp.Body)
		}
		return resp.Status
	}
	wanted := func(what string, want ...string) {
		t.Helper()
		if got := a.s.KeysWanted(); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("%s: KeysWanted() = %q, want %q", what, got, want)
		}
	}
	good := a.token("skills:read", authResource, authNow.Add(time.Hour))
	wanted("before the set came", jwksURI)
	if got := status(good); got != 401 {
		t.Fatalf("without the key set: %d", got)
	}
	if err := a.s.SetKeys("https://elsewhere.example/jwks", jwks("k1", pub)); err == nil {
		t.Fatal("a set from a URL the option does not name was taken")
	}
	if err := a.s.SetKeys(jwksURI, []byte("<html>")); err == nil {
		t.Fatal("a document that is no key set was taken")
	}
	wanted("after refusals", jwksURI)
	if err := a.s.SetKeys(jwksURI, jwks("k1", pub)); err != nil {
		t.Fatal(err)
	}
	wanted("once the set came")
	if got := status(good); got != 200 {
		t.Fatalf("with the key set: %d", got)
	}
	// The issuer rotates to k2: its tokens name a kid the set lacks.
	pub2, key2, _ := ed25519.GenerateKey(rand.Reader)
	enc := base64.RawURLEncoding.EncodeToString
	claims, _ := json.Marshal(map[string]any{"iss": authIssuer, "aud": authResource, "exp": authNow.Add(time.Hour).Unix(), "scope": "skills:read"})
	in := enc([]byte(`{"alg":"EdDSA","kid":"k2","typ":"at+jwt"}`)) + "." + enc(claims)
	rotated := in + "." + enc(ed25519.Sign(key2, []byte(in)))
	if got := status(rotated); got != 401 {
		t.Fatalf("a rotated key before the new set came: %d", got)
	}
	wanted("after a kid the set lacks", jwksURI)
	if got := status(""); got != 401 {
		t.Fatalf("no token: %d", got)
	}
	wanted("after a refusal that names no key, the miss listed once")
	if got := status(rotated); got != 401 {
		t.Fatalf("a rotated key before the new set came: %d", got)
	}
	if err := a.s.SetKeys(jwksURI, jwks("k2", pub2)); err != nil {
		t.Fatal(err)
	}
	wanted("once the new set came")
	if got := status(rotated); got != 200 {
		t.Fatalf("a rotated key with the new set: %d", got)
	}
	if got := status(good); got != 401 {
		t.Fatalf("the retired key: %d", got)
	}
	if s := New(p, wire.Options{}); s.KeysWanted() != nil || s.SetKeys(jwksURI, jwks("k1", pub)) == nil {
		t.Fatal("a server without the auth option wants keys, or takes them")
	}
}

// TestReplayUntil: an authorized answer's replay expires with the credential, at a whole
// second no later than its exp less the seconds the answer says it may be kept; a minute
// after the answer at the latest, a static key's too; and is not given at all when that
// second is not in the future.
func TestReplayUntil(t *testing.T) {
	for _, c := range []struct {
		name         string
		expires, now time.Time
		fresh        int64
		want         int64
		ok           bool
	}{
		{"a static key: a minute", time.Time{}, authNow, 0, authNow.Unix() + 60, true},
		{"a static key, an answer kept five minutes: a minute", time.Time{}, authNow, 300, authNow.Unix() + 60, true},
		{"an hour left: a minute", authNow.Add(time.Hour), authNow, 0, authNow.Unix() + 60, true},
		{"an hour left, an answer kept five minutes: a minute", authNow.Add(time.Hour), authNow, 300, authNow.Unix() + 60, true},
		{"30 seconds left", authNow.Add(30 * time.Second), authNow, 0, authNow.Unix() + 30, true},
		{"30 seconds left, an answer kept 10 seconds", authNow.Add(30 * time.Second), authNow, 10, authNow.Unix() + 20, true},
		{"30 seconds left, an answer kept as long", authNow.Add(30 * time.Second), authNow, 30, 0, false},
		{"a fractional exp, rounded down", authNow.Add(1500 * time.Millisecond), authNow, 0, authNow.Unix() + 1, true},
		{"less than a second left, rounded down to now", authNow.Add(500 * time.Millisecond), authNow, 0, 0, false},
		{"expires now", authNow, authNow, 0, 0, false},
		{"expired", authNow.Add(-time.Second), authNow, 0, 0, false},
	} {
		got, ok := replayUntil(c.expires, c.now, c.fresh)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("%s: %d %t, want %d %t", c.name, got, ok, c.want, c.ok)
		}
	}
}

// TestAccessHeader: an Access assertion in the field auth.access.header names is read there
// and nowhere else: hosts are asked to frame that field, Cf-Access-Jwt-Assertion then
// carries nothing, and the field twice is refused.
func TestAccessHeader(t *testing.T) {
	const team, aud, certs = "https://acme.cloudflareaccess.com", "app-aud", "https://acme.cloudflareaccess.com/cdn-cgi/access/certs"
	opts := wire.Options{AllowHosts: []string{"*"}, Auth: []byte(`{"resource":"` + authResource + `",
		"access":{"teamDomain":"` + team + `","aud":"` + aud + `","header":"X-Access-Jwt"}}`)}
	if err := Check(opts); err != nil {
		t.Fatal(err)
	}
	if f := Fields(opts); !slices.Contains(f, "x-access-jwt") || slices.Contains(f, hdrAccessAssertion) || len(f) != len(RequestFields) {
		t.Fatalf("Fields: %q", f)
	}
	p := packOf(t, map[string]string{"a/SKILL.md": skillMD("a"), "skilledge.yaml": "access:\n  default: []\n"})
	a := &authTest{s: New(p, opts), key: authKey}
	a.s.auth.now = func() time.Time { return authNow }
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{{"kty": "OKP", "crv": "Ed25519", "kid": "k1",
		"x": base64.RawURLEncoding.EncodeToString(authPub)}}})
	if err := a.s.SetKeys(certs, jwks); err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	claims, _ := json.Marshal(map[string]any{"iss": team, "aud": []string{aud}, "sub": "u", "exp": authNow.Add(time.Hour).Unix()})
	in := enc([]byte(`{"alg":"EdDSA","kid":"k1","typ":"JWT"}`)) + "." + enc(claims)
	assertion := in + "." + enc(ed25519.Sign(authKey, []byte(in)))
	for _, c := range []struct {
		name   string
		fields []string
		status int
	}{
		{"in its field", []string{"X-Access-Jwt", assertion}, 200},
		{"in Cloudflare's field", []string{"Cf-Access-Jwt-Assertion", assertion}, 401},
		{"twice", []string{"X-Access-Jwt", assertion, "x-access-jwt", assertion}, 401},
	} {
		resp, _ := a.do(t, "GET", "/.well-known/skills/index.json", "", c.fields...)
		if resp.Status != c.status {
			t.Errorf("%s: %d, want %d: %s", c.name, resp.Status, c.status, resp.Body)
		}
		if vary, _ := resp.Header.Get("Vary"); c.status == 200 && vary != "Authorization, X-Access-Jwt" {
			t.Errorf("%s: Vary %q", c.name, vary)
		}
	}
}

// TestGateStaticKeysOnly: an auth option that takes only static keys is no OAuth resource
// server, and says so: its challenge names no metadata (there is no authorization server
// to find through it) but the realm of static API keys, its refusals say that a static
// key is needed and how it is sent, and no RFC 9728 document is served (its path is
// answered like any other, to a caller with a key). With an Access section, the same, for
// what it takes; with jwt, the challenge and the metadata stay OAuth's.
func TestGateStaticKeysOnly(t *testing.T) {
	entry, key := auth.NewStaticKey("ci", []string{"skills:read"})
	other, otherKey := auth.NewStaticKey("other", []string{"other"})
	files := map[string]string{"a/SKILL.md": skillMD("a"), "skilledge.yaml": "access:\n  default: [skills:read]\n"}
	server := func(option string) *Server {
		opts := wire.Options{AllowHosts: []string{"*"}, Auth: []byte(option)}
		if err := Check(opts); err != nil {
			t.Fatal(err)
		}
		return New(packOf(t, files), opts)
	}
	tokens := `"tokens":[{"name":"ci","sha256":"` + entry.Hex() + `","scopes":["skills:read"]},{"name":"other","sha256":"` + other.Hex() + `","scopes":["other"]}]`
	keys := server(`{"resource":"` + authResource + `",` + tokens + `}`)
	withAccess := server(`{"resource":"` + authResource + `","access":{"teamDomain":"https://acme.cloudflareaccess.com","aud":"x","scopes":["skills:read"]},` + tokens + `}`)
	list := request(1, "skills/list", "")
	post := []string{"Host", "skills.example", "Content-Type", "application/json", "Mcp-Protocol-Version", "2025-11-25"}
	for _, c := range []struct {
		name           string
		s              *Server
		method, target string
		fields         []string
		status         int
		challenge      string // WWW-Authenticate
		message        string // in the body
	}{
		{"no credential", keys, "POST", "/mcp", post, 401, `Bearer realm="static API keys", scope="skills:read"`,
			`Unauthorized: this server needs a static API key (Authorization: Bearer ske_…)`},
		{"a key it does not know", keys, "POST", "/mcp", append(post, "Authorization", "Bearer ske_"+strings.Repeat("A", 43)), 401,
			`Bearer realm="static API keys", scope="skills:read", error="invalid_token"`, `needs a static API key (Authorization: Bearer ske_…)`},
		{"a JWT", keys, "POST", "/mcp", append(post, "Authorization", "Bearer eyJhbGciOiJFUzI1NiJ9.e30.AAAA"), 401,
			`Bearer realm="static API keys", scope="skills:read", error="invalid_token"`, `needs a static API key`},
		{"a key without the scopes", keys, "POST", "/mcp", append(post, "Authorization", "Bearer "+otherKey), 403,
			`Bearer realm="static API keys", scope="skills:read", error="insufficient_scope"`, `Forbidden: the API key does not grant the scopes this server needs: skills:read`},
		{"a key", keys, "POST", "/mcp", append(post, "Authorization", "Bearer "+key), 200, "", `"skill://a/SKILL.md"`},
		{"the metadata, without a key", keys, "GET", "/.well-known/oauth-protected-resource/mcp", []string{"Host", "skills.example"}, 401,
			`Bearer realm="static API keys", scope="skills:read"`, `needs a static API key`},
		{"the metadata, with a key", keys, "GET", "/.well-known/oauth-protected-resource/mcp", []string{"Host", "skills.example", "Authorization", "Bearer " + key}, 404, "", ""},
		{"Access and keys", withAccess, "POST", "/mcp", post, 401, `Bearer realm="Cloudflare Access or static API keys", scope="skills:read"`,
			`Unauthorized: this server needs a Cloudflare Access assertion or a static API key (Authorization: Bearer ske_…)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := ""
			if c.method == "POST" {
				body = list
			}
			out, _ := c.s.AppendHTTP(nil, &wire.Request{Method: c.method, Target: c.target, Header: header(c.fields...), Body: []byte(body)})
			resp, err := wire.ParseResponse(out)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := resp.Header.Get("WWW-Authenticate")
			if resp.Status != c.status || got != c.challenge || !strings.Contains(string(resp.Body), c.message) {
				t.Fatalf("%d, WWW-Authenticate %q: %s\nwant %d, %q and a body with %q", resp.Status, got, resp.Body, c.status, c.challenge, c.message)
			}
			if strings.Contains(string(resp.Body), "OAuth") || strings.Contains(string(resp.Body), "authorization_servers") {
				t.Fatalf("a deployment without OAuth speaks of it: %s", resp.Body)
			}
		})
	}
}
