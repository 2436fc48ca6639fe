package wasm

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/internal/require"
)

// fakeKeys is a Keys whose set is what a test puts, and which fetches, when wanted, the
// set the test made available (next).
type fakeKeys struct {
	mu      sync.Mutex
	doc     []byte
	version uint64
	next    []byte // what a fetch brings; nil: the issuer is down
	wants   int
	refused []string
}

func (f *fakeKeys) Keys(url string) ([]byte, uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.doc, f.version
}

func (f *fakeKeys) Want(ctx context.Context, url string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.wants++
	if f.next != nil && string(f.next) != string(f.doc) {
		f.doc, f.version = f.next, f.version+1
	}
}

func (f *fakeKeys) Refused(url string, version uint64, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refused = append(f.refused, fmt.Sprintf("%d: %v", version, err))
}

const (
	keysURL      = "https://as.example/jwks"
	keysIssuer   = "https://as.example"
	keysResource = "http://localhost:8787/mcp"
)

// signer is a key of the test issuer.
type signer struct {
	kid string
	key ed25519.PrivateKey
}

func newSigner(kid string) signer {
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	return signer{kid, key}
}

func jwks(keys ...signer) []byte {
	var list []map[string]string
	for _, k := range keys {
		list = append(list, map[string]string{"kty": "OKP", "crv": "Ed25519", "kid": k.kid,
			"x": base64.RawURLEncoding.EncodeToString(k.key.Public().(ed25519.PublicKey))})
	}
	b, _ := json.Marshal(map[string]any{"keys": list})
	return b
}

func (k signer) token() string {
	enc := base64.RawURLEncoding.EncodeToString
	claims, _ := json.Marshal(map[string]any{"iss": keysIssuer, "aud": keysResource, "exp": time.Now().Add(time.Hour).Unix()})
	in := enc([]byte(`{"alg":"EdDSA","kid":"`+k.kid+`","typ":"at+jwt"}`)) + "." + enc(claims)
	return in + "." + enc(ed25519.Sign(k.key, []byte(in)))
}

func authStatus(t *testing.T, pool *Pool, token string) int {
	t.Helper()
	out, err := pool.HTTP(context.Background(), frame("POST", "/mcp", initialize, "Content-Type", "application/json",
		"Accept", "application/json, text/event-stream", "Authorization", "Bearer "+token), nil)
	require.NoError(t, err)
	return parseResponse(t, out).Status
}

var keysAuth = []byte(`{"resource":"` + keysResource + `","jwt":{"issuer":"` + keysIssuer + `","jwksUri":"` + keysURL + `"}}`)

// TestPoolKeys: the pool gives every instance the set in hand, asks its Keys for the set
// when the plugin wants it (at start, and after a 401 that wants it) and asks the plugin
// again once when a new set came, and reports the sets the plugin refuses.
func TestPoolKeys(t *testing.T) {
	k1, k2 := newSigner("k1"), newSigner("k2")
	keys := &fakeKeys{next: jwks(k1)}
	pool := testPool(t, Options{Size: 2, Keys: keys, Server: optionsWithAuth(keysAuth)})
	require.Equal(t, []string{keysURL}, pool.KeyURLs())
	require.Equal(t, 1, keys.wants, "asked for at start")
	require.Equal(t, 200, authStatus(t, pool, k1.token()))

	// A rotation: the first request with k2 has the set fetched and is asked again.
	keys.next = jwks(k1, k2)
	require.Equal(t, 200, authStatus(t, pool, k2.token()))
	require.Equal(t, 2, keys.wants)
	// Both instances have it (two requests at once take both).
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := pool.HTTP(context.Background(), frame("POST", "/mcp", initialize, "Content-Type", "application/json",
				"Accept", "application/json, text/event-stream", "Authorization", "Bearer "+k2.token()), nil)
			if r, perr := wire.ParseResponse(out); err != nil || perr != nil || r.Status != 200 {
				t.Errorf("a request at once: %v %v %q", err, perr, out)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, 2, keys.wants, "no instance wanted the set again")

	// An unknown kid: wanted, nothing new came, the 401 stands (asked once).
	require.Equal(t, 401, authStatus(t, pool, newSigner("k9").token()))
	require.Equal(t, 3, keys.wants)
	// A 401 for another reason wants nothing.
	require.Equal(t, 401, authStatus(t, pool, "nonsense"))
	require.Equal(t, 3, keys.wants)

	// A document that is no key set is refused by every instance that gets it (reported),
	// and the instances keep the set they had.
	keys.mu.Lock()
	keys.doc, keys.version = []byte("<html>"), keys.version+1
	keys.mu.Unlock()
	for range 4 {
		require.Equal(t, 200, authStatus(t, pool, k1.token()))
	}
	require.Equal(t, true, len(keys.refused) >= 1, "refusals reported")
	require.Contains(t, keys.refused[0], "3: skilledge: keys: auth: the key set is not JSON")
}

// TestPoolKeysNone: without Keys the plugin gets no set, and refuses the tokens it would
// verify; an option with an inline set, or without auth, names no URL.
func TestPoolKeysNone(t *testing.T) {
	pool := testPool(t, Options{Size: 1, Server: optionsWithAuth(keysAuth)})
	require.Equal(t, []string{keysURL}, pool.KeyURLs())
	require.Equal(t, 401, authStatus(t, pool, newSigner("k1").token()))
	k1 := newSigner("k1")
	inline := testPool(t, Options{Size: 1, Server: optionsWithAuth([]byte(`{"resource":"` + keysResource +
		`","jwt":{"issuer":"` + keysIssuer + `","jwks":` + string(jwks(k1)) + `}}`))})
	require.Equal(t, 0, len(inline.KeyURLs()))
	require.Equal(t, 200, authStatus(t, inline, k1.token()))
	require.Equal(t, 0, len(testPool(t, Options{Size: 1}).KeyURLs()))
}

// The Extism ABI's keys and keys_wanted: as the raw ABI's, and kept across a load.
func TestExtismKeys(t *testing.T) {
	p, cat := testPlugin(t)
	ctx := context.Background()
	in, err := p.bareInstance(ctx, &sync.Mutex{})
	require.NoError(t, err)
	defer in.close()
	k1 := newSigner("k1")
	_, err = in.callExtism(ctx, "keys", []byte(keysURL+"\n"+string(jwks(k1))))
	require.Contains(t, err.Error(), "no catalog loaded; call load first")
	out, err := in.callExtism(ctx, "keys_wanted", nil)
	require.NoError(t, err)
	require.Equal(t, "", string(out))
	_, err = in.callExtism(ctx, "configure", optionsWithAuth(keysAuth).JSON())
	require.NoError(t, err)
	_, err = in.callExtism(ctx, "load", cat.Index)
	require.NoError(t, err)
	out, err = in.callExtism(ctx, "keys_wanted", nil)
	require.NoError(t, err)
	require.Equal(t, keysURL, string(out))
	_, err = in.callExtism(ctx, "keys", []byte("https://elsewhere.example/jwks\n"+string(jwks(k1))))
	require.Contains(t, err.Error(), "skilledge: keys: auth: no credential's keys come from https://elsewhere.example/jwks")
	_, err = in.callExtism(ctx, "keys", []byte("no line"))
	require.Contains(t, err.Error(), "a keys input is URL LF DOCUMENT")
	_, err = in.callExtism(ctx, "keys", []byte(keysURL+"\n"+string(jwks(k1))))
	require.NoError(t, err)
	out, err = in.callExtism(ctx, "keys_wanted", nil)
	require.NoError(t, err)
	require.Equal(t, "", string(out))
	// The set survives a load of the catalog again, and a configure with the same auth.
	_, err = in.callExtism(ctx, "load", cat.Index)
	require.NoError(t, err)
	_, err = in.callExtism(ctx, "configure", optionsWithAuth(keysAuth).JSON())
	require.NoError(t, err)
	out, err = in.callExtism(ctx, "keys_wanted", nil)
	require.NoError(t, err)
	require.Equal(t, "", string(out))
	req := frame("POST", "/mcp", initialize, "Content-Type", "application/json", "Accept", "application/json, text/event-stream",
		"Authorization", "Bearer "+k1.token())
	out, err = in.callExtism(ctx, "http", req)
	require.NoError(t, err)
	require.Equal(t, 200, parseResponse(t, out).Status)
}

func optionsWithAuth(auth []byte) wire.Options { return wire.Options{Auth: auth} }
