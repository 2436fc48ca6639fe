package main

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/skilledge/skilledge/catalog/signing"
	"github.com/skilledge/skilledge/edge/auth"
	"github.com/skilledge/skilledge/runtime/internal/require"
)

// TestKey: a key printed once with its entry, which holds its SHA-256 and scopes and is an
// entry the auth option takes.
func TestKey(t *testing.T) {
	code, stdout, stderr := call(t, "", "key", "--name", "ci", "--scope", "skills:read", "--scope", "b a")
	expect(t, code, stdout, stderr, 0, "", "it is not shown again")
	lines := strings.Split(stdout, "\n")
	if len(lines) != 3 || lines[2] != "" || !regexp.MustCompile(`^ske_[A-Za-z0-9_-]{43}$`).MatchString(lines[0]) {
		t.Fatalf("stdout %q", stdout)
	}
	key := lines[0]
	sum := sha256.Sum256([]byte(key))
	if want := `{"name":"ci","sha256":"` + hex.EncodeToString(sum[:]) + `","scopes":["a","b","skills:read"]}`; lines[1] != want {
		t.Fatalf("entry %s, want %s", lines[1], want)
	}
	if strings.Contains(lines[1], key) || strings.Contains(stderr, key) {
		t.Fatal("the key is printed more than once")
	}
	cfg, err := auth.ParseConfig([]byte(`{"resource":"https://s.example/mcp","tokens":[` + lines[1] + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	if g, _, err := cfg.Authenticate("Bearer "+key, "", time.Now()); err != nil || g.Subject != "ci" || string(g.Scopes) != "a b skills:read" {
		t.Fatalf("the key against its entry: %+v %v", g, err)
	}
	code, again, _ := call(t, "", "key")
	if code != 0 || strings.Split(again, "\n")[0] == key || !strings.Contains(again, `"scopes":[]`) ||
		!regexp.MustCompile(`"name":"key-[0-9a-f]{8}"`).MatchString(again) {
		t.Fatalf("a second key, no flags: %d %q", code, again)
	}
	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"key", "--scope", `"quoted"`}, 2, `--scope "\"quoted\"" is not an OAuth scope`},
		{[]string{"key", "extra"}, 2, "too many arguments"},
		{[]string{"key", "-h"}, 0, ""},
	} {
		code, _, stderr := call(t, "", c.args...)
		expect(t, code, "", stderr, c.code, "", c.err)
	}
}

// TestKeySigning: key --signing writes the private key (0600) and the public one beside it,
// prints only the public one, never replaces a key, and refuses the API key's flags.
func TestKeySigning(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "catalog.key")
	code, stdout, stderr := call(t, "", "key", "--signing", "--out", path)
	expect(t, code, "", stderr, 0, "", "keep it secret")
	key, err := signing.ReadKey(path)
	if err != nil {
		t.Fatal(err)
	}
	pub := signing.FormatPublic(key.Public().(ed25519.PublicKey))
	if stdout != pub+"\n" {
		t.Fatalf("stdout %q, want the public key %q", stdout, pub)
	}
	if b, err := os.ReadFile(path + ".pub"); err != nil || string(b) != stdout {
		t.Fatalf("%s.pub: %q %v", path, b, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the private key's mode: %v %v", fi.Mode(), err)
	}
	secret, _ := os.ReadFile(path)
	if strings.Contains(stdout+stderr, strings.Split(string(secret), "\n")[1]) {
		t.Fatal("the private key is printed")
	}
	code, _, stderr = call(t, "", "key", "--signing", "--out", path)
	expect(t, code, "", stderr, 1, "", "never replaced")
	if again, _ := os.ReadFile(path); string(again) != string(secret) {
		t.Fatal("the key was replaced")
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"key", "--signing"}, "--signing needs --out FILE"},
		{[]string{"key", "--out", filepath.Join(dir, "k")}, "--out is for a signing key"},
		{[]string{"key", "--signing", "--out", filepath.Join(dir, "k"), "--name", "ci"}, "a signing key (--signing) has neither"},
	} {
		code, stdout, stderr := call(t, "", c.args...)
		expect(t, code, stdout, stderr, 2, "", c.err)
	}
	if _, err := os.Stat(filepath.Join(dir, "k")); err == nil {
		t.Fatal("a refused key command wrote a key")
	}
}

// TestAuthFlag: --auth reads the auth option from a file and says which file is wrong.
func TestAuthFlag(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "auth.json")
	os.WriteFile(bad, []byte(`{"jwt":{"issuer":"https://as.example","jwksUri":"https://as.example/jwks"}}`), 0o644)
	for _, cmd := range []string{"serve", "stdio"} {
		code, stdout, stderr := call(t, "", cmd, "--auth", filepath.Join(dir, "missing.json"))
		expect(t, code, stdout, stderr, 2, "", "skilledge "+cmd+": --auth: open "+filepath.Join(dir, "missing.json"))
		code, stdout, stderr = call(t, "", cmd, "--auth", bad)
		expect(t, code, stdout, stderr, 2, "", "skilledge "+cmd+": "+bad+": auth.resource is required")
		code, stdout, _ = call(t, "", cmd, "-h")
		expect(t, code, stdout, "", 0, "-auth FILE", "")
	}
}

// privateSkills writes a folder of one skill that only callers granted skills:read may see.
func privateSkills(t *testing.T) string {
	dir := t.TempDir()
	for path, data := range map[string]string{
		"greet/SKILL.md": "---\nname: greet\ndescription: Says hello.\n---\nHello!\n",
		"skilledge.yaml": "access:\n  default: [skills:read]\n",
	} {
		p := filepath.Join(dir, path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestServeAuth: serve --auth with a static key from `skilledge key` and JWTs from an
// issuer whose key set it fetches; verify --token checks the private deployment as an
// agent would, and says to pass it when it is missing; stdio --auth serves the private
// catalog without a credential.
func TestServeAuth(t *testing.T) {
	_, keyOut, _ := call(t, "", "key", "--name", "ci", "--scope", "skills:read")
	key, entry, _ := strings.Cut(strings.TrimSpace(keyOut), "\n")
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	enc := base64.RawURLEncoding.EncodeToString
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{{"kty": "OKP", "crv": "Ed25519", "kid": "k1", "x": enc(pub)}}})
	issuer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(jwks) }))
	defer issuer.Close()
	const resource = "http://localhost/mcp"
	authFile := filepath.Join(t.TempDir(), "auth.json")
	os.WriteFile(authFile, []byte(`{"resource":"`+resource+`","jwt":{"issuer":"`+issuer.URL+`","jwksUri":"`+issuer.URL+`/jwks"},
		"tokens":[`+entry+`]}`), 0o644)
	claims, _ := json.Marshal(map[string]any{"iss": issuer.URL, "aud": resource, "sub": "agent", "exp": time.Now().Add(time.Hour).Unix(), "scope": "skills:read"})
	in := enc([]byte(`{"alg":"EdDSA","kid":"k1","typ":"at+jwt"}`)) + "." + enc(claims)
	jwt := in + "." + enc(ed25519.Sign(priv, []byte(in)))

	dir := privateSkills(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var stderr require.Buffer
	exit := make(chan int)
	go func() {
		exit <- run(ctx, []string{"serve", dir, "--addr", "127.0.0.1:0", "--auth", authFile}, strings.NewReader(""), outW, &stderr)
		outW.Close()
	}()
	out := bufio.NewReader(outR)
	var mcp string
	for mcp == "" {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("no banner: %v; stderr: %s", err, stderr.String())
		}
		if m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)\n$`).FindStringSubmatch(line); m != nil {
			mcp = m[1]
		}
	}
	out.ReadString('\n') // the catalog page
	line, _ := out.ReadString('\n')
	if want := "skilledge: every request needs a credential (" + authFile + "): access tokens from " + issuer.URL + ", 1 static key\n"; line != want {
		t.Fatalf("banner %q, want %q", line, want)
	}
	go io.Copy(io.Discard, out)
	if !strings.Contains(stderr.String(), "the key set at "+issuer.URL+"/jwks: fetched") {
		t.Fatalf("the key set was not fetched at start: %s", stderr.String())
	}
	list := func(credential string) int {
		status, _ := postMCP(t, mcp, `{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}}`, credential)
		return status
	}
	for _, c := range []struct {
		name, credential string
		status           int
	}{{"no credential", "", 401}, {"the static key", key, 200}, {"a JWT", jwt, 200}, {"another key", "ske_" + strings.Repeat("x", 43), 401}} {
		if got := list(c.credential); got != c.status {
			t.Errorf("%s: %d, want %d", c.name, got, c.status)
		}
	}

	base := strings.TrimSuffix(mcp, "/mcp")
	code, stdout, errOut := call(t, "", "verify", base, "--allow-http-loopback", "--token", key)
	expect(t, code, stdout, errOut, 0, "ok  greet  (1 file)", "")
	code, stdout, errOut = call(t, "", "verify", base, "--allow-http-loopback", "--token", jwt)
	expect(t, code, stdout, errOut, 0, "1 skill verified", "")
	code, stdout, errOut = call(t, "", "verify", base, "--allow-http-loopback")
	expect(t, code, stdout, errOut, 1, "HTTP 401", "the deployment asks for a credential: pass --token")
	// search sends the token to the deployment, and without one is told the catalog is private.
	code, stdout, errOut = call(t, "", "search", base, "hello", "--token", key)
	expect(t, code, stdout, errOut, 0, "greet  greet  ", "")
	code, stdout, errOut = call(t, "", "search", base, "hello")
	expect(t, code, stdout, errOut, 1, "", "401: the catalog is private: give a token with --token")
	code, stdout, errOut = call(t, "", "search", dir, "hello")
	expect(t, code, stdout, errOut, 1, "", "has an access policy (skilledge.yaml): search its deployment, giving --token")

	stopped(t, cancel, exit, &stderr)

	// Over stdio the private catalog is served without a credential, and nothing is fetched.
	stdin := `{"jsonrpc":"2.0","id":1,"method":"skills/list"}` + "\n"
	code, stdout, errOut = call(t, stdin, "stdio", dir, "--auth", authFile)
	expect(t, code, stdout, errOut, 0, `"uri":"skill://greet/SKILL.md"`, "serving 1 skill")
	if strings.Contains(errOut, "key set") {
		t.Fatalf("stdio fetched a key set: %s", errOut)
	}
	code, stdout, errOut = call(t, stdin, "stdio", dir)
	expect(t, code, stdout, errOut, 0, `"uri":"skill://greet/SKILL.md"`, "serving 1 skill")
	// Over HTTP, not without --auth: nobody could be told apart.
	code, stdout, errOut = call(t, "", "serve", dir, "--addr", "127.0.0.1:0")
	expect(t, code, stdout, errOut, 2, "", "has an access policy (skilledge.yaml): serve it with --auth FILE")
}
