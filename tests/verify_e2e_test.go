//go:build e2e

package tests

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyServed runs `skilledge verify` against the CLI's own server over loopback:
// every well-known artifact must verify against its digest, unpack safely and match the
// MCP manifest. Plain http is refused without --allow-http-loopback.
func TestVerifyServed(t *testing.T) {
	base := strings.TrimSuffix(serve(t), "/mcp")
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "verify", base, "--allow-http-loopback").CombinedOutput()
	if err != nil {
		t.Fatalf("verify: %v\n%s", err, out)
	}
	for _, name := range []string{"refunds", "git-workflow", "csv-insights", "release-notes", "changelog-entry", "incident-response"} {
		if !strings.Contains(string(out), "ok  "+name) {
			t.Errorf("verify did not report %s as verified:\n%s", name, out)
		}
	}
	out, err = exec.Command(bin, "verify", base).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--allow-http-loopback") {
		t.Errorf("plain http without the flag: err %v\n%s", err, out)
	}
}

// TestVerifyPrivate runs `skilledge verify --token` against a private catalog the CLI
// serves with --auth and a static key from `skilledge key`: it verifies with the key, and
// without it fails, saying to pass one.
func TestVerifyPrivate(t *testing.T) {
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	base, key := servePrivateGreet(t)
	out, err := exec.Command(bin, "verify", base, "--allow-http-loopback", "--token", key).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok  greet") {
		t.Fatalf("verify --token: %v\n%s", err, out)
	}
	out, err = exec.Command(bin, "verify", base, "--allow-http-loopback").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "pass --token") {
		t.Fatalf("verify without the token: %v\n%s", err, out)
	}
}

// servePrivateGreet serves, with `skilledge serve --auth`, a private catalog of one skill
// (greet) that every caller needs skills:read to see, and returns its base URL and a
// static key from `skilledge key` that grants it.
func servePrivateGreet(t *testing.T) (base, key string) {
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "key", "--name", "ci", "--scope", "skills:read").Output()
	if err != nil {
		t.Fatal(err)
	}
	key, entry, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	dir := t.TempDir()
	for rel, data := range map[string]string{
		"skills/greet/SKILL.md": "---\nname: greet\ndescription: Says hello.\n---\nHello!\n",
		"skills/skilledge.yaml": "access:\n  default: [skills:read]\n",
		"auth.json":             `{"resource":"http://localhost/mcp","tokens":[` + entry + `]}`,
	} {
		if err := writeFile(filepath.Join(dir, rel), []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	return strings.TrimSuffix(serve(t, filepath.Join(dir, "skills"), "--auth", filepath.Join(dir, "auth.json")), "/mcp"), key
}
