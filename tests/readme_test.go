//go:build e2e

package tests

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// TestREADME runs the README's commands as written: the command that serves the example
// catalog (on its default address, 127.0.0.1:8787) and the curl of initialize, whose output
// must be the literal output the README shows. It also checks that CI runs the README's
// test command, and that CONTRIBUTING.md gives the same set-up and test commands.
func TestREADME(t *testing.T) {
	root := repoRoot(t)
	serveCmd, testCmd := "go run ./runtime/cmd/skilledge serve", "./build/test"
	for _, doc := range []string{"README.md", "CONTRIBUTING.md"} {
		blocks := docBlocks(t, doc)
		for _, want := range []string{serveCmd, testCmd} {
			if !slices.Contains(blocks, want) {
				t.Fatalf("%s has no code block %q", doc, want)
			}
		}
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "exec "+testCmd+"\n") {
		t.Fatalf(".ci/run does not run the README's test command %q", testCmd)
	}
	curlCmd, curlOut := readmeCurl(t)
	startCommand(t, root, serveCmd, "http://127.0.0.1:8787/mcp", 5*time.Minute) // the first run builds the plugin
	checkCurl(t, curlCmd, curlOut)
	checkSearchCurl(t)
}

// checkSearchCurl runs the README's curl of a search and fails unless its first hit is the
// skill the README says ("answers with the best match, `NAME`").
func checkSearchCurl(t *testing.T) {
	t.Helper()
	blocks := docBlocks(t, "README.md")
	i := slices.IndexFunc(blocks, func(b string) bool { return strings.HasPrefix(b, "curl ") && strings.Contains(b, `"query"`) })
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("answers with the best match, `([^`]+)`").FindSubmatch(b)
	if i < 0 || m == nil {
		t.Fatal("the README has no curl of a search followed by the best match it finds")
	}
	out, err := exec.Command("sh", "-c", blocks[i]).Output()
	if err != nil {
		t.Fatalf("%s: %v", blocks[i], err)
	}
	if got := gjson.GetBytes(out, "result.skills.0.name").Str; got != string(m[1]) || gjson.GetBytes(out, "result.skills.#").Int() != 1 {
		t.Fatalf("%s printed\n%s\nbut the README says its best match is %s", blocks[i], out, m[1])
	}
}

// docBlocks returns the code blocks of the repository's Markdown documents names, in
// order.
func docBlocks(t testing.TB, names ...string) []string {
	t.Helper()
	var out []string
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(repoRoot(t), name))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, codeBlocks(string(b))...)
	}
	return out
}

// readmeCurl returns the README's curl of initialize and the output it says it prints (the
// block after it).
func readmeCurl(t testing.TB) (cmd, out string) {
	t.Helper()
	blocks := docBlocks(t, "README.md")
	i := slices.IndexFunc(blocks, func(b string) bool { return strings.HasPrefix(b, "curl ") })
	if i < 0 || i+1 == len(blocks) {
		t.Fatal("the README has no curl block followed by its output")
	}
	return blocks[i], blocks[i+1]
}

// startCommand runs command with sh in dir (env added to the environment) until the test
// ends, and returns once its output (stdout and stderr) contains ready, with that output
// so far and to come. The command runs in its own process group, which is interrupted at
// the end: `go run` and npx do not pass signals on to the programs they run.
func startCommand(t *testing.T, dir, command, ready string, timeout time.Duration, env ...string) *lockedBuffer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "sh", "-c", "exec "+command)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), toolEnv...), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
	logs, exited := startLogged(t, cmd, cancel, command)
	deadline := time.After(timeout)
	for !strings.Contains(logs.String(), ready) {
		select {
		case <-exited:
			t.Fatalf("%s exited before it printed %s", command, ready)
		case <-deadline:
			t.Fatalf("%s did not print %s within %v", command, ready, timeout)
		case <-time.After(100 * time.Millisecond):
		}
	}
	return logs
}

// checkCurl runs the README's curl command and fails unless it prints want.
func checkCurl(t *testing.T, curlCmd, want string) {
	t.Helper()
	out, err := exec.Command("sh", "-c", curlCmd).Output()
	if err != nil {
		t.Fatalf("%s: %v", curlCmd, err)
	}
	if got := strings.TrimSpace(string(out)); got != want {
		t.Fatalf("%s printed\n%s\nbut the README says\n%s", curlCmd, got, want)
	}
}

var fencedBlock = regexp.MustCompile("(?s)```[a-z]*\n(.*?)\n```")

// codeBlocks returns the contents of the fenced code blocks of a markdown text, in order.
func codeBlocks(md string) []string {
	var out []string
	for _, m := range fencedBlock.FindAllStringSubmatch(md, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}

var (
	wranglerTotal = regexp.MustCompile(`Total Upload: [0-9.]+ KiB / gzip: ([0-9.]+) KiB`)
	buildEstimate = regexp.MustCompile(`Worker script: about ([0-9.]+) (KiB|MiB) gzipped`)
)

// TestREADMEDeploy checks the README's Cloudflare Workers commands as written (run in
// a scratch checkout with skills/ holding the example catalog): the build and the pinned
// wrangler's deploy --dry-run succeed, build's size estimate is wrangler's own figure to
// within 3%, and the bundle carries plugin.wasm and catalog.pack byte for byte. Then the
// `wrangler dev` of DEPLOY.md serves the Worker locally and answers the README's curl with the
// output the README shows for `skilledge serve`.
func TestREADMEDeploy(t *testing.T) {
	d := deployed(t)
	t.Log(d.output)
	if !strings.Contains(d.output, "--dry-run: exiting now.") {
		t.Fatalf("wrangler did not finish its dry run:\n%s", d.output)
	}
	total, estimate := wranglerTotal.FindStringSubmatch(d.output), buildEstimate.FindStringSubmatch(d.output)
	if total == nil || estimate == nil {
		t.Fatalf("no wrangler total or build estimate in:\n%s", d.output)
	}
	got, _ := strconv.ParseFloat(estimate[1], 64)
	if estimate[2] == "MiB" {
		got *= 1024
	}
	want, _ := strconv.ParseFloat(total[1], 64)
	if math.Abs(got-want) > 0.03*want {
		t.Fatalf("build estimates the Worker at %.0f KiB gzipped, wrangler says %.0f KiB", got, want)
	}
	for _, name := range []string{"plugin.wasm", "catalog.pack"} {
		built, err := os.ReadFile(filepath.Join(d.dir, "dist", name))
		if err != nil {
			t.Fatal(err)
		}
		matches, _ := filepath.Glob(filepath.Join(d.bundle, "*-"+name))
		if len(matches) != 1 {
			t.Fatalf("bundle has %d copies of %s", len(matches), name)
		}
		bundled, err := os.ReadFile(matches[0])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(built, bundled) {
			t.Fatalf("the bundle's %s differs from the one build wrote", name)
		}
	}

	curlCmd, curlOut := readmeCurl(t)
	blocks := docBlocks(t, "README.md", "DEPLOY.md")
	i := slices.IndexFunc(blocks, func(b string) bool { return strings.HasSuffix(b, "wrangler dev") })
	if i < 0 {
		t.Fatal("neither README.md nor DEPLOY.md has a `wrangler dev` block")
	}
	startCommand(t, d.dir, blocks[i], "Ready on http://localhost:8787", 2*time.Minute)
	checkCurl(t, strings.ReplaceAll(curlCmd, "http://127.0.0.1:8787/mcp", "http://localhost:8787/mcp"), curlOut)
}
