package serving

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

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/runtime/internal/require"
)

// TestStdioWatch runs stdio --watch on a folder and edits it: a valid edit is swapped in
// and announced with both list_changed notifications, a touch that changes no content is
// not, and an invalid edit is reported while the previous catalog stays in service.
func TestStdioWatch(t *testing.T) {
	defer func(i, q time.Duration) { watchInterval, watchQuiet = i, q }(watchInterval, watchQuiet)
	watchInterval, watchQuiet = 20*time.Millisecond, 20*time.Millisecond
	dir := t.TempDir()
	md := filepath.Join(dir, "alpha", "SKILL.md")
	write := func(desc string) {
		t.Helper()
		front := "name: alpha\n"
		if desc != "" {
			front += "description: " + desc + "\n"
		}
		writeFile(t, md, "---\n"+front+"---\nBody\n")
	}
	write("First.")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr require.Buffer
	cache := t.TempDir()
	exit := make(chan error, 1)
	go func() {
		err := stdio(ctx, Options{Dir: dir, Watch: true, Cache: cache, Log: &stderr}, inR, outW)
		outW.Close()
		exit <- err
	}()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(what string) string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stdout ended waiting for %s; stderr:\n%s", what, stderr.String())
			}
			return l
		case <-time.After(20 * time.Second):
			t.Fatalf("no %s; stderr:\n%s", what, stderr.String())
		}
		return ""
	}
	ask := func(id int, method string) gjson.Result {
		t.Helper()
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":{}}`+"\n", id, method)
		return gjson.Get(next(method+" reply"), "result")
	}
	description := func(id int) string {
		t.Helper()
		return ask(id, "skills/list").Get("skills.0.description").Str
	}
	waitLog := func(s string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !strings.Contains(stderr.String(), s); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("stderr never said %q:\n%s", s, stderr.String())
			}
		}
	}

	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	caps := gjson.Get(next("initialize reply"), "result.capabilities")
	if !caps.Get("skills.listChanged").Bool() || !caps.Get("resources.listChanged").Bool() {
		t.Fatalf("capabilities %s", caps.Raw)
	}
	if d := description(2); d != "First." {
		t.Fatalf("description %q", d)
	}

	write("Second.")
	for _, want := range []string{"notifications/skills/list_changed", "notifications/resources/list_changed"} {
		if m := gjson.Get(next(want), "method").Str; m != want {
			t.Fatalf("got %q, want %s", m, want)
		}
	}
	if d := description(3); d != "Second." {
		t.Fatalf("after the edit, description %q", d)
	}

	// Same content, new times: checked, and nothing is swapped or announced.
	now := time.Now().Add(time.Minute)
	if err := os.Chtimes(md, now, now); err != nil {
		t.Fatal(err)
	}
	waitLog("no skill changed")

	write("")
	waitLog("still serving the previous catalog")
	if !strings.Contains(stderr.String(), `alpha/SKILL.md:1: missing required field "description"`) {
		t.Fatalf("the problem is not reported as validate does:\n%s", stderr.String())
	}
	if d := description(4); d != "Second." {
		t.Fatalf("after an invalid edit, description %q, want the previous catalog's", d)
	}

	write("Third.")
	next("notifications/skills/list_changed")
	next("notifications/resources/list_changed")
	if d := description(5); d != "Third." {
		t.Fatalf("after fixing the edit, description %q", d)
	}

	inW.Close()
	select {
	case err := <-exit:
		if err != nil {
			t.Fatalf("%v: %s", err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("stdio did not end at the end of stdin")
	}
	for l := range lines {
		t.Errorf("unexpected line after the last reply: %s", l)
	}
	t.Log(stderr.String())
}

// TestSnapshot checks what the watcher notices: contents, new files, removals, and not
// the clutter Load skips.
func TestSnapshot(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a", "SKILL.md"), "one")
	s0 := snapshot(dir)
	if snapshot(dir) != s0 {
		t.Fatal("a snapshot of an unchanged folder differs")
	}
	writeFile(t, filepath.Join(dir, ".git", "index"), "git")
	writeFile(t, filepath.Join(dir, "a", ".DS_Store"), "x")
	if snapshot(dir) != s0 {
		t.Fatal("clutter changed the snapshot")
	}
	for _, change := range []func(){
		func() { writeFile(t, filepath.Join(dir, "a", "SKILL.md"), "two") },
		func() { writeFile(t, filepath.Join(dir, "a", "new.md"), "x") },
		func() { os.Remove(filepath.Join(dir, "a", "new.md")) },
		func() { os.MkdirAll(filepath.Join(dir, "b"), 0o755) },
	} {
		before := snapshot(dir)
		change()
		if snapshot(dir) == before {
			t.Fatal("a change left the snapshot as it was")
		}
	}
}

// TestWatchSeesStartupEdits: an edit made after the served catalog was built but before
// the watcher started (the window of a slow first build) is picked up, and so is an edit
// under a folder given as a symbolic link.
func TestWatchSeesStartupEdits(t *testing.T) {
	defer func(i, q time.Duration) { watchInterval, watchQuiet = i, q }(watchInterval, watchQuiet)
	watchInterval, watchQuiet = 20*time.Millisecond, 20*time.Millisecond
	real := t.TempDir()
	md := filepath.Join(real, "alpha", "SKILL.md")
	writeFile(t, md, "---\nname: alpha\ndescription: First.\n---\nBody\n")
	link := filepath.Join(t.TempDir(), "skills")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	defer func(f func()) { beforeWatch = f }(beforeWatch)
	beforeWatch = func() {
		writeFile(t, md, "---\nname: alpha\ndescription: Edited while starting.\n---\nBody\n")
	}

	cache := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr require.Buffer
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		stdio(ctx, Options{Dir: link, Watch: true, Cache: cache, Log: &stderr}, inR, outW)
		outW.Close()
	}()
	// The run and its watcher end before the deferred restores above (deferred calls run
	// last first): they read watchInterval, watchQuiet and beforeWatch.
	defer func() {
		cancel()
		inW.Close()
		go io.Copy(io.Discard, outR)
		<-ran
	}()
	out := bufio.NewScanner(outR)
	waitLog := func(s string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !strings.Contains(stderr.String(), s); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("stderr never said %q:\n%s", s, stderr.String())
			}
		}
	}
	description := func(id int) string {
		t.Helper()
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"skills/list","params":{}}`+"\n", id)
		for out.Scan() {
			if r := gjson.Get(out.Text(), "result"); r.Exists() {
				return r.Get("skills.0.description").Str
			}
		}
		t.Fatalf("stdout ended; stderr:\n%s", stderr.String())
		return ""
	}
	waitLog("now serving 1 skill")
	if d := description(1); d != "Edited while starting." {
		t.Fatalf("an edit made while the server started is not served: %q\n%s", d, stderr.String())
	}
	beforeWatch = func() {}
	writeFile(t, md, "---\nname: alpha\ndescription: Edited through the link.\n---\nBody\n")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if d := description(2); d == "Edited through the link." {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("an edit under the linked folder is not served: %q\n%s", d, stderr.String())
		}
	}
}

// TestSnapshotSeesCommits: in a folder whose policy keeps versions, a commit, which
// changes no file of the folder, changes the snapshot (it publishes versions); without the
// versions section it does not.
func TestSnapshotSeesCommits(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git command")
	}
	dir := t.TempDir()
	git := func(args ...string) { t.Helper(); gitIn(t, dir, args...) }
	git("init", "-q", "-b", "main")
	writeFile(t, filepath.Join(dir, "a", "SKILL.md"), "one")
	writeFile(t, filepath.Join(dir, compile.PolicyFile), "access:\n  default: []\n")
	git("add", "-A")
	git("commit", "-q", "-m", "one")
	before := snapshot(dir)
	git("commit", "-q", "--allow-empty", "-m", "empty")
	if snapshot(dir) != before {
		t.Error("without versions, a commit changed the snapshot")
	}
	writeFile(t, filepath.Join(dir, compile.PolicyFile), "versions:\n  keep: 3\n")
	before = snapshot(dir)
	if snapshot(dir) != before {
		t.Fatal("a snapshot of an unchanged repository differs")
	}
	git("commit", "-q", "--allow-empty", "-m", "publish")
	if snapshot(dir) == before {
		t.Error("with versions, a commit left the snapshot as it was")
	}
}
