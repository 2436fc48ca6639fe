//go:build e2e

package tests

import (
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// TestLargeCatalogDeploys is the content store's promise: a catalog far larger than a
// Worker script may be (13 MiB of incompressible data over five skills, one 4 MiB file)
// builds and passes the README's deploy dry run with a script upload of at most 3 MiB
// gzipped (the free plan's limit, by wrangler's own figure), and the Worker, its assets
// bound, serves it correctly both from workerd directly and under wrangler dev (whose
// asset layer is Cloudflare's own): the conformance suite's skills scenarios on both
// eras with no FAILURE, the Inspector's skills/list --verify on both eras, and every
// well-known artifact matching its digest.
func TestLargeCatalogDeploys(t *testing.T) {
	skills, err := scratchDir("skilledge-large-")
	if err != nil {
		t.Fatal(err)
	}
	total, err := writeIncompressibleCatalog(skills)
	if err != nil {
		t.Fatal(err)
	}
	if total < 12<<20 {
		t.Fatalf("the generated catalog has %d bytes of files, want at least 12 MiB", total)
	}
	d, err := deployFolder(skills)
	if err != nil {
		failOrSkip(t, err)
	}
	t.Log(d.output)
	if !strings.Contains(d.output, "--dry-run: exiting now.") {
		t.Fatalf("wrangler did not finish its dry run:\n%s", d.output)
	}
	m := wranglerTotal.FindStringSubmatch(d.output)
	if m == nil {
		t.Fatalf("no wrangler total in:\n%s", d.output)
	}
	if gz, _ := strconv.ParseFloat(m[1], 64); gz > 3*1024 {
		t.Fatalf("the script upload is %.0f KiB gzipped, over 3 MiB", gz)
	}
	if !regexp.MustCompile(`Read \d+ files from the assets directory`).MatchString(d.output) {
		t.Fatalf("wrangler did not read the assets:\n%s", d.output)
	}

	servers := []struct{ name, base string }{
		{"workerd", workerdFor(t, d, deployedOptions(t))[0]},
		{"wrangler-dev", wranglerDev(t, d)},
	}
	suite := conformanceSuite(t)
	baseline := filepath.Join(repoRoot(t), "tests", "conformance", "expected-failures.yml")
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			url := srv.base + "/mcp"
			for _, run := range conformanceRuns {
				if strings.HasPrefix(run.scenario, "sep-2640-skills") {
					t.Run(run.scenario+"/"+strings.Join(run.args, "_"), func(t *testing.T) {
						conformanceRun(t, suite, baseline, url, run.scenario, run.args)
					})
				}
			}
			for _, era := range []string{"legacy", "modern"} {
				t.Run("inspector/"+era, func(t *testing.T) { inspectList(t, url, era, 5) })
			}
			t.Run("well-known", func(t *testing.T) {
				if n := checkWellKnown(t, srv.base); n < 15 {
					t.Fatalf("checked %d well-known artifacts", n)
				}
			})
		})
	}
}

// wranglerDev runs `wrangler dev` in the deployment's checkout on a port of its choosing
// until the test ends, and returns its base URL.
func wranglerDev(t *testing.T, d *deployment) string { return wranglerDevOptions(t, d, "") }

// wranglerDevOptions is wranglerDev with the plugin's options (a JSON object) given as
// SKILLEDGE_OPTIONS in place of wrangler.toml's, unless options is "".
func wranglerDevOptions(t *testing.T, d *deployment, options string) string {
	command := "npx --prefix build wrangler dev --ip 127.0.0.1 --port 0"
	if options != "" {
		command += " --var 'SKILLEDGE_OPTIONS:" + strings.ReplaceAll(options, "'", `'\''`) + "'"
	}
	logs := startCommand(t, d.dir, command, "Ready on http://127.0.0.1:", 2*time.Minute)
	m := regexp.MustCompile(`Ready on (http://127\.0\.0\.1:\d+)`).FindStringSubmatch(logs.String())
	if m == nil {
		t.Fatalf("no address in wrangler dev's output:\n%s", logs.String())
	}
	return m[1]
}

// checkWellKnown fetches, from the server at base, both well-known indexes and every
// artifact they point at, and checks each against its digest: the v0.2.0 index carries
// the digests of its SKILL.md files and archives; the v0.1.0 index's files are checked
// against the digests skills/list publishes for the same skill. It returns how many
// artifacts it checked.
func checkWellKnown(t *testing.T, base string) int {
	t.Helper()
	get := func(path string) []byte {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d, %v", path, resp.StatusCode, err)
		}
		if cl := resp.Header.Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(body)) {
			t.Fatalf("GET %s: Content-Length %s for %d bytes", path, cl, len(body))
		}
		return body
	}
	checked := 0
	for _, s := range gjson.ParseBytes(get("/.well-known/agent-skills/index.json")).Get("skills").Array() {
		path := "/.well-known/agent-skills/" + s.Get("url").Str
		if got := digestOf(get(path)); got != s.Get("digest").Str {
			t.Errorf("%s hashes to %s, the index says %s", path, got, s.Get("digest").Str)
		}
		checked++
	}

	// The manifest: every file's digest, from skills/list.
	resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"skills/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	list, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// Each skill's files, by their path in the skill (unescaped), found by the digest of
	// its SKILL.md: names may repeat, and a path's URI form is escaped where the v0.1.0
	// index's is not.
	skills := map[string]map[string]string{} // SKILL.md digest -> path -> digest
	for _, s := range gjson.GetBytes(list, "result.skills").Array() {
		root := strings.TrimSuffix(s.Get("uri").Str, "SKILL.md")
		files := map[string]string{}
		for _, r := range s.Get("resources").Array() {
			rel, err := url.PathUnescape(strings.TrimPrefix(r.Get("uri").Str, root))
			if err != nil {
				t.Fatalf("skills/list: resource URI %s: %v", r.Get("uri").Str, err)
			}
			files[rel] = r.Get("digest").Str
		}
		skills[files["SKILL.md"]] = files
	}
	if len(skills) == 0 {
		t.Fatalf("skills/list: %s", list)
	}
	for _, s := range gjson.ParseBytes(get("/.well-known/skills/index.json")).Get("skills").Array() {
		dir := s.Get("path").Str
		files, ok := skills[digestOf(get(dir+"SKILL.md"))]
		if !ok {
			t.Errorf("the v0.1.0 index lists %s, whose SKILL.md is no skill's of skills/list", dir)
			continue
		}
		for _, f := range s.Get("files").Array() {
			want, ok := files[f.Str]
			if !ok {
				t.Errorf("the v0.1.0 index lists %s%s, which skills/list does not", dir, f.Str)
				continue
			}
			if got := digestOf(get(dir + escapePath(f.Str))); got != want {
				t.Errorf("%s%s hashes to %s, skills/list says %s", dir, f.Str, got, want)
			}
			checked++
		}
	}
	return checked
}

// escapePath is the file path p in a URL: each segment escaped.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
