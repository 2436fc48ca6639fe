package pluginbuild

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skilledge/skilledge/runtime/internal/require"
)

func TestSourceDir(t *testing.T) {
	dir, err := SourceDir()
	require.NoError(t, err)
	abs, _ := filepath.Abs("../..")
	require.Equal(t, abs, dir)
	require.Equal(t, false, isModuleRoot(t.TempDir()))
}

func TestPluginHash(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	src := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(src, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	}
	write("go.mod", "module "+ModulePath+"\n")
	write("edge/server.go", "package edge")
	write("catalog/pack.go", "package catalog")
	hash := func() string {
		h, err := pluginHash(context.Background(), goBin, src)
		require.NoError(t, err)
		return h
	}
	base := hash()
	require.Equal(t, base, hash(), "deterministic")
	for _, rel := range []string{"edge/server_test.go", "edge/testdata/x.txt", "catalog/compile/load.go", "catalog/internal/yamljson/yamljson.go",
		"catalog/examples/skills/a/SKILL.md", "runtime/wasm/pool.go", "edge/.swp", "README.md"} {
		write(rel, "changed")
		require.Equal(t, base, hash(), rel+" is not an input of the plugin")
	}
	for _, rel := range []string{"edge/server.go", "edge/plugin/main.go", "catalog/uri.go", "jsonrpc/doc.go", "go.sum", "go.mod"} {
		write(rel, "changed "+rel)
		next := hash()
		if next == base {
			t.Fatalf("%s is an input of the plugin but did not change the hash", rel)
		}
		base = next
	}

	// A checkout whose top-level directories are links to the real ones (as the deploy
	// tests make) hashes the same files: the same hash, and a change through it counts.
	linked := t.TempDir()
	for _, e := range []string{"go.mod", "go.sum", "edge", "catalog", "jsonrpc"} {
		require.NoError(t, os.Symlink(filepath.Join(src, e), filepath.Join(linked, e)))
	}
	h, err := pluginHash(context.Background(), goBin, linked)
	require.NoError(t, err)
	require.Equal(t, base, h, "the same source through links")
	write("edge/server.go", "changed again")
	h, err = pluginHash(context.Background(), goBin, linked)
	require.NoError(t, err)
	if h == base {
		t.Fatal("a change under a linked directory did not change the hash")
	}
}

func TestLocate(t *testing.T) {
	ctx := context.Background()
	f := filepath.Join(t.TempDir(), "p.wasm")
	require.NoError(t, os.WriteFile(f, []byte("\x00asm"), 0o644))
	got, err := Locate(ctx, f, Full, nil)
	require.NoError(t, err)
	require.Equal(t, f, got)

	t.Setenv(Env, f)
	got, err = Locate(ctx, "", Public, nil)
	require.NoError(t, err)
	require.Equal(t, f, got)

	_, err = Locate(ctx, f+".missing", Full, nil)
	if err == nil {
		t.Fatal("a missing --plugin file is an error")
	}
}

// TestReleaseBuildsAsEnsure: build/release builds the released plugins with the flags
// Ensure builds a clone's with, so that a release's plugin is a clone's.
func TestReleaseBuildsAsEnsure(t *testing.T) {
	release, err := os.ReadFile(filepath.Join("..", "..", "build", "release"))
	if err != nil {
		t.Fatal(err)
	}
	built := map[Variant]int{}
	for _, line := range strings.Split(string(release), "\n") {
		if !strings.HasPrefix(line, "GOOS=wasip1 GOARCH=wasm go build ") {
			continue
		}
		if !strings.Contains(line, "go build "+strings.Join(buildFlags, " ")+" ") {
			t.Errorf("build/release builds a plugin with other flags than %q:\n%s", buildFlags, line)
		}
		v := Full
		if strings.Contains(line, " -tags") {
			if !strings.Contains(line, " -tags="+PublicTag+" ") {
				t.Errorf("build/release builds a plugin with tags other than %s:\n%s", PublicTag, line)
			}
			v = Public
		}
		built[v]++
	}
	for _, v := range Variants {
		if built[v] != 1 {
			t.Errorf("build/release builds the %s plugin %d times", v, built[v])
		}
	}
}
