//go:build e2e

package tests

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/auth"
)

// A private catalog served by `skilledge serve --auth FILE` and by the Worker in workerd
// with the same auth option: callers with different scopes see different catalogs, a
// hidden skill leaks through no surface, and hostile credentials are refused, each on both
// servers.

// privateFiles is the test catalog: a public skill, a finance skill with a file of its
// own, and an unlisted draft.
var privateFiles = map[string]string{
	"public/SKILL.md":         "---\nname: public\ndescription: For everyone.\n---\n\n# Public\n",
	"public/guide.md":         "# Guide\n",
	"finance/ledger/SKILL.md": "---\nname: ledger\ndescription: Closes the books QUARTERLYSECRET.\n---\n\n# Ledger\n",
	"finance/ledger/notes.md": "notes only finance reads\n",
	"drafts/idea/SKILL.md":    "---\nname: idea\ndescription: Not ready.\n---\n\n# Idea\n",
	"skilledge.yaml":          "access:\n  default: [skills:read]\n  rules:\n    - path: finance/\n      scopes: [skills:finance]\n    - path: drafts/\n      listed: false\n",
}

const (
	privateIssuer   = "https://as.skilledge.test"
	privateResource = "https://skills.skilledge.test/mcp"
)

// privateKey signs the test issuer's tokens (ES256, kid t1).
var privateKey = sync.OnceValue(func() *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
})

// privateJWKS is the issuer's key set.
func privateJWKS() string {
	k := privateKey()
	enc := base64.RawURLEncoding.EncodeToString
	b, _ := json.Marshal(map[string]any{"keys": []map[string]string{{"kty": "EC", "crv": "P-256", "kid": "t1", "alg": "ES256", "use": "sig",
		"x": enc(k.X.FillBytes(make([]byte, 32))), "y": enc(k.Y.FillBytes(make([]byte, 32)))}}})
	return string(b)
}

// signJWT signs claims under header with the issuer's key (ES256), or, for an "HS256"
// header, with HMAC keyed by key.
func signJWT(header, claims string, key []byte) string {
	enc := base64.RawURLEncoding.EncodeToString
	in := enc([]byte(header)) + "." + enc([]byte(claims))
	if strings.Contains(header, `"HS256"`) {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(in))
		return in + "." + enc(m.Sum(nil))
	}
	if strings.Contains(header, `"none"`) {
		return in + "."
	}
	sum := sha256.Sum256([]byte(in))
	r, s, err := ecdsa.Sign(rand.Reader, privateKey(), sum[:])
	if err != nil {
		panic(err)
	}
	return in + "." + enc(append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...))
}

// privateToken is a valid access token for the test resource granting scope.
func privateToken(scope string) string {
	return signJWT(`{"alg":"ES256","kid":"t1","typ":"at+jwt"}`, claimsJSON(map[string]any{"scope": scope}), nil)
}

// claimsJSON is a valid token's claims with changes (nil deletes a claim).
func claimsJSON(change map[string]any) string {
	now := time.Now().Unix()
	c := map[string]any{"iss": privateIssuer, "aud": privateResource, "sub": "agent", "iat": now, "exp": now + 3600, "scope": "skills:read"}
	for k, v := range change {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// privateAuth is the auth option of both servers: the issuer's key set inline and a
// static key granting skills:read, whose key it also returns.
func privateAuth() (option string, staticKey string) {
	entry, key := auth.NewStaticKey("ci", []string{"skills:read"})
	return `{"resource":"` + privateResource + `","authorizationServers":["` + privateIssuer + `"],` +
		`"jwt":{"issuer":"` + privateIssuer + `","audience":"` + privateResource + `","jwks":` + privateJWKS() + `},` +
		`"tokens":[{"name":"ci","sha256":"` + entry.Hex() + `","scopes":["skills:read"]}]}`, key
}

// privateServer is one server of the private catalog: its base URL (no path).
type privateServer struct{ name, base string }

// privateServers starts the private catalog on `skilledge serve --auth`, on the Worker in
// workerd and on the Deno, Bun and Node entries, with the same auth option, and returns
// them with the static key.
var privateSetup struct {
	once sync.Once
	dir  string
	d    *deployment
	err  error
}

func privateServers(t *testing.T) ([]privateServer, string) {
	t.Helper()
	d := privateDeployment(t)
	return privateServersOf(t, privateSetup.dir, d)
}

// privateServersOf is privateServers for dir, a skills folder or its build, whose
// deployment is d (served by all but workerd when its objects are packed).
func privateServersOf(t *testing.T, dir string, d *deployment) ([]privateServer, string) {
	t.Helper()
	option, key := privateAuth()
	authFile := filepath.Join(t.TempDir(), "auth.json")
	if err := os.WriteFile(authFile, []byte(option), 0o600); err != nil {
		t.Fatal(err)
	}
	local := serve(t, dir, "--auth", authFile, "--allow-host", "*", "--tools", "--prompts")
	servers := []privateServer{{"serve", strings.TrimSuffix(local, "/mcp")}}
	if !strings.Contains(d.output, "packed: a Worker reads them from R2") { // workerd alone has no R2
		w := workerdFor(t, d, `{"allowHosts":["*"],"allowOrigins":["*"],"tools":true,"prompts":true,"auth":`+option+`}`)
		servers = append(servers, privateServer{"workerd", w[0]})
	}
	// The same build, served by each runtime's entry; Node takes the auth option from
	// SKILLEDGE_AUTH, the others inside SKILLEDGE_OPTIONS.
	for _, rt := range jsRuntimes {
		options, env := `{"allowHosts":["*"],"allowOrigins":["*"],"tools":true,"prompts":true,"auth":`+option+`}`, []string(nil)
		if rt.name == "node" {
			options, env = `{"allowHosts":["*"],"allowOrigins":["*"],"tools":true,"prompts":true}`, []string{"SKILLEDGE_AUTH=" + option}
		}
		servers = append(servers, privateServer{rt.name, startRuntime(t, rt, withSDK(t, d), options, env...)})
	}
	return servers, key
}

// privateDeployment builds the private catalog's deployment (privateSetup), once.
func privateDeployment(t *testing.T) *deployment {
	t.Helper()
	privateSetup.once.Do(func() {
		dir, err := scratchDir("skilledge-private-")
		if err == nil {
			err = writeFiles(dir, privateFiles)
		}
		if err == nil {
			privateSetup.d, err = deployFolder(dir)
		}
		privateSetup.dir, privateSetup.err = dir, err
	})
	if privateSetup.err != nil {
		failOrSkip(t, privateSetup.err)
	}
	return privateSetup.d
}

// writeFiles writes files (path -> content) under dir.
func writeFiles(dir string, files map[string]string) error {
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// privateProbe is one request on one surface.
type privateProbe struct{ name, method, path, body string }

// privateProbes are requests over every surface, in both eras: lists, lookups by URI,
// name and path, completions, indexes, archives, the page, the sitemaps and the fallbacks,
// the same requests the server's own view tests send (edge/testdata/views/probes.json).
// Those that name the ledger are how a caller who may not see it would look for it.
func privateProbes(t *testing.T) []privateProbe {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "edge", "testdata", "views", "probes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in []struct{ Name, Method, Target, Body string }
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	out := make([]privateProbe, len(in))
	for i, p := range in {
		out[i] = privateProbe{p.Name, p.Method, p.Target, p.Body}
	}
	return out
}

// ask sends p to base with the credential fields given (name, value, …) and returns the
// status, the header fields as text and the body.
func (p privateProbe) ask(t *testing.T, base string, fields ...string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(p.method, base+p.path, strings.NewReader(p.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/html, application/json, text/event-stream")
	if p.method == "POST" {
		req.Header.Set("Content-Type", "application/json")
		if m := gjson.Get(p.body, "method").Str; gjson.Get(p.body, "params._meta").Exists() {
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", m)
			switch m {
			case "resources/read":
				req.Header.Set("Mcp-Name", gjson.Get(p.body, "params.uri").Str)
			case "tools/call", "prompts/get":
				req.Header.Set("Mcp-Name", gjson.Get(p.body, "params.name").Str)
			}
		}
	}
	for i := 0; i+1 < len(fields); i += 2 {
		req.Header.Add(fields[i], fields[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", p.method, p.path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var h strings.Builder
	for _, k := range slices.Sorted(maps.Keys(resp.Header)) {
		if k != "Date" {
			fmt.Fprintf(&h, "%s: %s\n", k, strings.Join(resp.Header[k], ", "))
		}
	}
	return resp.StatusCode, h.String(), string(body)
}

// TestPrivateLeaks: a caller without skills:finance learns nothing of the ledger on any
// surface, on either server: no answer holds its name, path, description or any digest of
// its files or archives (beyond what the caller itself sent), and every lookup of it is
// answered as a lookup of a skill that never existed; a caller with the scope is served it
// everywhere; the unlisted draft is served by name and URI and named by no listing.
func TestPrivateLeaks(t *testing.T) {
	servers, _ := privateServers(t)
	privateCatalogLeaks(t, servers)
}

// TestPrivateLeaksSharded is TestPrivateLeaks on the private catalog built with its index
// sharded (shardFlags: each view a sharded root), served by `skilledge serve` of that build,
// the Worker in workerd and the Deno, Bun and Node entries; and built with its objects
// packed too (packFlags: hidden skills' files in the packs), served by all but workerd,
// which alone has no R2.
func TestPrivateLeaksSharded(t *testing.T) {
	privateDeployment(t) // writes the folder, privateSetup.dir
	for _, flags := range []string{shardFlags, packFlags} {
		t.Run(flags, func(t *testing.T) {
			built, err := deployFolderWith(privateSetup.dir, flags)
			if err != nil {
				t.Fatal(err)
			}
			requireSharded(t, built)
			servers, _ := privateServersOf(t, filepath.Dir(built.assets), built)
			privateCatalogLeaks(t, servers)
		})
	}
}

// TestPrivatePackedUnderWranglerDev is TestPrivateLeaks on the Worker under wrangler dev,
// the private catalog built with packFlags as DEPLOY.md deploys a large one: each view's
// index and shards in the assets, the files of every skill, hidden ones too, in packs in
// wrangler's local R2 (uploaded by the commands build printed), the auth option as the
// SKILLEDGE_AUTH secret (.dev.vars, wrangler dev's secrets) and the fallbacks on.
func TestPrivatePackedUnderWranglerDev(t *testing.T) {
	privateDeployment(t) // writes the folder, privateSetup.dir
	d, err := deployFolderWith(privateSetup.dir, packFlags)
	if err != nil {
		t.Fatal(err)
	}
	requireSharded(t, d)
	uploads := packUploads(d.output)
	if len(uploads) == 0 {
		t.Fatalf("the build printed no pack upload:\n%s", d.output)
	}
	option, _ := privateAuth()
	if err := os.WriteFile(filepath.Join(d.dir, ".dev.vars"), []byte("SKILLEDGE_AUTH='"+option+"'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	toml, err := os.ReadFile(filepath.Join(d.dir, "wrangler.toml"))
	if err != nil {
		t.Fatal(err)
	}
	fallbacks := strings.NewReplacer("# tools = true", "tools = true", "# prompts = true", "prompts = true").Replace(string(toml))
	if fallbacks == string(toml) {
		t.Fatal("the root wrangler.toml has no fallbacks to uncomment")
	}
	os.Remove(filepath.Join(d.dir, "wrangler.toml")) // a link to the repository's
	if err := os.WriteFile(filepath.Join(d.dir, "wrangler.toml"), []byte(fallbacks), 0o644); err != nil {
		t.Fatal(err)
	}
	base := wranglerDevPacked(t, d, uploads)
	privateCatalogLeaks(t, []privateServer{{"wrangler dev", base}})
}

// privateCatalogLeaks is privateLeaks on servers of the private test catalog itself: the
// ledger's name, path, description and a word of its notes, and its two files.
func privateCatalogLeaks(t *testing.T, servers []privateServer) {
	t.Helper()
	var files []string
	for _, f := range []string{"finance/ledger/SKILL.md", "finance/ledger/notes.md"} {
		files = append(files, privateFiles[f])
	}
	privateLeaks(t, servers, privateProbes(t), []string{"ledger", "finance", "QUARTERLYSECRET", "notes only"}, files)
}

// privateLeaks is TestPrivateLeaks on servers of a catalog shaped as the private test
// catalog, with probes, and the words and files of the ledger no answer to a caller
// without skills:finance may hold (hiddenEverywhere).
func privateLeaks(t *testing.T, servers []privateServer, probes []privateProbe, words, files []string) {
	t.Helper()
	reader := "Bearer " + privateToken("skills:read")
	finance := "Bearer " + privateToken("skills:read skills:finance")
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			hiddenEverywhere(t, srv.base, reader, finance, probes, words, files)
			for _, p := range probes {
				// The finance caller is served it (sitemap-1.xml exists only past 1,000 skills).
				if st, _, body := p.ask(t, srv.base, "Authorization", finance); p.path != "/sitemap-1.xml" &&
					(st != 200 || strings.Contains(body, `"error":{`) || strings.Contains(body, `"isError":true`)) {
					t.Errorf("%s: the finance caller: %d %s", p.name, st, body)
				}
			}
			// The unlisted draft: served by name, named by no listing.
			for _, p := range probes {
				p.path = strings.ReplaceAll(strings.ReplaceAll(p.path, "ledger/notes.md", "idea/SKILL.md"), "ledger", "idea")
				p.body = strings.ReplaceAll(strings.ReplaceAll(p.body, "finance/ledger/notes.md", "drafts/idea/SKILL.md"), "finance/ledger", "drafts/idea")
				p.body = strings.ReplaceAll(p.body, "ledger", "idea")
				st, _, body := p.ask(t, srv.base, "Authorization", finance)
				if strings.Contains(p.path+p.body, "idea") {
					if st != 200 || strings.Contains(body, `"error":{`) || strings.Contains(body, `"isError":true`) {
						t.Errorf("%s: the unlisted draft is not served: %d %s", p.name, st, body)
					}
				} else if strings.Contains(body, "idea") {
					t.Errorf("%s: a listing names the unlisted draft: %s", p.name, body)
				}
			}
		})
	}
}

// hiddenEverywhere asks base every probe as reader, a caller who may not see the ledger
// skill, and fails on an answer that holds any of words (its name, path, description, …)
// or a digest of any of files, the ledger's, or of its archives as insider (a caller who
// may see it) finds them in the well-known index, unless the probe itself sent it; and on
// a lookup of the ledger answered otherwise than the same lookup of a skill that never
// existed.
func hiddenEverywhere(t *testing.T, base, reader, insider string, probes []privateProbe, words, files []string) {
	t.Helper()
	secrets := slices.Clone(words)
	for _, f := range files {
		sum := sha256.Sum256([]byte(f))
		secrets = append(secrets, hex.EncodeToString(sum[:]))
	}
	get := privateProbe{"", "GET", "/.well-known/agent-skills/index.json", ""}
	_, _, theirs := get.ask(t, base, "Authorization", insider)
	_, _, ours := get.ask(t, base, "Authorization", reader)
	archives := 0
	for _, part := range strings.Split(theirs, "sha256:")[1:] {
		if d := part[:64]; !strings.Contains(ours, d) {
			secrets = append(secrets, d)
			archives++
		}
	}
	if archives == 0 || !strings.Contains(theirs, "ledger") {
		t.Fatalf("the insider's index names no digest of the ledger the reader's does not: %s", theirs)
	}
	for _, p := range probes {
		st, hdr, body := p.ask(t, base, "Authorization", reader)
		for _, s := range secrets {
			if !strings.Contains(p.path+p.body, s) && (strings.Contains(hdr, s) || strings.Contains(body, s)) {
				t.Errorf("%s: a caller who may not see the ledger is answered %q:\n%d\n%s%s", p.name, s, st, hdr, body)
			}
		}
		// Asking for the hidden skill is asking for one that does not exist.
		if strings.Contains(p.path+p.body, "ledger") {
			q := privateProbe{p.name, p.method, strings.ReplaceAll(p.path, "ledger", "nosuch1"), strings.ReplaceAll(p.body, "ledger", "nosuch1")}
			st2, hdr2, body2 := q.ask(t, base, "Authorization", reader)
			if st != st2 || strings.ReplaceAll(body2, "nosuch1", "ledger") != body || !sameFields(hdr, hdr2) {
				t.Errorf("%s: hidden differs from absent:\n%d %s%s\nvs\n%d %s%s", p.name, st, hdr, body, st2, hdr2, body2)
			}
		}
	}
}

// sameFields compares two header texts but for fields that differ by content: the
// length and an ETag.
func sameFields(a, b string) bool {
	strip := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(l, "Content-Length:") && !strings.HasPrefix(l, "Etag:") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	return strip(a) == strip(b)
}

// TestPrivateHostileTokens: every credential that must not hold is a 401 with
// invalid_token, on both servers, and a valid request succeeds after each; the static key
// holds.
func TestPrivateHostileTokens(t *testing.T) {
	servers, key := privateServers(t)
	now := time.Now().Unix()
	pub := privateKey().PublicKey
	pubBytes := elliptic.Marshal(elliptic.P256(), pub.X, pub.Y) //nolint:staticcheck // the HMAC key an attacker would try
	header := `{"alg":"ES256","kid":"t1","typ":"at+jwt"}`
	enc := base64.RawURLEncoding.EncodeToString
	cases := []struct {
		name   string
		fields []string
		path   string
	}{
		{"expired", bearer(signJWT(header, claimsJSON(map[string]any{"exp": now - 3600}), nil)), ""},
		{"not yet valid", bearer(signJWT(header, claimsJSON(map[string]any{"nbf": now + 3600}), nil)), ""},
		{"wrong issuer", bearer(signJWT(header, claimsJSON(map[string]any{"iss": "https://evil.test"}), nil)), ""},
		{"wrong audience", bearer(signJWT(header, claimsJSON(map[string]any{"aud": "https://other.test/mcp"}), nil)), ""},
		{"alg none", bearer(signJWT(`{"alg":"none","typ":"at+jwt"}`, claimsJSON(nil), nil)), ""},
		{"HMAC keyed with the public key", bearer(signJWT(`{"alg":"HS256","kid":"t1","typ":"at+jwt"}`, claimsJSON(nil), pubBytes)), ""},
		{"HMAC keyed with the JWKS", bearer(signJWT(`{"alg":"HS256","kid":"t1","typ":"at+jwt"}`, claimsJSON(nil), []byte(privateJWKS()))), ""},
		{"unknown kid", bearer(signJWT(`{"alg":"ES256","kid":"t9","typ":"at+jwt"}`, claimsJSON(nil), nil)), ""},
		{"an ID token (typ JWT)", bearer(signJWT(`{"alg":"ES256","kid":"t1","typ":"JWT"}`, claimsJSON(nil), nil)), ""},
		{"malformed base64", bearer("eyJ!!!.eyJ@@@.sig"), ""},
		{"malformed JSON", bearer(enc([]byte(`{"alg":"ES256"`)) + "." + enc([]byte(`{"iss":`)) + ".AAAA"), ""},
		{"a signature of another token", bearer(strings.Join(append(strings.Split(privateToken("skills:read"), ".")[:2], strings.Split(privateToken("skills:finance"), ".")[2]), ".")), ""},
		{"a 20 KiB token", bearer(strings.Repeat("a", 20<<10)), ""},
		{"a token in the query string", nil, "?access_token=" + privateToken("skills:read")},
		{"two Authorization fields", append(bearer(privateToken("skills:read")), bearer(key)...), ""},
		{"a static key never issued", bearer("ske_" + strings.Repeat("A", 43)), ""},
		{"Basic credentials", []string{"Authorization", "Basic " + enc([]byte("ci:"+key))}, ""},
	}
	list := privateProbe{"skills/list", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}}`}
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			for _, c := range cases {
				p := list
				p.path += c.path
				st, hdr, body := p.ask(t, srv.base, c.fields...)
				if st != 401 || !strings.Contains(hdr, `resource_metadata="`) || strings.Contains(body, "public") {
					t.Errorf("%s: %d\n%s%s", c.name, st, hdr, body)
				}
				if c.fields != nil && !strings.Contains(hdr, `error="invalid_token"`) {
					t.Errorf("%s: no invalid_token: %s", c.name, hdr)
				}
				if st, _, body := list.ask(t, srv.base, "Authorization", "Bearer "+key); st != 200 || !strings.Contains(body, "skill://public/") {
					t.Fatalf("after %s, the static key: %d %s", c.name, st, body)
				}
			}
			// A 1 MiB token is larger than any host reads as a header block (serve, Node and
			// Bun as the README runs it: 64 KiB; workerd and Deno: their own limits): refused
			// with 431 before the plugin (Deno's server says 400), or, when the host closes the
			// connection before the client has finished sending it, with no answer at all (the
			// client's write fails); never an answer with a skill. The server is healthy after.
			req, _ := http.NewRequest("POST", srv.base+list.path, strings.NewReader(list.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+strings.Repeat("a", 1<<20))
			if resp, err := http.DefaultClient.Do(req); err == nil {
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				want := 431
				if srv.name == "deno" {
					want = 400
				}
				if resp.StatusCode != want || strings.Contains(string(body), "public") {
					t.Errorf("a 1 MiB token: %d %s", resp.StatusCode, body)
				}
			} else if !strings.Contains(err.Error(), "broken pipe") && !strings.Contains(err.Error(), "connection reset") {
				t.Errorf("a 1 MiB token: %v", err)
			} else {
				t.Logf("a 1 MiB token: the host closed the connection while it was sent (%v)", err)
			}
			if st, _, _ := list.ask(t, srv.base, "Authorization", "Bearer "+key); st != 200 {
				t.Fatalf("after a 1 MiB token: %d", st)
			}
		})
	}
}

func bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

// TestPrivateAccessAndSecret: Cloudflare Access assertions (signed by a key the test makes,
// whose certificates a loopback server gives as the Access certs document) and static keys
// each let a caller in end to end, on both servers, the Worker taking its auth option from
// the SKILLEDGE_AUTH secret; an assertion for another application is refused.
func TestPrivateAccessAndSecret(t *testing.T) {
	const team, aud = "https://acme.cloudflareaccess.com", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	certs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, privateJWKS())
	}))
	t.Cleanup(certs.Close)
	entry, key := auth.NewStaticKey("ci", []string{"skills:read", "skills:finance"})
	option := `{"resource":"` + privateResource + `","access":{"teamDomain":"` + team + `","aud":"` + aud + `","certsUrl":"` + certs.URL + `/cdn-cgi/access/certs"},` +
		`"tokens":[{"name":"ci","sha256":"` + entry.Hex() + `","scopes":["skills:read","skills:finance"]}]}`
	privateDeployment(t)
	authFile := filepath.Join(t.TempDir(), "auth.json")
	if err := os.WriteFile(authFile, []byte(option), 0o600); err != nil {
		t.Fatal(err)
	}
	local := strings.TrimSuffix(serve(t, privateSetup.dir, "--auth", authFile, "--allow-host", "*"), "/mcp")
	secret := func(s string) []string {
		return []string{fmt.Sprintf("(name = %q, text = %s)", "SKILLEDGE_AUTH", strconv.Quote(s))}
	}
	worker := workerdWith(t, privateSetup.d, secret(option), `{"allowHosts":["*"]}`)[0]

	assertion := func(change map[string]any) string {
		now := time.Now().Unix()
		return accessAssertion(map[string]any{"iss": team, "aud": []string{aud}, "sub": "u-1", "email": "ana@acme.example", "iat": now, "exp": now + 600, "scope": "skills:read"}, change)
	}
	listedBy(t, []privateServer{{"serve", local}, {"workerd", worker}}, []listedCase{
		{"no credential", nil, 401, ""},
		{"an Access assertion", []string{"Cf-Access-Jwt-Assertion", assertion(nil)}, 200, "skill://public/SKILL.md"},
		{"an Access assertion with finance", []string{"Cf-Access-Jwt-Assertion", assertion(map[string]any{"scope": "skills:read skills:finance"})}, 200,
			"skill://finance/ledger/SKILL.md skill://public/SKILL.md"},
		{"an assertion for another application", []string{"Cf-Access-Jwt-Assertion", assertion(map[string]any{"aud": []string{"another"}})}, 401, ""},
		{"an assertion from another team", []string{"Cf-Access-Jwt-Assertion", assertion(map[string]any{"iss": "https://evil.cloudflareaccess.com"})}, 401, ""},
		{"the static key", []string{"Authorization", "Bearer " + key}, 200, "skill://finance/ledger/SKILL.md skill://public/SKILL.md"},
	})
}

// accessAssertion is an Access assertion of claims with change applied, signed by the test
// team's key t1.
func accessAssertion(claims, change map[string]any) string {
	for k, v := range change {
		claims[k] = v
	}
	b, _ := json.Marshal(claims)
	return signJWT(`{"alg":"ES256","kid":"t1","typ":"JWT"}`, string(b), nil)
}

// listedCase is a skills/list with the header fields given, and what it must be answered:
// the status, and the skill URIs listed (space-separated).
type listedCase struct {
	name   string
	fields []string
	status int
	skills string
}

// listedBy asks each server every case's skills/list and checks its answer.
func listedBy(t *testing.T, servers []privateServer, cases []listedCase) {
	t.Helper()
	list := privateProbe{"skills/list", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}}`}
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			for _, c := range cases {
				st, _, body := list.ask(t, srv.base, c.fields...)
				var got []string
				for _, s := range gjson.Get(body, "result.skills.#.uri").Array() {
					got = append(got, s.Str)
				}
				if st != c.status || strings.Join(got, " ") != c.skills {
					t.Errorf("%s: %d %q, want %d %q: %s", c.name, st, got, c.status, c.skills, body)
				}
			}
		})
	}
}

// TestPrivateRefusedAuth: a Worker whose SKILLEDGE_AUTH secret is refused, by the plugin
// (a key set URL in plain http, an API key in its query) or before it (not JSON), answers
// every request, whatever its path or credential, with the host's failure "auth", which
// names neither the option's values nor anything else in it: the reason, values and all,
// goes to the Worker's log, once. `skilledge verify` says the auth option is invalid and
// to see the deployment's logs.
func TestPrivateRefusedAuth(t *testing.T) {
	const hidden = "HIDDEN-7f3a9c"
	d := privateDeployment(t)
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	secret := func(s string) []string {
		return []string{fmt.Sprintf("(name = %q, text = %s)", "SKILLEDGE_AUTH", strconv.Quote(s))}
	}
	_, key := privateAuth()
	probes := []privateProbe{
		{"skills/list", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}}`},
		{"initialize", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
		{"the index", "GET", "/.well-known/agent-skills/index.json", ""},
		{"the metadata", "GET", "/.well-known/oauth-protected-resource/mcp", ""},
		{"the page", "GET", "/", ""},
	}
	for _, c := range []struct{ name, option, logged string }{
		{"refused by the plugin", `{"resource":"` + privateResource + `","jwt":{"issuer":"` + privateIssuer + `","jwksUri":"http://idp.internal/jwks?api_key=` + hidden + `"}}`,
			`must be https`},
		{"not JSON", `{"tokens":[{"name":"ci","sha256":"` + hidden, `SKILLEDGE_AUTH secret is not a JSON object`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := workerdProcessWith(t, d, secret(c.option), `{"allowHosts":["*"]}`)
			base := p.urls[0]
			for _, probe := range probes {
				for _, fields := range [][]string{nil, {"Authorization", "Bearer " + key}} {
					st, header, body := probe.ask(t, base, fields...)
					if strings.Contains(header, hidden) || strings.Contains(body, hidden) || strings.Contains(body, "idp.internal") {
						t.Fatalf("%s: the answer quotes the option:\n%s\n%s", probe.name, header, body)
					}
					if st != 500 || gjson.Get(body, "error.data.failure").Str != "auth" || !strings.Contains(body, "auth option is invalid") {
						t.Errorf("%s: %d %s", probe.name, st, body)
					}
				}
			}
			out, err := exec.Command(bin, "verify", base, "--allow-http-loopback").CombinedOutput()
			if err == nil || !strings.Contains(string(out), "the deployment's auth option is invalid; see its logs") || strings.Contains(string(out), hidden) {
				t.Errorf("verify: %v\n%s", err, out)
			}
			// The reason is the Worker's log's (wrangler tail), once for the isolate.
			var lines []string
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				lines = nil
				for _, l := range strings.Split(p.logs.String(), "\n") {
					if strings.Contains(l, c.logged) {
						lines = append(lines, l)
					}
				}
				if len(lines) > 0 {
					break
				}
			}
			if len(lines) != 1 || (c.name != "not JSON" && !strings.Contains(lines[0], hidden)) {
				t.Errorf("the log has %d lines with the reason, want 1:\n%s", len(lines), p.logs.String())
			}
		})
	}
}

// TestPrivateAccessREADME: the README's Cloudflare Access example works as written. The
// README's policy is the private test catalog's; its auth option is served by `skilledge
// serve --auth` and by the Worker in workerd with resource and access as written, but for
// where the certificates come from (access.certsUrl: a loopback server giving a key the
// test made, where Cloudflare would give the team's), without jwt (its keys are at
// auth.example.com) and without tokens (their digest is a placeholder). An assertion such
// as Access sends, which says nothing of scopes, then lets its caller in to the skills the
// policy's default scopes show, and no further; one for another application or team does
// not.
func TestPrivateAccessREADME(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var policy, option string
	for _, b := range codeBlocks(string(readme)) {
		switch {
		case strings.HasPrefix(b, "access:\n  default:"):
			policy = b
		case strings.HasPrefix(b, "{") && strings.Contains(b, `"teamDomain"`):
			option = b
		}
	}
	if policy == "" || option == "" {
		t.Fatal("the README has no access policy block, or no auth option with access")
	}
	comment := regexp.MustCompile(`(?m)\s+#.*$`)
	if got := comment.ReplaceAllString(policy, "") + "\n"; got != privateFiles["skilledge.yaml"] {
		t.Fatalf("the README's policy is not the test catalog's:\n%s\nwant\n%s", got, privateFiles["skilledge.yaml"])
	}
	var opt map[string]any
	if err := json.Unmarshal([]byte(option), &opt); err != nil {
		t.Fatalf("the README's auth option: %v\n%s", err, option)
	}
	access, _ := opt["access"].(map[string]any)
	team, _ := access["teamDomain"].(string)
	aud, _ := access["aud"].(string)
	if team == "" || aud == "" {
		t.Fatalf("the README's access has no teamDomain or aud: %v", access)
	}
	certs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, privateJWKS())
	}))
	t.Cleanup(certs.Close)
	access["certsUrl"] = certs.URL + "/cdn-cgi/access/certs"
	delete(opt, "jwt")
	delete(opt, "tokens")
	b, _ := json.Marshal(opt)
	option = string(b)

	privateDeployment(t)
	authFile := filepath.Join(t.TempDir(), "auth.json")
	if err := os.WriteFile(authFile, []byte(option), 0o600); err != nil {
		t.Fatal(err)
	}
	local := strings.TrimSuffix(serve(t, privateSetup.dir, "--auth", authFile, "--allow-host", "*"), "/mcp")
	worker := workerdFor(t, privateSetup.d, `{"allowHosts":["*"],"auth":`+option+`}`)[0]

	// The claims of an Access application token (Cloudflare's "Application token" page),
	// for a user who signed in through the team's identity provider.
	assertion := func(change map[string]any) string {
		now := time.Now().Unix()
		return accessAssertion(map[string]any{"aud": []string{aud}, "email": "ana@acme.example", "exp": now + 600, "iat": now, "nbf": now,
			"iss": team, "type": "app", "identity_nonce": "6ei69kawdKzMIAPF", "sub": "7335d417-61da-459d-899c-0a01c76a2f94", "country": "US"}, change)
	}
	listedBy(t, []privateServer{{"serve", local}, {"workerd", worker}}, []listedCase{
		{"no credential", nil, 401, ""},
		{"an Access assertion", []string{"Cf-Access-Jwt-Assertion", assertion(nil)}, 200, "skill://public/SKILL.md"},
		{"an assertion for another application", []string{"Cf-Access-Jwt-Assertion", assertion(map[string]any{"aud": []string{"another"}})}, 401, ""},
		{"an assertion from another team", []string{"Cf-Access-Jwt-Assertion", assertion(map[string]any{"iss": "https://evil.cloudflareaccess.com"})}, 401, ""},
		{"an expired assertion", []string{"Cf-Access-Jwt-Assertion", assertion(map[string]any{"exp": time.Now().Unix() - 3600})}, 401, ""},
	})
}
