package main

import (
	"bufio"
	"context"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/skilledge/skilledge/runtime/internal/require"
)

// longDescriptionDir writes a folder shaped like the skills/ folder of anthropics/skills:
// skills with files beside SKILL.md, one of whose descriptions is a block scalar of 1,068
// characters, over the Agent Skills limit of 1,024, as claude-api's is there.
func longDescriptionDir(t *testing.T) string {
	dir := t.TempDir()
	desc := strings.Repeat("Reference for the Claude API / Anthropic SDK. ", 24)[:1068]
	for path, data := range map[string]string{
		"claude-api/SKILL.md":          "---\nname: claude-api\ndescription: |-\n  " + desc + "\nlicense: Complete terms in LICENSE.txt\n---\n# Claude API\n",
		"claude-api/LICENSE.txt":       "terms\n",
		"claude-api/python/README.md":  "python\n",
		"pdf/SKILL.md":                 "---\nname: pdf\ndescription: Work with PDF files.\n---\n# PDF\n",
		"pdf/reference.md":             "reference\n",
		"skill-creator/SKILL.md":       "---\nname: skill-creator\ndescription: Create skills.\n---\n# Skill creator\n",
		"skill-creator/scripts/run.py": "print('hi')\n",
	} {
		writeFile(t, filepath.Join(dir, path), data)
	}
	return dir
}

// longDescriptionWarnings are the warnings about claude-api in the folder dir: its
// description is cut in listings and entries, and strict clients will not load it.
func longDescriptionWarnings(dir string) string {
	return dir + "/claude-api/SKILL.md:3: warning: description: has 1068 characters, over the Agent Skills limit of 1024; SKILL.md is served as written, and every listing and skill entry carries it cut to 1024\n" +
		dir + "/claude-api/SKILL.md:3: warning: the skill entry carries description (line 3) otherwise than SKILL.md: strict MCP clients list the skill but will not load it, since the two differ; write it as the Agent Skills format says to serve it to every client (validate --strict makes this an error)\n"
}

// TestLongDescription: a description over the Agent Skills limit is a warning that names
// the file and line and says what clients see, and the skill is served (SKILL.md as
// written, entries with the description cut) by validate (exit 0), stdio and serve;
// validate --strict keeps the limit an error, for CI.
func TestLongDescription(t *testing.T) {
	dir := longDescriptionDir(t)
	code, stdout, stderr := call(t, "", "validate", dir)
	expect(t, code, stdout, stderr, 0, longDescriptionWarnings(dir)+"3 skills checked: 0 errors, 2 warnings\n", "")

	code, stdout, stderr = call(t, "", "validate", "--strict", dir)
	expect(t, code, stdout, stderr, 1, dir+"/claude-api/SKILL.md:3: description: has 1068 characters, over the Agent Skills limit of 1024\n"+
		"3 skills checked: 1 error, 0 warnings\n", "")

	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"skills/get","params":{"uri":"skill://claude-api/SKILL.md"}}` + "\n"
	code, stdout, stderr = call(t, in, "stdio", dir)
	expect(t, code, stdout, stderr, 0, `"id":2,"result":{"skill":{"uri":"skill://claude-api/SKILL.md"`, "serving 3 skills (7 files) on stdio")
	expect(t, code, stdout, stderr, 0, "", longDescriptionWarnings(dir))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var errOut require.Buffer
	exit := make(chan int)
	go func() {
		exit <- run(ctx, []string{"serve", dir, "--addr", "127.0.0.1:0"}, strings.NewReader(""), outW, &errOut)
		outW.Close()
	}()
	out := bufio.NewReader(outR)
	banner, err := out.ReadString('\n')
	if err != nil {
		t.Fatalf("no banner: %v; stderr: %s", err, errOut.String())
	}
	go io.Copy(io.Discard, out)
	m := regexp.MustCompile(`^skilledge: serving 3 skills \(7 files\) at (http://127\.0\.0\.1:\d+/mcp)\n$`).FindStringSubmatch(banner)
	if m == nil {
		t.Fatalf("banner %q; stderr: %s", banner, errOut.String())
	}
	status, body := postMCP(t, m[1], `{"jsonrpc":"2.0","id":1,"method":"skills/get","params":{"uri":"skill://claude-api/SKILL.md"}}`, "")
	if status != 200 || !strings.Contains(body, `"uri":"skill://claude-api/SKILL.md"`) {
		t.Fatalf("status %d: %s", status, body)
	}
	if !strings.Contains(errOut.String(), longDescriptionWarnings(dir)) {
		t.Fatalf("serve did not report the warning: %s", errOut.String())
	}
	// The discovery indexes, whose entries allow 1024 characters of description, carry it
	// cut, so that the deployment verifies as an agent would check it.
	base := strings.TrimSuffix(m[1], "/mcp")
	code, stdout, stderr = call(t, "", "verify", base, "--allow-http-loopback")
	expect(t, code, stdout, stderr, 0, "ok  claude-api  (3 files)\n", "")
	stopped(t, cancel, exit, &errOut)
}

// TestSkippedCountedOnce: with --skip-invalid, the line saying a skill is skipped repeats
// its errors, and the summary counts each problem once: the skipped skills apart.
func TestSkippedCountedOnce(t *testing.T) {
	dir := skillsDir(t)
	in := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	code, stdout, stderr := call(t, in, "stdio", "--skip-invalid", dir)
	expect(t, code, stdout, stderr, 0, `"id":1`, "3 skills checked: 2 errors, 0 warnings; 2 skills skipped\n")
	code, stdout, stderr = call(t, "", "build", dir, "--skip-invalid", "-o", t.TempDir())
	expect(t, code, stdout, stderr, 0, "", "3 skills checked: 2 errors, 0 warnings; 2 skills skipped\n")
}
