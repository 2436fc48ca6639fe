package signing

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
)

// Envelope is a DSSE envelope (envelope.md): a payload, its type, and signatures over
// both (PAE). Payload and Sig are base64 (RFC 4648) as they are on the wire.
type Envelope struct {
	Payload     string      `json:"payload"`
	PayloadType string      `json:"payloadType"`
	Signatures  []Signature `json:"signatures"`
}

// Signature is one signature of an Envelope. KeyID is an unauthenticated hint, never used
// to decide anything (protocol.md): the key a verifier holds is.
type Signature struct {
	KeyID string `json:"keyid,omitempty"`
	Sig   string `json:"sig"`
}

// MaxEnvelope bounds the envelope Verify reads: a root names every skill of a view, about
// 150 bytes each, so 64 MiB is some 400,000 skills.
const MaxEnvelope = 64 << 20

// PAE is the pre-authentication encoding DSSE signs (protocol.md, "Signature Definition"):
//
//	"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
//
// with LEN the byte length in ASCII decimal, without leading zeros.
func PAE(payloadType string, body []byte) []byte {
	b := make([]byte, 0, 32+len(payloadType)+len(body))
	b = append(b, "DSSEv1 "...)
	b = strconv.AppendInt(b, int64(len(payloadType)), 10)
	b = append(b, ' ')
	b = append(b, payloadType...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, ' ')
	return append(b, body...)
}

// Sign returns the JSON of an envelope of body, of payloadType, signed with key: standard
// base64 with padding, the key's KeyID as the hint. Ed25519 signs the PAE itself, with no
// hash before, so equal inputs give equal bytes.
func Sign(key ed25519.PrivateKey, payloadType string, body []byte) []byte {
	env := Envelope{
		Payload:     base64.StdEncoding.EncodeToString(body),
		PayloadType: payloadType,
		Signatures: []Signature{{
			KeyID: KeyID(key.Public().(ed25519.PublicKey)),
			Sig:   base64.StdEncoding.EncodeToString(ed25519.Sign(key, PAE(payloadType, body))),
		}},
	}
	b, err := json.Marshal(env)
	if err != nil {
		panic(err) // strings only
	}
	return b
}

// Verify checks env, an envelope's JSON, against key and returns the payload it verified:
// the bytes whose signature holds, never a second reading of the envelope (protocol.md).
// The payload must be of payloadType (ErrPayloadType), some signature must verify with key
// (ErrSignature); anything not in the format is ErrMalformed. Base64 is accepted standard
// or URL-safe, padded or not, as the specification asks of a verifier.
func Verify(key ed25519.PublicKey, payloadType string, env []byte) ([]byte, error) {
	e, body, err := decodeEnvelope(env)
	if err != nil {
		return nil, err
	}
	if e.PayloadType != payloadType {
		return nil, fmt.Errorf("%w: %q, not %q", ErrPayloadType, e.PayloadType, payloadType)
	}
	if len(key) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: an Ed25519 public key of %d bytes", ErrMalformed, len(key))
	}
	pae := PAE(e.PayloadType, body)
	for _, s := range e.Signatures {
		sig, err := decode64(s.Sig)
		if err == nil && len(sig) == ed25519.SignatureSize && ed25519.Verify(key, pae, sig) {
			return body, nil
		}
	}
	return nil, fmt.Errorf("%w (%d signatures, key %s)", ErrSignature, len(e.Signatures), KeyID(key))
}

// decodeEnvelope reads env, an envelope's JSON, of at most MaxEnvelope bytes, and its
// payload's bytes; nothing is verified.
func decodeEnvelope(env []byte) (Envelope, []byte, error) {
	var e Envelope
	if len(env) > MaxEnvelope {
		return e, nil, fmt.Errorf("%w: an envelope of %d bytes, over %d", ErrMalformed, len(env), MaxEnvelope)
	}
	if err := json.Unmarshal(env, &e); err != nil {
		return e, nil, fmt.Errorf("%w: the envelope: %v", ErrMalformed, err)
	}
	body, err := decode64(e.Payload)
	if err != nil {
		return e, nil, fmt.Errorf("%w: the envelope's payload: %v", ErrMalformed, err)
	}
	return e, body, nil
}

// decode64 decodes s as any of the four base64 forms RFC 4648 gives (standard or URL-safe
// alphabet, padded or not).
func decode64(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.Strict().DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("not base64")
}

// KeyID is the hint an envelope signed with key carries: "sha256:" and the hex SHA-256 of
// the key's 32 bytes.
func KeyID(key ed25519.PublicKey) string {
	sum := sha256.Sum256(key)
	return "sha256:" + hex.EncodeToString(sum[:])
}
