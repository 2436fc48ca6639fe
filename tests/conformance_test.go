//go:build e2e

package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// conformanceRuns are the scenarios of @modelcontextprotocol/conformance this server must
// pass, each in the eras where it means something. Legacy runs of the skills scenarios
// need --force (an extension is not tied to a spec version).
var conformanceRuns = []struct {
	scenario string
	args     []string
}{
	{"sep-2640-skills-enumeration", nil},
	{"sep-2640-skills-enumeration", []string{"--spec-version", "2025-11-25", "--force"}},
	{"sep-2640-skills-manifest", nil},
	{"sep-2640-skills-manifest", []string{"--spec-version", "2025-11-25", "--force"}},
	{"sep-2640-skills-directory", nil},
	{"sep-2640-skills-directory", []string{"--spec-version", "2025-11-25", "--force"}},
	{"server-initialize", nil},
	{"server-stateless", nil},
	{"ping", nil},
	{"resources-list", nil},
	{"resources-list", []string{"--spec-version", "2026-07-28"}},
	{"sep-2164-resource-not-found", nil},
	{"sep-2164-resource-not-found", []string{"--spec-version", "2025-11-25", "--force"}},
	{"dns-rebinding-protection", nil},
	{"dns-rebinding-protection", []string{"--spec-version", "2026-07-28"}},
	{"caching", nil},
}

type check struct {
	ID, Status, Description, ErrorMessage string
}

// TestConformance runs the MCP conformance suite against the example catalog on every
// server (e2eServers): `skilledge serve`, the Worker in workerd, and the Deno, Bun and Node
// entries. A run passes when the suite exits 0 with the expected-failures baseline (no
// FAILURE or WARNING outside it, no stale entry) and it really checked something.
func TestConformance(t *testing.T) {
	root := repoRoot(t)
	suite := conformanceSuite(t)
	baseline := filepath.Join(root, "tests", "conformance", "expected-failures.yml")
	for _, srv := range e2eServers(t) {
		for _, run := range conformanceRuns {
			url := srv.url
			if run.scenario == "dns-rebinding-protection" {
				url = srv.private
			}
			name := srv.name + "/" + run.scenario + "/" + strings.Join(run.args, "_")
			t.Run(name, func(t *testing.T) { conformanceRun(t, suite, baseline, url, run.scenario, run.args) })
		}
	}
}

// TestConformanceVersions runs the suite's skills scenarios, in both eras, on the versions
// repository's deployment (a catalog with history, TestVersionsServed's) on `skilledge
// serve`, the Worker in workerd and the Node entry: older versions beside the latest
// change nothing a skills client checks, and no check fails.
func TestConformanceVersions(t *testing.T) {
	root := repoRoot(t)
	suite := conformanceSuite(t)
	baseline := filepath.Join(root, "tests", "conformance", "expected-failures.yml")
	for _, h := range versionHosts(t, versionsFixtureOf(t)) {
		for _, run := range conformanceRuns {
			if !strings.HasPrefix(run.scenario, "sep-2640-skills") {
				continue
			}
			t.Run(h.name+"/"+run.scenario+"/"+strings.Join(run.args, "_"), func(t *testing.T) {
				conformanceRun(t, suite, baseline, h.base+"/mcp", run.scenario, run.args)
			})
		}
	}
}

// conformanceRun runs one scenario of the suite against url.
func conformanceRun(t *testing.T, suite, baseline, url, scenario string, extra []string) {
	out := t.TempDir()
	args := append([]string{suite, "server", "--url", url, "--scenario", scenario,
		"--expected-failures", baseline, "-o", out}, extra...)
	code, stdout, stderr := runNode(t, args...)
	if strings.Contains(stdout, "SKIPPED: scenario") {
		t.Fatalf("scenario skipped instead of run:\n%s", stdout)
	}
	checks := readChecks(t, out)
	var success, failure int
	for _, c := range checks {
		switch c.Status {
		case "SUCCESS":
			success++
		case "FAILURE":
			failure++
			t.Logf("FAILURE %s: %s %s", c.ID, c.Description, c.ErrorMessage)
		case "WARNING":
			t.Logf("WARNING %s: %s %s", c.ID, c.Description, c.ErrorMessage)
		}
	}
	t.Logf("%s %v: %d checks, %d SUCCESS, %d FAILURE (baselined ones included)", scenario, extra, len(checks), success, failure)
	if code != 0 {
		t.Fatalf("conformance exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if success == 0 {
		t.Fatalf("no check succeeded: the scenario tested nothing\n%s", stdout)
	}
	if strings.HasPrefix(scenario, "sep-2640-skills") && failure > 0 {
		t.Fatalf("a skills scenario must have no FAILURE at all, baselined or not")
	}
}

// readChecks reads the checks.json the suite wrote under dir.
func readChecks(t *testing.T, dir string) []check {
	files, _ := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	if len(files) != 1 {
		t.Fatalf("expected one checks.json under %s, found %v", dir, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []check
	if err := json.Unmarshal(b, &checks); err != nil {
		t.Fatalf("checks.json: %v", err)
	}
	return checks
}
