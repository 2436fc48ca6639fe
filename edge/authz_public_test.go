//go:build skilledge_public

package edge

import (
	"errors"
	"slices"
	"testing"

	"github.com/skilledge/skilledge/edge/wire"
)

// TestPublicBuildRefusesAuth: the public plugin refuses the auth option, whatever it
// holds, with ErrPublicBuild, and frames no credential field; without the option it
// serves as the full plugin does (the rest of this package's tests, run with the tag).
func TestPublicBuildRefusesAuth(t *testing.T) {
	for _, raw := range []string{`{"resource":"https://skills.example/mcp","tokens":[]}`, `{}`} {
		o, err := wire.ParseOptions([]byte(`{"auth":` + raw + `}`))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if err := Check(o); !errors.Is(err, ErrPublicBuild) {
			t.Errorf("Check(auth %s) = %v, want ErrPublicBuild", raw, err)
		}
	}
	if err := Check(wire.Options{}); err != nil {
		t.Errorf("Check(no auth) = %v", err)
	}
	if f := Fields(wire.Options{}); slices.Contains(f, "authorization") || slices.Contains(f, hdrAccessAssertion) {
		t.Errorf("Fields frames a credential: %v", f)
	}
	s := exampleServer(t, wire.Options{})
	if k := s.KeysWanted(); k != nil {
		t.Errorf("KeysWanted = %v", k)
	}
	if err := s.SetKeys("https://issuer.example/jwks", []byte(`{"keys":[]}`)); err == nil {
		t.Error("SetKeys took a key set")
	}
}
