//go:build e2e

package tests

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The e2e suites run third-party tools from build/node_modules (installed from the
// lockfile by the README's test command) against a catalog served by the real CLI.

// repoRoot is the repository root (this file lives in tests/).
func repoRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// userPath is the PATH a reader of the README has: skilledge (cliBinary), and Node 22,
// deno, bun and wrangler (the tooling build/package-lock.json pins) before the system's,
// as "PATH=…".
func userPath() (string, error) {
	bin, err := cliBinary()
	if err != nil {
		return "", err
	}
	tools := filepath.Join(repoRoot(nil), "build", "node_modules", ".bin")
	return "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + tools + string(os.PathListSeparator) + os.Getenv("PATH"), nil
}

// cliBinary builds runtime/cmd/skilledge once per test binary.
var cliBinary = sync.OnceValues(func() (string, error) {
	dir, err := scratchDir("skilledge-e2e-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "skilledge")
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "build", "-o", bin, "./runtime/cmd/skilledge")
	cmd.Dir = filepath.Dir(filepath.Dir(file))
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

var servingLine = regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`)

// serve starts `skilledge serve` with args on a free loopback port and returns the MCP
// URL. The server is stopped when the test ends.
func serve(t testing.TB, args ...string) string {
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	return serveURL(t, cmd, cancel)
}

// serveURL starts cmd, a `skilledge serve`, and returns the MCP URL it prints; cancel
// (cmd's context's) stops it when the test ends.
func serveURL(t testing.TB, cmd *exec.Cmd, cancel context.CancelFunc) string {
	cmd.Stderr = os.Stderr
	// The first run may build and compile the plugin.
	return processURL(t, cmd, cancel, servingLine, 3*time.Minute, "skilledge serve did not print its URL")
}

// processURL starts cmd and returns the first submatch of re in a line of its stdout,
// failing t with failure after timeout; cancel (cmd's context's) stops it when the test
// ends.
func processURL(t testing.TB, cmd *exec.Cmd, cancel context.CancelFunc, re *regexp.Regexp, timeout time.Duration, failure string) string {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case url := <-found:
		return url
	case <-time.After(timeout):
		t.Fatal(failure)
	}
	return ""
}

// runNode runs the pinned node with args, with HOME set to a temporary directory (the
// Inspector keeps state there), and returns the exit code and output.
func runNode(t testing.TB, args ...string) (code int, stdout, stderr string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin(t), args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1", "FORCE_COLOR=0")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("node %s timed out", strings.Join(args, " "))
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errb.String()
}

// TestMain removes the directories the once-per-binary fixtures made, and writes what
// the tests skipped for want of a part (writeSkips).
func TestMain(m *testing.M) {
	code := m.Run()
	writeSkips()
	scratch.Lock()
	for _, dir := range scratch.dirs {
		os.RemoveAll(dir)
	}
	scratch.Unlock()
	os.Exit(code)
}

// scratch is the directories to remove when the test binary ends.
var scratch struct {
	sync.Mutex
	dirs []string
}

// scratchDir makes a temporary directory that lives until the test binary ends.
func scratchDir(pattern string) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err == nil {
		scratch.Lock()
		scratch.dirs = append(scratch.dirs, dir)
		scratch.Unlock()
	}
	return dir, err
}

// lockedBuffer collects a process's output.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startLogged starts cmd, made with a context that cancel cancels, with its stdout and
// stderr collected in the buffer it returns; exited is closed when it has exited. When
// the test ends the command is cancelled and waited for, and if the test failed its
// output is logged under name.
func startLogged(t *testing.T, cmd *exec.Cmd, cancel context.CancelFunc, name string) (logs *lockedBuffer, exited <-chan struct{}) {
	t.Helper()
	logs = new(lockedBuffer)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		if t.Failed() {
			t.Logf("%s:\n%s", name, logs.String())
		}
	})
	return logs, done
}
