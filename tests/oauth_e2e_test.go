//go:build e2e

package tests

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skilledge/skilledge/edge/auth"
)

// A real authorization server for the OAuth tests: tests/oauth/as.mjs runs oidc-provider
// (pinned in build/package.json) on a loopback port, issuing RFC 9068 JWT access tokens
// for the resource each token request names (RFC 8707). The helpers here start it and
// get tokens from it by plain HTTP, as a hostile or careless client would; the SDK's own
// OAuth flows are tests/oauth/client.mjs's.

// asClient is a client the authorization server knows (see as.mjs).
type asClient struct {
	ID           string   `json:"id"`
	Secret       string   `json:"secret,omitempty"`
	Grant        string   `json:"grant,omitempty"` // "client_credentials" (default) or "authorization_code"
	Scope        string   `json:"scope,omitempty"` // what it may be granted
	Alg          string   `json:"alg,omitempty"`   // RS256, PS256, ES256 or EdDSA
	RedirectURIs []string `json:"redirectUris,omitempty"`
}

// asConfig is as.mjs's configuration.
type asConfig struct {
	Clients   []asClient `json:"clients"`
	Alg       string     `json:"alg,omitempty"`
	TTL       int        `json:"ttl,omitempty"`
	Resources []string   `json:"resources,omitempty"`
}

// authServer is a running as.mjs: what it printed when ready.
type authServer struct {
	Issuer                string            `json:"issuer"`
	JWKSURI               string            `json:"jwksUri"`
	TokenEndpoint         string            `json:"tokenEndpoint"`
	AuthorizationEndpoint string            `json:"authorizationEndpoint"`
	Metadata              string            `json:"metadata"`
	Algs                  map[string]string `json:"algs"`
}

// startAS starts as.mjs with cfg and returns it once it listens. It is stopped (its stdin
// closed, then killed if it lingers) when the test ends.
func startAS(t testing.TB, cfg asConfig) *authServer {
	t.Helper()
	conf, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, nodeBin(t), filepath.Join(repoRoot(t), "tests", "oauth", "as.mjs"), string(conf))
	cmd.WaitDelay = 5 * time.Second
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cancel()
			<-exited
		}
		cancel()
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			ready <- sc.Text()
		}
		close(ready)
		io.Copy(io.Discard, stdout)
	}()
	var line string
	select {
	case l, ok := <-ready:
		if !ok {
			t.Fatalf("as.mjs ended before it was ready:\n%s", stderr.String())
		}
		line = l
	case <-time.After(time.Minute):
		t.Fatalf("as.mjs was not ready in a minute:\n%s", stderr.String())
	}
	as := &authServer{}
	if err := json.Unmarshal([]byte(line), as); err != nil || as.Issuer == "" {
		t.Fatalf("as.mjs printed %q (%v)", line, err)
	}
	return as
}

// get fetches url from the authorization server: its body, with a 200.
func (a *authServer) get(t testing.TB, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v\n%s", url, resp.StatusCode, err, b)
	}
	return b
}

// JWKS is the server's key set, fetched from the jwks_uri its metadata names.
func (a *authServer) JWKS(t testing.TB) []byte {
	t.Helper()
	var md struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.Unmarshal(a.get(t, a.Metadata), &md); err != nil || md.Issuer != a.Issuer || md.JWKSURI == "" {
		t.Fatalf("the authorization server metadata: issuer %q jwks_uri %q (%v)", md.Issuer, md.JWKSURI, err)
	}
	return a.get(t, md.JWKSURI)
}

// tokenResponse is the token endpoint's answer (RFC 6749 §5.1, §5.2).
type tokenResponse struct {
	Status      int    `json:"-"`
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	Scope       string `json:"scope"`
	ExpiresIn   int    `json:"expires_in"`
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// ClientCredentials asks for a token by a plain client_credentials POST, the client
// authenticating with HTTP Basic; resource and scope are sent when not "".
func (a *authServer) ClientCredentials(t testing.TB, id, secret, resource, scope string) tokenResponse {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}}
	if resource != "" {
		form.Set("resource", resource)
	}
	if scope != "" {
		form.Set("scope", scope)
	}
	req, err := http.NewRequest("POST", a.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret)) // RFC 6749 §2.3.1
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tr tokenResponse
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("the token endpoint answered %d %q", resp.StatusCode, b)
	}
	tr.Status = resp.StatusCode
	return tr
}

// token is ClientCredentials that must succeed.
func (a *authServer) token(t testing.TB, id, secret, resource, scope string) tokenResponse {
	t.Helper()
	tr := a.ClientCredentials(t, id, secret, resource, scope)
	if tr.Status != 200 || tr.AccessToken == "" || !strings.EqualFold(tr.TokenType, "Bearer") {
		t.Fatalf("token for %s (resource %q, scope %q): %d %s: %s", id, resource, scope, tr.Status, tr.Error, tr.Description)
	}
	return tr
}

// jwtHeader decodes a compact JWS's header.
func jwtHeader(t testing.TB, token string) map[string]any {
	t.Helper()
	h, _, _ := strings.Cut(token, ".")
	var m map[string]any
	b, err := base64.RawURLEncoding.DecodeString(h)
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatalf("the token's header: %v", err)
	}
	return m
}

// Clients of the tests: secrets are made up for the run (as.mjs wants 16 characters).
var (
	asReader  = asClient{ID: "reader", Secret: "reader-secret-0123456789", Scope: "skills:read", Alg: "ES256"}
	asFinance = asClient{ID: "finance", Secret: "finance-secret-0123456789", Scope: "skills:read skills:finance", Alg: "RS256"}
	asPS      = asClient{ID: "pss", Secret: "pss-secret-0123456789", Scope: "skills:read", Alg: "PS256"}
	asEd      = asClient{ID: "edwards", Secret: "edwards-secret-0123456789", Scope: "skills:read", Alg: "EdDSA"}
)

// TestOAuthTokensVerify: access tokens from a real authorization server verify with
// edge/auth, configured as the auth option says, with exactly the scopes the server
// granted, for every signing algorithm; a token for another resource, an opaque token,
// one from another authorization server and an expired one are refused.
func TestOAuthTokensVerify(t *testing.T) {
	as := startAS(t, asConfig{Clients: []asClient{asReader, asFinance, asPS, asEd}})
	const resource = "http://127.0.0.1:8787/mcp"
	jwks := as.JWKS(t)
	inline, err := auth.ParseConfig([]byte(fmt.Sprintf(`{"resource":%q,"jwt":{"issuer":%q,"jwks":%s}}`, resource, as.Issuer, jwks)))
	if err != nil {
		t.Fatal(err)
	}
	// The same issuer with its key set fetched by the host from jwksUri (Fetch, SetKeys).
	fetched, err := auth.ParseConfig([]byte(fmt.Sprintf(`{"resource":%q,"jwt":{"issuer":%q,"jwksUri":%q}}`, resource, as.Issuer, as.JWKSURI)))
	if err != nil {
		t.Fatal(err)
	}
	if f := fetched.Fetch(); len(f) != 1 || f[0] != as.JWKSURI {
		t.Fatalf("Fetch() = %q, want [%s]", f, as.JWKSURI)
	}
	if err := fetched.SetKeys(as.JWKSURI, as.get(t, as.JWKSURI)); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, c := range []struct {
		client    asClient
		ask, want string
	}{
		{asReader, "skills:read", "skills:read"},
		{asReader, "skills:read skills:finance", "skills:read"}, // asks for more than it may have
		{asFinance, "skills:read skills:finance", "skills:finance skills:read"},
		{asFinance, "skills:finance", "skills:finance"},
		{asPS, "skills:read openid", "skills:read"},
		{asEd, "skills:read", "skills:read"},
	} {
		name := c.client.ID + " asking " + c.ask
		tr := as.token(t, c.client.ID, c.client.Secret, resource, c.ask)
		h := jwtHeader(t, tr.AccessToken)
		if h["typ"] != "at+jwt" || h["alg"] != c.client.Alg || h["kid"] == nil {
			t.Errorf("%s: header %v, want typ at+jwt, alg %s and a kid", name, h, c.client.Alg)
		}
		for cname, cfg := range map[string]*auth.Config{"inline jwks": inline, "jwksUri": fetched} {
			g, presented, err := cfg.Authenticate("Bearer "+tr.AccessToken, "", now)
			if err != nil || !presented {
				t.Errorf("%s (%s): %v (presented %v)", name, cname, err, presented)
				continue
			}
			if string(g.Scopes) != c.want || g.Subject != c.client.ID {
				t.Errorf("%s (%s): granted %q to %q, want %q to %q", name, cname, g.Scopes, g.Subject, c.want, c.client.ID)
			}
		}
		// The token endpoint says the same (in its order).
		if got := strings.Fields(tr.Scope); strings.Join(slices.Sorted(slices.Values(got)), " ") != c.want {
			t.Errorf("%s: the token response's scope is %q, want %q", name, tr.Scope, c.want)
		}
		// Expired once its lifetime and the default skew have passed.
		later := now.Add(time.Duration(tr.ExpiresIn)*time.Second + auth.DefaultSkew + time.Second)
		if _, _, err := inline.Authenticate("Bearer "+tr.AccessToken, "", later); !errors.Is(err, auth.ErrInvalid) || !strings.Contains(err.Error(), "expired") {
			t.Errorf("%s: at its expiry plus the skew: %v, want expired", name, err)
		}
	}

	refused := func(name, token, why string) {
		t.Helper()
		_, presented, err := inline.Authenticate("Bearer "+token, "", now)
		if !errors.Is(err, auth.ErrInvalid) || !presented || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v (presented %v), want an invalid credential: %s", name, err, presented, why)
		}
	}
	// Another resource's token: signed by the same keys, only the audience differs.
	other := as.token(t, asFinance.ID, asFinance.Secret, "http://127.0.0.1:8787/other", "skills:read skills:finance")
	refused("a token for another resource", other.AccessToken, "does not hold the resource")
	trailing := as.token(t, asReader.ID, asReader.Secret, resource+"/", "skills:read")
	refused("a token for the resource with a trailing slash", trailing.AccessToken, "does not hold the resource")
	// No resource named: oidc-provider issues an opaque token, which is no JWT.
	opaque := as.token(t, asReader.ID, asReader.Secret, "", "skills:read")
	refused("an opaque token (no resource asked for)", opaque.AccessToken, "not a JWS")
	// Another authorization server (its own keys and issuer) for the same resource.
	stranger := startAS(t, asConfig{Clients: []asClient{asReader}})
	foreign := stranger.token(t, asReader.ID, asReader.Secret, resource, "skills:read")
	if _, _, err := inline.Authenticate("Bearer "+foreign.AccessToken, "", now); !errors.Is(err, auth.ErrUnknownKey) {
		t.Errorf("a token of another authorization server: %v, want an unknown key", err)
	}

	// The token endpoint itself refuses a wrong secret, and a resource with a fragment.
	if tr := as.ClientCredentials(t, asReader.ID, "not-the-secret-0123456789", resource, "skills:read"); tr.Status != 401 || tr.Error != "invalid_client" {
		t.Errorf("a wrong client secret: %d %q, want 401 invalid_client", tr.Status, tr.Error)
	}
	if tr := as.ClientCredentials(t, asReader.ID, asReader.Secret, resource+"#x", "skills:read"); tr.Status != 400 || tr.Error != "invalid_target" {
		t.Errorf("a resource with a fragment: %d %q, want 400 invalid_target", tr.Status, tr.Error)
	}
}
