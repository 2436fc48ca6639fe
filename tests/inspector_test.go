//go:build e2e

package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// TestInspector runs the MCP Inspector CLI's skills verifier against the example catalog
// on every server (e2eServers: `skilledge serve`, the Worker in workerd, the Deno, Bun and
// Node entries) in both protocol eras: skills/list --verify, skills/get --verify
// --require-digests for every skill, and a directory read.
func TestInspector(t *testing.T) {
	for _, srv := range e2eServers(t) {
		t.Run(srv.name, func(t *testing.T) { inspect(t, srv.url) })
	}
}

// inspectorCLI runs the Inspector's CLI against the MCP endpoint url in era.
func inspectorCLI(t *testing.T, url, era string, args ...string) (int, string, string) {
	inspector := inspectorLauncher(t)
	return runNode(t, append([]string{inspector, "--cli", url, "--transport", "http", "--protocol-era", era}, args...)...)
}

// inspectList runs the Inspector's skills/list --verify against url in era: every file of
// every skill read and checked against its digest. It must verify n skills.
func inspectList(t *testing.T, url, era string, n int) {
	code, stdout, stderr := inspectorCLI(t, url, era, "--method", "skills/list", "--verify")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if reports := verifyReports(t, stdout); len(reports) != n {
		t.Fatalf("verified %d skills, want %d\n%s", len(reports), n, stdout)
	}
	t.Log(strings.TrimSpace(stderr))
}

func inspect(t *testing.T, url string) {
	b, err := examplePack()
	if err != nil {
		t.Fatal(err)
	}
	skills := exampleSkillURIs(t, b)
	if len(skills) < 4 {
		t.Fatalf("example catalog has %d skills", len(skills))
	}
	cli := func(t *testing.T, era string, args ...string) (int, string, string) {
		return inspectorCLI(t, url, era, args...)
	}
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era+"/skills-list-verify", func(t *testing.T) { inspectList(t, url, era, len(skills)) })
		for _, uri := range skills {
			t.Run(era+"/skills-get-verify/"+uri, func(t *testing.T) { inspectGet(t, url, era, uri) })
		}
		t.Run(era+"/directory-read", func(t *testing.T) {
			dir := strings.TrimSuffix(skills[0], "/SKILL.md")
			code, stdout, stderr := cli(t, era, "--method", "resources/directory/read", "--uri", dir, "--format", "json")
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			var sawDir bool
			for _, r := range gjson.Get(stdout, "result.resources").Array() {
				sawDir = sawDir || r.Get("mimeType").Str == "inode/directory"
			}
			if !sawDir {
				t.Fatalf("no subdirectory listed for %s:\n%s", dir, stdout)
			}
		})
	}
}

// inspectGet runs the Inspector's skills/get --verify --require-digests of the skill uri
// against url in era: every file of the skill read and checked against its digest.
func inspectGet(t *testing.T, url, era, uri string) {
	code, stdout, stderr := inspectorCLI(t, url, era, "--method", "skills/get", "--uri", uri, "--verify", "--require-digests")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if r := verifyReports(t, stdout); len(r) != 1 || r[0].Get("uri").Str != uri {
		t.Fatalf("unexpected reports:\n%s", stdout)
	}
}

// TestInspectorVersions runs the Inspector's skills verifier, in both eras, on the
// versions repository's deployment (a catalog with history, TestVersionsServed's) on
// `skilledge serve`, the Worker in workerd and the Node entry: skills/list --verify
// verifies the latest skills, and skills/get --verify --require-digests every kept
// version of each, at its version path.
func TestInspectorVersions(t *testing.T) {
	for _, h := range versionHosts(t, versionsFixtureOf(t)) {
		url := h.base + "/mcp"
		var uris []string
		for _, r := range newSession(t, url, "legacy").call(t, "resources/list", nil).Get("resources").Array() {
			for _, v := range r.Get("_meta." + metaVersions).Array() {
				uris = append(uris, v.Get("uri").Str)
			}
		}
		want := 0
		for _, vs := range versionsWant {
			want += len(vs)
		}
		if len(uris) != want {
			t.Fatalf("%s: %d kept versions, want %d: %q", h.name, len(uris), want, uris)
		}
		for _, era := range []string{"legacy", "modern"} {
			t.Run(h.name+"/"+era+"/skills-list-verify", func(t *testing.T) { inspectList(t, url, era, len(versionsWant)) })
			for _, uri := range uris {
				t.Run(h.name+"/"+era+"/skills-get-verify/"+uri, func(t *testing.T) { inspectGet(t, url, era, uri) })
			}
		}
	}
}

// verifyReports parses the NDJSON reports of --verify and fails on any skill not verified.
func verifyReports(t *testing.T, stdout string) []gjson.Result {
	var reports []gjson.Result
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if !json.Valid([]byte(line)) {
			t.Fatalf("not a JSON report line: %q", line)
		}
		r := gjson.Parse(line)
		if !r.Get("ok").Bool() || r.Get("outcome").Str != "verified" {
			t.Errorf("skill %s not verified: %s", r.Get("uri").Str, line)
		}
		for _, f := range r.Get("files").Array() {
			if f.Get("status").Str != "verified" {
				t.Errorf("file %s: %s", f.Get("uri").Str, f.Raw)
			}
		}
		reports = append(reports, r)
	}
	return reports
}

// TestInspectorReservedMetadata runs the Inspector's verifier, in both eras and on both
// servers, on the folder of the reserved_metadata case: a skill whose metadata has a key
// under io.modelcontextprotocol/, which the build only warns about and serves verbatim.
// The Inspector re-parses the served SKILL.md and must find the frontmatter it was given.
func TestInspectorReservedMetadata(t *testing.T) {
	const uri = "skill://tagged/SKILL.md"
	for name, url := range caseServers(t, "reserved_metadata.txtar") {
		for _, era := range []string{"legacy", "modern"} {
			t.Run(name+"/"+era, func(t *testing.T) {
				inspectList(t, url, era, 1)
				code, stdout, stderr := inspectorCLI(t, url, era, "--method", "skills/get", "--uri", uri, "--verify", "--require-digests")
				if code != 0 {
					t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
				}
				r := verifyReports(t, stdout)
				if len(r) != 1 {
					t.Fatalf("reports:\n%s", stdout)
				}
				code, stdout, stderr = inspectorCLI(t, url, era, "--method", "skills/get", "--uri", uri, "--format", "json")
				if code != 0 || gjson.Get(stdout, `result.skill.frontmatter.metadata.io\.modelcontextprotocol/x`).Str != "y" {
					t.Fatalf("the reserved key is not served verbatim (exit %d):\n%s\n%s", code, stdout, stderr)
				}
			})
		}
	}
}

// TestInspectorLongDescription: the long_description case's skill, whose description of
// 1068 characters is over the Agent Skills limit of 1024, which the build only warns about,
// is served on both servers, in both eras, its SKILL.md as written and its entry as strict
// clients accept it: the Inspector reads the description cut to 1024 characters, "…" last,
// in the entry and in its frontmatter; its verifier finds every file's bytes as their
// digests say, no conformance problem in the entry, and, as every strict client does, the
// description alone differing from SKILL.md's (the build's warning says so).
func TestInspectorLongDescription(t *testing.T) {
	const uri = "skill://claude-api/SKILL.md"
	for name, url := range caseServers(t, "long_description.txtar") {
		for _, era := range []string{"legacy", "modern"} {
			t.Run(name+"/"+era, func(t *testing.T) {
				code, stdout, stderr := inspectorCLI(t, url, era, "--method", "skills/get", "--uri", uri, "--format", "json")
				d := gjson.Get(stdout, "result.skill.frontmatter.description").Str
				if code != 0 || utf8.RuneCountInString(d) != 1024 || !strings.HasSuffix(d, "…") || gjson.Get(stdout, "result.skill.description").Str != d {
					t.Fatalf("the description is not served cut to 1024 characters (exit %d):\n%s\n%s", code, stdout, stderr)
				}
				_, stdout, stderr = inspectorCLI(t, url, era, "--method", "skills/get", "--uri", uri, "--verify", "--require-digests")
				r := gjson.Parse(strings.TrimSpace(stdout))
				var codes []string
				for _, c := range r.Get("conformance").Array() {
					codes = append(codes, c.Get("code").Str)
				}
				for _, c := range r.Get("frontmatter").Array() {
					codes = append(codes, c.Get("code").Str+" "+strings.SplitN(c.Get("message").Str, ":", 2)[0])
				}
				files := r.Get("files").Array()
				for _, f := range files {
					if f.Get("status").Str != "verified" {
						t.Errorf("file %s: %s", f.Get("uri").Str, f.Raw)
					}
				}
				// The entry is within the limits (no malformed-description); a verifier that
				// compares it with SKILL.md finds the description alone differs.
				if r.Get("uri").Str != uri || len(files) != 2 || strings.Join(codes, "; ") != `frontmatter-mismatch Field "description" differs` {
					t.Fatalf("the verifier's report, want every file verified, no conformance problem, and the description alone differing (%q):\n%s\n%s", codes, stdout, stderr)
				}
			})
		}
	}
}

// caseServers serves the folder of the case file with `skilledge serve` and in workerd,
// and returns their MCP endpoints by name.
func caseServers(t *testing.T, file string) map[string]string {
	data, err := os.ReadFile(filepath.Join("testdata", "cases", file))
	if err != nil {
		t.Fatal(err)
	}
	skills := skillsOf(parseTxtar(data))
	dir := t.TempDir()
	for rel, f := range skills.fs {
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(rel)), f.Data); err != nil {
			t.Fatal(err)
		}
	}
	return map[string]string{
		"serve":   serve(t, dir),
		"workerd": workerdFor(t, caseDeployment(t, skills), "{}")[0] + "/mcp",
	}
}
