//go:build e2e

package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/versions"
	"github.com/skilledge/skilledge/edge"
	"github.com/skilledge/skilledge/edge/wire"
)

// gitFolder is a git work tree for tests of history: each commit writes files (path ->
// content, "" removes it) and is dated a day after the one before.
type gitFolder struct {
	t   *testing.T
	dir string
	n   int
}

func newGitFolder(t *testing.T) *gitFolder {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("these tests need the git command")
	}
	g := &gitFolder{t: t, dir: t.TempDir()}
	g.git(nil, "init", "-q", "-b", "main")
	return g
}

func (g *gitFolder) git(env []string, args ...string) {
	g.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", g.dir}, args...)...)
	cmd.Env = append(append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		g.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func (g *gitFolder) commit(subject string, files map[string]string) {
	g.t.Helper()
	for p, data := range files {
		full := filepath.Join(g.dir, filepath.FromSlash(p))
		if data == "" {
			os.RemoveAll(full)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			g.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			g.t.Fatal(err)
		}
	}
	g.n++
	date := fmt.Sprintf("2026-11-%02dT12:00:00Z", g.n)
	g.git(nil, "add", "-A")
	g.git([]string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, "commit", "-q", "-m", subject)
}

// buildWithHistory loads dir, reads its history and encodes it, as build does.
func buildWithHistory(t *testing.T, dir string) (*compile.Catalog, *compile.Encoded, []compile.Problem) {
	t.Helper()
	c, problems, err := compile.LoadDir(dir, compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Keep > 0 {
		src, err := versions.Git(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		hp, err := versions.Attach(context.Background(), c, src, dir, false)
		if err != nil {
			t.Fatal(err)
		}
		problems = append(problems, hp...)
	}
	if compile.HasErrors(problems) {
		t.Fatalf("problems: %v", problems)
	}
	enc, err := compile.Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	return c, enc, problems
}

func runbook(version, body string) string {
	return "---\nname: deploy-runbook\ndescription: How we deploy.\nversion: " + version + "\n---\n" + body + "\n"
}

// TestVersionsREADME: DEPLOY.md's Versions section holds, in process: its policy keeps
// versions, and the pinned URI, skills/get {name, version}, the well-known archive, the
// _meta key and the change feed it names all answer for a folder with a bump in its
// history.
func TestVersionsREADME(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot(t), "DEPLOY.md"))
	if err != nil {
		t.Fatal(err)
	}
	var policy string
	for _, b := range codeBlocks(string(readme)) {
		if strings.HasPrefix(b, "versions:\n") {
			policy = b
		}
	}
	text := string(readme)
	pinned := "skill://acme/deploy-runbook/@1.2.0/deploy-runbook/SKILL.md"
	archive := "/.well-known/agent-skills/deploy-runbook/@1.2.0/deploy-runbook.tar.gz"
	for _, s := range []string{policy, pinned, archive, `skills/get {name: "deploy-runbook", version: "1.2.0"}`, catalog.MetaVersions,
		catalog.ChangesJSON, catalog.ChangesAtom, catalog.ChangesURI} {
		if s == "" || !strings.Contains(text, s) {
			t.Fatalf("DEPLOY.md's Versions section does not say %q (or has no versions: block)", s)
		}
	}
	g := newGitFolder(t)
	g.commit("the runbook", map[string]string{"skilledge.yaml": policy, "acme/deploy-runbook/SKILL.md": runbook("1.2.0", "Deploy with care.")})
	g.commit("runbook 1.3.0: canaries first", map[string]string{"acme/deploy-runbook/SKILL.md": runbook("1.3.0", "Deploy a canary first.")})
	_, enc, _ := buildWithHistory(t, g.dir)
	p, err := catalog.Open(enc.Index)
	if err != nil {
		t.Fatal(err)
	}
	srv := inProcess{edge.New(p, wire.Options{}), enc.Store}
	rpc := func(method, params string) map[string]any {
		t.Helper()
		reply, _ := srv.Message(t, "2025-11-25", []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
		var m map[string]any
		if err := json.Unmarshal(reply, &m); err != nil || m["result"] == nil {
			t.Fatalf("%s %s: %s", method, params, reply)
		}
		return m["result"].(map[string]any)
	}
	read := rpc("resources/read", `{"uri":"`+pinned+`"}`)
	if got := read["contents"].([]any)[0].(map[string]any)["text"]; got != runbook("1.2.0", "Deploy with care.") {
		t.Errorf("the pinned URI reads %q", got)
	}
	got := rpc("skills/get", `{"name":"deploy-runbook","version":"1.2.0"}`)
	if got["instructions"] != "Deploy with care.\n" {
		t.Errorf("skills/get {name, version}: %v", got)
	}
	latest := rpc("resources/read", `{"uri":"skill://acme/deploy-runbook/SKILL.md"}`)
	versions, _ := latest["_meta"].(map[string]any)[catalog.MetaVersions].([]any)
	if len(versions) != 2 || versions[0].(map[string]any)["version"] != "1.3.0" || versions[1].(map[string]any)["uri"] != pinned {
		t.Errorf("_meta of the latest SKILL.md: %v", latest["_meta"])
	}
	for _, path := range []string{archive, catalog.ChangesJSON, catalog.ChangesAtom} {
		frame := srv.HTTP(t, []byte("GET "+path+"\nhost: localhost\n\n"))
		if !strings.HasPrefix(string(frame), "HTTP/1.1 200") && !strings.HasPrefix(string(frame), "200") {
			t.Errorf("GET %s: %.80q", path, frame)
		}
	}
	if got := rpc("resources/read", `{"uri":"`+catalog.ChangesURI+`"}`); len(got["contents"].([]any)) != 1 {
		t.Errorf("%s: %v", catalog.ChangesURI, got)
	}
}
