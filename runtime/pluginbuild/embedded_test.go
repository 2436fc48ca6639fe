package pluginbuild

import (
	"context"
	"os"
	"path/filepath"
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
