package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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
