package signing

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestRoot: a root signed reads back as it was, names the key that signed it (RootKey,
// for trust on first use), is refused by another key and when it names another key than
// the one that signed it; its statement is the same bytes for the same root.
func TestRoot(t *testing.T) {
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, ed25519.SeedSize))
	pub := key.Public().(ed25519.PublicKey)
	issued := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	r := &Root{Catalog: "https://skills.example.com/", Sequence: 7, Issued: issued, Expires: issued.Add(time.Hour),
		Previous: strings.Repeat("ab", 32), Subjects: []Subject{{Name: "skill://a/SKILL.md", Digest: map[string]string{"sha256": strings.Repeat("0", 64)}}}}
	env, payload := r.Sign(key)
	if again, _ := r.Sign(key); !bytes.Equal(env, again) {
		t.Fatal("two signatures of one root differ")
	}
	got, err := OpenRoot(env, pub)
	if err != nil {
		t.Fatal(err)
	}
	if got.Catalog != r.Catalog || got.Key != FormatPublic(pub) || got.Sequence != 7 || !got.Issued.Equal(issued) || !got.Expires.Equal(r.Expires) ||
		got.Previous != r.Previous || got.Payload != payload || len(got.Subjects) != 1 {
		t.Fatalf("read back %+v", got)
	}
	if d, ok := got.Digest("skill://a/SKILL.md"); !ok || d != strings.Repeat("0", 64) {
		t.Fatal("the subject's digest")
	}
	if _, ok := got.Digest("skill://b/SKILL.md"); ok {
		t.Fatal("a digest of a skill not named")
	}
	if k, err := RootKey(env); err != nil || !k.Equal(pub) {
		t.Fatalf("RootKey: %v", err)
	}
	other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{4}, ed25519.SeedSize))
	if _, err := OpenRoot(env, other.Public().(ed25519.PublicKey)); !errors.Is(err, ErrSignature) {
		t.Fatalf("another key: %v", err)
	}
	// A root that names a key other than the one that signed it: a consumer trusting the
	// named key on first use would be trusting what the signer did not hold.
	lying := *r
	lying.Key = FormatPublic(other.Public().(ed25519.PublicKey))
	env = Sign(key, PayloadType, lying.Statement())
	if _, err := OpenRoot(env, pub); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a root naming another key: %v", err)
	}
}
