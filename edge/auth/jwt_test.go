package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// testKeys are one signing key of each kind, made once per test binary.
type testKeys struct {
	rsa *rsa.PrivateKey
	ec  *ecdsa.PrivateKey
	ed  ed25519.PrivateKey
	set *KeySet
	doc []byte // the JWKS document of set
}

var keysOnce = sync.OnceValue(func() *testKeys {
	k := &testKeys{}
	k.rsa, _ = rsa.GenerateKey(rand.Reader, 2048)
	k.ec, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, k.ed, _ = ed25519.GenerateKey(rand.Reader)
	enc := base64.RawURLEncoding.EncodeToString
	ecPub, _ := k.ec.PublicKey.Bytes() // 0x04 || X || Y
	doc, _ := json.Marshal(map[string]any{"keys": []map[string]string{
		{"kty": "RSA", "kid": "r1", "use": "sig", "n": enc(k.rsa.N.Bytes()), "e": enc(big.NewInt(int64(k.rsa.E)).Bytes())},
		{"kty": "EC", "kid": "e1", "crv": "P-256", "x": enc(ecPub[1:33]), "y": enc(ecPub[33:])},
		{"kty": "OKP", "kid": "d1", "crv": "Ed25519", "x": enc(k.ed.Public().(ed25519.PublicKey))},
		{"kty": "oct", "kid": "h1", "k": enc([]byte("an HMAC secret, never used"))},
		{"kty": "RSA", "kid": "enc", "use": "enc", "n": "AQAB", "e": "AQAB"},
	}})
	var err error
	if k.set, err = ParseKeySet(doc); err != nil {
		panic(err)
	}
	k.doc = doc
	return k
})

// sign makes a compact JWS of header and claims (JSON), signed as alg with the test key
// of that kind; "none" and "HS256" sign as an attacker would.
func sign(t testing.TB, header, claims string) string {
	t.Helper()
	k := keysOnce()
	enc := base64.RawURLEncoding.EncodeToString
	in := enc([]byte(header)) + "." + enc([]byte(claims))
	var h struct{ Alg string }
	json.Unmarshal([]byte(header), &h)
	sum := sha256.Sum256([]byte(in))
	var sig []byte
	switch h.Alg {
	case "RS256":
		sig, _ = rsa.SignPKCS1v15(rand.Reader, k.rsa, crypto.SHA256, sum[:])
	case "PS256":
		sig, _ = rsa.SignPSS(rand.Reader, k.rsa, crypto.SHA256, sum[:], &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
	case "ES256":
		r, s, _ := ecdsa.Sign(rand.Reader, k.ec, sum[:])
		sig = append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
	case "EdDSA":
		sig = ed25519.Sign(k.ed, []byte(in))
	case "HS256": // keyed with the public key set, as an algorithm-confusion attack does
		m := hmac.New(sha256.New, k.doc)
		m.Write([]byte(in))
		sig = m.Sum(nil)
	case "none":
		return in + "."
	}
	return in + "." + enc(sig)
}

const (
	testIssuer   = "https://as.example"
	testResource = "https://skills.example/mcp"
)

var testNow = time.Unix(1_800_000_000, 0)

// claims is a valid claims set with extra members appended (or replacing, by key).
func claims(extra map[string]any) string {
	c := map[string]any{"iss": testIssuer, "aud": testResource, "sub": "agent-7", "exp": testNow.Unix() + 600,
		"iat": testNow.Unix() - 10, "scope": "skills:read skills:finance"}
	for k, v := range extra {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// TestVerify: every accepted form, and the hostile tokens each refused (all with
// ErrInvalid), so that the server answers each alike.
func TestVerify(t *testing.T) {
	is := &Issuer{Issuer: testIssuer, Audience: testResource, Skew: DefaultSkew}
	keys := keysOnce().set
	big := strings.Repeat("a", 1<<20)
	for _, c := range []struct {
		name, token string
		issuer      *Issuer
		scopes      string // the grant's, when accepted
		err         string // a part of the error, when refused
		unknownKey  bool
	}{
		{name: "RS256", token: sign(t, `{"alg":"RS256","kid":"r1","typ":"at+jwt"}`, claims(nil)), scopes: "skills:finance skills:read"},
		{name: "PS256", token: sign(t, `{"alg":"PS256","kid":"r1"}`, claims(nil)), scopes: "skills:finance skills:read"},
		{name: "ES256", token: sign(t, `{"alg":"ES256","kid":"e1"}`, claims(nil)), scopes: "skills:finance skills:read"},
		{name: "EdDSA", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(nil)), scopes: "skills:finance skills:read"},
		{name: "no kid: every key of the kind is tried", token: sign(t, `{"alg":"ES256"}`, claims(nil)), scopes: "skills:finance skills:read"},
		{name: "aud as a list", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(map[string]any{"aud": []string{"x", testResource}})), scopes: "skills:finance skills:read"},
		{name: "scp as a list", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(map[string]any{"scope": nil, "scp": []string{"b", "a", "b"}})), scopes: "a b"},
		{name: "scope split on spaces only", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(map[string]any{"scope": "skills:read\u00a0skills:admin b  a"})), scopes: "a b"},
		{name: "a string in a configured claim is one value", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(map[string]any{"groups": "Finance Admins"})),
			issuer: &Issuer{Issuer: testIssuer, Audience: testResource, ScopesClaim: "groups"}, scopes: ""},
		{name: "at+jwt required and given", token: sign(t, `{"alg":"EdDSA","kid":"d1","typ":"application/at+jwt"}`, claims(nil)),
			issuer: &Issuer{Issuer: testIssuer, Audience: testResource, Type: "at+jwt"}, scopes: "skills:finance skills:read"},
		{name: "at+jwt required, JWT given", token: sign(t, `{"alg":"EdDSA","kid":"d1","typ":"JWT"}`, claims(nil)),
			issuer: &Issuer{Issuer: testIssuer, Audience: testResource, Type: "at+jwt"}, err: "is not at+jwt"},
		{name: "no scopes", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(map[string]any{"scope": nil})), scopes: ""},
		{name: "a configured claim", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(map[string]any{"groups": []string{"skills:x"}})),
			issuer: &Issuer{Issuer: testIssuer, Audience: testResource, ScopesClaim: "groups"}, scopes: "skills:x"},
		{name: "expired a little, within the skew", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(map[string]any{"exp": testNow.Unix() - 30})), scopes: "skills:finance skills:read"},

		{name: "expired", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(map[string]any{"exp": testNow.Unix() - 61})), err: "expired"},
		{name: "not yet valid", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(map[string]any{"nbf": testNow.Unix() + 120})), err: "not valid yet"},
		{name: "no exp", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(map[string]any{"exp": nil})), err: "exp is missing"},
		{name: "exp a string", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(map[string]any{"exp": "1900000000"})), err: "exp is missing or not a number"},
		{name: "wrong issuer", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(map[string]any{"iss": "https://as.example/"})), err: "iss"},
		{name: "wrong audience", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(map[string]any{"aud": "https://skills.example"})), err: "aud"},
		{name: "no audience", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(map[string]any{"aud": nil})), err: "aud"},
		{name: "alg none", token: sign(t, `{"alg":"none"}`, claims(nil)), err: "not a JWS"},
		{name: "alg none with a signature", token: sign(t, `{"alg":"none"}`, claims(nil)) + "AAAA", err: `alg "none"`},
		{name: "HMAC keyed with the public key set", token: sign(t, `{"alg":"HS256","kid":"h1"}`, claims(nil)), err: `alg "HS256"`},
		{name: "an RSA token presented as ES256", token: func() string {
			tok := sign(t, `{"alg":"RS256","kid":"r1"}`, claims(nil))
			return base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"ES256","kid":"r1"}`)) + tok[strings.Index(tok, "."):]
		}(), err: "no key of the key set signs with ES256"},
		{name: "unknown kid", token: sign(t, `{"alg":"EdDSA","kid":"rotated"}`, claims(nil)), err: "not in the key set", unknownKey: true},
		{name: "a changed claim", token: func() string {
			tok := sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(nil))
			parts := strings.Split(tok, ".")
			parts[1] = base64.RawURLEncoding.EncodeToString([]byte(claims(map[string]any{"scope": "skills:admin"})))
			return strings.Join(parts, ".")
		}(), err: "does not verify"},
		{name: "malformed base64", token: "eyJ*.eyJ.sig", err: "not base64url"},
		{name: "padded base64", token: base64.URLEncoding.EncodeToString([]byte(`{"alg":"EdDSA","kid":"d1"}`)) + ".e30.AAAA", err: "not base64url"},
		{name: "malformed JSON header", token: base64.RawURLEncoding.EncodeToString([]byte(`{"alg":`)) + ".e30.AAAA", err: "not JSON"},
		{name: "malformed JSON claims", token: func() string {
			tok := sign(t, `{"alg":"EdDSA","kid":"d1"}`, `{"iss":`)
			return tok
		}(), err: "not JSON"},
		{name: "claims not an object", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, `[1]`), err: "not a JSON object"},
		{name: "alg twice", token: sign(t, `{"alg":"none","alg":"EdDSA","kid":"d1"}`, claims(nil)), err: "twice"},
		{name: "a claim twice", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, `{"iss":"x","iss":"`+testIssuer+`"}`), err: "twice"},
		{name: "crit", token: sign(t, `{"alg":"EdDSA","kid":"d1","crit":["exp"]}`, claims(nil)), err: "crit"},
		{name: "another typ", token: sign(t, `{"alg":"EdDSA","kid":"d1","typ":"dpop+jwt"}`, claims(nil)), err: "typ"},
		{name: "a token of 1 MiB", token: big + "." + big + "." + big, err: "longer than"},
		{name: "two parts", token: "a.b", err: "not a JWS"},
		{name: "four parts", token: "a.b.c.d", err: "not a JWS"},
		{name: "empty", token: "", err: "not a JWS"},
		{name: "scopes that are not strings", token: sign(t, `{"alg":"EdDSA","kid":"d1"}`, claims(map[string]any{"scope": nil, "scp": []any{"a", 1}})), err: "other than strings"},
	} {
		t.Run(c.name, func(t *testing.T) {
			iss := is
			if c.issuer != nil {
				iss = c.issuer
			}
			g, err := iss.Verify(c.token, keys, testNow)
			if c.err == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if string(g.Scopes) != c.scopes || g.Subject != "agent-7" {
					t.Fatalf("grant %q %q, want scopes %q", g.Subject, g.Scopes, c.scopes)
				}
				if want := gjson.Get(claimsOf(c.token), "exp").Float(); float64(g.Expires.UnixNano())/1e9 != want {
					t.Fatalf("grant expires %v, want exp %v", g.Expires, want)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, granting %q", g.Scopes)
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("error %q, want ErrInvalid and %q", err, c.err)
			}
			if errors.Is(err, ErrUnknownKey) != c.unknownKey {
				t.Fatalf("error %q: ErrUnknownKey %t", err, !c.unknownKey)
			}
		})
	}
}

// TestParseKeySet: keys of kinds not verified with are skipped; malformed or weak ones of
// kinds verified with refuse the set.
func TestParseKeySet(t *testing.T) {
	if n := keysOnce().set.Len(); n != 3 {
		t.Fatalf("the test set keeps %d keys, want 3 (the HMAC and encryption keys skipped)", n)
	}
	enc := base64.RawURLEncoding.EncodeToString
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	for _, c := range []struct{ name, doc, err string }{
		{"not JSON", `{"keys":[`, "not JSON"},
		{"not a JWKS", `[]`, "not a JWKS"},
		{"keys not a list", `{"keys":{}}`, "not a JWKS"},
		{"a key not an object", `{"keys":[1]}`, "not an object"},
		{"a weak RSA key", `{"keys":[{"kty":"RSA","kid":"w","n":"` + enc(small.N.Bytes()) + `","e":"AQAB"}]}`, "1024 bits"},
		{"an RSA key with padding", `{"keys":[{"kty":"RSA","kid":"p","n":"AQAB==","e":"AQAB"}]}`, "malformed"},
		{"a P-256 point off the curve", `{"keys":[{"kty":"EC","crv":"P-256","x":"` + enc(make([]byte, 32)) + `","y":"` + enc(make([]byte, 32)) + `"}]}`, "key"},
		{"a short Ed25519 key", `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"AAAA"}]}`, "malformed Ed25519"},
		{"too large", `{"keys":[],"pad":"` + strings.Repeat("x", MaxKeySet) + `"}`, "more than"},
	} {
		if _, err := ParseKeySet([]byte(c.doc)); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
	ks, err := ParseKeySet([]byte(`{"keys":[{"kty":"EC","crv":"P-384","x":"AA","y":"AA"},{"kty":"OKP","crv":"X25519","x":"AA"}]}`))
	if err != nil || ks.Len() != 0 {
		t.Fatalf("keys of other curves: %v, %d kept", err, ks.Len())
	}
}

func TestBearer(t *testing.T) {
	for _, c := range []struct{ in, token string }{
		{"Bearer abc.def-_~+/=", "abc.def-_~+/="},
		{"bearer abc", "abc"},
		{"BEARER abc==", "abc=="},
		{"Bearer abc, Bearer def", ""}, // two Authorization headers, joined by the host
		{"Bearer  abc", ""},
		{"Bearer abc ", ""},
		{"Bearer", ""},
		{"Basic YWJj", ""},
		{"Bearer a=b", ""},
		{"Bearer ", ""},
		{"Bearer " + strings.Repeat("a", MaxToken+1), ""},
	} {
		tok, err := Bearer(c.in)
		if c.token == "" && (err == nil || !errors.Is(err, ErrInvalid)) || c.token != "" && (err != nil || tok != c.token) {
			t.Errorf("Bearer(%.40q) = %q, %v", c.in, tok, err)
		}
	}
}

func TestStaticKeys(t *testing.T) {
	e1, k1 := NewStaticKey("ci", []string{"skills:read", "skills:read", "a"})
	e2, k2 := NewStaticKey("agent", nil)
	if !strings.HasPrefix(k1, "ske_") || len(k1) != 4+43 || k1 == k2 || string(e1.Scopes) != "a skills:read" {
		t.Fatalf("keys %q %q, scopes %q", k1, k2, e1.Scopes)
	}
	if !token68(k1) {
		t.Fatalf("a key is not a bearer token: %q", k1)
	}
	keys := []StaticKey{e1, e2}
	if g, err := CheckStatic(keys, k2); err != nil || g.Subject != "agent" || len(g.Scopes) != 0 {
		t.Fatalf("key 2: %+v %v", g, err)
	}
	if g, err := CheckStatic(keys, k1); err != nil || g.Subject != "ci" {
		t.Fatalf("key 1: %+v %v", g, err)
	}
	if _, err := CheckStatic(keys, k1+"x"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("another key: %v", err)
	}
	if _, err := CheckStatic(keys, e1.Hex()); !errors.Is(err, ErrInvalid) {
		t.Fatal("the entry's own hash was accepted as the key")
	}
}

// FuzzVerify: no token makes Verify panic or fail with another error than ErrInvalid, and
// only the signed seeds are accepted: the fuzzer cannot sign, and base64url is decoded
// strictly. (An ECDSA signature has a second valid form, s replaced by n-s; a fuzzer that
// found it would fail this test, which would then need the seed's twin as well.)
func FuzzVerify(f *testing.F) {
	seeds := []string{
		sign(f, `{"alg":"EdDSA","kid":"d1"}`, claims(nil)),
		sign(f, `{"alg":"RS256","kid":"r1"}`, claims(nil)),
		sign(f, `{"alg":"ES256"}`, claims(nil)),
		sign(f, `{"alg":"PS256","kid":"r1","typ":"at+jwt"}`, claims(map[string]any{"scp": []string{"a"}, "scope": nil})),
	}
	signed := map[string]bool{}
	for _, s := range seeds {
		signed[s] = true
		f.Add(s)
	}
	f.Add(sign(f, `{"alg":"HS256","kid":"h1"}`, claims(nil)))
	f.Add(sign(f, `{"alg":"none"}`, claims(nil)))
	f.Add("e30.e30.")
	is := &Issuer{Issuer: testIssuer, Audience: testResource}
	keys := keysOnce().set
	f.Fuzz(func(t *testing.T, token string) {
		g, err := is.Verify(token, keys, testNow)
		if err == nil && !signed[token] {
			t.Fatalf("accepted a token nobody signed: %q, granting %q", token, g.Scopes)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("an error not wrapping ErrInvalid: %v", err)
		}
	})
}

// claimsOf is the claims part of a compact JWS, decoded.
func claimsOf(token string) string {
	parts := strings.Split(token, ".")
	b, _ := base64.RawURLEncoding.DecodeString(parts[1])
	return string(b)
}
