//go:build e2e

package tests

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/runtime/pluginbuild"
)

// TestStdioWatchServed runs the real `skilledge stdio DIR --watch` as a desktop client
// would, with its default timings: an edit of a SKILL.md is announced with
// notifications/skills/list_changed within a few seconds and shows in skills/list, and an
// invalid edit leaves the previous catalog in service.
func TestStdioWatchServed(t *testing.T) {
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	md := filepath.Join(dir, "notes", "SKILL.md")
	write := func(front string) {
		t.Helper()
		if err := writeFile(md, []byte("---\nname: notes\n"+front+"---\n\n# Notes\n")); err != nil {
			t.Fatal(err)
		}
	}
	write("description: Take notes.\n")

	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "stdio", dir, "--watch")
	// A build cache of its own (the folder is a temporary one), and the plugin built once
	// for the whole test binary.
	plugin, err := pluginbuild.Locate(ctx, "", pluginbuild.Public, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), pluginbuild.Env+"="+plugin)
	stderr := new(lockedBuffer)
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(what string, within time.Duration) string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stdout ended waiting for %s; stderr:\n%s", what, stderr.String())
			}
			return l
		case <-time.After(within):
			t.Fatalf("no %s within %v; stderr:\n%s", what, within, stderr.String())
		}
		return ""
	}
	send := func(msg string) {
		t.Helper()
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	description := func(id int) string {
		t.Helper()
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"skills/list"}`, id))
		r := gjson.Parse(next("skills/list reply", 30*time.Second))
		if r.Get("id").Int() != int64(id) {
			t.Fatalf("expected reply %d, got %s", id, r.Raw)
		}
		return r.Get("result.skills.0.description").Str
	}

	// The first start may build plugin.wasm and compile it.
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	caps := gjson.Get(next("initialize reply", 3*time.Minute), "result.capabilities")
	if !caps.Get("skills.listChanged").Bool() || !caps.Get("resources.listChanged").Bool() {
		t.Fatalf("capabilities without listChanged: %s", caps.Raw)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if d := description(2); d != "Take notes." {
		t.Fatalf("description %q", d)
	}

	write("description: Take short notes.\n")
	edited := time.Now()
	if m := gjson.Get(next("notifications/skills/list_changed", 5*time.Second), "method").Str; m != "notifications/skills/list_changed" {
		t.Fatalf("got %s", m)
	}
	t.Logf("notified %v after the edit", time.Since(edited).Round(time.Millisecond))
	if m := gjson.Get(next("notifications/resources/list_changed", 5*time.Second), "method").Str; m != "notifications/resources/list_changed" {
		t.Fatalf("got %s", m)
	}
	if d := description(3); d != "Take short notes." {
		t.Fatalf("after the edit, description %q", d)
	}

	write("description: [not, a, string]\n")
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stderr.String(), "still serving the previous catalog"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the invalid edit was not reported:\n%s", stderr.String())
		}
	}
	if !strings.Contains(stderr.String(), "notes/SKILL.md:3: description: must be a string, not a list") {
		t.Fatalf("the problem is not reported with its line:\n%s", stderr.String())
	}
	if d := description(4); d != "Take short notes." {
		t.Fatalf("after an invalid edit, description %q, want the previous catalog's", d)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("stdio exit: %v\n%s", err, stderr.String())
	}
}
