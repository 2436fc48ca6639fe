//go:build e2e

package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// pullCLI runs `skilledge args...` and returns its exit code and combined output.
func pullCLI(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// readTree reads every regular file under dir, by "/"-separated relative path,
// skipping what skip says.
func readTree(t *testing.T, dir string, skip func(rel string, d os.DirEntry) bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel != "." && skip != nil && skip(rel, d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sourceSkills maps each skill's name (its folder's name) to its files in a skills
// folder: the files under the folder of its SKILL.md (a nested skill's among them, as
// the skill's archive holds them), without dotfiles, which are not published.
func sourceSkills(t *testing.T, root string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "SKILL.md" {
			return err
		}
		skill := filepath.Dir(p)
		out[filepath.Base(skill)] = readTree(t, skill, func(rel string, d os.DirEntry) bool {
			return strings.HasPrefix(d.Name(), ".")
		})
		return nil
	})
	return out
}

// pulledSkills is sourceSkills of a folder pull wrote, without its lock.
func pulledSkills(t *testing.T, dir string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			out[e.Name()] = readTree(t, filepath.Join(dir, e.Name()), nil)
		}
	}
	return out
}

// TestPullServe pulls a catalog from `skilledge serve --watch` and compares the pulled
// tree byte for byte with the source, a script keeping its execute bit; a second pull downloads nothing; after an edit on
// the source, outdated names the skill (exit 1) and pull updates only it; --frozen after
// another change fails without touching DIR; a locally edited file stops the update.
func TestPullServe(t *testing.T) {
	src := t.TempDir()
	if err := writeFiles(src, map[string]string{
		"team/alpha/SKILL.md":       "---\nname: alpha\ndescription: Alpha.\nversion: 1.0.0\n---\nAlpha.\n",
		"team/alpha/scripts/run.sh": "echo alpha\n",
		"team/alpha/reference/a.md": "# A\n",
		"beta/SKILL.md":             "---\nname: beta\ndescription: Beta.\n---\nBeta.\n",
		"gamma/SKILL.md":            "---\nname: gamma\ndescription: Gamma.\n---\nGamma.\n",
		"gamma/templates/t.json":    "{}\n",
	}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(src, "team", "alpha", "scripts", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(serve(t, src, "--watch"), "/mcp")
	dir := filepath.Join(t.TempDir(), ".claude", "skills")
	code, out := pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback")
	if code != 0 || !strings.Contains(out, "3 installed") {
		t.Fatalf("pull: %d\n%s", code, out)
	}
	if got, want := pulledSkills(t, dir), sourceSkills(t, src); !reflect.DeepEqual(got, want) {
		t.Fatalf("pulled %v\nwant %v", got, want)
	}
	// The script keeps its execute bit, from the folder through the archive; nothing else
	// gets one.
	for p, exec := range map[string]bool{"alpha/scripts/run.sh": true, "alpha/SKILL.md": false, "alpha/reference/a.md": false} {
		if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err != nil || (fi.Mode().Perm()&0o111 != 0) != exec {
			t.Errorf("%s: %v %v", p, fi.Mode(), err)
		}
	}
	lock, _ := os.ReadFile(filepath.Join(dir, "skills.lock"))
	if !strings.Contains(string(lock), `"version": "1.0.0"`) || !strings.Contains(string(lock), `"manifest": "sha256:`) {
		t.Errorf("skills.lock:\n%s", lock)
	}
	code, out = pullCLI(t, nil, "pull", "--allow-http-loopback", base, dir)
	if code != 0 || !strings.Contains(out, "nothing downloaded") {
		t.Fatalf("second pull: %d\n%s", code, out)
	}
	if code, out := pullCLI(t, nil, "outdated", dir, "--allow-http-loopback"); code != 0 {
		t.Fatalf("outdated before an edit: %d\n%s", code, out)
	}

	// An edit on the source: outdated names it, pull updates only it.
	if err := writeFile(filepath.Join(src, "beta", "SKILL.md"), []byte("---\nname: beta\ndescription: Beta.\n---\nBeta, edited.\n")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		code, out = pullCLI(t, nil, "outdated", dir, "--allow-http-loopback", "--json")
		if code == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	var report struct {
		Outdated []struct{ Name, FromDigest, ToDigest string }
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil || code != 1 || len(report.Outdated) != 1 || report.Outdated[0].Name != "beta" {
		t.Fatalf("outdated after an edit: %d %v\n%s", code, err, out)
	}
	code, out = pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback", "--json")
	var res struct{ Updated, Unchanged []string }
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || !reflect.DeepEqual(res.Updated, []string{"beta"}) || len(res.Unchanged) != 2 {
		t.Fatalf("pull after an edit: %d %v\n%s", code, err, out)
	}
	if got, want := pulledSkills(t, dir), sourceSkills(t, src); !reflect.DeepEqual(got, want) {
		t.Fatalf("pulled %v\nwant %v", got, want)
	}

	// --frozen after another change fails without touching DIR.
	if err := writeFile(filepath.Join(src, "gamma", "SKILL.md"), []byte("---\nname: gamma\ndescription: Gamma.\n---\nGamma, edited.\n")); err != nil {
		t.Fatal(err)
	}
	for deadline = time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if code, _ = pullCLI(t, nil, "outdated", dir, "--allow-http-loopback"); code == 1 {
			break
		}
	}
	before := readTree(t, dir, nil)
	code, out = pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback", "--frozen")
	if code != 1 || !strings.Contains(out, "--frozen") || !strings.Contains(out, "gamma") {
		t.Fatalf("pull --frozen after a change: %d\n%s", code, out)
	}
	if after := readTree(t, dir, nil); !reflect.DeepEqual(before, after) {
		t.Fatal("pull --frozen changed DIR")
	}

	// A locally edited file stops the update, naming it; --force overwrites it.
	edited := filepath.Join(dir, "gamma", "templates", "t.json")
	os.WriteFile(edited, []byte(`{"mine": true}`), 0o644)
	code, out = pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback")
	if code != 1 || !strings.Contains(out, edited) {
		t.Fatalf("pull over a local edit: %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(edited); string(b) != `{"mine": true}` {
		t.Fatal("the local edit was overwritten")
	}
	code, out = pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback", "--force", "--skill", "gamma")
	if code != 0 || !strings.Contains(out, "1 updated") {
		t.Fatalf("pull --force: %d\n%s", code, out)
	}
	if got, want := pulledSkills(t, dir), sourceSkills(t, src); !reflect.DeepEqual(got, want) {
		t.Fatalf("pulled %v\nwant %v", got, want)
	}
}

// TestPullDryRun drives pull --dry-run through the CLI against `skilledge serve --watch`:
// after changes at the source (a skill edited, one added, one taken away) and a local
// edit of a skill the source changed too, the plan names each skill with what a pull would
// do and why, exits 1 for the edit it would refuse, and leaves the folder and skills.lock
// as they were, byte for byte; with --force it plans the overwrite and exits 0, and the
// pull that follows does what the plan said.
func TestPullDryRun(t *testing.T) {
	md := func(name, body string) string {
		return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\n" + body + "\n"
	}
	src := t.TempDir()
	files := map[string]string{}
	for _, n := range []string{"alpha", "beta", "gamma", "epsilon"} {
		files[n+"/SKILL.md"] = md(n, "One.")
	}
	if err := writeFiles(src, files); err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(serve(t, src, "--watch"), "/mcp")
	dir := t.TempDir()
	if code, out := pullCLI(t, nil, "pull", base, dir); code != 0 || !strings.Contains(out, "4 installed") {
		t.Fatalf("pull: %d\n%s", code, out)
	}
	if err := writeFiles(src, map[string]string{"alpha/SKILL.md": md("alpha", "Two."), "beta/SKILL.md": md("beta", "Two."), "delta/SKILL.md": md("delta", "One.")}); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(src, "epsilon")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "alpha", "SKILL.md"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := readTree(t, dir, nil)
	var code int
	var out string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		code, out = pullCLI(t, nil, "pull", base, dir, "--dry-run")
		if strings.Contains(out, "install delta") && strings.Contains(out, "remove  epsilon") || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range []string{
		"plan: pull " + base + " into " + dir + " (read: well-known)\n",
		"\n  refuse  alpha  edited locally: SKILL.md\n",
		"\n  update  beta  changed at the source: sha256:",
		"\n  install delta  not installed\n",
		"\n  remove  epsilon  no longer served\n",
		"\n  keep    gamma  unchanged\n",
		"\n1 to install, 1 to update, 1 to remove, 1 kept, 1 refused, 0 skipped; nothing written (--dry-run)\n",
	} {
		if code != 1 || !strings.Contains(out, want) {
			t.Fatalf("pull --dry-run: %d, want 1 and %q:\n%s", code, want, out)
		}
	}
	if after := readTree(t, dir, nil); !reflect.DeepEqual(before, after) {
		t.Fatalf("pull --dry-run wrote: before %v\nafter %v", before, after)
	}
	code, out = pullCLI(t, nil, "pull", base, dir, "--dry-run", "--force")
	if code != 0 || !strings.Contains(out, "\n  update  alpha  changed at the source: sha256:") {
		t.Fatalf("pull --dry-run --force: %d\n%s", code, out)
	}
	if after := readTree(t, dir, nil); !reflect.DeepEqual(before, after) {
		t.Fatal("pull --dry-run --force wrote")
	}
	code, out = pullCLI(t, nil, "pull", base, dir, "--force")
	if code != 0 || !strings.Contains(out, ": 1 installed (delta), 2 updated (alpha, beta), 1 unchanged, 1 removed (epsilon);") {
		t.Fatalf("the pull after its dry run: %d\n%s", code, out)
	}
}

// TestPullWorkerd pulls the example catalog from the Worker in workerd (the README's
// deployment) and compares the pulled tree with the examples folder byte for byte; a
// second pull downloads nothing; pulls over MCP in both eras give the same tree.
func TestPullWorkerd(t *testing.T) {
	base := workerd(t, "")[0]
	dir := t.TempDir()
	code, out := pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback")
	if code != 0 {
		t.Fatalf("pull: %d\n%s", code, out)
	}
	want := sourceSkills(t, filepath.Join(repoRoot(t), "catalog", "examples", "skills"))
	got := pulledSkills(t, dir)
	for name, files := range want {
		for p := range files {
			if got[name][p] != files[p] {
				t.Errorf("%s/%s: pulled %q, want %q", name, p, got[name][p], files[p])
			}
		}
		for p := range got[name] {
			if _, ok := files[p]; !ok {
				t.Errorf("%s/%s: pulled, not in the source", name, p)
			}
		}
	}
	if t.Failed() || len(got) != len(want) {
		t.Fatalf("pulled %v\nwant %v", mapKeys(got), mapKeys(want))
	}
	code, out = pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback")
	if code != 0 || !strings.Contains(out, "nothing downloaded") {
		t.Fatalf("second pull: %d\n%s", code, out)
	}
	// Over MCP, in both eras, from the same Worker.
	for _, era := range []string{"modern", "legacy"} {
		dir := t.TempDir()
		code, out := pullCLI(t, nil, "pull", base+"/mcp", dir, "--allow-http-loopback", "--era", era)
		if code != 0 {
			t.Fatalf("pull --era %s: %d\n%s", era, code, out)
		}
		if got := pulledSkills(t, dir); !reflect.DeepEqual(got, want) {
			t.Fatalf("pulled over MCP (%s) %v, want %v", era, mapKeys(got), mapKeys(want))
		}
	}
}

func mapKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestPullVersionPin pulls alpha@1.1.0 from `skilledge serve` of the versions repository
// (versionsCommits): the files of that commit, verified against the manifest digest of
// _meta, locked as pinned with the skill's path; a pull that names nothing leaves the pin, and
// outdated does not list it; naming alpha again updates it to the latest; a version not
// kept is an error naming the kept ones.
func TestPullVersionPin(t *testing.T) {
	repo := t.TempDir()
	if err := gitRepo(repo, versionsCommits); err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(serve(t, filepath.Join(repo, "skills")), "/mcp")
	dir := t.TempDir()
	code, out := pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback", "--skill", "alpha@1.1.0")
	if code != 0 || !strings.Contains(out, "1 installed") {
		t.Fatalf("pull alpha@1.1.0: %d\n%s", code, out)
	}
	got := pulledSkills(t, dir)["alpha"]
	if !strings.Contains(got["SKILL.md"], "version: 1.1.0") || got["ref.md"] != "ref two\n" || len(got) != 4 {
		t.Fatalf("alpha@1.1.0 pulled as %v", got)
	}
	var lock struct {
		Skills []struct {
			Name, Path, Version string
			Pinned              bool
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "skills.lock"))
	if err := json.Unmarshal(b, &lock); err != nil || len(lock.Skills) != 1 || !lock.Skills[0].Pinned || lock.Skills[0].Version != "1.1.0" || lock.Skills[0].Path != "alpha" {
		t.Fatalf("skills.lock: %v\n%s", err, b)
	}
	// A pull that names nothing keeps to what skills.lock says was asked for (alpha),
	// leaves the pinned alpha as it is, and names the others new.
	code, out = pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback")
	if code != 0 || !strings.Contains(out, "1 skill unchanged") || !strings.Contains(out, "3 new skills in the catalog") {
		t.Fatalf("a pull that names nothing: %d\n%s", code, out)
	}
	if got := pulledSkills(t, dir)["alpha"]; got["ref.md"] != "ref two\n" {
		t.Fatal("a pull that names nothing moved the pinned alpha")
	}
	// outdated shows the pin behind the latest, wanted where it is, and exits 0 for it.
	if code, out := pullCLI(t, nil, "outdated", dir); code != 0 || !strings.Contains(out, "alpha  1.1.0 sha256:") ||
		!strings.Contains(out, " current, wanted (pinned) -> 1.2.0 sha256:") || !strings.Contains(out, " latest  (") {
		t.Fatalf("outdated of a pinned skill: %d\n%s", code, out)
	}
	code, out = pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback", "--skill", "alpha@9.9.9")
	if code != 1 || !strings.Contains(out, "1.2.0") || !strings.Contains(out, "not kept") {
		t.Fatalf("pull alpha@9.9.9: %d\n%s", code, out)
	}
	code, out = pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback", "--skill", "alpha")
	if code != 0 || !strings.Contains(out, "1 updated") {
		t.Fatalf("pull alpha: %d\n%s", code, out)
	}
	if got := pulledSkills(t, dir)["alpha"]; !strings.Contains(got["SKILL.md"], "version: 1.2.0") {
		t.Fatalf("alpha after naming it again: %v", got)
	}
}

// TestPullPrivate pulls from a private catalog the CLI serves with --auth, the key from
// `skilledge key` given as SKILLEDGE_TOKEN: the skill is installed and the lock holds no
// trace of the key; without it the pull fails, saying to pass one, and writes nothing,
// through the index and over MCP.
func TestPullPrivate(t *testing.T) {
	base, key := servePrivateGreet(t)
	dir := t.TempDir()
	code, msg := pullCLI(t, []string{"SKILLEDGE_TOKEN="}, "pull", base, dir, "--allow-http-loopback")
	if code != 1 || !strings.Contains(msg, "--token") {
		t.Fatalf("pull without the key: %d\n%s", code, msg)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("a refused pull wrote %d entries", len(ents))
	}
	// Over MCP alike: the 401's JSON-RPC error is read, and its status still said.
	code, msg = pullCLI(t, []string{"SKILLEDGE_TOKEN="}, "pull", base+"/mcp", dir, "--allow-http-loopback")
	if code != 1 || !strings.Contains(msg, "--token") {
		t.Fatalf("pull over MCP without the key: %d\n%s", code, msg)
	}
	code, msg = pullCLI(t, []string{"SKILLEDGE_TOKEN=" + key}, "pull", base, dir, "--allow-http-loopback")
	if code != 0 || !strings.Contains(msg, "1 installed") {
		t.Fatalf("pull with SKILLEDGE_TOKEN: %d\n%s", code, msg)
	}
	lock, _ := os.ReadFile(filepath.Join(dir, "skills.lock"))
	if _, secret, _ := strings.Cut(key, "_"); strings.Contains(string(lock), key) || len(secret) > 8 && strings.Contains(string(lock), secret[len(secret)-8:]) {
		t.Fatalf("skills.lock holds the key:\n%s", lock)
	}
	if got := pulledSkills(t, dir)["greet"]["SKILL.md"]; !strings.Contains(got, "Hello!") {
		t.Fatalf("greet pulled as %q", got)
	}
	// outdated reads every source the lock names: a token must say which origin it is
	// for, and one that does goes there only.
	if code, msg = pullCLI(t, []string{"SKILLEDGE_TOKEN=" + key}, "outdated", dir, "--allow-http-loopback"); code != 2 || !strings.Contains(msg, "no origin") {
		t.Fatalf("outdated with a bare SKILLEDGE_TOKEN: %d\n%s", code, msg)
	}
	if code, msg = pullCLI(t, []string{"SKILLEDGE_TOKEN="}, "outdated", dir, "--allow-http-loopback"); code != 1 || !strings.Contains(msg, base+" asks for a credential: pass --token "+base+"=TOKEN") {
		t.Fatalf("outdated without a token: %d\n%s", code, msg)
	}
	if code, msg = pullCLI(t, []string{"SKILLEDGE_TOKEN="}, "outdated", dir, "--allow-http-loopback", "--token", base+"="+key); code != 0 {
		t.Fatalf("outdated --token ORIGIN=TOKEN: %d\n%s", code, msg)
	}
}

// startTSServer runs the TS SDK v2 skills server (tests/loadbench/ts-server.mjs, on the
// npm packages pinned in build/) on skills and returns its MCP URL; it stops when the
// test ends.
func startTSServer(t *testing.T, skills string) string {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, nodeBin(t), filepath.Join(repoRoot(t), "tests", "loadbench", "ts-server.mjs"), skills, "0")
	cmd.Stderr = io.Discard // its one warning, that JSON answers drop notifications
	return processURL(t, cmd, cancel, tsListening, time.Minute, "the TS SDK server did not say where it listens")
}

var tsListening = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`)

// TestPullMCP pulls over MCP (skills/list and resources/read, no well-known index), in
// both protocol eras, from `skilledge serve` and from the TS SDK v2 skills server (a
// catalog skilledge did not build), and compares every pulled file byte for byte with
// the examples folder; a second pull downloads nothing; the lock records each skill's
// path in the catalog.
func TestPullMCP(t *testing.T) {
	examples := filepath.Join(repoRoot(t), "catalog", "examples", "skills")
	want := sourceSkills(t, examples)
	servers := map[string]string{"serve": serve(t), "ts-sdk": startTSServer(t, examples)}
	for _, server := range []string{"serve", "ts-sdk"} {
		for _, era := range []string{"modern", "legacy"} {
			t.Run(server+"/"+era, func(t *testing.T) {
				dir := t.TempDir()
				code, out := pullCLI(t, nil, "pull", servers[server], dir, "--allow-http-loopback", "--era", era, "--json")
				var res struct {
					Installed []string
					Via       string
				}
				if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || res.Via != "mcp" || len(res.Installed) != len(want) {
					t.Fatalf("pull: %d %v\n%s", code, err, out)
				}
				got := pulledSkills(t, dir)
				for name, files := range want {
					if len(got[name]) == 0 {
						t.Errorf("%s was not pulled", name)
					}
					for p, data := range got[name] {
						if files[p] != data {
							t.Errorf("%s/%s: pulled %d bytes that differ from the source's %d", name, p, len(data), len(files[p]))
						}
					}
				}
				for name, files := range want {
					for p := range files {
						if _, ok := got[name][p]; !ok {
							t.Errorf("%s/%s: in the source, not pulled", name, p)
						}
					}
				}
				lock, _ := os.ReadFile(filepath.Join(dir, "skills.lock"))
				if !strings.Contains(string(lock), `"path": "acme/billing/refunds"`) {
					t.Errorf("the lock does not record refunds' path:\n%s", lock)
				}
				code, out = pullCLI(t, nil, "pull", servers[server], dir, "--allow-http-loopback", "--era", era)
				if code != 0 || !strings.Contains(out, "nothing downloaded") {
					t.Fatalf("second pull: %d\n%s", code, out)
				}
			})
		}
	}
	// The TS SDK server publishes no well-known index: given its origin, pull reads it
	// over MCP at ORIGIN/mcp.
	dir := t.TempDir()
	code, out := pullCLI(t, nil, "pull", strings.TrimSuffix(servers["ts-sdk"], "/mcp"), dir, "--allow-http-loopback", "--json")
	if code != 0 || !strings.Contains(out, `"via": "mcp"`) {
		t.Fatalf("pull of the TS SDK server's origin: %d\n%s", code, out)
	}
	if got := pulledSkills(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("pulled %v, want %v", mapKeys(got), mapKeys(want))
	}
}

// TestREADMEPull runs the README's block of "Install skills into an agent" line by line
// against `skilledge serve` of the example catalog, the README's placeholder deployment
// URL replaced by the server's (plain http on loopback, which needs no flag): the pull
// installs every example skill into the folder the block names, relative to a scratch
// project, outdated finds nothing to update, list lists them, and remove takes the one it
// names away.
func TestREADMEPull(t *testing.T) {
	const placeholder = "https://skills.example.com"
	blocks := docBlocks(t, "README.md")
	i := slices.IndexFunc(blocks, func(b string) bool { return strings.HasPrefix(b, "skilledge pull "+placeholder) })
	if i < 0 {
		t.Fatal("the README has no block beginning with skilledge pull " + placeholder)
	}
	base := strings.TrimSuffix(serve(t), "/mcp")
	project := t.TempDir()
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	var folder, removed string
	for _, line := range strings.Split(blocks[i], "\n") {
		args := strings.Fields(strings.ReplaceAll(line, placeholder, base))
		if len(args) < 3 || args[0] != "skilledge" {
			t.Fatalf("a line of the block is not a skilledge command: %q", line)
		}
		switch args[1] {
		case "pull":
			folder = args[len(args)-1]
		case "remove":
			removed = args[len(args)-1]
		}
		cmd := exec.Command(bin, args[1:]...) // plain http to loopback: no flag
		cmd.Dir = project
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
	want := sourceSkills(t, filepath.Join(repoRoot(t), "catalog", "examples", "skills"))
	if _, ok := want[removed]; !ok {
		t.Fatalf("the README removes %q, which the examples do not hold", removed)
	}
	delete(want, removed)
	if got := pulledSkills(t, filepath.Join(project, folder)); !reflect.DeepEqual(got, want) {
		t.Fatalf("the README's pull installed %v, want %v", mapKeys(got), mapKeys(want))
	}
}

// TestPullPath pulls `--path acme` from `skilledge serve` of the examples: only the skill
// under acme/ (acme/billing/refunds) is installed, read over MCP, its path locked; a
// frozen pull through the well-known index holds it to the lock by its files, restores it
// when deleted, and leaves skills.lock as it was; a pull that names nothing keeps to the
// path skills.lock remembers, naming the other skills new, and `--path acme` again
// downloads nothing.
func TestPullPath(t *testing.T) {
	base := strings.TrimSuffix(serve(t), "/mcp")
	dir := t.TempDir()
	code, out := pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback", "--path", "acme/", "--json")
	var res struct {
		Installed []string
		Via       string
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || res.Via != "mcp" || !reflect.DeepEqual(res.Installed, []string{"refunds"}) {
		t.Fatalf("pull --path acme/: %d %v\n%s", code, err, out)
	}
	want := sourceSkills(t, filepath.Join(repoRoot(t), "catalog", "examples", "skills"))
	if got := pulledSkills(t, dir); !reflect.DeepEqual(got, map[string]map[string]string{"refunds": want["refunds"]}) {
		t.Fatalf("pulled %v", mapKeys(got))
	}
	// --frozen reads the well-known index, whose digest of refunds is its archive's, not
	// the manifest digest the MCP read locked: it downloads refunds to compare its files,
	// and leaves the folder and the lock as they are.
	lockBefore, _ := os.ReadFile(filepath.Join(dir, "skills.lock"))
	code, out = pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback", "--frozen", "--json")
	var frozen struct {
		Installed, Updated, Unchanged []string
		Via                           string
	}
	if err := json.Unmarshal([]byte(out), &frozen); err != nil || code != 0 || frozen.Via != "well-known" ||
		!reflect.DeepEqual(frozen.Unchanged, []string{"refunds"}) || len(frozen.Installed)+len(frozen.Updated) != 0 {
		t.Fatalf("pull --frozen through the index after a read over MCP: %d %v\n%s", code, err, out)
	}
	if lockAfter, _ := os.ReadFile(filepath.Join(dir, "skills.lock")); !bytes.Equal(lockAfter, lockBefore) {
		t.Errorf("pull --frozen rewrote skills.lock:\n%s\nwas\n%s", lockAfter, lockBefore)
	}
	if got := pulledSkills(t, dir); !reflect.DeepEqual(got, map[string]map[string]string{"refunds": want["refunds"]}) {
		t.Fatalf("after pull --frozen: %v", mapKeys(got))
	}
	// A deleted skill is restored by a frozen pull, the lock still as it was.
	if err := os.RemoveAll(filepath.Join(dir, "refunds")); err != nil {
		t.Fatal(err)
	}
	if code, out = pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback", "--frozen"); code != 0 || !strings.Contains(out, "1 updated") {
		t.Fatalf("pull --frozen of a deleted skill: %d\n%s", code, out)
	}
	if lockAfter, _ := os.ReadFile(filepath.Join(dir, "skills.lock")); !bytes.Equal(lockAfter, lockBefore) {
		t.Errorf("pull --frozen that restored refunds rewrote skills.lock:\n%s\nwas\n%s", lockAfter, lockBefore)
	}
	if got := pulledSkills(t, dir); !reflect.DeepEqual(got, map[string]map[string]string{"refunds": want["refunds"]}) {
		t.Fatalf("after pull --frozen of a deleted skill: %v", mapKeys(got))
	}
	// A pull that names nothing keeps to the selection skills.lock remembers (acme/),
	// read over MCP, and names the catalog's other skills as new.
	code, out = pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback")
	if code != 0 || !strings.Contains(out, "1 skill unchanged") || !strings.Contains(out, "5 new skills in the catalog") {
		t.Fatalf("pull after --path: %d\n%s", code, out)
	}
	code, out = pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback", "--path", "acme")
	if code != 0 || !strings.Contains(out, "nothing downloaded") {
		t.Fatalf("pull --path acme again: %d\n%s", code, out)
	}
	if code, out := pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback", "--path", "../x"); code != 2 {
		t.Fatalf("pull --path ../x: %d\n%s", code, out)
	}
}

// TestPullServeV01 pulls from `skilledge serve` through its v0.1.0 index (--index v0.1),
// which publishes no digests: the tree is the source's byte for byte, the summary and
// skills.lock say nothing was verified, and a second pull downloads nothing (serve
// answers 304 to the ETags the lock keeps).
func TestPullServeV01(t *testing.T) {
	src := t.TempDir()
	if err := writeFiles(src, map[string]string{
		"team/alpha/SKILL.md":       "---\nname: alpha\ndescription: Alpha.\nversion: 1.0.0\n---\nAlpha.\n",
		"team/alpha/scripts/run.sh": "echo alpha\n",
		"beta/SKILL.md":             "---\nname: beta\ndescription: Beta.\n---\nBeta.\n",
	}); err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(serve(t, src), "/mcp")
	dir := t.TempDir()
	code, out := pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback", "--index", "v0.1")
	if code != 0 || !strings.Contains(out, "2 installed") || !strings.Contains(out, "publishes no digests") {
		t.Fatalf("pull --index v0.1: %d\n%s", code, out)
	}
	if got, want := pulledSkills(t, dir), sourceSkills(t, src); !reflect.DeepEqual(got, want) {
		t.Fatalf("pulled %v\nwant %v", got, want)
	}
	lock, _ := os.ReadFile(filepath.Join(dir, "skills.lock"))
	if strings.Count(string(lock), `"unverified": true`) != 2 || strings.Contains(string(lock), `"artifact": "sha256:`) {
		t.Errorf("skills.lock:\n%s", lock)
	}
	code, out = pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback", "--index", "v0.1")
	if code != 0 || !strings.Contains(out, "nothing downloaded") {
		t.Fatalf("second pull (serve answers 304 to the ETags the lock keeps): %d\n%s", code, out)
	}
	if code, out := pullCLI(t, nil, "outdated", dir, "--allow-http-loopback", "--index", "v0.1"); code != 0 {
		t.Fatalf("outdated: %d\n%s", code, out)
	}
}

// TestPullOutdatedVersion: after a version bump at the source, outdated says the version
// from -> to, from skilledge serve's skills/list (its entries carry the frontmatter).
func TestPullOutdatedVersion(t *testing.T) {
	// Over MCP (skills/list names versions) and through the v0.2.0 index (which names
	// none: outdated reads the changed skill's SKILL.md), a skill of one file and one with
	// an archive.
	for _, tc := range []struct {
		name  string
		files bool
		mcp   bool
	}{{"mcp", false, true}, {"index, SKILL.md alone", false, false}, {"index, an archive", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			src := t.TempDir()
			md := func(v string) []byte {
				return []byte("---\nname: alpha\ndescription: Alpha.\nversion: " + v + "\n---\nAlpha " + v + ".\n")
			}
			if err := writeFile(filepath.Join(src, "alpha", "SKILL.md"), md("1.0.0")); err != nil {
				t.Fatal(err)
			}
			if tc.files {
				if err := writeFile(filepath.Join(src, "alpha", "notes.md"), []byte("notes\n")); err != nil {
					t.Fatal(err)
				}
			}
			endpoint := serve(t, src, "--watch")
			source := endpoint
			if !tc.mcp {
				source = strings.TrimSuffix(endpoint, "/mcp")
			}
			dir := t.TempDir()
			if code, out := pullCLI(t, nil, "pull", source, dir, "--allow-http-loopback"); code != 0 {
				t.Fatalf("pull: %d\n%s", code, out)
			}
			if err := writeFile(filepath.Join(src, "alpha", "SKILL.md"), md("1.1.0")); err != nil {
				t.Fatal(err)
			}
			var code int
			var out string
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
				code, out = pullCLI(t, nil, "outdated", dir, "--allow-http-loopback")
				if code == 1 || time.Now().After(deadline) {
					break
				}
			}
			if code != 1 || !strings.Contains(out, "alpha  1.0.0 sha256:") || !strings.Contains(out, "-> 1.1.0 sha256:") {
				t.Fatalf("outdated after a version bump: %d\n%s", code, out)
			}
		})
	}
}

// TestPullSelection: a pull asked for two skills of a catalog served by `skilledge serve
// --watch` records them in skills.lock; after a skill is added and a selected one edited
// at the source, a pull that names none updates the edited one, installs nothing else,
// and names the catalog's other skills as new; --skill adds one.
func TestPullSelection(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{}
	for _, n := range []string{"docx", "pdf", "pptx"} {
		files[n+"/SKILL.md"] = "---\nname: " + n + "\ndescription: The " + n + " skill.\n---\n" + n + "\n"
	}
	if err := writeFiles(src, files); err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(serve(t, src, "--watch"), "/mcp")
	dir := filepath.Join(t.TempDir(), "skills")
	if code, out := pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback", "--skill", "pdf", "--skill", "docx"); code != 0 || !strings.Contains(out, "2 installed") {
		t.Fatalf("pull --skill pdf --skill docx: %d\n%s", code, out)
	}
	if err := writeFiles(src, map[string]string{
		"pdf/SKILL.md":  "---\nname: pdf\ndescription: The pdf skill.\n---\npdf, better\n",
		"xlsx/SKILL.md": "---\nname: xlsx\ndescription: The xlsx skill.\n---\nxlsx\n",
	}); err != nil {
		t.Fatal(err)
	}
	var code int
	var out string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if code, _ = pullCLI(t, nil, "outdated", dir, "--allow-http-loopback"); code == 1 {
			break
		}
	}
	code, out = pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback")
	if code != 0 || !strings.Contains(out, "0 installed, 1 updated") || !strings.Contains(out, "2 new skills in the catalog, not in this folder's selection (pptx, xlsx): pull --skill NAME to add one") {
		t.Fatalf("an update: %d\n%s", code, out)
	}
	if got := pulledSkills(t, dir); len(got) != 2 || !strings.Contains(got["pdf"]["SKILL.md"], "better") {
		t.Fatalf("after the update: %v", got)
	}
	if code, out = pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback", "--skill", "xlsx"); code != 0 || !strings.Contains(out, "1 installed") {
		t.Fatalf("pull --skill xlsx: %d\n%s", code, out)
	}
	if code, out = pullCLI(t, nil, "pull", base, dir, "--allow-http-loopback"); code != 0 || !strings.Contains(out, "1 new skill in the catalog") || !strings.Contains(out, "(pptx)") {
		t.Fatalf("after adding xlsx: %d\n%s", code, out)
	}
}

// TestPullFrozenKeptVersion: a frozen pull after the catalog moved on installs the
// version the lock names from its version path, where a catalog that keeps versions still
// publishes it, and takes the URL from skills.lock when given none (pull --frozen DIR);
// without that version it fails, writing nothing. The catalog is served by skilledge
// serve, then by workerd, each from a repository one commit further (alpha 1.1.0, then
// 1.2.0), the lock's URL moved to the new address as a deployment's stays the same.
func TestPullFrozenKeptVersion(t *testing.T) {
	before, after := t.TempDir(), t.TempDir()
	if err := gitRepo(before, versionsCommits[:3]); err != nil {
		t.Fatal(err)
	}
	moved := append(slices.Clone(versionsCommits[:3]), repoCommit{subject: "alpha: 1.2.0", write: map[string]string{
		"skills/alpha/SKILL.md": "---\nname: alpha\ndescription: Alpha does the first thing.\nversion: 1.2.0\n---\n\n# Alpha\n\nNow with a body.\n",
		"skills/alpha/ref.md":   "ref four\n",
	}})
	if err := gitRepo(after, moved); err != nil {
		t.Fatal(err)
	}
	first := strings.TrimSuffix(serve(t, filepath.Join(before, "skills")), "/mcp")
	d, err := deployFolder(filepath.Join(after, "skills"))
	if err != nil {
		failOrSkip(t, err)
	}
	for name, now := range map[string]string{
		"serve":   strings.TrimSuffix(serve(t, filepath.Join(after, "skills")), "/mcp"),
		"workerd": workerdFor(t, d, "")[0],
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if code, out := pullCLI(t, nil, "pull", first, dir, "--skill", "alpha"); code != 0 {
				t.Fatalf("pull: %d\n%s", code, out)
			}
			lockPath := filepath.Join(dir, "skills.lock")
			b, _ := os.ReadFile(lockPath)
			if err := os.WriteFile(lockPath, []byte(strings.ReplaceAll(string(b), first, now)), 0o644); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(filepath.Join(dir, "alpha"))
			code, out := pullCLI(t, nil, "pull", "--frozen", dir)
			if code != 0 || !strings.Contains(out, "1 updated (alpha)") { // restored, as locked
				t.Fatalf("pull --frozen DIR after the catalog moved on: %d\n%s", code, out)
			}
			got := pulledSkills(t, dir)["alpha"]
			if !strings.Contains(got["SKILL.md"], "version: 1.1.0") || got["ref.md"] != "ref two\n" {
				t.Fatalf("alpha as installed: %v", got)
			}
			if b2, _ := os.ReadFile(lockPath); string(b2) != strings.ReplaceAll(string(b), first, now) {
				t.Errorf("a frozen pull changed skills.lock:\n%s", b2)
			}
			// A version the catalog does not keep: refused, nothing written.
			os.WriteFile(lockPath, []byte(strings.ReplaceAll(strings.ReplaceAll(string(b), first, now), `"version": "1.1.0"`, `"version": "0.9.0"`)), 0o644)
			os.RemoveAll(filepath.Join(dir, "alpha"))
			if code, out := pullCLI(t, nil, "pull", "--frozen", dir); code != 1 || !strings.Contains(out, "version 0.9.0 cannot be read") {
				t.Fatalf("pull --frozen of a version not kept: %d\n%s", code, out)
			}
			if _, err := os.Stat(filepath.Join(dir, "alpha")); !os.IsNotExist(err) {
				t.Errorf("a refused frozen pull wrote alpha")
			}
		})
	}
}

// TestPullJourneyWorkerd follows a team's skills through the Worker in workerd: a project
// using Claude Code and Codex pulls into both agents' folders (found, not named), a
// script keeping its execute bit through the archive; list shows both folders; remove
// takes a skill from one, and a later pull leaves it out there, and only there.
func TestPullJourneyWorkerd(t *testing.T) {
	src := t.TempDir()
	if err := writeFiles(src, map[string]string{
		"deploy/SKILL.md":        "---\nname: deploy\ndescription: Deploy the services.\n---\nRun scripts/ship.sh.\n",
		"deploy/scripts/ship.sh": "#!/bin/sh\necho shipped\n",
		"review/SKILL.md":        "---\nname: review\ndescription: Review a change.\n---\nRead the diff.\n",
	}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(src, "deploy", "scripts", "ship.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := deployFolder(src)
	if err != nil {
		failOrSkip(t, err)
	}
	base := workerdFor(t, d, "")[0]
	project := t.TempDir()
	for _, dir := range []string{".claude", ".codex"} {
		os.MkdirAll(filepath.Join(project, dir), 0o755)
	}
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = project
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}
	code, out := run("pull", base)
	if code != 0 || !strings.Contains(out, "skilledge pull: .claude/skills (Claude Code: .claude is in the project)") ||
		!strings.Contains(out, "skilledge pull: .agents/skills (Codex: .codex is in the project)") || strings.Count(out, "2 installed (deploy, review)") != 2 {
		t.Fatalf("pull: %d\n%s", code, out)
	}
	for _, dir := range []string{".claude/skills", ".agents/skills"} {
		fi, err := os.Stat(filepath.Join(project, dir, "deploy", "scripts", "ship.sh"))
		if err != nil || fi.Mode().Perm()&0o100 == 0 {
			t.Errorf("%s: the script is not executable: %v %v", dir, fi, err)
		}
	}
	if code, out := run("list"); code != 0 || !strings.Contains(out, "2 skills installed in .claude/skills") || !strings.Contains(out, "2 skills installed in .agents/skills") {
		t.Fatalf("list: %d\n%s", code, out)
	}
	if code, out := run("remove", ".claude/skills", "review"); code != 0 || !strings.Contains(out, "removed review from .claude/skills") {
		t.Fatalf("remove: %d\n%s", code, out)
	}
	if code, out := run("pull", base); code != 0 || strings.Contains(out, "installed (review)") {
		t.Fatalf("a pull after remove: %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(project, ".claude", "skills", "review")); !os.IsNotExist(err) {
		t.Error("the pull brought review back into .claude/skills")
	}
	if _, err := os.Stat(filepath.Join(project, ".agents", "skills", "review", "SKILL.md")); err != nil {
		t.Errorf("review left .agents/skills: %v", err)
	}
}

// TestPullUnlisted: an unlisted skill, served by name though no listing names it, is
// pulled by name from the private catalog on serve and workerd (with a reader's key, bound
// to the origin); a later pull that names nothing keeps it; a pull without the name never
// installs it, nor does its dry run name it; and a hidden skill asked for by name is answered
// as one that does not exist.
func TestPullUnlisted(t *testing.T) {
	d := privateDeployment(t)
	servers, key := privateServersOf(t, privateSetup.dir, d)
	for _, srv := range servers[:2] { // serve and workerd
		t.Run(srv.name, func(t *testing.T) {
			whole := t.TempDir()
			if code, out := pullCLI(t, nil, "pull", srv.base, whole, "--token", key); code != 0 || strings.Contains(out, "idea") {
				t.Fatalf("a pull of the whole catalog: %d\n%s", code, out)
			}
			// The plan of a dry run names what the reader may see and nothing else: neither
			// the unlisted skill nor the hidden one, by name, path or contents.
			code, plan := pullCLI(t, nil, "pull", "--dry-run", srv.base, t.TempDir(), "--token", key)
			for _, leak := range []string{"idea", "ledger", "finance", "QUARTERLYSECRET"} {
				if code != 0 || strings.Contains(plan, leak) {
					t.Fatalf("pull --dry-run names %q (exit %d):\n%s", leak, code, plan)
				}
			}
			for name := range pulledSkills(t, whole) {
				if !strings.Contains(plan, "install "+name+" ") {
					t.Fatalf("pull --dry-run does not plan to install %s:\n%s", name, plan)
				}
			}
			dir := t.TempDir()
			code, out := pullCLI(t, nil, "pull", srv.base, dir, "--token", key, "--skill", "idea")
			if code != 0 || !strings.Contains(out, "1 installed (idea)") {
				t.Fatalf("pull --skill idea: %d\n%s", code, out)
			}
			if got := pulledSkills(t, dir)["idea"]; !strings.Contains(got["SKILL.md"], "Not ready.") {
				t.Fatalf("idea as installed: %v", got)
			}
			code, out = pullCLI(t, nil, "pull", srv.base, dir, "--token", key)
			if code != 0 || !strings.Contains(out, "1 skill unchanged") || strings.Contains(out, "removed") {
				t.Fatalf("a pull that names nothing: %d\n%s", code, out)
			}
			// Looked up by name, a skill the reader may not see is a skill that does not
			// exist: the same answer, word for word, and nothing of it.
			hidden, hiddenOut := pullCLI(t, nil, "pull", srv.base, t.TempDir(), "--token", key, "--skill", "ledger")
			none, noneOut := pullCLI(t, nil, "pull", srv.base, t.TempDir(), "--token", key, "--skill", "nosuch")
			if hidden != 1 || none != 1 || strings.ReplaceAll(hiddenOut, "ledger", "NAME") != strings.ReplaceAll(noneOut, "nosuch", "NAME") ||
				strings.Contains(hiddenOut, "finance") || strings.Contains(hiddenOut, "QUARTERLYSECRET") {
				t.Fatalf("pull --skill of a hidden skill:\n%d %s\nof none:\n%d %s", hidden, hiddenOut, none, noneOut)
			}
		})
	}
}
