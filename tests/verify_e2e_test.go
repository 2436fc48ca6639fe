//go:build e2e

package tests

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVerifyServed runs `skilledge verify` against the CLI's own server over loopback:
// every well-known artifact must verify against its digest, unpack safely and match the
// MCP manifest; plain http to a loopback server needs no flag.
func TestVerifyServed(t *testing.T) {
	base := strings.TrimSuffix(serve(t), "/mcp")
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "verify", base).CombinedOutput()
	if err != nil {
		t.Fatalf("verify: %v\n%s", err, out)
	}
	for _, name := range []string{"refunds", "git-workflow", "csv-insights", "release-notes", "changelog-entry", "incident-response"} {
		if !strings.Contains(string(out), "ok  "+name) {
			t.Errorf("verify did not report %s as verified:\n%s", name, out)
		}
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

// TestVerifyVersions runs `skilledge verify` against `skilledge serve` of a catalog that
// keeps versions (versionsCommits): every kept version's archive verifies against its
// manifest digest, gamma's under its old name in zeta's history included, and each skill's
// line counts its versions. Then one byte of alpha@1.0.0's archive in the built catalog's
// store is changed and the catalog served again (serve then refuses to answer with that
// object): verify fails, naming that version and its URL, and nothing else. What verify
// makes of an archive that lies is the verify package's TestVerifyKeptVersions.
func TestVerifyVersions(t *testing.T) {
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	if err := gitRepo(repo, versionsCommits); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	if b, err := exec.Command(bin, "build", filepath.Join(repo, "skills"), "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	base := strings.TrimSuffix(serve(t, out), "/mcp")
	checkVerifyVersions(t, bin, base)

	archiveURL := base + "/.well-known/agent-skills/alpha/@1.0.0/alpha.tar.gz"
	resp, err := http.Get(archiveURL)
	if err != nil {
		t.Fatal(err)
	}
	archive, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", archiveURL, resp.StatusCode, err)
	}
	sum := sha256.Sum256(archive)
	object := filepath.Join(out, "assets", "sha256", hex.EncodeToString(sum[:]))
	stored, err := os.ReadFile(object)
	if err != nil || !bytes.Equal(stored, archive) {
		t.Fatalf("alpha@1.0.0's archive is not the store's object %s: %v", object, err)
	}
	stored[len(stored)/2] ^= 0xff
	if err := os.WriteFile(object, stored, 0o644); err != nil {
		t.Fatal(err)
	}
	// A new server: the first may hold the object in its cache.
	base = strings.TrimSuffix(serve(t, out), "/mcp")
	archiveURL = base + "/.well-known/agent-skills/alpha/@1.0.0/alpha.tar.gz"
	got, err := exec.Command(bin, "verify", base, "--allow-http-loopback").CombinedOutput()
	var fails []string
	for _, l := range strings.Split(string(got), "\n") {
		if strings.HasPrefix(l, "FAIL ") {
			fails = append(fails, l)
		}
	}
	if err == nil || len(fails) != 1 || !strings.HasPrefix(fails[0], "FAIL alpha: "+archiveURL+": version 1.0.0: ") {
		t.Fatalf("verify of a store with alpha@1.0.0's archive changed: %v\n%s", err, got)
	}
}

// checkVerifyVersions runs `skilledge verify` against base, a deployment of the versions
// repository (versionsCommits): it must pass, each skill's line counting the versions
// versionsWant gives it.
func checkVerifyVersions(t *testing.T, bin, base string) {
	t.Helper()
	got, err := exec.Command(bin, "verify", base, "--allow-http-loopback").CombinedOutput()
	if err != nil {
		t.Fatalf("verify: %v\n%s", err, got)
	}
	for uri, versions := range versionsWant {
		name := strings.TrimSuffix(uri, "/SKILL.md")
		name = name[strings.LastIndex(name, "/")+1:]
		n := fmt.Sprint(len(versions), " versions)")
		if len(versions) == 1 {
			n = "1 version)"
		}
		if !regexp.MustCompile(`(?m)^ok  ` + name + `  \(\d+ files?, ` + regexp.QuoteMeta(n) + `$`).Match(got) {
			t.Errorf("verify does not say %s's %d versions verified:\n%s", name, len(versions), got)
		}
	}
}
