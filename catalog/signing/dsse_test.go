package signing

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestPAE: the test vector of the DSSE specification (protocol.md).
func TestPAE(t *testing.T) {
	got := string(PAE("http://example.com/HelloWorld", []byte("hello world")))
	if want := "DSSEv1 29 http://example.com/HelloWorld 11 hello world"; got != want {
		t.Errorf("PAE: %q, want %q", got, want)
	}
	if got := string(PAE("", nil)); got != "DSSEv1 0  0 " {
		t.Errorf("PAE of nothing: %q", got)
	}
}

// testKey is a fixed key, so that failures repeat.
func testKey(seed byte) ed25519.PrivateKey {
	s := make([]byte, ed25519.SeedSize)
	for i := range s {
		s[i] = seed
	}
	return ed25519.NewKeyFromSeed(s)
}

// TestSignVerify: an envelope verifies with its key and gives back its payload; signing is
// deterministic; every change to what is signed, another key or another type is refused
// with the error that says which.
func TestSignVerify(t *testing.T) {
	key := testKey(1)
	pub := key.Public().(ed25519.PublicKey)
	body := []byte(`{"_type":"https://in-toto.io/Statement/v1"}`)
	env := Sign(key, PayloadType, body)
	if string(env) != string(Sign(key, PayloadType, body)) {
		t.Error("two signatures of the same payload differ")
	}
	got, err := Verify(pub, PayloadType, env)
	if err != nil || string(got) != string(body) {
		t.Fatalf("Verify: %q, %v", got, err)
	}
	var e Envelope
	if err := json.Unmarshal(env, &e); err != nil || e.Signatures[0].KeyID != KeyID(pub) {
		t.Fatalf("the envelope: %s, %v", env, err)
	}
	edit := func(f func(e *Envelope)) []byte {
		var c Envelope
		json.Unmarshal(env, &c)
		c.Signatures = append([]Signature(nil), c.Signatures...)
		f(&c)
		b, _ := json.Marshal(c)
		return b
	}
	sig, _ := base64.StdEncoding.DecodeString(e.Signatures[0].Sig)
	for _, c := range []struct {
		name string
		env  []byte
		key  ed25519.PublicKey
		typ  string
		want error
	}{
		{"another key", env, testKey(2).Public().(ed25519.PublicKey), PayloadType, ErrSignature},
		{"another payload", edit(func(e *Envelope) { e.Payload = base64.StdEncoding.EncodeToString([]byte(`{"_type":"x"}`)) }), pub, PayloadType, ErrSignature},
		{"a payload type the signature does not cover", edit(func(e *Envelope) { e.PayloadType = "application/json" }), pub, "application/json", ErrSignature},
		{"the type not asked for", env, pub, "application/json", ErrPayloadType},
		{"a flipped signature bit", edit(func(e *Envelope) {
			s := append([]byte(nil), sig...)
			s[7] ^= 1
			e.Signatures[0].Sig = base64.StdEncoding.EncodeToString(s)
		}), pub, PayloadType, ErrSignature},
		{"no signature", edit(func(e *Envelope) { e.Signatures = nil }), pub, PayloadType, ErrSignature},
		{"a short signature", edit(func(e *Envelope) { e.Signatures[0].Sig = base64.StdEncoding.EncodeToString(sig[:10]) }), pub, PayloadType, ErrSignature},
		{"the right key ID on a wrong signature", edit(func(e *Envelope) { e.Signatures[0].Sig = base64.StdEncoding.EncodeToString(make([]byte, 64)) }), pub, PayloadType, ErrSignature},
		{"a payload not base64", edit(func(e *Envelope) { e.Payload = "!!" }), pub, PayloadType, ErrMalformed},
		{"not JSON", []byte("{"), pub, PayloadType, ErrMalformed},
		{"a short key", env, pub[:31], PayloadType, ErrMalformed},
	} {
		if _, err := Verify(c.key, c.typ, c.env); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// A second signature by another key does not stop the right one from verifying, and
	// base64 in any of its four forms is read (protocol.md: verifiers MUST accept either).
	for _, enc := range []*base64.Encoding{base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		b := edit(func(e *Envelope) {
			e.Payload = enc.EncodeToString(body)
			e.Signatures = append([]Signature{{KeyID: KeyID(pub), Sig: enc.EncodeToString(make([]byte, 64))}}, Signature{Sig: enc.EncodeToString(sig)})
		})
		if got, err := Verify(pub, PayloadType, b); err != nil || string(got) != string(body) {
			t.Errorf("%v: %q, %v", enc, got, err)
		}
	}
	if _, err := Verify(pub, PayloadType, []byte(strings.Repeat(" ", MaxEnvelope+1))); !errors.Is(err, ErrMalformed) {
		t.Errorf("an envelope over MaxEnvelope: %v", err)
	}
}

// FuzzVerify: Verify never panics, and gives back no payload but the one the key signed
// (the only one it ever signed here): however the envelope around it is changed, a
// verified payload is that one.
func FuzzVerify(f *testing.F) {
	key := testKey(1)
	pub := key.Public().(ed25519.PublicKey)
	const signed = `{"a":1}`
	f.Add(Sign(key, PayloadType, []byte(signed)))
	f.Add([]byte(`{"payload":"","payloadType":"","signatures":[{"sig":""}]}`))
	f.Fuzz(func(t *testing.T, env []byte) {
		if body, err := Verify(pub, PayloadType, env); err == nil && string(body) != signed {
			t.Fatalf("verified a payload the key never signed: %q in %q", body, env)
		}
	})
}
