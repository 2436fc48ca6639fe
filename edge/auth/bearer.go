package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// Bearer returns the token of an Authorization field value "Bearer TOKEN" (RFC 6750 §2.1:
// the scheme in any case, one space, a token68). A field a host framed from two
// Authorization headers holds them joined by ", ", which is no token68: refused, as is
// every other form.
func Bearer(value string) (string, error) {
	scheme, token, ok := strings.Cut(value, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", fail("the Authorization field is not Bearer TOKEN")
	}
	if len(token) > MaxToken {
		return "", fail("longer than MaxToken")
	}
	if !token68(token) {
		return "", fail("the bearer token is not a token68 (one token, no spaces or commas)")
	}
	return token, nil
}

// token68 reports whether s is 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func token68(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			break
		}
	}
	if i == 0 {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] != '=' {
			return false
		}
	}
	return true
}

// StaticPrefix begins every static key NewStaticKey makes. A bearer token without it is
// taken for a JWT (Config.Authenticate).
const StaticPrefix = "ske_"

// StaticKey is a static API key's entry in the configuration: the SHA-256 of the key,
// never the key, with the name it is known by and the scopes it grants.
type StaticKey struct {
	Name   string
	SHA256 [32]byte
	Scopes []byte // sorted, distinct, space-separated
}

// NewStaticKey returns the entry of scopes for a new random key, and the key: "ske_" and
// 43 base64url characters (256 bits from crypto/rand).
func NewStaticKey(name string, scopes []string) (StaticKey, string) {
	var b [32]byte
	rand.Read(b[:])
	k := StaticPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	return StaticKey{Name: name, SHA256: sha256.Sum256([]byte(k)), Scopes: normalScopes(scopes)}, k
}

// Hex is the key's SHA-256 as the configuration writes it.
func (k StaticKey) Hex() string { return hex.EncodeToString(k.SHA256[:]) }

// CheckStatic returns the grant of the key among keys whose SHA-256 is that of token. It
// compares every entry in constant time, whichever matches.
func CheckStatic(keys []StaticKey, token string) (Grant, error) {
	sum := sha256.Sum256([]byte(token))
	found := -1
	for i := range keys {
		if subtle.ConstantTimeCompare(sum[:], keys[i].SHA256[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return Grant{}, fail("no static key has this key's SHA-256")
	}
	return Grant{Subject: keys[found].Name, Scopes: keys[found].Scopes}, nil
}
