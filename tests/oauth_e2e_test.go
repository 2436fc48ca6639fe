//go:build e2e

package tests

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
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

// oauthSkills is the catalog of the OAuth end-to-end tests: two skills, a binary file among
// theirs, under an access policy every caller needs skills:read for, and ledger
// skills:finance too.
var oauthSkills = map[string]string{
	"skilledge.yaml":    "access:\n  default: [skills:read]\n  rules:\n    - path: ledger\n      scopes: [skills:finance]\n",
	"alpha/SKILL.md":    "---\nname: alpha\ndescription: The first skill of the OAuth tests.\n---\n\n# Alpha\n\nSee notes.md.\n",
	"alpha/notes.md":    "Notes for alpha.\n",
	"alpha/img/dot.png": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde\x00\x00\x00\x00IEND\xaeB`\x82",
	"ledger/SKILL.md":   "---\nname: ledger\ndescription: The second skill of the OAuth tests.\n---\n\n# Ledger\n\nRates are in rates.csv.\n",
	"ledger/rates.csv":  "currency,rate\nEUR,1\nUSD,1.08\n",
}

// serveWithAuth serves skills with `skilledge serve --auth FILE`, the file holding the auth
// option authFor(resource) gives, on a loopback port, and returns the MCP endpoint's URL,
// which is resource: the port is taken before the option is written, as the option must
// name the URL clients use.
func serveWithAuth(t *testing.T, skills map[string]string, authFor func(resource string) string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // serve listens on it next; nothing else on loopback takes it meanwhile
	resource := "http://" + addr + "/mcp"
	dir := t.TempDir()
	if err := writeFiles(dir, skills); err != nil {
		t.Fatal(err)
	}
	authFile := filepath.Join(t.TempDir(), "auth.json")
	if err := os.WriteFile(authFile, []byte(authFor(resource)), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := serve(t, dir, "--addr", addr, "--auth", authFile); got != resource {
		t.Fatalf("serve is at %s, want %s", got, resource)
	}
	return resource
}

// skillsFolder is the skills folder made of files (path: content), as a case's.
func skillsFolder(files map[string]string) *caseSkills {
	cs := &caseSkills{fs: fstest.MapFS{}}
	h := sha256.New()
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		cs.fs[rel] = &fstest.MapFile{Data: []byte(files[rel])}
		fmt.Fprintf(h, "%q %d\n%s", rel, len(files[rel]), files[rel])
	}
	cs.key = hex.EncodeToString(h.Sum(nil))
	return cs
}

func oauthCaseSkills() *caseSkills { return skillsFolder(oauthSkills) }

// workerdWithOptions serves deployment d in workerd with the options optionsFor(resource)
// gives, resource being the URL of its /mcp on a loopback port taken before the options
// are written (the auth option names it), and returns that URL. The port's socket is
// handed to workerd as a file descriptor, as startWorkerd does.
func workerdWithOptions(t *testing.T, d *deployment, optionsFor func(resource string) string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	resource := "http://" + ln.Addr().String() + "/mcp"
	f, err := ln.(*net.TCPListener).File()
	ln.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	config, err := workerdConfig(t.TempDir(), d, []string{optionsFor(resource)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, workerdBin(t), "serve", config, "--socket-fd", "http0=3")
	cmd.ExtraFiles = []*os.File{f}
	startLogged(t, cmd, cancel, "workerd output")
	return resource
}

// oauthReport is what tests/oauth/client.mjs prints.
type oauthReport struct {
	Connected bool        `json:"connected"`
	Error     *oauthError `json:"error"`
	Version   string      `json:"version"`
	HTTP      []exchange  `json:"http"`
	Token     *struct {
		Typ, Alg, Iss, Aud, Sub string
		ClientID                string  `json:"client_id"`
		Scope                   *string `json:"scope"`
	} `json:"token"`
	GrantedScope *string  `json:"grantedScope"`
	Skills       []string `json:"skills"`
	SkillURIs    []string `json:"skillUris"`
	Resources    []string `json:"resources"`
	Files        map[string]struct {
		OK     bool   `json:"ok"`
		Digest string `json:"digest"`
		Got    string `json:"got"`
		Size   int    `json:"size"`
	} `json:"files"`
	Probes []struct {
		Probe  map[string]any `json:"probe"`
		Failed bool           `json:"failed"`
		oauthError
		ToolError string `json:"toolError"`
	} `json:"probes"`
}

// exchange is a request client.mjs made (or its user agent, signing in), and its answer.
type exchange struct {
	Method        string            `json:"method"`
	URL           string            `json:"url"` // without the query
	Status        int               `json:"status"`
	Authorization string            `json:"authorization"` // the scheme sent, if any
	Challenge     string            `json:"challenge"`     // WWW-Authenticate
	GrantType     string            `json:"grant_type"`    // of a token request
	Resource      string            `json:"resource"`
	Scope         string            `json:"scope"`
	Form          string            `json:"form"`      // the page whose form was posted next
	Authorize     map[string]string `json:"authorize"` // the authorization request's parameters
}

type oauthError struct {
	Name    string `json:"name"`
	Code    *int   `json:"code"`
	Status  *int   `json:"status"`
	Message string `json:"message"`
}

// runOAuthClient runs client.mjs against url with spec and returns its report.
func runOAuthClient(t *testing.T, url string, spec map[string]any) oauthReport {
	t.Helper()
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runNode(t, filepath.Join(repoRoot(t), "tests", "oauth", "client.mjs"), url, string(b))
	var r oauthReport
	if err := json.Unmarshal([]byte(stdout), &r); code != 0 || err != nil {
		t.Fatalf("client.mjs %s: exit %d (%v)\nstdout: %s\nstderr: %s", b, code, err, stdout, stderr)
	}
	return r
}

// asApp is the public client of the authorization code flow; asOutsider may be granted no
// scope the server needs.
var (
	asApp      = asClient{ID: "app", Grant: "authorization_code", Scope: "skills:read", RedirectURIs: []string{"http://127.0.0.1/callback"}}
	asOutsider = asClient{ID: "outsider", Secret: "outsider-secret-0123456789", Scope: "other:things"}
)

// TestOAuthSDKClient: the official TypeScript SDK v2 client, pointed at the native host
// (as `skilledge serve` runs it) and at the Worker in workerd, each serving a private
// catalog with the auth option, is refused, discovers the authorization
// server through the 401 and the RFC 9728 document, gets a token for the server's resource
// by client credentials (in both protocol eras) and by the authorization code flow with
// PKCE (the sign-in and consent pages posted by a script), and lists and reads every skill,
// every file matching its digest; a client whose grant lacks the scope the server needs is
// refused after the SDK's step-up. Tokens sent by hand are judged alike.
// Clients whose grants differ see different catalogs: ledger only with skills:finance.
// The servers fetch the authorization server's key set from its jwks_uri, as deployed ones
// do.
func TestOAuthSDKClient(t *testing.T) {
	as := startAS(t, asConfig{Clients: []asClient{asReader, asFinance, asApp, asOutsider}})
	authFor := func(resource string) string {
		return fmt.Sprintf(`{"resource":%q,"jwt":{"issuer":%q,"jwksUri":%q}}`, resource, as.Issuer, as.JWKSURI)
	}
	t.Run("serve", func(t *testing.T) { oauthSuite(t, as, serveWithAuth(t, oauthSkills, authFor)) })
	t.Run("workerd", func(t *testing.T) {
		mcp := workerdWithOptions(t, caseDeployment(t, oauthCaseSkills()), func(resource string) string { return `{"auth":` + authFor(resource) + `}` })
		oauthSuite(t, as, mcp)
	})
}

// oauthSuite is TestOAuthSDKClient against the server at mcp, whose auth option trusts as.
func oauthSuite(t *testing.T, as *authServer, mcp string) {
	prm := strings.Replace(mcp, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1)
	challenge := `Bearer resource_metadata="` + prm + `", scope="skills:read"`

	// What a client that gets in must see: the skills its grant shows, every file of
	// theirs, each digest the SHA-256 of the bytes written.
	want := func(skills []string) (files map[string]string, resources []string) {
		files = map[string]string{}
		for rel, data := range oauthSkills {
			if name, _, _ := strings.Cut(rel, "/"); slices.Contains(skills, name) {
				sum := sha256.Sum256([]byte(data))
				files["skill://"+rel] = "sha256:" + hex.EncodeToString(sum[:])
			}
		}
		return files, append(slices.Sorted(maps.Keys(files)), "skill://index.json")
	}

	// dance checks the start of r.http: the 401, the metadata, the authorization server's
	// metadata; it returns the rest.
	dance := func(t *testing.T, r oauthReport) []exchange {
		t.Helper()
		h := r.HTTP
		if len(h) < 4 {
			t.Fatalf("%d requests: %+v", len(h), h)
		}
		for i, want := range []exchange{
			{Method: "POST", URL: mcp, Status: 401, Challenge: challenge},
			{Method: "GET", URL: prm, Status: 200},
			{Method: "GET", URL: as.Metadata, Status: 200},
		} {
			if !reflect.DeepEqual(h[i], want) {
				t.Fatalf("request %d: %+v, want %+v", i, h[i], want)
			}
		}
		return h[3:]
	}
	// served checks what a client that got in saw: its token, and every skill its grant
	// shows (skills) with every file, and nothing else.
	served := func(t *testing.T, r oauthReport, sub, clientID, alg, scope string, skills ...string) {
		t.Helper()
		wantFiles, wantResources := want(skills)
		var wantURIs []string
		for _, s := range skills {
			wantURIs = append(wantURIs, "skill://"+s+"/SKILL.md")
		}
		if !r.Connected || r.Error != nil {
			t.Fatalf("connected %v, error %+v", r.Connected, r.Error)
		}
		tok := r.Token
		if tok == nil || tok.Typ != "at+jwt" || tok.Alg != alg || tok.Iss != as.Issuer || tok.Aud != mcp || tok.Sub != sub || tok.ClientID != clientID || tok.Scope == nil || *tok.Scope != scope {
			t.Errorf("the token: %+v, want at+jwt %s from %s for %s, sub %s, client %s, scope %q", tok, alg, as.Issuer, mcp, sub, clientID, scope)
		}
		if !slices.Equal(r.Skills, skills) || !slices.Equal(r.SkillURIs, wantURIs) {
			t.Errorf("skills %q (%q), want %q", r.Skills, r.SkillURIs, skills)
		}
		if !slices.Equal(r.Resources, wantResources) {
			t.Errorf("resources/list: %q, want %q", r.Resources, wantResources)
		}
		if len(r.Files) != len(wantFiles) {
			t.Errorf("%d files read, want %d: %v", len(r.Files), len(wantFiles), r.Files)
		}
		for uri, digest := range wantFiles {
			f, ok := r.Files[uri]
			if !ok || !f.OK || f.Digest != digest || f.Got != digest || f.Size != len(oauthSkills[strings.TrimPrefix(uri, "skill://")]) {
				t.Errorf("%s: %+v (read %v), want digest %s", uri, f, ok, digest)
			}
		}
	}
	// authorized checks that the requests after the token carried it and got past the
	// gate (on 2026-07-28 the probes' errors are 400s).
	authorized := func(t *testing.T, h []exchange) {
		t.Helper()
		for i, e := range h {
			if e.URL == mcp && (e.Authorization != "Bearer" || e.Status == 401 || e.Status == 403 || e.Challenge != "") {
				t.Errorf("request %d after the token: %+v", i, e)
			}
		}
	}

	t.Run("client credentials", func(t *testing.T) {
		for _, era := range []string{"default", "modern"} {
			r := runOAuthClient(t, mcp, map[string]any{"flow": "client_credentials", "clientId": asReader.ID, "clientSecret": asReader.Secret, "issuer": as.Issuer, "era": era,
				"probes": []map[string]any{{"read": "skill://nope/SKILL.md"}, {"get": "skill://ledger/rates.csv"},
					{"get": "skill://ledger/SKILL.md"}, {"read": "skill://ledger/rates.csv"}}})
			if want := map[string]string{"default": "2025-11-25", "modern": "2026-07-28"}[era]; r.Version != want {
				t.Errorf("%s: version %q, want %q", era, r.Version, want)
			}
			rest := dance(t, r)
			// The scope the 401 names, for the resource the metadata names.
			if want := (exchange{Method: "POST", URL: as.TokenEndpoint, Status: 200, Authorization: "Basic", GrantType: "client_credentials", Resource: mcp, Scope: "skills:read"}); !reflect.DeepEqual(rest[0], want) {
				t.Errorf("%s: the token request %+v, want %+v", era, rest[0], want)
			}
			authorized(t, rest[1:])
			served(t, r, asReader.ID, asReader.ID, "ES256", "skills:read", "alpha")
			if len(r.Probes) != 4 {
				t.Fatalf("%s: probes %+v", era, r.Probes)
			}
			for _, p := range r.Probes {
				if !p.Failed || p.Code == nil || *p.Code != -32602 {
					t.Errorf("%s: probe %v: %+v, want -32602", era, p.Probe, p)
				}
			}
		}
	})

	t.Run("client credentials asking for more", func(t *testing.T) {
		r := runOAuthClient(t, mcp, map[string]any{"flow": "client_credentials", "clientId": asFinance.ID, "clientSecret": asFinance.Secret, "issuer": as.Issuer, "era": "modern", "scope": "skills:finance"})
		rest := dance(t, r)
		if rest[0].URL != as.TokenEndpoint || rest[0].Scope != "skills:read skills:finance" || rest[0].Resource != mcp {
			t.Errorf("the token request %+v, want skills:read skills:finance for %s", rest[0], mcp)
		}
		authorized(t, rest[1:])
		served(t, r, asFinance.ID, asFinance.ID, "RS256", "skills:read skills:finance", "alpha", "ledger")
	})

	t.Run("authorization code with PKCE", func(t *testing.T) {
		r := runOAuthClient(t, mcp, map[string]any{"flow": "authorization_code", "clientId": asApp.ID, "issuer": as.Issuer, "redirectUrl": asApp.RedirectURIs[0], "login": "alice"})
		rest := dance(t, r)
		wantAuthorize := map[string]string{"response_type": "code", "client_id": asApp.ID, "redirect_uri": asApp.RedirectURIs[0], "scope": "skills:read", "resource": mcp, "code_challenge_method": "S256"}
		if !reflect.DeepEqual(rest[0].Authorize, wantAuthorize) {
			t.Errorf("the authorization request %+v, want %v", rest[0].Authorize, wantAuthorize)
		}
		var forms []string
		token := -1
		for i, e := range rest {
			if e.Form != "" {
				forms = append(forms, e.Form)
			}
			if e.URL == as.TokenEndpoint {
				token = i
			}
		}
		if !slices.Equal(forms, []string{"login", "consent"}) {
			t.Errorf("pages posted: %q, want the sign-in and the consent", forms)
		}
		if token < 0 || rest[token].Status != 200 || rest[token].GrantType != "authorization_code" || rest[token].Resource != mcp || rest[token].Authorization != "" {
			t.Fatalf("the token request: %+v", rest)
		}
		authorized(t, rest[token+1:])
		served(t, r, "alice", asApp.ID, "ES256", "skills:read", "alpha")
	})

	t.Run("a grant without the scope needed", func(t *testing.T) {
		r := runOAuthClient(t, mcp, map[string]any{"flow": "client_credentials", "clientId": asOutsider.ID, "clientSecret": asOutsider.Secret, "issuer": as.Issuer})
		if r.Connected || r.Error == nil || r.Error.Status == nil || *r.Error.Status != 403 || !strings.Contains(r.Error.Message, "insufficient_scope") {
			t.Fatalf("connected %v, error %+v, want a 403 insufficient_scope", r.Connected, r.Error)
		}
		rest := dance(t, r)
		refusals := 0
		for _, e := range rest {
			if e.URL == mcp {
				if e.Status != 403 || e.Challenge != challenge+`, error="insufficient_scope"` {
					t.Errorf("%+v, want 403 insufficient_scope", e)
				}
				refusals++
			}
		}
		if refusals != 2 { // the first token, then the SDK's step-up
			t.Errorf("%d refusals, want 2: %+v", refusals, rest)
		}
	})

	t.Run("the reader's token on every surface", func(t *testing.T) {
		// The leak probes, with the ledger where this catalog has it (skill://ledger/).
		var probes []privateProbe
		for _, p := range privateProbes(t) {
			fix := strings.NewReplacer("finance/ledger/notes.md", "ledger/rates.csv", "finance/ledger", "ledger", "skill://finance/", "skill://l", `"value":"finance/"`, `"value":"l"`).Replace
			probes = append(probes, privateProbe{p.name, p.method, fix(p.path), fix(p.body)})
		}
		reader := "Bearer " + as.token(t, asReader.ID, asReader.Secret, mcp, "skills:read").AccessToken
		finance := "Bearer " + as.token(t, asFinance.ID, asFinance.Secret, mcp, "skills:read skills:finance").AccessToken
		hiddenEverywhere(t, strings.TrimSuffix(mcp, "/mcp"), reader, finance, probes,
			[]string{"ledger", "The second skill", "Rates are in"}, []string{oauthSkills["ledger/SKILL.md"], oauthSkills["ledger/rates.csv"]})
	})

	t.Run("tokens sent by hand", func(t *testing.T) {
		for _, c := range []struct {
			name, token string
			status      int
			challenge   string
		}{
			{"none", "", 401, challenge},
			{"the reader's", as.token(t, asReader.ID, asReader.Secret, mcp, "skills:read").AccessToken, 200, ""},
			{"for another resource", as.token(t, asFinance.ID, asFinance.Secret, mcp+"/other", "skills:read skills:finance").AccessToken, 401, challenge + `, error="invalid_token"`},
			{"opaque (no resource asked for)", as.token(t, asReader.ID, asReader.Secret, "", "skills:read").AccessToken, 401, challenge + `, error="invalid_token"`},
			{"without the scope", as.token(t, asOutsider.ID, asOutsider.Secret, mcp, "skills:read other:things").AccessToken, 403, challenge + `, error="insufficient_scope"`},
		} {
			req, _ := http.NewRequest("POST", mcp, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"skills/list"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != c.status || got != c.challenge {
				t.Errorf("%s: %d %q, want %d %q", c.name, resp.StatusCode, got, c.status, c.challenge)
			}
			if leaks := strings.Contains(string(body), "skill://"); leaks != (c.status == 200) {
				t.Errorf("%s: the answer names a skill: %v: %s", c.name, leaks, body)
			}
		}
	})
}
