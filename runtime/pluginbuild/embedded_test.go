package pluginbuild

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModule: a file named on the command line or in $SKILLEDGE_PLUGIN wins over the
// plugin the binary carries, of the variant asked for, which wins over building one.
func TestModule(t *testing.T) {
	saved, savedPublic := Embedded, EmbeddedPublic
	t.Cleanup(func() { Embedded, EmbeddedPublic = saved, savedPublic })
	Embedded, EmbeddedPublic = []byte("carried"), []byte("carried public")
	file := filepath.Join(t.TempDir(), "plugin.wasm")
	if err := os.WriteFile(file, []byte("named"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(Env, "")
	for _, c := range []struct {
		file, env string
		v         Variant
		want      string
	}{
		{"", "", Full, "carried"},
		{"", "", Public, "carried public"},
		{file, "", Full, "named"},
		{file, "", Public, "named"},
		{"", file, Full, "named"},
		{"", file, Public, "named"},
	} {
		t.Setenv(Env, c.env)
		got, from, err := Module(context.Background(), c.file, c.v, nil)
		if err != nil || string(got) != c.want || from == "" {
			t.Errorf("Module(%q, %s) with $%s=%q: %q from %q, %v; want %q", c.file, c.v, Env, c.env, got, from, err, c.want)
		}
	}
	if _, _, err := Module(context.Background(), filepath.Join(t.TempDir(), "missing.wasm"), Public, nil); err == nil {
		t.Error("a missing file named: no error")
	}
}

// TestWriteCarried: a binary that carries the plugins names each variant's SHA-256; one
// that does not says it builds the plugin from the source.
func TestWriteCarried(t *testing.T) {
	full, public := Embedded, EmbeddedPublic
	t.Cleanup(func() { Embedded, EmbeddedPublic = full, public })
	for _, tt := range []struct {
		full, public []byte
		want         string
	}{
		{nil, nil, "plugin.wasm built from the skilledge source on first use (not a release build)\n"},
		{[]byte("a"), []byte("b"), "plugin.wasm sha256 ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb (full, carried by this binary)\n" +
			"plugin.wasm sha256 3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d (public, carried by this binary)\n"},
	} {
		Embedded, EmbeddedPublic = tt.full, tt.public
		var b strings.Builder
		WriteCarried(&b)
		if b.String() != tt.want {
			t.Errorf("got %q, want %q", b.String(), tt.want)
		}
	}
}
