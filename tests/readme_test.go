//go:build e2e

package tests

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestREADME runs the README's commands as written: the set-up command that serves the
// example catalog (on its default address, 127.0.0.1:8787) and the curl of initialize,
// whose output must be the literal output the README shows. It also checks that CI runs
// the README's test command.
func TestREADME(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := codeBlocks(string(readme))
	if len(blocks) < 4 {
		t.Fatalf("README has %d code blocks, want at least 4", len(blocks))
	}
	serveCmd, testCmd, curlCmd, curlOut := blocks[0], blocks[1], blocks[2], blocks[3]
	if serveCmd != "go run ./runtime/cmd/skilledge serve" {
		t.Fatalf("first README command is %q", serveCmd)
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "exec "+testCmd+"\n") {
		t.Fatalf(".ci/run does not run the README's test command %q", testCmd)
	}
	if !strings.HasPrefix(curlCmd, "curl ") {
		t.Fatalf("third README block is not the curl: %q", curlCmd)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "sh", "-c", "exec "+serveCmd)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	// `go run` does not pass signals on to the program it runs: stop the whole group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "http://127.0.0.1:8787/mcp") {
				ready <- sc.Text()
				break
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case line := <-ready:
		t.Log(line)
	case <-time.After(5 * time.Minute):
		t.Fatal("the README's serve command did not report http://127.0.0.1:8787/mcp")
	}
	out, err := exec.Command("sh", "-c", curlCmd).Output()
	if err != nil {
		t.Fatalf("README curl: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != curlOut {
		t.Fatalf("README curl printed\n%s\nbut the README says\n%s", got, curlOut)
	}
}

var fence = regexp.MustCompile("(?s)```[a-z]*\n(.*?)\n```")

// codeBlocks returns the contents of the fenced code blocks of a markdown text, in order.
func codeBlocks(md string) []string {
	var out []string
	for _, m := range fence.FindAllStringSubmatch(md, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}
