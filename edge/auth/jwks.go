package auth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/wire"
)

// A KeySet is the signing keys of an issuer (a JWKS document, RFC 7517 §5). Keys of a kind
// this package does not verify with (HMAC "oct" keys, other curves, encryption keys) are
// skipped, so that an issuer's set may hold them.
type KeySet struct {
	keys []key
}

// key is one public key of a set.
type key struct {
	kid string
	alg string // the JWK's alg, "" when it names none
	pub any    // *rsa.PublicKey, *ecdsa.PublicKey (P-256) or ed25519.PublicKey
}

// MaxKeySet bounds a key set document (the hosts' bound on what they fetch), and maxKeys
// the keys kept from it.
const (
	MaxKeySet = wire.KeySetMax
	maxKeys   = 64
)

// minRSABits is the smallest RSA modulus accepted (RFC 7518 §3.3 requires 2048).
const minRSABits = 2048

// ParseKeySet reads a JWKS document: {"keys":[…]}. It fails on a document that is not
// such an object, and on a key of a kind it verifies with that is malformed; it skips
// keys it does not verify with.
func ParseKeySet(b []byte) (*KeySet, error) {
	if len(b) > MaxKeySet {
		return nil, fmt.Errorf("auth: a key set of %d bytes, more than %d", len(b), MaxKeySet)
	}
	if !gjson.ValidBytes(b) {
		return nil, errors.New("auth: the key set is not JSON")
	}
	doc := gjson.ParseBytes(b)
	keys := doc.Get("keys")
	if !doc.IsObject() || !keys.IsArray() {
		return nil, errors.New(`auth: the key set is not a JWKS document ({"keys":[…]})`)
	}
	ks := &KeySet{}
	var err error
	keys.ForEach(func(_, j gjson.Result) bool {
		var k key
		var ok bool
		k, ok, err = parseKey(j)
		if err != nil {
			return false
		}
		if ok {
			if len(ks.keys) == maxKeys {
				err = fmt.Errorf("auth: the key set has more than %d keys", maxKeys)
				return false
			}
			ks.keys = append(ks.keys, k)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return ks, nil
}

// Len is the number of keys kept.
func (ks *KeySet) Len() int {
	if ks == nil {
		return 0
	}
	return len(ks.keys)
}

// parseKey reads one JWK: ok is false for a key of a kind not verified with.
func parseKey(j gjson.Result) (key, bool, error) {
	if !j.IsObject() {
		return key{}, false, errors.New("auth: a key of the key set is not an object")
	}
	str := func(name string) string {
		if v := j.Get(name); v.Type == gjson.String {
			return v.Str
		}
		return ""
	}
	if use := j.Get("use"); use.Exists() && use.Str != "sig" {
		return key{}, false, nil // an encryption key
	}
	k := key{kid: str("kid"), alg: str("alg")}
	name := "key " + fmt.Sprintf("%q", k.kid)
	switch str("kty") {
	case "RSA":
		n, err1 := b64(str("n"))
		e, err2 := b64(str("e"))
		if err1 != nil || err2 != nil || len(n) == 0 || len(e) == 0 || len(e) > 4 {
			return key{}, false, fmt.Errorf("auth: %s: malformed RSA key", name)
		}
		pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		if pub.N.BitLen() < minRSABits || pub.E < 3 || pub.E%2 == 0 {
			return key{}, false, fmt.Errorf("auth: %s: an RSA key of %d bits or exponent %d", name, pub.N.BitLen(), pub.E)
		}
		k.pub = pub
	case "EC":
		if str("crv") != "P-256" {
			return key{}, false, nil
		}
		x, err1 := b64(str("x"))
		y, err2 := b64(str("y"))
		if err1 != nil || err2 != nil || len(x) != 32 || len(y) != 32 {
			return key{}, false, fmt.Errorf("auth: %s: malformed P-256 key", name)
		}
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err != nil {
			return key{}, false, fmt.Errorf("auth: %s: %v", name, err)
		}
		k.pub = pub
	case "OKP":
		if str("crv") != "Ed25519" {
			return key{}, false, nil
		}
		x, err := b64(str("x"))
		if err != nil || len(x) != ed25519.PublicKeySize {
			return key{}, false, fmt.Errorf("auth: %s: malformed Ed25519 key", name)
		}
		k.pub = ed25519.PublicKey(x)
	default:
		return key{}, false, nil // "oct" (HMAC) and anything else: never verified with
	}
	return k, true, nil
}

// b64 decodes base64url without padding, refusing any other form (RFC 7515 §2).
func b64(s string) ([]byte, error) {
	return base64.RawURLEncoding.Strict().DecodeString(s)
}

// candidates returns the keys that may have signed a token with header kid and alg: the
// key with that kid, or, for a token without kid, every key. A key that names another alg
// or is of another kind than alg signs with is no candidate.
func (ks *KeySet) candidates(kid, alg string) []key {
	var out []key
	for _, k := range ks.keys {
		if kid != "" && k.kid != kid || k.alg != "" && k.alg != alg || !fits(k.pub, alg) {
			continue
		}
		out = append(out, k)
	}
	return out
}

// fits reports whether a key of pub's kind signs with alg.
func fits(pub any, alg string) bool {
	switch pub.(type) {
	case *rsa.PublicKey:
		return alg == "RS256" || alg == "PS256"
	case *ecdsa.PublicKey:
		return alg == "ES256"
	case ed25519.PublicKey:
		return alg == "EdDSA"
	}
	return false
}
