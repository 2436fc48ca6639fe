//go:build e2e

package tests

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skilledge/skilledge/edge/wire"
)

// TestWorkerKeys: a Worker whose auth option names a key set by URL fetches it (through
// worker.mjs's fetch and KeySets, build/host/keys.mjs, in workerd) on its first request,
// accepts the tokens it verifies, refuses a token of a new kid without fetching again
// within the pause, and past it fetches the set again, past the caches, and answers the
// request that wanted it. It waits out the pause (wire.KeysRefetch, 30 s).
func TestWorkerKeys(t *testing.T) {
	var mu sync.Mutex
	keys := map[string]ed25519.PrivateKey{}
	var fetches []string // the Cache-Control of each fetch
	add := func(kid string) {
		_, k, _ := ed25519.GenerateKey(rand.Reader)
		mu.Lock()
		keys[kid] = k
		mu.Unlock()
	}
	enc := base64.RawURLEncoding.EncodeToString
	issuer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		fetches = append(fetches, r.Header.Get("Cache-Control"))
		var list []map[string]string
		for kid, k := range keys {
			list = append(list, map[string]string{"kty": "OKP", "crv": "Ed25519", "kid": kid, "x": enc(k.Public().(ed25519.PublicKey))})
		}
		json.NewEncoder(w).Encode(map[string]any{"keys": list})
	}))
	defer issuer.Close()
	const resource = "http://localhost/mcp"
	token := func(kid string) string {
		mu.Lock()
		k := keys[kid]
		mu.Unlock()
		claims, _ := json.Marshal(map[string]any{"iss": issuer.URL, "aud": resource, "exp": time.Now().Add(time.Hour).Unix()})
		in := enc([]byte(`{"alg":"EdDSA","kid":"`+kid+`","typ":"at+jwt"}`)) + "." + enc(claims)
		return in + "." + enc(ed25519.Sign(k, []byte(in)))
	}
	fetched := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), fetches...)
	}
	add("k1")
	options := `{"allowHosts":["*"],"auth":{"resource":"` + resource + `","jwt":{"issuer":"` + issuer.URL + `","jwksUri":"` + issuer.URL + `/jwks"}}}`
	url := workerdFor(t, deployedFull(t), options)[0] + "/mcp" // the auth option needs the full plugin
	status := func(kid string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token(kid))
		resp, err := workerClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := status("k1"); got != 200 {
		t.Fatalf("a token of the set: %d (fetches %q)", got, fetched())
	}
	add("k2")
	if got := status("k2"); got != 401 {
		t.Fatalf("a new kid within the pause: %d", got)
	}
	if got := fetched(); len(got) != 1 || got[0] != "" {
		t.Fatalf("fetches %q, want one, through the caches", got)
	}
	time.Sleep(wire.KeysRefetch + time.Second)
	if got := status("k2"); got != 200 {
		t.Fatalf("a new kid past the pause: %d (fetches %q)", got, fetched())
	}
	if got := fetched(); len(got) != 2 || got[1] != "no-cache" {
		t.Fatalf("fetches %q, want a second one past the caches", got)
	}
	if got := status("k1"); got != 200 {
		t.Fatalf("the first key after the rotation: %d", got)
	}
}
