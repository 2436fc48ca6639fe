package pluginbuild

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestModule: a file named on the command line or in $SKILLEDGE_PLUGIN wins over the
// plugin the binary carries, which wins over building one.
func TestModule(t *testing.T) {
	saved := Embedded
	t.Cleanup(func() { Embedded = saved })
	Embedded = []byte("carried")
	file := filepath.Join(t.TempDir(), "plugin.wasm")
	if err := os.WriteFile(file, []byte("named"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(Env, "")
	for _, c := range []struct {
		file, env, want string
	}{
		{"", "", "carried"},
		{file, "", "named"},
		{"", file, "named"},
	} {
		t.Setenv(Env, c.env)
		got, from, err := Module(context.Background(), c.file, nil)
		if err != nil || string(got) != c.want || from == "" {
			t.Errorf("Module(%q) with $%s=%q: %q from %q, %v; want %q", c.file, Env, c.env, got, from, err, c.want)
		}
	}
	if _, _, err := Module(context.Background(), filepath.Join(t.TempDir(), "missing.wasm"), nil); err == nil {
		t.Error("a missing file named: no error")
	}
}
