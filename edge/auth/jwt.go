package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
)

// MaxToken bounds a credential: a longer one is refused unread.
const MaxToken = 16 << 10

// MaxSkew bounds the clock skew allowed for exp and nbf; DefaultSkew is the skew of an
// issuer whose configuration does not give one (ParseConfig).
const (
	MaxSkew     = 5 * time.Minute
	DefaultSkew = 60 * time.Second
)

// algorithms are the JWS algorithms accepted (RFC 7518 §3.1, RFC 8037 §3.1): asymmetric
// only, so that a key set, which is public, never serves as an HMAC secret.
var algorithms = []string{"RS256", "PS256", "ES256", "EdDSA"}

// Issuer is what a JWT must say to be accepted, and where its scopes are.
type Issuer struct {
	// Issuer is the iss claim, compared exactly.
	Issuer string
	// Audience must be the aud claim or one of its values (RFC 8707: the resource).
	Audience string
	// ScopesClaim names the claim holding the scopes ("groups"); "" reads "scope" (a
	// space-separated string) or, without it, "scp" (a list or a string).
	ScopesClaim string
	// Scopes are granted to every token it verifies, beside those its claims hold
	// (auth.access.scopes).
	Scopes []string
	// Skew is allowed on exp and nbf: 0 allows none, and at most MaxSkew is used.
	// ParseConfig makes it DefaultSkew when the configuration gives none.
	Skew time.Duration
	// Type, when set, is the typ the header must carry ("at+jwt": an access token, RFC 9068
	// §2.1, so that an ID token whose aud happens to be the resource is not taken for one).
	//
	// Why must a JWT access token say `typ: at+jwt`? An OpenID Connect provider signs ID
	// tokens with the same keys as access tokens, and an ID token's aud is the client's
	// id, which a careless registration can make equal to the resource. RFC 9068 §2.1
	// gives access tokens the type at+jwt so that a resource server can tell them apart;
	// the jwt section requires it (Cloudflare Access assertions, typed JWT, are checked
	// against the Access team and AUD instead). Scopes are read as RFC 6749 says: the
	// scope claim split on spaces only (a no-break space does not make two scopes), a
	// string in any other claim one value, and anything that is not a scope token dropped.
	Type string
}

// Grant is what a credential that holds grants: who it is, and its scopes.
type Grant struct {
	// Subject is the token's sub, or a static key's name.
	Subject string
	// ClientID is the token's client_id (RFC 9068 §2.2), when it has one as a string.
	ClientID string
	// Scopes are the scopes granted, sorted and distinct, joined by single spaces.
	Scopes []byte
	// Expires is when the credential stops holding: a token's exp; zero for a static key,
	// which holds as long as the configuration names it.
	Expires time.Time
}

// Verify checks token, a JWS in compact form, against is and keys at time now, and returns
// what it grants. Every error wraps ErrInvalid; one for a kid keys does not hold wraps
// ErrUnknownKey too.
func (is *Issuer) Verify(token string, keys *KeySet, now time.Time) (Grant, error) {
	if len(token) > MaxToken {
		return Grant{}, fail("longer than " + strconv.Itoa(MaxToken) + " bytes")
	}
	h, rest, ok1 := strings.Cut(token, ".")
	p, s, ok2 := strings.Cut(rest, ".")
	if !ok1 || !ok2 || h == "" || p == "" || s == "" || strings.Contains(s, ".") {
		return Grant{}, fail("not a JWS in compact form (three base64url parts)")
	}
	header, err := jsonPart(h, "header")
	if err != nil {
		return Grant{}, err
	}
	claims, err := jsonPart(p, "claims")
	if err != nil {
		return Grant{}, err
	}
	sig, err := b64(s)
	if err != nil {
		return Grant{}, fail("the signature is not base64url")
	}
	alg := header.Get("alg")
	if alg.Type != gjson.String || !slices.Contains(algorithms, alg.Str) {
		return Grant{}, fail("alg " + quote(alg.Raw) + " is not one of RS256, PS256, ES256, EdDSA")
	}
	if header.Get("crit").Exists() {
		return Grant{}, fail("the header has crit, which this server does not understand")
	}
	if typ := header.Get("typ"); typ.Exists() && !validType(typ) || is.Type != "" && !sameType(typ, is.Type) {
		return Grant{}, fail("typ " + quote(typ.Raw) + " is not " + map[bool]string{true: is.Type, false: "JWT or at+jwt"}[is.Type != ""])
	}
	kid := header.Get("kid")
	if kid.Exists() && kid.Type != gjson.String {
		return Grant{}, fail("kid is not a string")
	}
	if keys.Len() == 0 {
		return Grant{}, &invalid{reason: "no signing keys are known yet", also: ErrUnknownKey}
	}
	cands := keys.candidates(kid.Str, alg.Str)
	if len(cands) == 0 {
		if kid.Str != "" && !slices.ContainsFunc(keys.keys, func(k key) bool { return k.kid == kid.Str }) {
			return Grant{}, &invalid{reason: "kid " + quote(kid.Raw) + " is not in the key set", also: ErrUnknownKey}
		}
		return Grant{}, fail("no key of the key set signs with " + alg.Str)
	}
	signed := token[:len(h)+1+len(p)]
	if !slices.ContainsFunc(cands, func(k key) bool { return verify(alg.Str, k.pub, signed, sig) }) {
		return Grant{}, fail("the signature does not verify")
	}
	return is.claims(claims, now)
}

// claims checks the verified claims and reads the grant.
func (is *Issuer) claims(c gjson.Result, now time.Time) (Grant, error) {
	if iss := c.Get("iss"); iss.Type != gjson.String || iss.Str != is.Issuer || is.Issuer == "" {
		return Grant{}, fail("iss " + quote(iss.Raw) + " is not the issuer configured")
	}
	if !audience(c.Get("aud"), is.Audience) {
		return Grant{}, fail("aud " + quote(c.Get("aud").Raw) + " does not hold the resource configured")
	}
	skew := min(max(is.Skew, 0), MaxSkew)
	t := float64(now.UnixNano()) / 1e9
	exp, ok := numericDate(c.Get("exp"))
	switch {
	case !ok:
		return Grant{}, fail("exp is missing or not a number")
	case t >= exp+skew.Seconds():
		return Grant{}, fail("expired")
	}
	if nbf := c.Get("nbf"); nbf.Exists() {
		v, ok := numericDate(nbf)
		if !ok {
			return Grant{}, fail("nbf is not a number")
		}
		if t < v-skew.Seconds() {
			return Grant{}, fail("not valid yet (nbf)")
		}
	}
	if iat := c.Get("iat"); iat.Exists() {
		if _, ok := numericDate(iat); !ok {
			return Grant{}, fail("iat is not a number")
		}
	}
	sub := c.Get("sub")
	if sub.Exists() && sub.Type != gjson.String {
		return Grant{}, fail("sub is not a string")
	}
	scopes, err := is.scopes(c)
	if err != nil {
		return Grant{}, err
	}
	sec, frac := math.Modf(min(exp, 253402300799)) // at most the end of year 9999
	var client string
	if id := c.Get("client_id"); id.Type == gjson.String {
		client = id.Str
	}
	return Grant{Subject: sub.Str, ClientID: client, Scopes: scopes, Expires: time.Unix(int64(sec), int64(frac*1e9))}, nil
}

// scopes reads the granted scopes: is.Scopes, and those of the configured claim, else
// scope, else scp. "scope" is a space-separated string (RFC 6749 §3.3, RFC 9068 §2.2.3),
// split on spaces only; in any other claim a string is one value and a list holds one
// value a member. Values that are not scope tokens are dropped: no policy names one.
func (is *Issuer) scopes(c gjson.Result) ([]byte, error) {
	var v gjson.Result
	name := is.ScopesClaim
	if name != "" {
		v = c.Get(gjson.Escape(name))
	} else if v = c.Get("scope"); !v.Exists() {
		name, v = "scp", c.Get("scp")
	} else {
		name = "scope"
	}
	list := slices.Clone(is.Scopes)
	switch {
	case !v.Exists() || v.Type == gjson.Null:
	case v.Type == gjson.String && name == "scope":
		list = append(list, strings.Split(v.Str, " ")...)
	case v.Type == gjson.String:
		list = append(list, v.Str)
	case v.IsArray():
		ok := true
		v.ForEach(func(_, e gjson.Result) bool {
			ok = e.Type == gjson.String
			list = append(list, e.Str)
			return ok
		})
		if !ok {
			return nil, fail(name + " holds something other than strings")
		}
	default:
		return nil, fail(name + " is neither a string nor a list")
	}
	return normalScopes(list), nil
}

// normalScopes is list sorted and distinct, joined by spaces, without tokens that are not
// scope tokens (they can match no scope a policy names).
func normalScopes(list []string) []byte {
	list = slices.DeleteFunc(list, func(s string) bool { return !catalog.ValidScope(s) })
	slices.Sort(list)
	return []byte(strings.Join(slices.Compact(list), " "))
}

// jsonPart decodes a base64url part holding a JSON object whose members are all distinct
// (a second "alg" or "exp" would be read one way here and another way elsewhere).
func jsonPart(s, what string) (gjson.Result, error) {
	b, err := b64(s)
	if err != nil {
		return gjson.Result{}, fail("the " + what + " is not base64url")
	}
	if !utf8.Valid(b) || !gjson.ValidBytes(b) {
		return gjson.Result{}, fail("the " + what + " is not JSON")
	}
	r := gjson.ParseBytes(b)
	if !r.IsObject() {
		return gjson.Result{}, fail("the " + what + " is not a JSON object")
	}
	seen := map[string]bool{}
	dup := ""
	r.ForEach(func(k, _ gjson.Result) bool {
		if seen[k.String()] {
			dup = k.String()
			return false
		}
		seen[k.String()] = true
		return true
	})
	if dup != "" {
		return gjson.Result{}, fail("the " + what + " names " + quote(`"`+dup+`"`) + " twice")
	}
	return r, nil
}

func validType(t gjson.Result) bool {
	if t.Type != gjson.String {
		return false
	}
	switch strings.ToLower(t.Str) {
	case "jwt", "at+jwt", "application/at+jwt", "application/jwt":
		return true
	}
	return false
}

// sameType reports whether typ names the media type want, with or without "application/".
func sameType(typ gjson.Result, want string) bool {
	return typ.Type == gjson.String && strings.EqualFold(strings.TrimPrefix(strings.ToLower(typ.Str), "application/"), want)
}

// audience reports whether aud, a string or a list of strings (RFC 7519 §4.1.3; a list
// with anything else in it is malformed, and refused), holds want.
func audience(aud gjson.Result, want string) bool {
	if want == "" {
		return false
	}
	if aud.Type == gjson.String {
		return aud.Str == want
	}
	found, wellFormed := false, aud.IsArray()
	if wellFormed {
		aud.ForEach(func(_, e gjson.Result) bool {
			wellFormed = e.Type == gjson.String
			found = found || wellFormed && e.Str == want
			return wellFormed
		})
	}
	return found && wellFormed
}

// numericDate reads a NumericDate (RFC 7519 §2): a finite number of seconds.
func numericDate(v gjson.Result) (float64, bool) {
	if v.Type != gjson.Number || math.IsInf(v.Num, 0) || math.IsNaN(v.Num) {
		return 0, false
	}
	return v.Num, true
}

// verify checks sig over signed with pub under alg.
func verify(alg string, pub any, signed string, sig []byte) bool {
	sum := sha256.Sum256([]byte(signed))
	switch k := pub.(type) {
	case *rsa.PublicKey:
		if alg == "PS256" {
			return rsa.VerifyPSS(k, crypto.SHA256, sum[:], sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash}) == nil
		}
		return rsa.VerifyPKCS1v15(k, crypto.SHA256, sum[:], sig) == nil
	case *ecdsa.PublicKey:
		if len(sig) != 64 {
			return false
		}
		r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		return ecdsa.Verify(k, sum[:], r, s)
	case ed25519.PublicKey:
		return ed25519.Verify(k, []byte(signed), sig)
	}
	return false
}

// quote is raw JSON cut for a log line.
func quote(raw string) string {
	if len(raw) > 80 {
		raw = raw[:80] + "…"
	}
	if raw == "" {
		return "(none)"
	}
	return raw
}
