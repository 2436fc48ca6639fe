package front

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/internal/require"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// issuer is an authorization server on loopback: it signs tokens with its current keys
// and serves their key set at /jwks, counting the fetches; down makes it answer 503.
type issuer struct {
	*httptest.Server
	mu      sync.Mutex
	keys    map[string]ed25519.PrivateKey // by kid: those the key set holds
	fetches atomic.Int32
	down    atomic.Bool
	header  http.Header // added to the key set's answer
}

func newIssuer(t *testing.T) *issuer {
	is := &issuer{keys: map[string]ed25519.PrivateKey{}, header: http.Header{}}
	is.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/jwks" {
			http.NotFound(w, r)
			return
		}
		is.fetches.Add(1)
		if is.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		for k, v := range is.header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.Write(is.jwks())
	}))
	t.Cleanup(is.Close)
	return is
}

// rotate adds a key of kid to the set (and drops the others when only is true).
func (is *issuer) rotate(kid string, only bool) {
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	is.mu.Lock()
	defer is.mu.Unlock()
	if only {
		clear(is.keys)
	}
	is.keys[kid] = key
}

func (is *issuer) jwks() []byte {
	is.mu.Lock()
	defer is.mu.Unlock()
	var keys []map[string]string
	for kid, k := range is.keys {
		keys = append(keys, map[string]string{"kty": "OKP", "crv": "Ed25519", "kid": kid,
			"x": base64.RawURLEncoding.EncodeToString(k.Public().(ed25519.PublicKey))})
	}
	b, _ := json.Marshal(map[string]any{"keys": keys})
	return b
}

// token is an access token for resource signed by kid's key, for an hour; a kid the
// issuer never had signs with a key of its own.
func (is *issuer) token(kid, resource string) string {
	return is.tokenUntil(kid, resource, time.Now().Add(time.Hour))
}

// tokenUntil is token, expiring at exp.
func (is *issuer) tokenUntil(kid, resource string, exp time.Time) string {
	is.mu.Lock()
	key, ok := is.keys[kid]
	is.mu.Unlock()
	if !ok {
		_, key, _ = ed25519.GenerateKey(rand.Reader)
	}
	enc := base64.RawURLEncoding.EncodeToString
	claims, _ := json.Marshal(map[string]any{"iss": is.URL, "aud": resource, "sub": "agent",
		"exp": exp.Unix(), "scope": "skills:read"})
	in := enc([]byte(`{"alg":"EdDSA","kid":"`+kid+`","typ":"at+jwt"}`)) + "." + enc(claims)
	return in + "." + enc(ed25519.Sign(key, []byte(in)))
}

// clock is a time tests move.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

const keysResource = "http://localhost:8787/mcp"

// keysPool is a pool whose auth option takes JWTs of is, with KeySets on clock c.
func keysPool(t *testing.T, is *issuer, size int) (*wasm.Pool, *KeySets, *clock, *require.Buffer) {
	t.Helper()
	log := new(require.Buffer)
	ks := NewKeySets(log, nil)
	t.Cleanup(ks.Close)
	c := &clock{t: time.Now()}
	ks.now = c.Now
	pool := testPool(t, wasm.Options{Size: size, Keys: ks, Server: wire.Options{
		Auth: []byte(`{"resource":"` + keysResource + `","jwt":{"issuer":"` + is.URL + `","jwksUri":"` + is.URL + `/jwks"}}`),
	}})
	return pool, ks, c, log
}

// status is the pool's answer's status to an initialize with token ("": no
// Authorization field).
func status(t *testing.T, pool *wasm.Pool, token string) int {
	t.Helper()
	r := &wire.Request{Method: "POST", Target: "/mcp", Body: []byte(initialize)}
	for _, h := range [][2]string{{"Host", "localhost:8787"}, {"Content-Type", "application/json"},
		{"Accept", "application/json, text/event-stream"}, {"Authorization", "Bearer " + token}} {
		if h[0] == "Authorization" && token == "" {
			continue
		}
		r.Header = append(r.Header, wire.Field{Name: h[0], Value: h[1]})
	}
	out, err := pool.HTTP(context.Background(), wire.AppendRequest(nil, r), nil)
	require.NoError(t, err)
	resp, err := wire.ParseResponse(out)
	require.NoError(t, err)
	return resp.Status
}

// TestKeySetsPool: a pool whose auth option names a key set by URL fetches it when it
// starts, accepts the tokens it verifies on every instance, fetches it again once when a
// token names a new kid (a rotation) and not more often than wire.KeysRefetch, refreshes it
// in the background once stale, and refuses tokens when the issuer is down.
func TestKeySetsPool(t *testing.T) {
	is := newIssuer(t)
	is.rotate("k1", true)
	pool, _, c, log := keysPool(t, is, 3)
	require.Equal(t, []string{is.URL + "/jwks"}, pool.KeyURLs())
	require.Equal(t, int32(1), is.fetches.Load(), "fetches when the pool starts")
	require.Contains(t, log.String(), "the key set at "+is.URL+"/jwks: fetched")

	// Every instance, those made later too, has the set.
	good := is.token("k1", keysResource)
	var wg sync.WaitGroup
	var ok atomic.Int32
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if status(t, pool, good) == 200 {
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	created, _ := pool.Stats()
	require.Equal(t, int32(12), ok.Load(), fmt.Sprintf("requests accepted, on %d instances", created))
	require.Equal(t, 401, status(t, pool, is.token("k1", "http://localhost:8787/other")))
	require.Equal(t, 401, status(t, pool, "nonsense"))
	require.Equal(t, int32(1), is.fetches.Load(), "no fetch for tokens that fail for other reasons")

	// The issuer rotates to k2 within the pause: the set was fetched too recently.
	is.rotate("k2", false)
	rotated := is.token("k2", keysResource)
	require.Equal(t, 401, status(t, pool, rotated))
	require.Equal(t, int32(1), is.fetches.Load(), "a fetch within the pause")
	// Past the pause, the first request with the new kid has the set fetched and is asked again.
	c.add(wire.KeysRefetch)
	require.Equal(t, 200, status(t, pool, rotated))
	require.Equal(t, int32(2), is.fetches.Load(), "one fetch for the rotation")
	for range 6 {
		require.Equal(t, 200, status(t, pool, rotated))
	}
	require.Equal(t, int32(2), is.fetches.Load(), "the other instances got the set without a fetch")

	// Made-up kids cost the issuer one fetch per pause, whatever their number.
	for i := range 5 {
		require.Equal(t, 401, status(t, pool, is.token(fmt.Sprintf("made-up-%d", i), keysResource)))
	}
	require.Equal(t, int32(2), is.fetches.Load(), "made-up kids within the pause")
	c.add(wire.KeysRefetch)
	for i := range 5 {
		require.Equal(t, 401, status(t, pool, is.token(fmt.Sprintf("made-up-%d", i), keysResource)))
	}
	require.Equal(t, int32(3), is.fetches.Load(), "made-up kids past the pause")

	// Once stale, the set is fetched again in the background, and requests go on meanwhile.
	c.add(wire.KeysDefaultAge)
	require.Equal(t, 200, status(t, pool, rotated))
	waitFor(t, func() bool { return is.fetches.Load() == 4 }, "a background refresh")

	// The issuer goes down: the set in hand stays in use; a new kid is refused, and says so.
	is.down.Store(true)
	c.add(wire.KeysRefetch)
	is.rotate("k3", false)
	require.Equal(t, 401, status(t, pool, is.token("k3", keysResource)))
	require.Equal(t, int32(5), is.fetches.Load())
	require.Equal(t, 200, status(t, pool, rotated))
	require.Contains(t, log.String(), "HTTP 503 Service Unavailable; the set in hand stays in use until")

	// A pool that starts while the issuer is down refuses every token, and says why.
	down, _, c2, log2 := keysPool(t, is, 1)
	require.Equal(t, 401, status(t, down, good))
	require.Contains(t, log2.String(), "HTTP 503 Service Unavailable; every token it would verify is refused until a fetch brings it")
	// When it is back, the next request past the pause has the set fetched.
	is.down.Store(false)
	require.Equal(t, 401, status(t, down, rotated), "within the pause")
	c2.add(wire.KeysRefetch)
	require.Equal(t, 200, status(t, down, rotated), "past the pause")
	t.Logf("the first pool's log:\n%s\nthe second's:\n%s", log, log2)
}

// TestKeySetsRetry: a pool that starts while the issuer is down has the set fetched again
// on its own, after 1 s and then 2 s (wire.KeysState.Pause), with no request asking, and
// the log says when it came; once it came, nothing more is fetched.
func TestKeySetsRetry(t *testing.T) {
	is := newIssuer(t)
	is.rotate("k1", true)
	is.down.Store(true)
	log := new(require.Buffer)
	ks := NewKeySets(log, nil)
	t.Cleanup(ks.Close)
	start := time.Now()
	pool := testPool(t, wasm.Options{Size: 1, Keys: ks, Server: wire.Options{
		Auth: []byte(`{"resource":"` + keysResource + `","jwt":{"issuer":"` + is.URL + `","jwksUri":"` + is.URL + `/jwks"}}`),
	}})
	good := is.token("k1", keysResource)
	require.Equal(t, 401, status(t, pool, good), "the issuer down at start")
	waitFor(t, func() bool { return is.fetches.Load() == 3 }, "two tries on its own")
	if d := time.Since(start); d < 3*time.Second {
		t.Fatalf("three fetches within %v: the pauses are 1 s and 2 s", d)
	}
	is.down.Store(false)
	waitFor(t, func() bool { return strings.Contains(log.String(), "fetched (") }, "the set, fetched on its own")
	require.Contains(t, log.String(), "after 3 failed fetches")
	require.Equal(t, int32(4), is.fetches.Load())
	require.Equal(t, 200, status(t, pool, good))
	time.Sleep(1500 * time.Millisecond)
	require.Equal(t, int32(4), is.fetches.Load(), "no more tries once a set came")
	t.Logf("the log:\n%s", log)
}

// TestKeySetsGivenUp: a set no fetch refreshed for wire.KeysMaxAge after it went stale is
// given up, and tokens it verified are refused.
func TestKeySetsGivenUp(t *testing.T) {
	is := newIssuer(t)
	is.rotate("k1", true)
	pool, _, c, log := keysPool(t, is, 1)
	good := is.token("k1", keysResource)
	require.Equal(t, 200, status(t, pool, good))
	is.down.Store(true)
	// Stale, and a pause short of a day so: the refresh it starts fails, the set stays.
	c.add(wire.KeysDefaultAge + wire.KeysMaxAge - wire.KeysRefetch)
	require.Equal(t, 200, status(t, pool, good))
	// A day stale: the refresh this request starts fails too, and the set is given up (the
	// request itself may be answered before or after that).
	c.add(wire.KeysRefetch)
	status(t, pool, good)
	waitFor(t, func() bool { return strings.Contains(log.String(), "given up") }, "the set given up")
	require.Equal(t, 401, status(t, pool, good))
	// Back up: the next request past the pause fetches it again and is answered.
	is.down.Store(false)
	c.add(wire.KeysRefetch)
	require.Equal(t, 200, status(t, pool, good))
}

// TestKeySetsFetch: what a fetch refuses, and what it tells the issuer.
func TestKeySetsFetch(t *testing.T) {
	var accept, cacheControl atomic.Value
	mux := http.NewServeMux()
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		accept.Store(r.Header.Get("Accept"))
		cacheControl.Store(r.Header.Get("Cache-Control"))
		w.Header().Set("Cache-Control", "max-age=120")
		w.Write([]byte(`{"keys":[]}`))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte(" "), wire.KeySetMax+1))
	})
	mux.HandleFunc("/to-jwks", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/jwks", http.StatusFound) })
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://example.com/jwks", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ks := NewKeySets(nil, nil)
	for _, c := range []struct {
		path   string
		urgent bool
		err    string
	}{
		{"/jwks", false, ""},
		{"/jwks", true, ""},
		{"/to-jwks", false, ""},
		{"/missing", false, "HTTP 404 Not Found"},
		{"/big", false, fmt.Sprintf("more than %d bytes", wire.KeySetMax)},
		{"/away", false, "a redirect to http://example.com/jwks, which is not https"},
		{"/loop", false, "more than 3 redirects"},
	} {
		doc, age, err := ks.get(context.Background(), srv.URL+c.path, c.urgent)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want %q", c.path, err, c.err)
			}
			continue
		}
		require.NoError(t, err, c.path)
		require.Equal(t, `{"keys":[]}`, string(doc))
		require.Equal(t, 2*time.Minute, age)
		require.Equal(t, wire.KeysAccept, accept.Load())
		want := ""
		if c.urgent {
			want = "no-cache"
		}
		require.Equal(t, want, cacheControl.Load(), c.path)
	}
	if _, _, err := ks.get(context.Background(), "http://example.com/jwks", false); err == nil || !strings.Contains(err.Error(), "not fetched") {
		t.Errorf("plain http to another host: %v", err)
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s", what)
		}
	}
}
