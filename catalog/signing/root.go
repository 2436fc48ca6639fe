package signing

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// A catalog's root (PROTOCOL.md#signed-root): a Statement of RootPredicateType whose
// subjects are the skills an index lists (name: the skill's URI; digest: the SHA-256 of its
// manifest, the hex of its ManifestDigest) and whose predicate says which catalog, in which
// sequence, issued and expiring when, after which root, in a DSSE envelope signed with the
// catalog's Ed25519 key. The build renders it (Root.Sign); verify and pull check it
// (OpenRoot, Root.Check).

// RootPredicateType is the predicate type of a catalog's root.
const RootPredicateType = "https://github.com/skilledge/skilledge/blob/main/PROTOCOL.md#signed-root-v1"

// Checks a root may fail, each wrapped with what failed: a consumer says which and what to do.
var (
	// ErrExpired is a root past its expiry: the publisher has not signed the catalog
	// since, or a server goes on serving an old one (freeze).
	ErrExpired = errors.New("signing: the root has expired")
	// ErrRollback is a root of a lower sequence than one seen before (rollback), or of the
	// same sequence with other contents.
	ErrRollback = errors.New("signing: the root is older than one seen before")
	// ErrChain is a root whose previous root is not the one seen before it.
	ErrChain = errors.New("signing: the root does not follow the one seen before")
	// ErrOtherCatalog is a root of another catalog, signed by the same key.
	ErrOtherCatalog = errors.New("signing: the root is another catalog's")
	// ErrNotNamed is a skill served that the root does not name, or names with other
	// contents.
	ErrNotNamed = errors.New("signing: the root does not name the skill as served")
)

// Root is a catalog's root: its predicate and subjects.
type Root struct {
	Catalog string // the catalog's identity (its deployment's origin, as a rule)
	// Key is the printed form of the public key that signs the root (FormatPublic), so
	// that a consumer that pins no key can trust the first it sees (RootKey) and hold
	// every later root to it; Sign sets it.
	Key      string
	Sequence uint64    // orders the roots of one catalog
	Issued   time.Time // whole seconds
	Expires  time.Time
	Previous string    // the hex SHA-256 of the previous root's payload, or ""
	Subjects []Subject // one per skill: name its URI, digest {"sha256": its manifest's}
	// Payload is the hex SHA-256 of the payload OpenRoot verified (what the next root's
	// Previous names); empty in a Root not read from an envelope.
	Payload string

	byName map[string]string // Subjects' digests by name, made by the first Digest
}

// rootPredicate is the predicate's JSON.
type rootPredicate struct {
	Catalog  string `json:"catalog"`
	Key      string `json:"key"`
	Sequence uint64 `json:"sequence"`
	Issued   string `json:"issuedAt"`
	Expires  string `json:"expiresAt"`
	Previous *struct {
		SHA256 string `json:"sha256"`
	} `json:"previous,omitempty"`
}

// Statement returns r's Statement: the same bytes for the same root, subjects in r's order,
// times in RFC 3339 UTC.
func (r *Root) Statement() []byte {
	p := []byte(`{"catalog":`)
	p = appendJSON(p, r.Catalog)
	p = append(p, `,"key":`...)
	p = appendJSON(p, r.Key)
	p = append(p, `,"sequence":`...)
	p = strconv.AppendUint(p, r.Sequence, 10)
	p = append(p, `,"issuedAt":`...)
	p = appendJSON(p, r.Issued.UTC().Format(time.RFC3339))
	p = append(p, `,"expiresAt":`...)
	p = appendJSON(p, r.Expires.UTC().Format(time.RFC3339))
	if r.Previous != "" {
		p = append(p, `,"previous":{"sha256":`...)
		p = appendJSON(p, r.Previous)
		p = append(p, '}')
	}
	p = append(p, '}')
	return Statement{Subject: r.Subjects, PredicateType: RootPredicateType, Predicate: p}.Marshal()
}

// Sign sets r.Key to key's public half and returns r's Statement signed with key, as a
// DSSE envelope's JSON, and the hex SHA-256 of the payload.
func (r *Root) Sign(key ed25519.PrivateKey) (env []byte, payload string) {
	r.Key = FormatPublic(key.Public().(ed25519.PublicKey))
	st := r.Statement()
	sum := sha256.Sum256(st)
	return Sign(key, PayloadType, st), hex.EncodeToString(sum[:])
}

// OpenRoot verifies env, a root's envelope, with key, and reads it: ErrSignature when the
// key did not sign it, ErrMalformed when it is not a root.
func OpenRoot(env []byte, key ed25519.PublicKey) (*Root, error) {
	payload, err := Verify(key, PayloadType, env)
	if err != nil {
		return nil, err
	}
	st, err := ParseStatement(payload, RootPredicateType)
	if err != nil {
		return nil, err
	}
	var p rootPredicate
	if err := json.Unmarshal(st.Predicate, &p); err != nil {
		return nil, fmt.Errorf("%w: the root's predicate: %v", ErrMalformed, err)
	}
	sum := sha256.Sum256(payload)
	r := &Root{Catalog: p.Catalog, Key: p.Key, Sequence: p.Sequence, Subjects: st.Subject, Payload: hex.EncodeToString(sum[:])}
	if k, err := ParsePublic(p.Key); err != nil || !k.Equal(key) {
		return nil, fmt.Errorf("%w: the root names the key %q, not the one that signed it", ErrMalformed, clip(p.Key))
	}
	if r.Issued, err = time.Parse(time.RFC3339, p.Issued); err == nil {
		r.Expires, err = time.Parse(time.RFC3339, p.Expires)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: the root's times: %v", ErrMalformed, err)
	}
	if p.Previous != nil {
		if !HexSHA256(p.Previous.SHA256) {
			return nil, fmt.Errorf("%w: the root's previous digest %q", ErrMalformed, p.Previous.SHA256)
		}
		r.Previous = p.Previous.SHA256
	}
	return r, nil
}

// RootKey returns the public key env, a root's envelope, says signed it (Root.Key), read
// from its payload before any signature is checked: for a consumer that trusts the first
// key it sees, which OpenRoot then checks the signature with. Nothing it returns is
// trusted until OpenRoot has verified env with it.
func RootKey(env []byte) (ed25519.PublicKey, error) {
	_, body, err := decodeEnvelope(env)
	if err != nil {
		return nil, err
	}
	var st struct {
		Predicate rootPredicate `json:"predicate"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		return nil, fmt.Errorf("%w: the root's predicate: %v", ErrMalformed, err)
	}
	return ParsePublic(st.Predicate.Key)
}

// Seen is what a consumer recorded of the last root it accepted of a catalog.
type Seen struct {
	Catalog  string
	Sequence uint64
	Payload  string // hex SHA-256
}

// Check holds r to what a consumer knows: not expired at now (ErrExpired), and, when seen
// is not nil, of the same catalog (ErrOtherCatalog), not of a lower sequence, nor of the
// same with another payload (ErrRollback), and, when r is the root signed next after seen
// (sequence after sequence), naming seen as its previous (ErrChain). A consumer that
// skipped roots cannot check the chain, and does not.
func (r *Root) Check(now time.Time, seen *Seen) error {
	if !now.Before(r.Expires) {
		return fmt.Errorf("%w: it expired at %s", ErrExpired, r.Expires.UTC().Format(time.RFC3339))
	}
	if seen == nil {
		return nil
	}
	switch {
	case r.Catalog != seen.Catalog:
		return fmt.Errorf("%w: %q, where %q was seen", ErrOtherCatalog, r.Catalog, seen.Catalog)
	case r.Sequence < seen.Sequence:
		return fmt.Errorf("%w: sequence %d, where %d was seen", ErrRollback, r.Sequence, seen.Sequence)
	case r.Sequence == seen.Sequence && r.Payload != seen.Payload:
		return fmt.Errorf("%w: sequence %d again, with other contents", ErrRollback, r.Sequence)
	case r.Sequence == seen.Sequence+1 && r.Previous != seen.Payload:
		return fmt.Errorf("%w: sequence %d names %s as its previous root, where sequence %d was %s", ErrChain,
			r.Sequence, orNone(r.Previous), seen.Sequence, seen.Payload)
	}
	return nil
}

// orNone is s, or "none" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Digest returns the hex SHA-256 of the manifest of the skill at uri that r names. The
// first call indexes the subjects: a consumer asks once per skill, of roots of 50,000.
func (r *Root) Digest(uri string) (string, bool) {
	if r.byName == nil {
		r.byName = make(map[string]string, len(r.Subjects))
		for _, s := range r.Subjects {
			r.byName[s.Name] = s.Digest["sha256"]
		}
	}
	d, ok := r.byName[uri]
	return d, ok
}

// appendJSON appends s as a JSON string.
func appendJSON(b []byte, s string) []byte {
	q, err := json.Marshal(s)
	if err != nil {
		panic(err) // a string always marshals
	}
	return append(b, q...)
}
