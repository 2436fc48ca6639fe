package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestPullCommand pulls the fake deployment's skill-md skill (flags after and before the
// URL), prints a summary, then says an up-to-date pull downloaded nothing; outdated agrees
// (exit 0, and --json); a tampered SKILL.md is refused, exit 1, nothing written.
func TestPullCommand(t *testing.T) {
	base := fakeDeployment(t, "")
	dir := filepath.Join(t.TempDir(), "skills")
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"pull", base, dir, "--allow-http-loopback"}, nil, &out, &errb); code != 0 {
		t.Fatalf("pull: %d\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "1 installed") {
		t.Errorf("summary: %s", out.String())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "greet", "SKILL.md")); !strings.Contains(string(b), "Hello!") {
		t.Errorf("greet/SKILL.md: %q", b)
	}
	out.Reset()
	if code := run(context.Background(), []string{"pull", "--allow-http-loopback", base, dir}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "nothing downloaded") {
		t.Errorf("second pull: %d %s", code, out.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"outdated", dir, "--allow-http-loopback", "--json"}, nil, &out, &errb); code != 0 {
		t.Errorf("outdated: %d %s", code, out.String())
	}
	var rep struct{ Outdated []any }
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Outdated == nil || len(rep.Outdated) != 0 {
		t.Errorf("outdated --json: %v %s", err, out.String())
	}

	bad := fakeDeployment(t, "---\nname: greet\ndescription: Says hello.\n---\nrm -rf /\n")
	other := t.TempDir()
	out.Reset()
	errb.Reset()
	if code := run(context.Background(), []string{"pull", bad, other, "--allow-http-loopback"}, nil, &out, &errb); code != 1 || !strings.Contains(errb.String(), "does not match") {
		t.Errorf("tampered: %d\n%s", code, errb.String())
	}
	if ents, _ := os.ReadDir(other); len(ents) != 0 {
		t.Errorf("a refused pull wrote %d entries", len(ents))
	}
}

// TestPullUsage: help on stdout with exit 0; bad usage on one line with exit 2.
func TestPullUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"pull", "--help"}, 0, "skills.lock"},
		{[]string{"outdated", "-h"}, 0, "exit status is 1"},
		{[]string{"pull"}, 2, "missing argument"},
		{[]string{"pull", "a", "b", "c"}, 2, "too many arguments"},
		{[]string{"pull", "http://127.0.0.1:1", "--era", "2027"}, 2, "neither modern nor legacy"},
		{[]string{"pull", "http://127.0.0.1:1", "--index", "v0.3"}, 2, "neither v0.2 nor v0.1"},
		{[]string{"outdated", "--index", "0.1"}, 2, "neither v0.2 nor v0.1"},
		{[]string{"pull", "http://skills.example.com", t.TempDir()}, 2, "plain http is refused"},
		{[]string{"pull", "https://127.0.0.1:1", t.TempDir(), "--skill", "Bad_Name"}, 2, "not a skill name"},
		{[]string{"pull", "https://127.0.0.1:1", t.TempDir(), "--skill", "a@b/c"}, 2, "not a version name"},
		// A token is bound to one origin: outdated has no URL to bind a bare one to.
		{[]string{"outdated", t.TempDir(), "--token", "ske_abc"}, 2, "no origin"},
		{[]string{"outdated", t.TempDir(), "--token", "ftp://skills.example.com=ske_abc"}, 2, "is not an origin"},
		{[]string{"pull", "https://127.0.0.1:1", t.TempDir(), "--token", "https://127.0.0.1:1=a\x1b]0;x"}, 2, "control character"},
		{[]string{"verify", "https://127.0.0.1:1", "--token", "https://127.0.0.1:1="}, 2, "empty"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), c.args, nil, &out, &errb)
		if code != c.code || !strings.Contains(out.String()+errb.String(), c.want) {
			t.Errorf("%v: %d, want %d and %q:\n%s%s", c.args, code, c.code, c.want, out.String(), errb.String())
		}
	}
}

// TestTokenEnv: $SKILLEDGE_TOKEN takes --token's forms, separated by white space; a bare
// token in it is refused by outdated, which has no URL to bind it to, and bound to the
// URL by pull.
func TestTokenEnv(t *testing.T) {
	t.Setenv(tokenEnv, "https://a.example=ta http://127.0.0.1:8787=tb")
	creds, err := credentials(nil, "")
	if err != nil || len(creds) != 2 || creds["https://a.example"] != "ta" || creds["http://127.0.0.1:8787"] != "tb" {
		t.Fatalf("credentials %v %v", creds, err)
	}
	t.Setenv(tokenEnv, "bare")
	if _, err := credentials(nil, ""); err == nil || !strings.Contains(err.Error(), "$"+tokenEnv+" gives a token with no origin") {
		t.Fatalf("a bare $%s for outdated: %v", tokenEnv, err)
	}
	creds, err = credentials(nil, "https://skills.example.com/team")
	if err != nil || len(creds) != 1 || creds["https://skills.example.com"] != "bare" {
		t.Fatalf("a bare $%s for pull: %v %v", tokenEnv, creds, err)
	}
	// --token wins over the variable.
	creds, err = credentials([]string{"https://b.example=tc"}, "https://skills.example.com")
	if err != nil || len(creds) != 1 || creds["https://b.example"] != "tc" {
		t.Fatalf("--token beside $%s: %v %v", tokenEnv, creds, err)
	}
}

// TestPullDeadline: --timeout bounds a pull as a whole: a server that holds every
// request open is given up on, and the error says which flag waits longer.
func TestPullDeadline(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer srv.Close()
	defer close(stop)
	start := time.Now()
	code, _, errOut := call(t, "", "pull", srv.URL, t.TempDir(), "--allow-http-loopback", "--timeout", "300ms")
	if code != 1 || !strings.Contains(errOut, "gave up after 300ms (--timeout)") || time.Since(start) > 10*time.Second {
		t.Fatalf("pull from a server that never answers: %d after %v\n%s", code, time.Since(start), errOut)
	}
	if code, _, errOut = call(t, "", "pull", srv.URL, t.TempDir(), "--max-total", "0"); code != 2 || !strings.Contains(errOut, "--max-total must be at least 1") {
		t.Fatalf("--max-total 0: %d %s", code, errOut)
	}
}

// TestPullEdited: an update that meets a locally edited skill leaves that skill as it is,
// naming it and its file, updates the others, says what it wrote by name and in a unit a
// person reads, and exits 1; --force overwrites the edit and exits 0.
func TestPullEdited(t *testing.T) {
	var changed atomic.Bool
	md := func(name string) string {
		if changed.Load() {
			return "---\nname: " + name + "\ndescription: Says " + name + ", again.\n---\nAgain!\n"
		}
		return "---\nname: " + name + "\ndescription: Says " + name + ".\n---\nOnce.\n"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/agent-skills/index.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"$schema":"https://schemas.agentskills.io/discovery/0.2.0/schema.json","skills":[`+
			`{"name":"greet","type":"skill-md","description":"d","url":"greet/SKILL.md","digest":"sha256:%x"},`+
			`{"name":"wave","type":"skill-md","description":"d","url":"wave/SKILL.md","digest":"sha256:%x"}]}`,
			sha256.Sum256([]byte(md("greet"))), sha256.Sum256([]byte(md("wave"))))
	})
	mux.HandleFunc("GET /.well-known/agent-skills/{name}/SKILL.md", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, md(r.PathValue("name")))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	dir := filepath.Join(t.TempDir(), "skills")
	code, out, errOut := call(t, "", "pull", srv.URL, dir)
	if code != 0 || !strings.Contains(out, ": 2 installed (greet, wave), 0 updated, 0 unchanged, 0 removed; 100 bytes written") {
		t.Fatalf("pull: %d\n%s%s", code, out, errOut)
	}
	edited := filepath.Join(dir, "greet", "SKILL.md")
	if err := os.WriteFile(edited, []byte("---\nname: greet\ndescription: Mine.\n---\nMine.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changed.Store(true)
	code, out, errOut = call(t, "", "pull", srv.URL, dir)
	if code != 1 || !strings.Contains(out, ": 0 installed, 1 updated (wave), 0 unchanged, 0 removed; 57 bytes written; 1 skill changed locally, left as it is (greet): pull --force to overwrite") ||
		!strings.Contains(errOut, "skilledge pull: greet was changed locally since it was pulled ("+edited+"): left as it is; pass --force to overwrite it") {
		t.Fatalf("pull over an edit: %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(edited); !strings.Contains(string(b), "Mine.") {
		t.Fatalf("the edit was overwritten: %q", b)
	}
	code, out, errOut = call(t, "", "pull", srv.URL, dir, "--force")
	if code != 0 || !strings.Contains(out, "1 updated (greet)") {
		t.Fatalf("pull --force: %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(edited); string(b) != md("greet") {
		t.Fatalf("--force left %q", b)
	}
}

// TestListRemoveCommands: list shows what pull installed and whether it was changed;
// remove deletes a skill and says that pulls leave it out; bad usage exits 2.
func TestListRemoveCommands(t *testing.T) {
	base := fakeDeployment(t, "")
	dir := filepath.Join(t.TempDir(), "skills")
	if code, out, errOut := call(t, "", "pull", base, dir); code != 0 {
		t.Fatalf("pull: %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := call(t, "", "list", dir)
	if code != 0 || !regexp.MustCompile(`(?m)^greet  -  `+regexp.QuoteMeta(base)+`  1 file, \d+ bytes  as pulled\n1 skill installed in `+regexp.QuoteMeta(dir)+`\n$`).MatchString(out) {
		t.Fatalf("list: %d\n%s%s", code, out, errOut)
	}
	os.WriteFile(filepath.Join(dir, "greet", "SKILL.md"), []byte("mine"), 0o644)
	if code, out, _ := call(t, "", "list", dir, "--json"); code != 0 || !strings.Contains(out, `"changed": [`+"\n"+`        "SKILL.md"`) {
		t.Errorf("list --json of an edited skill: %d\n%s", code, out)
	}
	if code, _, errOut := call(t, "", "remove", dir, "greet"); code != 1 || !strings.Contains(errOut, "pass --force to remove it anyway") {
		t.Errorf("remove of an edited skill: %d %s", code, errOut)
	}
	code, out, errOut = call(t, "", "remove", dir, "greet", "--force")
	if code != 0 || !strings.Contains(out, "removed greet from "+dir+" (1 file, ") || !strings.Contains(out, "leaves it out until pull --skill greet") {
		t.Fatalf("remove --force: %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := call(t, "", "list", dir); code != 0 || !strings.HasPrefix(out, "no skills installed in "+dir) {
		t.Errorf("list after remove: %d %s", code, out)
	}
	for _, args := range [][]string{{"remove"}, {"remove", dir, "Bad_Name"}, {"list", "a", "b"}} {
		if code, _, _ := call(t, "", args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

// TestInit: init makes a skill that validates, names the file, refuses a bad name (2) and
// leaves a folder that exists alone (1).
func TestInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "skills")
	code, out, errOut := call(t, "", "init", "release-notes", dir)
	if code != 0 || !strings.Contains(out, "created "+filepath.Join(dir, "release-notes", "SKILL.md")) {
		t.Fatalf("init: %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := call(t, "", "validate", "--strict", dir); code != 0 || !strings.Contains(out, "1 skill checked: 0 errors, 0 warnings") {
		t.Fatalf("validate --strict of a new skill: %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := call(t, "", "init", "release-notes", dir); code != 1 || !strings.Contains(errOut, "exists already") {
		t.Errorf("init over a skill: %d %s", code, errOut)
	}
	for _, name := range []string{"Release", "-x", "a--b", "a/b", ""} {
		if code, _, _ := call(t, "", "init", name, dir); code != 2 {
			t.Errorf("init %q: exit %d, want 2", name, code)
		}
	}
}

// TestPullDryRunCommand: pull --dry-run prints the plan and writes nothing, exit 0; a
// plan with a refusal (a folder skills.lock does not name) exits 1, as the pull would,
// saying why; --json prints the plan.
func TestPullDryRunCommand(t *testing.T) {
	base := fakeDeployment(t, "")
	dir := filepath.Join(t.TempDir(), "skills")
	code, out, errOut := call(t, "", "pull", base, dir, "--dry-run")
	if code != 0 || out != "plan: pull "+base+" into "+dir+" (read: well-known)\n  install greet  not installed\n"+
		"1 to install, 0 to update, 0 to remove, 0 kept, 0 refused, 0 skipped; nothing written (--dry-run)\n" {
		t.Fatalf("pull --dry-run into a new folder: %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("a dry run made %s: %v", dir, err)
	}
	if code, out, errOut := call(t, "", "pull", base, dir); code != 0 {
		t.Fatalf("pull: %d\n%s%s", code, out, errOut)
	}
	lock, _ := os.ReadFile(filepath.Join(dir, "skills.lock"))
	code, out, _ = call(t, "", "pull", base, dir, "--dry-run")
	if after, _ := os.ReadFile(filepath.Join(dir, "skills.lock")); code != 0 || !strings.Contains(out, "\n  keep    greet  unchanged\n") || string(after) != string(lock) {
		t.Fatalf("pull --dry-run of an installed skill: %d\n%s", code, out)
	}

	other := t.TempDir()
	writeFile(t, filepath.Join(other, "greet", "SKILL.md"), "mine")
	code, out, errOut = call(t, "", "pull", base, other, "--dry-run", "--json")
	var plan struct {
		DryRun  bool
		Actions []struct{ Name, Do, Why, Detail string }
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil || code != 1 || !plan.DryRun || len(plan.Actions) != 1 ||
		plan.Actions[0].Do != "refuse" || plan.Actions[0].Detail != filepath.Join(other, "greet") ||
		!strings.Contains(errOut, "skilledge pull: "+filepath.Join(other, "greet")+" exists and skills.lock does not name it") {
		t.Fatalf("pull --dry-run over a folder pull did not install: %d %v\n%s%s", code, err, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(other, "greet", "SKILL.md")); string(b) != "mine" {
		t.Fatalf("a dry run wrote %q", b)
	}
	if _, err := os.Stat(filepath.Join(other, "skills.lock")); !os.IsNotExist(err) {
		t.Fatalf("a dry run wrote skills.lock: %v", err)
	}
}
