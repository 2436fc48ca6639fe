//go:build e2e

package tests

import (
	"os/exec"
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
