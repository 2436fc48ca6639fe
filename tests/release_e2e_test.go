//go:build e2e

package tests

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skilledge/skilledge/runtime/pluginbuild"
)

// releaseTargets are the binaries build/release writes.
var releaseTargets = []string{"skilledge-linux-amd64", "skilledge-linux-arm64", "skilledge-darwin-amd64", "skilledge-darwin-arm64",
	"skilledge-windows-amd64.exe", "skilledge-windows-arm64.exe"}

// TestRelease runs build/release twice and requires the same six binaries and SHA256SUMS
// both times; then it copies the linux/amd64 binary into an empty folder and runs it with
// an environment holding no Go and no source (env -i, PATH=/usr/bin:/bin, an empty HOME):
// it validates the examples, builds a catalog whose plugin.wasm is byte for byte the one
// a clone builds, serves it (the conformance suite's skills scenarios and the Inspector's
// --verify pass against it) and answers over stdio.
func TestRelease(t *testing.T) {
	root := repoRoot(t)
	outs := []string{t.TempDir(), t.TempDir()}
	for _, out := range outs {
		cmd := exec.Command(filepath.Join(root, "build", "release"), out)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build/release: %v\n%s", err, b)
		}
	}
	sums, err := os.ReadFile(filepath.Join(outs[0], "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range releaseTargets {
		a, errA := os.ReadFile(filepath.Join(outs[0], name))
		b, errB := os.ReadFile(filepath.Join(outs[1], name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Fatalf("%s: not the same bytes on a second run (%v, %v)", name, errA, errB)
		}
		if want := fmt.Sprintf("%x  %s\n", sha256.Sum256(a), name); !strings.Contains(string(sums), want) {
			t.Errorf("SHA256SUMS has no line %q:\n%s", want, sums)
		}
	}
	if again, _ := os.ReadFile(filepath.Join(outs[1], "SHA256SUMS")); !bytes.Equal(again, sums) || strings.Count(string(sums), "\n") != len(releaseTargets) {
		t.Fatalf("SHA256SUMS:\n%s\nthen\n%s", sums, again)
	}

	// The binary, alone, without Go.
	dir := t.TempDir()
	bin := filepath.Join(dir, "skilledge")
	data, _ := os.ReadFile(filepath.Join(outs[0], "skilledge-linux-amd64"))
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + home}
	skills := filepath.Join(dir, "skills")
	if err := os.CopyFS(skills, os.DirFS(filepath.Join(root, "catalog", "examples", "skills"))); err != nil {
		t.Fatal(err)
	}
	run := func(stdin string, args ...string) (string, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("skilledge %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}
	for _, p := range []string{"/usr/bin/go", "/bin/go"} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s exists: the environment would not be without Go", p)
		}
	}

	clonePlugin, err := pluginbuild.Ensure(context.Background(), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(clonePlugin)
	version, _ := run("", "version")
	if !strings.Contains(version, fmt.Sprintf("plugin.wasm sha256 %x (carried by this binary)", sha256.Sum256(want))) {
		t.Fatalf("skilledge version:\n%s", version)
	}
	run("", "validate", "skills")
	run("", "build", "skills", "-o", "out")
	if got, _ := os.ReadFile(filepath.Join(dir, "out", "plugin.wasm")); !bytes.Equal(got, want) {
		t.Fatalf("the release binary's plugin.wasm (%d bytes) is not the one a clone builds (%d bytes)", len(got), len(want))
	}
	reply, _ := run(`{"jsonrpc":"2.0","id":1,"method":"skills/list"}`+"\n", "stdio", "out")
	if !strings.Contains(reply, `"skills":[`) || !strings.Contains(reply, "skill://git-workflow/SKILL.md") {
		t.Fatalf("stdio: %s", reply)
	}

	// serve, and the third-party clients against it.
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "serve", "out", "--addr", "127.0.0.1:0")
	cmd.Dir, cmd.Env = dir, env
	url := serveURL(t, cmd, cancel)
	suite := filepath.Join(root, "build", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	baseline := filepath.Join(root, "tests", "conformance", "expected-failures.yml")
	for _, r := range conformanceRuns {
		if strings.HasPrefix(r.scenario, "sep-2640-skills") {
			t.Run("conformance/"+r.scenario+"/"+strings.Join(r.args, "_"), func(t *testing.T) { conformanceRun(t, suite, baseline, url, r.scenario, r.args) })
		}
	}
	t.Run("inspector", func(t *testing.T) { inspect(t, url) })
}
