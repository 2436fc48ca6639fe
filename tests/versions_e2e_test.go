//go:build e2e

package tests

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// Skill versions (PROTOCOL.md's Versions): a skills folder in a git work tree whose
// skilledge.yaml says versions: {keep: N} serves every kept version of each skill beside
// the latest, at its version path. These tests make such a repository with the git
// command, build it as the README deploys it, and read every version back through MCP in
// both eras and through well-known discovery, on `skilledge serve`, on the Worker in
// workerd and on the Node entry.

// repoCommit is one commit of a test repository: the moves (git mv, from → to), then the
// files written (path → content), then the paths removed (git rm -r).
type repoCommit struct {
	subject string
	move    [][2]string
	write   map[string]string
	remove  []string
}

// gitRepo makes a git repository in dir (which must exist) of commits, in order, the
// n-th dated 2026-01-0n 10:00 UTC as author and committer, by a fixed person; git runs
// with no global or system configuration.
func gitRepo(dir string, commits []repoCommit) error {
	run := func(date string, args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(gitEnv(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := run("", "init", "-q", "-b", "main"); err != nil {
		return err
	}
	for i, c := range commits {
		date := fmt.Sprintf("2026-01-%02dT10:00:00Z", i+1)
		for _, m := range c.move {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, filepath.FromSlash(m[1]))), 0o755); err != nil {
				return err
			}
			if err := run(date, "mv", m[0], m[1]); err != nil {
				return err
			}
		}
		if err := writeFiles(dir, c.write); err != nil {
			return err
		}
		for _, p := range c.remove {
			if err := run(date, "rm", "-rq", p); err != nil {
				return err
			}
		}
		if err := run(date, "add", "-A"); err != nil {
			return err
		}
		if err := run(date, "commit", "-q", "-m", c.subject); err != nil {
			return err
		}
	}
	return nil
}

// gitEnv is the environment the tests run git in: no global or system configuration, no
// GIT_ variable of the caller's, and a fixed person as author and committer.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ana", "GIT_AUTHOR_EMAIL=ana@acme.example", "GIT_COMMITTER_NAME=Ana", "GIT_COMMITTER_EMAIL=ana@acme.example")
}

// versionsCommits is the history of the versions test repository, whose skills folder is
// skills/: skills added with a frontmatter version (alpha, delta, epsilon) and without one
// (beta, gamma); a file edited (beta); a version bumped (alpha 1.1.0), then a bump
// forgotten (alpha's ref.md changed under 1.1.0), then bumped again (1.2.0); a skill
// added (epsilon); one removed (delta); one renamed, folder and name, nothing else
// changed (gamma to zeta); one moved under another folder (beta, into the folder tools).
var versionsCommits = []repoCommit{
	{subject: "add alpha, beta, gamma and delta", write: map[string]string{
		"README.md":                    "# Acme's skills\n",
		"skills/skilledge.yaml":        "versions:\n  keep: 10\n",
		"skills/alpha/SKILL.md":        "---\nname: alpha\ndescription: Alpha does the first thing.\nversion: 1.0.0\n---\n\n# Alpha\n",
		"skills/alpha/ref.md":          "ref one\n",
		"skills/alpha/scripts/run.sh":  "#!/bin/sh\necho run\n",
		"skills/alpha/assets/logo.bin": string(binaryBytes()),
		"skills/beta/SKILL.md":         "---\nname: beta\ndescription: Beta keeps notes.\n---\n\n# Beta\n",
		"skills/beta/notes.txt":        "notes one\n",
		"skills/beta/my notes é.md":    "a name with a space and an accent\n",
		"skills/gamma/SKILL.md":        "---\nname: gamma\ndescription: Gamma, soon zeta.\n---\n\n# Gamma\n",
		"skills/delta/SKILL.md":        "---\nname: delta\ndescription: Delta goes away.\nversion: 0.1.0\n---\n\n# Delta\n",
		"skills/delta/gone.md":         "delta's file\n",
	}},
	{subject: "beta: edit the notes", write: map[string]string{"skills/beta/notes.txt": "notes two\n"}},
	{subject: "alpha: 1.1.0", write: map[string]string{
		"skills/alpha/SKILL.md": "---\nname: alpha\ndescription: Alpha does the first thing.\nversion: 1.1.0\n---\n\n# Alpha\n",
		"skills/alpha/ref.md":   "ref two\n",
	}},
	{subject: "add epsilon", write: map[string]string{
		"skills/epsilon/SKILL.md": "---\nname: epsilon\ndescription: Epsilon came later.\nversion: 2.0.0\n---\n\n# Epsilon\n",
	}},
	{subject: "alpha: edit ref.md, version not bumped", write: map[string]string{"skills/alpha/ref.md": "ref three\n"}},
	{subject: "remove delta", remove: []string{"skills/delta"}},
	{subject: "rename gamma to zeta", move: [][2]string{{"skills/gamma", "skills/zeta"}},
		write: map[string]string{"skills/zeta/SKILL.md": "---\nname: zeta\ndescription: Gamma, soon zeta.\n---\n\n# Gamma\n"}},
	{subject: "move beta under tools", move: [][2]string{{"skills/beta", "skills/tools/beta"}}},
	{subject: "alpha: 1.2.0", write: map[string]string{
		"skills/alpha/SKILL.md": "---\nname: alpha\ndescription: Alpha does the first thing.\nversion: 1.2.0\n---\n\n# Alpha\n\nNow with a body.\n",
	}},
}

// binaryBytes is a file that is not text: every byte value.
func binaryBytes() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// wantVersion is a kept version the versions repository must be served with: its name (a
// regular expression), the day it was published, and the skill's name in that version
// when it is not the latest's.
type wantVersion struct{ name, published, skill string }

// versionsWant is every latest skill of the versions repository (its SKILL.md URI) with
// its kept versions, newest (the latest) first. Delta, removed, has none; zeta's history
// is gamma's, renamed (its content but for the name is gamma's), and beta's moved with it.
var versionsWant = map[string][]wantVersion{
	"skill://alpha/SKILL.md":      {{`1\.2\.0`, "2026-01-09", ""}, {`1\.1\.0\+[0-9a-f]{8}`, "2026-01-05", ""}, {`1\.1\.0`, "2026-01-03", ""}, {`1\.0\.0`, "2026-01-01", ""}},
	"skill://epsilon/SKILL.md":    {{`2\.0\.0`, "2026-01-04", ""}},
	"skill://tools/beta/SKILL.md": {{`2026-01-02\.\d{6}\.[0-9a-f]{8}`, "2026-01-02", ""}, {`2026-01-01\.\d{6}\.[0-9a-f]{8}`, "2026-01-01", ""}},
	"skill://zeta/SKILL.md":       {{`2026-01-07\.\d{6}\.[0-9a-f]{8}`, "2026-01-07", ""}, {`2026-01-01\.\d{6}\.[0-9a-f]{8}`, "2026-01-01", "gamma"}},
}

// versionsGone are URIs the versions repository served once and serves no more: a
// removed skill, its versions, a renamed skill's old path, a moved skill's old path and a
// version at it.
var versionsGone = []string{"skill://delta/SKILL.md", "skill://delta/gone.md", "skill://delta/@0.1.0/delta/SKILL.md",
	"skill://gamma/SKILL.md", "skill://beta/SKILL.md", "skill://beta/notes.txt"}

// versionsSetup is the versions repository and its deployment, made once.
var versionsSetup = sync.OnceValues(func() (*versionsFixture, error) { return versionsRepoWith("") })

// versionsSetupSharded is versionsSetup built with shardFlags.
var versionsSetupSharded = sync.OnceValues(func() (*versionsFixture, error) { return versionsRepoWith(shardFlags) })

// versionsRepoWith makes the versions repository and its deployment, with buildFlags.
func versionsRepoWith(buildFlags string) (*versionsFixture, error) {
	dir, err := scratchDir("skilledge-versions-")
	if err != nil {
		return nil, err
	}
	if err := gitRepo(dir, versionsCommits); err != nil {
		return nil, err
	}
	skills := filepath.Join(dir, "skills")
	d, err := deployFolderWith(skills, buildFlags)
	if err != nil {
		return nil, err
	}
	return &versionsFixture{repo: dir, skills: skills, d: d}, nil
}

// versionsFixture is a git repository of skills and its deployment (the README's build of
// its skills folder, and wrangler's bundle).
type versionsFixture struct {
	repo, skills string
	d            *deployment
}

// out is the folder `skilledge build` wrote for the deployment.
func (f *versionsFixture) out() string { return filepath.Dir(f.d.assets) }

func versionsFixtureOf(t *testing.T) *versionsFixture {
	t.Helper()
	f, err := versionsSetup()
	if err != nil {
		failOrSkip(t, err)
	}
	return f
}

// withoutVersions copies the skills folder src to a new folder outside any git work tree,
// its policy file without the versions section, and returns the copy.
func withoutVersions(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "skills")
	err := filepath.WalkDir(src, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == "skilledge.yaml" {
			b = dropSection(b, "versions")
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// dropSection removes the top-level key of a YAML document, and the indented lines under
// it.
func dropSection(yaml []byte, key string) []byte {
	var out []string
	in := false
	for _, line := range strings.SplitAfter(string(yaml), "\n") {
		switch {
		case strings.HasPrefix(line, key+":"):
			in = true
		case in && (strings.HasPrefix(line, " ") || strings.TrimSpace(line) == ""):
		default:
			in = false
			out = append(out, line)
		}
	}
	return []byte(strings.Join(out, ""))
}

// mcpSession speaks one MCP era to an endpoint. "legacy" initializes with 2025-06-18 and
// sends that version's MCP-Protocol-Version with every later request; "modern" sends every
// request on its own in 2026-07-28: the version in params._meta, and the routing headers.
type mcpSession struct {
	url, era string
	fields   []string // more header fields, name and value
}

// newSession starts a session with the endpoint url in era.
func newSession(t *testing.T, url, era string, fields ...string) *mcpSession {
	t.Helper()
	s := &mcpSession{url: url, era: era, fields: fields}
	if era == "legacy" {
		init := s.send(t, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "versions-test", "version": "1"}})
		if v := init.Get("result.protocolVersion").Str; v != "2025-06-18" {
			t.Fatalf("initialize: %s", init.Raw)
		}
		s.send(t, "notifications/initialized", nil)
	}
	return s
}

// send posts method with params (nil for none) and returns the answer (null for a
// notification's).
func (s *mcpSession) send(t *testing.T, method string, params map[string]any) gjson.Result {
	t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if !strings.HasPrefix(method, "notifications/") {
		msg["id"] = 1
	}
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	if s.era == "modern" {
		p["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	}
	if len(p) > 0 || params != nil {
		msg["params"] = p
	}
	body, _ := json.Marshal(msg)
	req, err := http.NewRequest("POST", s.url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	switch s.era {
	case "legacy":
		if method != "initialize" {
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		}
	case "modern":
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if uri, ok := params["uri"].(string); ok && method == "resources/read" {
			req.Header.Set("Mcp-Name", uri)
		}
	}
	for i := 0; i+1 < len(s.fields); i += 2 {
		req.Header.Set(s.fields[i], s.fields[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", s.era, method, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if msg["id"] == nil {
		if resp.StatusCode != 202 {
			t.Fatalf("%s %s: %d %s", s.era, method, resp.StatusCode, b)
		}
		return gjson.Result{}
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" || !json.Valid(b) {
		t.Fatalf("%s %s %s: %d %q %s", s.era, method, body, resp.StatusCode, ct, b)
	}
	r := gjson.ParseBytes(b)
	if want := 200; s.era == "modern" && r.Get("error").Exists() {
		want = 400
		if resp.StatusCode != want {
			t.Errorf("%s %s: status %d for %s", s.era, method, resp.StatusCode, b)
		}
	} else if resp.StatusCode != want {
		t.Errorf("%s %s: status %d for %s", s.era, method, resp.StatusCode, b)
	}
	return r
}

// call is send of a request that must be answered with a result.
func (s *mcpSession) call(t *testing.T, method string, params map[string]any) gjson.Result {
	t.Helper()
	r := s.send(t, method, params)
	if !r.Get("result").IsObject() {
		t.Fatalf("%s %s %v: %s", s.era, method, params, r.Raw)
	}
	return r.Get("result")
}

// read returns the bytes of the resource uri (the one content's text or blob).
func (s *mcpSession) read(t *testing.T, uri string) []byte {
	t.Helper()
	c := s.call(t, "resources/read", map[string]any{"uri": uri}).Get("contents")
	if n := len(c.Array()); n != 1 || c.Get("0.uri").Str != uri {
		t.Fatalf("%s resources/read %s: %s", s.era, uri, c.Raw)
	}
	if blob := c.Get("0.blob"); blob.Exists() {
		b, err := base64.StdEncoding.DecodeString(blob.Str)
		if err != nil {
			t.Fatalf("%s resources/read %s: %v", s.era, uri, err)
		}
		return b
	}
	return []byte(c.Get("0.text").Str)
}

// keptVersion is one entry of a skill's _meta versions.
type keptVersion struct {
	Version, URI, Digest, Published string
}

// metaVersions is the _meta member of kept versions.
const metaVersions = `io\.github\.skilledge/versions`

// keptOf parses a _meta versions list.
func keptOf(t *testing.T, raw gjson.Result) []keptVersion {
	t.Helper()
	var out []keptVersion
	for _, v := range raw.Array() {
		out = append(out, keptVersion{v.Get("version").Str, v.Get("uri").Str, v.Get("digest").Str, v.Get("published").Str})
	}
	if len(out) == 0 {
		t.Fatalf("no kept versions: %q", raw.Raw)
	}
	return out
}

// servedFile is a file of a skill as skills/get lists it, with its bytes as
// resources/read gives them.
type servedFile struct {
	rel, uri, digest string
	size             int64
	data             []byte
}

// manifestDigest is the manifest digest of files (compile.ManifestDigest), recomputed as a
// client would: "HEX  PATH\n" for each file, SKILL.md first, then by path.
func manifestDigest(files []servedFile) string {
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b servedFile) int {
		switch {
		case a.rel == b.rel:
			return 0
		case a.rel == "SKILL.md":
			return -1
		case b.rel == "SKILL.md":
			return 1
		}
		return strings.Compare(a.rel, b.rel)
	})
	var b strings.Builder
	for _, f := range sorted {
		fmt.Fprintf(&b, "%s  %s\n", hexSHA256(f.data), f.rel)
	}
	return "sha256:" + hexSHA256([]byte(b.String()))
}

// versionFiles reads every file of the skill whose SKILL.md is uri, through skills/get
// {uri} and resources/read, checking each against its digest and size.
func versionFiles(t *testing.T, s *mcpSession, uri string) []servedFile {
	t.Helper()
	skill := s.call(t, "skills/get", map[string]any{"uri": uri}).Get("skill")
	if skill.Get("uri").Str != uri {
		t.Fatalf("%s skills/get %s: %s", s.era, uri, skill.Raw)
	}
	root := strings.TrimSuffix(uri, "SKILL.md")
	var files []servedFile
	for _, r := range skill.Get("resources").Array() {
		ruri := r.Get("uri").Str
		rel, err := url.PathUnescape(strings.TrimPrefix(ruri, root))
		if err != nil || !strings.HasPrefix(ruri, root) {
			t.Fatalf("%s skills/get %s: a resource %s not under the skill (%v)", s.era, uri, ruri, err)
		}
		f := servedFile{rel: rel, uri: ruri, digest: r.Get("digest").Str, size: r.Get("size").Int(), data: s.read(t, ruri)}
		if digestOf(f.data) != f.digest || int64(len(f.data)) != f.size {
			t.Errorf("%s %s: %d bytes hashing to %s; skills/get says %d bytes, %s", s.era, ruri, len(f.data), digestOf(f.data), f.size, f.digest)
		}
		files = append(files, f)
	}
	if len(files) == 0 || files[0].rel != "SKILL.md" {
		t.Fatalf("%s skills/get %s lists no SKILL.md first: %s", s.era, uri, skill.Raw)
	}
	return files
}

// directoryFiles lists the files under the directory uri through
// resources/directory/read, subdirectories included.
func directoryFiles(t *testing.T, s *mcpSession, uri string) []string {
	t.Helper()
	var out []string
	for _, r := range s.call(t, "resources/directory/read", map[string]any{"uri": uri}).Get("resources").Array() {
		if r.Get("mimeType").Str == "inode/directory" {
			out = append(out, directoryFiles(t, s, r.Get("uri").Str)...)
		} else {
			out = append(out, r.Get("uri").Str)
		}
	}
	return out
}

// httpGet gets base+path, with the header fields given as name, value pairs, and returns
// the status, the header and the body.
func httpGet(t *testing.T, base, path string, fields ...string) (int, http.Header, []byte) {
	t.Helper()
	resp, b := httpDo(t, "GET", base+path, fields...)
	return resp.StatusCode, resp.Header, b
}

// httpDo sends a request of method to target without a body, with the header fields given
// as name, value pairs, and returns the response and its whole body.
func httpDo(t *testing.T, method, target string, fields ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		req.Header.Set(fields[i], fields[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// versionHosts starts the versions deployment on `skilledge serve` (its build output),
// the Worker in workerd and the Node entry, and returns their base URLs by name.
func versionHosts(t *testing.T, f *versionsFixture) []privateServer {
	t.Helper()
	var node jsRuntime
	for _, rt := range jsRuntimes {
		if rt.name == "node" {
			node = rt
		}
	}
	return []privateServer{
		{"serve", strings.TrimSuffix(serve(t, f.out()), "/mcp")},
		{"workerd", workerdFor(t, f.d, "{}")[0]},
		{"node", startRuntime(t, node, withSDK(t, f.d), "")},
	}
}

// TestVersionsServed: the versions repository, built as the README deploys (the build
// says what its history added), is served on `skilledge serve` (the build's output), on
// the Worker in workerd and on the Node entry so that, in both MCP eras: the listings hold
// the latest skills only; each latest skill names its kept versions, newest first, the
// same list on its resources/list entry, its directory listing, resources/read of its
// SKILL.md, skills/get {uri} and skills/get {name, version}; every file of every version
// (skills/get {uri}, resources/read) has the bytes of its digest, the version's files are
// those of its directory listing, and its manifest digest recomputed from them is the one
// _meta names; skills/get {name, version} gives that version, and an unknown version is
// -32602 with data {name, version}. Over HTTP, every file of every older version is
// served at its well-known version paths, and its archives hold its files. What was
// removed, renamed or moved is not served at its old paths. `skilledge verify` passes,
// every kept version verified. The change feed is served as JSON, as Atom and as
// skill://changes.json, and says what the history did (checkVersionsFeed).
func TestVersionsServed(t *testing.T) { checkVersionsServed(t, versionsFixtureOf(t)) }

// TestVersionsServedSharded is TestVersionsServed on the versions repository built with
// its index sharded (shardFlags): the older versions' index is a sharded root too.
func TestVersionsServedSharded(t *testing.T) {
	f, err := versionsSetupSharded()
	if err != nil {
		failOrSkip(t, err)
	}
	requireSharded(t, f.d)
	checkVersionsServed(t, f)
}

// checkVersionsServed is TestVersionsServed on f.
func checkVersionsServed(t *testing.T, f *versionsFixture) {
	if !strings.Contains(f.d.output, "skilledge: history: 5 older versions of 3 skills kept (at most 10 a skill) from 9 commits") {
		t.Fatalf("the build does not say the history it kept:\n%s", f.d.output)
	}
	for _, h := range versionHosts(t, f) {
		t.Run(h.name, func(t *testing.T) {
			start := time.Now()
			for _, era := range []string{"legacy", "modern"} {
				t.Run(era, func(t *testing.T) { checkVersionsMCP(t, newSession(t, h.base+"/mcp", era)) })
			}
			t.Run("well-known", func(t *testing.T) { checkVersionsWellKnown(t, h.base, newSession(t, h.base+"/mcp", "legacy")) })
			t.Run("verify", func(t *testing.T) {
				bin, err := cliBinary()
				if err != nil {
					t.Fatal(err)
				}
				checkVerifyVersions(t, bin, h.base)
			})
			t.Run("changes", func(t *testing.T) {
				for _, c := range []struct{ path, ct string }{{"/changes.json", "application/json"}, {"/changes.atom", "application/atom+xml; charset=utf-8"}} {
					st, hdr, body := httpGet(t, h.base, c.path)
					if st != 200 || hdr.Get("Content-Type") != c.ct || len(body) == 0 || hdr.Get("ETag") == "" {
						t.Errorf("GET %s: %d %q %s", c.path, st, hdr.Get("Content-Type"), body)
					}
					if st, _, body := httpGet(t, h.base, c.path, "If-None-Match", hdr.Get("ETag")); st != 304 || len(body) != 0 {
						t.Errorf("GET %s with its ETag: %d %s", c.path, st, body)
					}
				}
				_, _, feed := httpGet(t, h.base, "/changes.json")
				_, _, atom := httpGet(t, h.base, "/changes.atom")
				s := newSession(t, h.base+"/mcp", "legacy")
				if got := s.read(t, "skill://changes.json"); !bytes.Equal(got, feed) {
					t.Errorf("skill://changes.json is not /changes.json:\n%s\n%s", got, feed)
				}
				checkVersionsFeed(t, feed, atom, s)
			})
			t.Logf("%s: %v", h.name, time.Since(start).Round(time.Millisecond))
		})
	}
}

// checkVersionsFeed checks the versions repository's change feed, as JSON and as Atom,
// against the history it was built from and the kept versions s is given: newest first,
// one change per skill a commit touched, each with its commit's subject and full name;
// the additions, the removal, the move and the rename as such; every kept version as the
// version a change published, with the digest _meta gives it; and the Atom feed with an
// entry, of the same date, per change.
func checkVersionsFeed(t *testing.T, feed, atom []byte, s *mcpSession) {
	t.Helper()
	kept := map[string]string{} // version -> the manifest digest _meta gives it
	for _, r := range s.call(t, "resources/list", nil).Get("resources").Array() {
		for _, v := range r.Get("_meta." + metaVersions).Array() {
			kept[v.Get("version").Str] = v.Get("digest").Str
		}
	}
	subjects := map[string]bool{}
	for _, c := range versionsCommits {
		subjects[c.subject] = true
	}
	published := map[string]bool{}
	var kinds []string
	changes := gjson.GetBytes(feed, "changes").Array()
	for i, c := range changes {
		if i > 0 && c.Get("date").Str > changes[i-1].Get("date").Str {
			t.Errorf("the feed is not newest first: %s after %s", c.Raw, changes[i-1].Raw)
		}
		if !subjects[c.Get("subject").Str] || !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(c.Get("commit").Str) {
			t.Errorf("a change without its commit or subject: %s", c.Raw)
		}
		for _, side := range []string{"from", "to"} {
			v := c.Get(side)
			if d, ok := kept[v.Get("version").Str]; v.Exists() && ok && d != v.Get("digest").Str {
				t.Errorf("the feed gives %s the digest %s, _meta %s: %s", v.Get("version").Str, v.Get("digest").Str, d, c.Raw)
			}
		}
		if to := c.Get("to"); to.Exists() {
			published[to.Get("version").Str+" "+to.Get("digest").Str] = true
		}
		p := c.Get("skill.path").Str
		switch {
		case !c.Get("from").Exists():
			kinds = append(kinds, "added "+p)
		case !c.Get("to").Exists():
			kinds = append(kinds, "removed "+p)
		case c.Get("movedFrom").Exists():
			kinds = append(kinds, "moved "+c.Get("movedFrom").Str+" to "+p)
		default:
			kinds = append(kinds, "changed "+p)
		}
	}
	want := []string{"added alpha", "added beta", "added delta", "added gamma", "changed beta", "changed alpha", "added epsilon",
		"changed alpha", "removed delta", "moved gamma to zeta", "moved beta to tools/beta", "changed alpha"}
	if slices.Sort(kinds); !slices.Equal(kinds, slices.Sorted(slices.Values(want))) {
		t.Errorf("the feed's changes are %q, want %q:\n%s", kinds, want, feed)
	}
	for v, d := range kept {
		if !published[v+" "+d] {
			t.Errorf("no change of the feed published the kept version %s (%s):\n%s", v, d, feed)
		}
	}
	var doc struct {
		Entries []struct {
			ID      string `xml:"id"`
			Updated string `xml:"updated"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal(atom, &doc); err != nil || len(doc.Entries) != len(changes) {
		t.Fatalf("the Atom feed (%v) has %d entries, the JSON feed %d changes:\n%s", err, len(doc.Entries), len(changes), atom)
	}
	ids := map[string]bool{}
	for i, e := range doc.Entries {
		if ids[e.ID] || !strings.HasPrefix(e.ID, "urn:uuid:") || e.Updated != changes[i].Get("date").Str {
			t.Errorf("Atom entry %d: %+v, for %s", i, e, changes[i].Raw)
		}
		ids[e.ID] = true
	}
}

// checkVersionsMCP checks the versions repository's catalog through s (TestVersionsServed).
func checkVersionsMCP(t *testing.T, s *mcpSession) {
	list := s.call(t, "resources/list", nil)
	if list.Get("nextCursor").Exists() {
		t.Fatalf("resources/list is paged: %s", list.Raw)
	}
	kept := map[string]gjson.Result{} // latest SKILL.md URI -> _meta versions
	for _, r := range list.Get("resources").Array() {
		uri := r.Get("uri").Str
		if strings.Contains(uri, "/@") {
			t.Errorf("resources/list lists a version: %s", r.Raw)
		}
		if v := r.Get("_meta." + metaVersions); v.Exists() {
			kept[uri] = v
		}
	}
	if got := slices.Sorted(maps.Keys(kept)); !slices.Equal(got, slices.Sorted(maps.Keys(versionsWant))) {
		t.Fatalf("resources/list gives versions for %q, want %q", got, slices.Sorted(maps.Keys(versionsWant)))
	}
	skills := s.call(t, "skills/list", nil)
	names := map[string]string{} // latest SKILL.md URI -> name
	for _, sk := range skills.Get("skills").Array() {
		names[sk.Get("uri").Str] = sk.Get("name").Str
	}
	if strings.Contains(skills.Raw, "/@") || len(names) != len(versionsWant) {
		t.Errorf("skills/list, want the %d latest skills only: %s", len(versionsWant), skills.Raw)
	}

	for _, latest := range slices.Sorted(maps.Keys(versionsWant)) {
		want, raw := versionsWant[latest], kept[latest]
		vs := keptOf(t, raw)
		name := names[latest]
		if name == "" {
			t.Fatalf("skills/list has no %s", latest)
		}
		root := strings.TrimSuffix(latest, "SKILL.md")
		if len(vs) != len(want) {
			t.Errorf("%s: versions %+v, want %d", latest, vs, len(want))
			continue
		}
		for i, v := range vs {
			if !regexp.MustCompile(`^`+want[i].name+`$`).MatchString(v.Version) || !strings.HasPrefix(v.Published, want[i].published+"T") {
				t.Errorf("%s: version %d is %+v, want %s published %s", latest, i, v, want[i].name, want[i].published)
			}
			// Every version at its own path, the latest's too (it is served there as well).
			in := name
			if i > 0 && want[i].skill != "" {
				in = want[i].skill
			}
			wantURI := root + "@" + v.Version + "/" + in + "/SKILL.md"
			if v.URI != wantURI {
				t.Errorf("%s: version %s at %s, want %s", latest, v.Version, v.URI, wantURI)
			}
		}
		// The same list wherever the latest skill is named.
		same := func(where string, got gjson.Result) {
			t.Helper()
			if got.Raw != raw.Raw {
				t.Errorf("%s: %s: versions %s, want %s", latest, where, got.Raw, raw.Raw)
			}
		}
		same("skills/get {uri}", s.call(t, "skills/get", map[string]any{"uri": latest}).Get("_meta."+metaVersions))
		same("resources/read", s.call(t, "resources/read", map[string]any{"uri": latest}).Get("_meta."+metaVersions))
		for _, r := range s.call(t, "resources/directory/read", map[string]any{"uri": strings.TrimSuffix(root, "/")}).Get("resources").Array() {
			if r.Get("uri").Str == latest {
				same("resources/directory/read", r.Get("_meta."+metaVersions))
			}
		}

		for _, v := range vs {
			files := versionFiles(t, s, v.URI)
			if d := manifestDigest(files); d != v.Digest {
				t.Errorf("%s %s: the manifest digest of its files is %s, _meta says %s", latest, v.Version, d, v.Digest)
			}
			var uris []string
			for _, f := range files {
				uris = append(uris, f.uri)
			}
			if got := directoryFiles(t, s, strings.TrimSuffix(strings.TrimSuffix(v.URI, "SKILL.md"), "/")); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(uris))) {
				t.Errorf("%s %s: its directory lists %q, skills/get %q", latest, v.Version, got, uris)
			}
			byName := s.call(t, "skills/get", map[string]any{"name": name, "version": v.Version})
			var got []string
			for _, f := range byName.Get("files").Array() {
				got = append(got, f.Get("uri").Str)
			}
			if !slices.Equal(got, uris) {
				t.Errorf("skills/get {%s, %s}: files %q, want %q", name, v.Version, got, uris)
			}
			same("skills/get {name, version: "+v.Version+"}", byName.Get("_meta."+metaVersions))
		}
		// An unknown version names the skill and the version asked for.
		e := s.send(t, "skills/get", map[string]any{"name": name, "version": "9.9.9"}).Get("error")
		if e.Get("code").Int() != -32602 || !jsonEqual(e.Get("data").Raw, `{"name":`+jsonQuote(name)+`,"version":"9.9.9"}`) {
			t.Errorf("skills/get {%s, 9.9.9}: %s", name, e.Raw)
		}
	}
	for _, uri := range versionsGone {
		if r := s.send(t, "resources/read", map[string]any{"uri": uri}); !r.Get("error").Exists() {
			t.Errorf("resources/read %s, gone: %s", uri, r.Raw)
		}
		if r := s.send(t, "skills/get", map[string]any{"uri": uri}); !r.Get("error").Exists() {
			t.Errorf("skills/get %s, gone: %s", uri, r.Raw)
		}
	}
	for _, gone := range []string{"delta", "gamma"} {
		if r := s.send(t, "skills/get", map[string]any{"name": gone}); !r.Get("error").Exists() {
			t.Errorf("skills/get {name: %s}, gone: %s", gone, r.Raw)
		}
	}
}

// checkVersionsWellKnown reads every file and archive of every kept version through
// well-known discovery at base, against the files s reads through MCP.
func checkVersionsWellKnown(t *testing.T, base string, s *mcpSession) {
	_, _, index := httpGet(t, base, "/.well-known/agent-skills/index.json")
	byName := map[string]bool{}
	for _, sk := range gjson.ParseBytes(index).Get("skills").Array() {
		byName[sk.Get("name").Str] = true
	}
	checked := 0
	for _, r := range s.call(t, "resources/list", nil).Get("resources").Array() {
		raw := r.Get("_meta." + metaVersions)
		if !raw.Exists() {
			continue
		}
		name := r.Get("name").Str
		if !byName[name] {
			t.Fatalf("the well-known index has no %s: %s", name, index)
		}
		for i, v := range keptOf(t, raw) {
			files := versionFiles(t, s, v.URI)
			// Where the version's files are: the latest at the skill's own paths, an
			// older one under @VERSION/NAME.
			at, archive := name+"/", name
			if i > 0 {
				vname := path.Base(strings.TrimSuffix(v.URI, "/SKILL.md"))
				at, archive = name+"/@"+v.Version+"/"+vname+"/", name+"/@"+v.Version+"/"+vname
			}
			want := map[string]string{}
			for _, f := range files {
				want[f.rel] = fmt.Sprintf("%s %d", f.digest, f.size)
				for _, p := range []string{"/.well-known/agent-skills/" + at + escapePath(f.rel), "/.well-known/skills/" + at + escapePath(f.rel)} {
					st, hdr, body := httpGet(t, base, p)
					if st != 200 || !bytes.Equal(body, f.data) {
						t.Errorf("GET %s: %d, %d bytes hashing to %s, want %s's %d bytes", p, st, len(body), digestOf(body), f.uri, len(f.data))
					}
					if etag := `"sha256-` + strings.TrimPrefix(f.digest, "sha256:") + `"`; hdr.Get("ETag") != etag {
						t.Errorf("GET %s: ETag %s, want %s", p, hdr.Get("ETag"), etag)
					}
					checked++
				}
			}
			for ext, mime := range map[string]string{".tar.gz": "application/gzip", ".zip": "application/zip"} {
				p := "/.well-known/agent-skills/" + archive + ext
				st, hdr, body := httpGet(t, base, p)
				if st != 200 || hdr.Get("Content-Type") != mime {
					t.Errorf("GET %s: %d %q", p, st, hdr.Get("Content-Type"))
					continue
				}
				if got := unpack(t, mime, body); !maps.Equal(got, want) {
					t.Errorf("GET %s holds %v, want %v", p, got, want)
				}
				checked++
			}
		}
	}
	if checked < 40 {
		t.Fatalf("checked %d well-known files and archives", checked)
	}
	// A version of a name the index does not have, or a version a skill does not have.
	for _, p := range []string{"/.well-known/agent-skills/alpha/@9.9.9/alpha/SKILL.md", "/.well-known/agent-skills/delta/@0.1.0/delta/SKILL.md",
		"/.well-known/agent-skills/alpha/@1.0.0/alpha/", "/.well-known/agent-skills/alpha/@1.0.0/beta/SKILL.md", "/.well-known/skills/beta/@1.0.0/alpha/ref.md"} {
		if st, _, _ := httpGet(t, base, p); st != 404 {
			t.Errorf("GET %s: %d, want 404", p, st)
		}
	}
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// historyVersion is the name a history gives a version whose SKILL.md declares none.
var historyVersion = regexp.MustCompile(`^\d{4}-\d\d-\d\d\.\d{6}\.[0-9a-f]{8}$`)

// withoutKept is a JSON answer without the kept versions in any _meta (and without a
// _meta left empty by that), and without the version an entry names for a skill whose
// frontmatter declares none (a history's "2026-01-02.120000.2d8e0826"), re-encoded.
func withoutKept(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	var strip func(any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if m, ok := x["_meta"].(map[string]any); ok {
				delete(m, "io.github.skilledge/versions")
				if len(m) == 0 {
					delete(x, "_meta")
				}
			}
			if v, ok := x["version"].(string); ok && historyVersion.MatchString(v) {
				delete(x, "version")
			}
			for _, e := range x {
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(v)
	b, _ := json.Marshal(v)
	return string(b)
}

// TestVersionsLatestUnchanged: the versions repository's build and the build of the same
// folder at HEAD without the versions section (outside git) serve the latest skills
// alike: the same skills/list in both eras, resources/list (URIs, sizes, order) and every
// latest file, skill and directory listing, but for the kept versions in _meta and the
// version named for a skill that declares none, the same
// skill://index.json and well-known indexes, byte for byte, and the same sitemap; the
// catalog page with history names the older versions; only the build with history serves
// the change feed.
func TestVersionsLatestUnchanged(t *testing.T) {
	f := versionsFixtureOf(t)
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	plain := withoutVersions(t, f.skills)
	if b, _ := os.ReadFile(filepath.Join(plain, "skilledge.yaml")); strings.Contains(string(b), "versions") {
		t.Fatalf("the copy's policy still has versions: %s", b)
	}
	plainOut := filepath.Join(t.TempDir(), "out")
	if out, err := exec.Command(bin, "build", plain, "-o", plainOut).CombinedOutput(); err != nil || strings.Contains(string(out), "history") {
		t.Fatalf("build without versions: %v\n%s", err, out)
	}
	with, without := strings.TrimSuffix(serve(t, f.out()), "/mcp"), strings.TrimSuffix(serve(t, plainOut), "/mcp")

	for _, era := range []string{"legacy", "modern"} {
		a, b := newSession(t, with+"/mcp", era), newSession(t, without+"/mcp", era)
		same := func(what string, x, y gjson.Result, strip bool) {
			t.Helper()
			xs, ys := x.Raw, y.Raw
			if strip {
				xs, ys = withoutKept(t, []byte(xs)), withoutKept(t, []byte(ys))
			}
			if xs != ys {
				t.Errorf("%s %s with history:\n%s\nwithout:\n%s", era, what, xs, ys)
			}
		}
		same("skills/list", a.call(t, "skills/list", nil), b.call(t, "skills/list", nil), true)
		la, lb := a.call(t, "resources/list", nil), b.call(t, "resources/list", nil)
		same("resources/list", la, lb, true)
		if la.Raw == lb.Raw || !strings.Contains(la.Raw, "io.github.skilledge/versions") {
			t.Errorf("resources/list with history names no versions: %s", la.Raw)
		}
		same("skill://index.json", a.call(t, "resources/read", map[string]any{"uri": "skill://index.json"}), b.call(t, "resources/read", map[string]any{"uri": "skill://index.json"}), false)
		files := 0
		for _, r := range lb.Get("resources").Array() {
			uri := r.Get("uri").Str
			same("resources/read "+uri, a.call(t, "resources/read", map[string]any{"uri": uri}), b.call(t, "resources/read", map[string]any{"uri": uri}), true)
			if strings.HasSuffix(uri, "/SKILL.md") {
				same("skills/get "+uri, a.call(t, "skills/get", map[string]any{"uri": uri}), b.call(t, "skills/get", map[string]any{"uri": uri}), true)
				dir := map[string]any{"uri": strings.TrimSuffix(uri, "/SKILL.md")}
				same("resources/directory/read "+uri, a.call(t, "resources/directory/read", dir), b.call(t, "resources/directory/read", dir), true)
			}
			files++
		}
		if files < 8 {
			t.Fatalf("resources/list lists %d resources: %s", files, lb.Raw)
		}
		if r := b.send(t, "resources/read", map[string]any{"uri": "skill://changes.json"}); !r.Get("error").Exists() {
			t.Errorf("%s: skill://changes.json without history: %s", era, r.Raw)
		}
		if got := a.read(t, "skill://changes.json"); !json.Valid(got) {
			t.Errorf("%s: skill://changes.json with history: %s", era, got)
		}
	}
	for _, p := range []string{"/.well-known/agent-skills/index.json", "/.well-known/skills/index.json"} {
		sa, _, ba := httpGet(t, with, p)
		sb, _, bb := httpGet(t, without, p)
		if sa != 200 || sb != 200 || !bytes.Equal(ba, bb) {
			t.Errorf("GET %s: with history %d %s\nwithout %d %s", p, sa, ba, sb, bb)
		}
	}
	// The sitemap, which lists the latest skills, alike but for the server's own address;
	// the catalog page names every older version, with its digest, where the page without
	// history names none.
	sa, _, ba := httpGet(t, with, "/sitemap.xml")
	sb, _, bb := httpGet(t, without, "/sitemap.xml")
	if sa != 200 || sb != 200 || strings.ReplaceAll(string(ba), with, without) != string(bb) {
		t.Errorf("GET /sitemap.xml: with history %d %s\nwithout %d %s", sa, ba, sb, bb)
	}
	_, _, page := httpGet(t, with, "/", "Accept", "text/html")
	if _, _, plainPage := httpGet(t, without, "/", "Accept", "text/html"); strings.Contains(string(plainPage), "skill://alpha/@") {
		t.Errorf("the page without history names a version:\n%s", plainPage)
	}
	for _, r := range newSession(t, with+"/mcp", "legacy").call(t, "resources/list", nil).Get("resources").Array() {
		for i, v := range r.Get("_meta." + metaVersions).Array() {
			if i > 0 && (!strings.Contains(string(page), v.Get("uri").Str) || !strings.Contains(string(page), v.Get("digest").Str)) {
				t.Errorf("the page does not name %s, %s:\n%s", v.Get("uri").Str, v.Get("digest").Str, page)
			}
		}
	}
	for _, p := range []string{"/changes.json", "/changes.atom"} {
		if st, _, body := httpGet(t, without, p); st != 404 {
			t.Errorf("GET %s without history: %d %s", p, st, body)
		}
		if st, _, _ := httpGet(t, with, p); st != 200 {
			t.Errorf("GET %s with history: %d", p, st)
		}
	}
}

// TestVersionsReproducible: a clone of the versions repository builds the catalog.pack
// the README's build of the repository wrote, byte for byte: what history adds depends on
// the commits alone.
func TestVersionsReproducible(t *testing.T) {
	f := versionsFixtureOf(t)
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	cmd := exec.Command("git", "clone", "-q", f.repo, clone)
	cmd.Env = gitEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	out := filepath.Join(t.TempDir(), "out")
	if b, err := exec.Command(bin, "build", filepath.Join(clone, "skills"), "-o", out).CombinedOutput(); err != nil || !strings.Contains(string(b), "skilledge: history: 5 older versions") {
		t.Fatalf("build of the clone: %v\n%s", err, b)
	}
	a, err := os.ReadFile(filepath.Join(f.out(), "catalog.pack"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "catalog.pack"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("the clone's catalog.pack (%d bytes, %s) is not the repository's (%d bytes, %s)", len(b), digestOf(b), len(a), digestOf(a))
	}
}

// TestVersionsStrict: the forgotten bump in the versions repository's history is a
// warning for validate, and an error, the same words, for validate --strict.
func TestVersionsStrict(t *testing.T) {
	f := versionsFixtureOf(t)
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	const said = `without a new version: 1.1.0 published it in`
	out, err := exec.Command(bin, "validate", f.skills).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "warning: version 1.1.0 changed in") || !strings.Contains(string(out), said) {
		t.Errorf("validate: %v\n%s", err, out)
	}
	out, err = exec.Command(bin, "validate", "--strict", f.skills).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || strings.Contains(string(out), "warning: version 1.1.0") ||
		!strings.Contains(string(out), "skills/alpha/SKILL.md: version 1.1.0 changed in") || !strings.Contains(string(out), said) {
		t.Errorf("validate --strict: %v\n%s", err, out)
	}
}

// TestVersionsMarkRefused: a folder whose name starts with "@", which would collide with a
// version path, is refused by validate and build in a catalog that keeps history, whether
// it is a folder of skills (@x/x) or inside a skill where its name is that of a real
// version (alpha/@1.0.0/alpha); the same folder without the versions section validates.
func TestVersionsMarkRefused(t *testing.T) {
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	err = gitRepo(dir, []repoCommit{
		{subject: "add alpha", write: map[string]string{
			"skills/skilledge.yaml": "versions:\n  keep: 10\n",
			"skills/alpha/SKILL.md": "---\nname: alpha\ndescription: Alpha.\nversion: 1.0.0\n---\n\n# Alpha\n",
		}},
		{subject: "alpha: 1.1.0", write: map[string]string{
			"skills/alpha/SKILL.md": "---\nname: alpha\ndescription: Alpha.\nversion: 1.1.0\n---\n\n# Alpha 1.1.0\n",
		}},
		{subject: "folders named like versions", write: map[string]string{
			"skills/@x/x/SKILL.md":               "---\nname: x\ndescription: Under a folder named @x.\n---\n",
			"skills/alpha/@1.0.0/alpha/SKILL.md": "---\nname: alpha\ndescription: Not alpha 1.0.0.\n---\n",
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"validate", "skills"}, {"build", "skills", "-o", filepath.Join(t.TempDir(), "out")}} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Errorf("%s: %v, want exit status 1\n%s", args[0], err, out)
		}
		for _, want := range []string{
			`skills/@x: "@x" starts with "@", which names a skill's versions in a catalog that keeps history (versions: in skilledge.yaml): rename it`,
			`skills/alpha/@1.0.0: "@1.0.0" starts with "@", which names a skill's versions in a catalog that keeps history (versions: in skilledge.yaml): rename it`,
		} {
			if !strings.Contains(string(out), want) {
				t.Errorf("%s does not say %q:\n%s", args[0], want, out)
			}
		}
	}
	if out, err := exec.Command(bin, "validate", withoutVersions(t, filepath.Join(dir, "skills"))).CombinedOutput(); err != nil || strings.Contains(string(out), `starts with "@"`) {
		t.Errorf("validate without versions: %v\n%s", err, out)
	}
}

// versionsPrivateCommits is the history of the private versions repository, whose root is
// the skills folder: the private test catalog's skills and policy (privateFiles), the
// policy keeping versions, with two versions of the ledger (hidden from a caller without
// skills:finance) and of the unlisted draft, two of the public skill, and a skill
// (forecast) that leaves finance/, where that caller could not see it, for tools/. The
// subjects name what a caller without the scope may not learn, as a commit's may.
var versionsPrivateCommits = []repoCommit{
	{subject: "add public, the ledger, forecast and the draft", write: map[string]string{
		"skilledge.yaml":            "versions:\n  keep: 10\n" + privateFiles["skilledge.yaml"],
		"public/SKILL.md":           privateFiles["public/SKILL.md"],
		"public/guide.md":           "# Guide, first\n",
		"finance/ledger/SKILL.md":   "---\nname: ledger\ndescription: Closes the books QUARTERLYSECRET.\nversion: 1.0.0\n---\n\n# Ledger\n",
		"finance/ledger/notes.md":   "notes only finance reads, first\n",
		"finance/forecast/SKILL.md": "---\nname: forecast\ndescription: Looks ahead.\n---\n\n# Forecast\n",
		"drafts/idea/SKILL.md":      "---\nname: idea\ndescription: Not ready.\nversion: 1.0.0\n---\n\n# Idea\n",
		"drafts/idea/notes.md":      "draft notes\n",
		"tools/audit/SKILL.md":      "---\nname: audit\ndescription: Checks the books.\n---\n\n# Audit\n",
	}},
	{subject: "ledger 1.1.0: QUARTERLYSECRET notes", write: map[string]string{
		"finance/ledger/SKILL.md": "---\nname: ledger\ndescription: Closes the books QUARTERLYSECRET.\nversion: 1.1.0\n---\n\n# Ledger\n",
		"finance/ledger/notes.md": privateFiles["finance/ledger/notes.md"],
	}},
	{subject: "public: the guide rewritten", write: map[string]string{"public/guide.md": privateFiles["public/guide.md"]}},
	{subject: "idea 1.1.0", write: map[string]string{
		"drafts/idea/SKILL.md": "---\nname: idea\ndescription: Not ready.\nversion: 1.1.0\n---\n\n# Idea, closer\n",
	}},
	{subject: "forecast: the QUARTERLYSECRET assumptions", write: map[string]string{"finance/forecast/assumptions.md": "QUARTERLYSECRET assumptions\n"}},
	{subject: "forecast: the assumptions withdrawn", remove: []string{"finance/forecast/assumptions.md"}},
	{subject: "forecast leaves finance", move: [][2]string{{"finance/forecast", "tools/forecast"}}},
	{subject: "audit goes into finance", move: [][2]string{{"tools/audit", "finance/audit"}}},
}

// ledgerFiles are the contents of every version of the ledger's files.
func ledgerFiles() []string {
	var out []string
	for _, c := range versionsPrivateCommits {
		for p, data := range c.write {
			if strings.HasPrefix(p, "finance/ledger/") {
				out = append(out, data)
			}
		}
	}
	return out
}

// versionsPrivateSetup is the private versions repository and its deployment, made once.
var versionsPrivateSetup = sync.OnceValues(func() (*versionsFixture, error) { return versionsPrivateWith("") })

// versionsPrivateSharded is versionsPrivateSetup built with shardFlags.
var versionsPrivateSharded = sync.OnceValues(func() (*versionsFixture, error) { return versionsPrivateWith(shardFlags) })

// versionsPrivateWith makes the private versions repository and its deployment, with
// buildFlags.
func versionsPrivateWith(buildFlags string) (*versionsFixture, error) {
	dir, err := scratchDir("skilledge-versions-private-")
	if err != nil {
		return nil, err
	}
	if err := gitRepo(dir, versionsPrivateCommits); err != nil {
		return nil, err
	}
	d, err := deployFolderWith(dir, buildFlags)
	if err != nil {
		return nil, err
	}
	return &versionsFixture{repo: dir, skills: dir, d: d}, nil
}

// versionProbes are requests for the ledger's older version 1.0.0 on every surface that
// serves versions, in both eras over MCP, and the change feed's; with tools, the fallback
// tools' requests for it instead.
func versionProbes(tools bool) []privateProbe {
	const v = "skill://finance/ledger/@1.0.0/ledger"
	mcp := []struct{ name, method, params string }{
		{"read a version's SKILL.md", "resources/read", `{"uri":"` + v + `/SKILL.md"}`},
		{"read a version's file", "resources/read", `{"uri":"` + v + `/notes.md"}`},
		{"read a version's archive", "resources/read", `{"uri":"` + v + `.tar.gz"}`},
		{"get a version by uri", "skills/get", `{"uri":"` + v + `/SKILL.md"}`},
		{"get a version by name", "skills/get", `{"name":"ledger","version":"1.0.0"}`},
		{"read a version's directory", "resources/directory/read", `{"uri":"` + v + `"}`},
		{"complete a version path", "completion/complete", `{"ref":{"type":"ref/resource","uri":"skill://{+skillPath}/{+filePath}"},"argument":{"name":"skillPath","value":"finance/ledger/@"}}`},
		{"complete a version's files", "completion/complete", `{"ref":{"type":"ref/resource","uri":"skill://{+skillPath}/{+filePath}"},"argument":{"name":"filePath","value":""},"context":{"arguments":{"skillPath":"finance/ledger/@1.0.0/ledger"}}}`},
		{"read the change feed", "resources/read", `{"uri":"skill://changes.json"}`},
	}
	if tools {
		// The fallback tools do not serve versions (load_skill and read_skill_file take
		// the latest skills' URIs only): asked only for what they answer a caller who may
		// not see the ledger.
		mcp = []struct{ name, method, params string }{
			{"load_skill a version", "tools/call", `{"name":"load_skill","arguments":{"uri":"` + v + `/SKILL.md"}}`},
			{"read_skill_file of a version", "tools/call", `{"name":"read_skill_file","arguments":{"uri":"` + v + `/notes.md"}}`},
		}
	}
	const modern = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	var out []privateProbe
	for _, m := range mcp {
		body := `{"jsonrpc":"2.0","id":3,"method":"` + m.method + `","params":`
		out = append(out,
			privateProbe{"legacy " + m.name, "POST", "/mcp", body + m.params + `}`},
			privateProbe{"modern " + m.name, "POST", "/mcp", body + strings.TrimSuffix(m.params, "}") + "," + modern + "}}"})
	}
	if tools {
		return out
	}
	for _, p := range []string{"/changes.json", "/changes.atom",
		"/.well-known/agent-skills/ledger/@1.0.0/ledger/SKILL.md", "/.well-known/agent-skills/ledger/@1.0.0/ledger/notes.md",
		"/.well-known/agent-skills/ledger/@1.0.0/ledger.tar.gz", "/.well-known/agent-skills/ledger/@1.0.0/ledger.zip",
		"/.well-known/skills/ledger/@1.0.0/ledger/SKILL.md", "/.well-known/skills/ledger/@1.0.0/ledger/notes.md"} {
		out = append(out, privateProbe{"GET " + p, "GET", p, ""})
	}
	return out
}

// TestVersionsPrivateLeaks: TestPrivateLeaks on the private test catalog with history
// (the private versions repository) on `skilledge serve --auth` of the folder, the Worker
// in workerd and the Deno, Bun and Node entries, with probes of every surface that serves
// versions beside the private catalog's own: a caller without skills:finance learns
// nothing of the ledger, not its versions' URIs, files, archives or manifest digests, nor
// its changes or its commits' subjects in the feed, and asking for a version of it is
// asking for a skill that never existed; the finance caller is served every version; the
// unlisted draft's versions are served by name and URI and named by no listing or feed.
// Each caller's feed is its own: callers with the same view get the same bytes and ETag;
// the reader's has its skills' changes, forecast's move out of finance/ as its arrival and
// audit's move into it as its removal, the finance caller's the ledger's and the moves;
// neither has a commit or a subject. forecast's version published in finance/ is the
// finance caller's only.
// `skilledge verify` passes as either caller, the reader's naming nothing of the ledger.
func TestVersionsPrivateLeaks(t *testing.T) {
	f, err := versionsPrivateSetup()
	if err != nil {
		failOrSkip(t, err)
	}
	checkVersionsPrivateLeaks(t, f, f.skills)
}

// TestVersionsPrivateLeaksSharded is TestVersionsPrivateLeaks on the private versions
// repository built with its index sharded (shardFlags), served by `skilledge serve` of that
// build and the Worker and entries of it: every view, and every view's older versions, a
// sharded root of its own.
func TestVersionsPrivateLeaksSharded(t *testing.T) {
	f, err := versionsPrivateSharded()
	if err != nil {
		failOrSkip(t, err)
	}
	requireSharded(t, f.d)
	checkVersionsPrivateLeaks(t, f, f.out())
}

// checkVersionsPrivateLeaks is TestVersionsPrivateLeaks on f, whose `skilledge serve`
// serves served (its folder, or its build).
func checkVersionsPrivateLeaks(t *testing.T, f *versionsFixture, served string) {
	if !strings.Contains(f.d.output, "skilledge: history: 4 older versions of 4 skills kept") ||
		!strings.Contains(f.d.output, "tools/forecast/SKILL.md: warning: version ") || !strings.Contains(f.d.output, "moved it from finance/forecast") {
		t.Fatalf("the build does not say the history it kept:\n%s", f.d.output)
	}
	servers, key := privateServersOf(t, served, f.d)
	reader, finance := "Bearer "+privateToken("skills:read"), "Bearer "+privateToken("skills:read skills:finance")
	words := []string{"ledger", "finance", "QUARTERLYSECRET", "notes only"}

	// What the finance caller is served of the ledger's versions: each one's URI is a
	// secret (it names the ledger), and so are its manifest digest and its archives'.
	s := newSession(t, servers[0].base+"/mcp", "legacy", "Authorization", finance)
	var ledger []keptVersion
	for _, r := range s.call(t, "resources/list", nil).Get("resources").Array() {
		if r.Get("uri").Str == "skill://finance/ledger/SKILL.md" {
			ledger = keptOf(t, r.Get("_meta."+metaVersions))
		}
	}
	if len(ledger) != 2 || ledger[1].URI != "skill://finance/ledger/@1.0.0/ledger/SKILL.md" {
		t.Fatalf("the finance caller is not given the ledger's two versions: %+v", ledger)
	}
	// forecast's version with the assumptions was published in finance/: the finance
	// caller is given it, the reader (below) is not.
	for _, r := range s.call(t, "resources/list", nil).Get("resources").Array() {
		if r.Get("uri").Str == "skill://tools/forecast/SKILL.md" && len(r.Get("_meta."+metaVersions).Array()) != 2 {
			t.Errorf("the finance caller is not given forecast's two versions: %s", r.Raw)
		}
	}
	for _, v := range ledger {
		words = append(words, v.URI, strings.TrimPrefix(v.Digest, "sha256:"))
	}
	for _, ext := range []string{".tar.gz", ".zip"} {
		st, _, b := httpGet(t, servers[0].base, "/.well-known/agent-skills/ledger/@1.0.0/ledger"+ext, "Authorization", finance)
		if st != 200 {
			t.Fatalf("the finance caller is not served the ledger's 1.0.0 %s: %d %s", ext, st, b)
		}
		words = append(words, hexSHA256(b))
	}
	// The reader is given the versions of what it sees: the public skill's two, and of
	// forecast's only the latest: the one with the assumptions was published in
	// finance/, where the reader could not see it.
	r := newSession(t, servers[0].base+"/mcp", "legacy", "Authorization", reader)
	for _, res := range r.call(t, "resources/list", nil).Get("resources").Array() {
		n := map[string]int{"skill://public/SKILL.md": 2, "skill://tools/forecast/SKILL.md": 1}[res.Get("uri").Str]
		if got := len(res.Get("_meta." + metaVersions).Array()); n > 0 && got != n {
			t.Errorf("the reader is given %d versions of %s, want %d: %s", got, res.Get("uri").Str, n, res.Raw)
		}
	}

	// skilledge verify, as each caller: every surface is filtered alike, so the reader's
	// verifies and names nothing of the ledger, and the finance caller's verifies the
	// ledger's versions too.
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, srv := range servers {
		out, err := exec.Command(bin, "verify", srv.base, "--allow-http-loopback", "--token", strings.TrimPrefix(reader, "Bearer ")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "ok  public  (") {
			t.Errorf("%s: verify as the reader: %v\n%s", srv.name, err, out)
		}
		for _, w := range words {
			if strings.Contains(string(out), w) {
				t.Errorf("%s: verify as the reader says %q:\n%s", srv.name, w, out)
			}
		}
		out, err = exec.Command(bin, "verify", srv.base, "--allow-http-loopback", "--token", strings.TrimPrefix(finance, "Bearer ")).CombinedOutput()
		if err != nil || !regexp.MustCompile(`(?m)^ok  ledger  \(\d+ files?, 2 versions\)$`).Match(out) {
			t.Errorf("%s: verify as the finance caller: %v\n%s", srv.name, err, out)
		}
	}

	probes := append(privateProbes(t), versionProbes(false)...)
	privateLeaks(t, servers, probes, words, ledgerFiles())
	for _, srv := range servers {
		t.Run(srv.name+"/tools", func(t *testing.T) {
			hiddenEverywhere(t, srv.base, reader, finance, versionProbes(true), words, ledgerFiles())
		})
	}

	// The change feed, per caller.
	feeds := []privateProbe{{"GET /changes.json", "GET", "/changes.json", ""}, {"GET /changes.atom", "GET", "/changes.atom", ""},
		{"read skill://changes.json", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://changes.json"}}`}}
	for _, srv := range servers {
		t.Run(srv.name+"/feed", func(t *testing.T) {
			for _, p := range feeds {
				st, hdr, byReader := p.ask(t, srv.base, "Authorization", reader)
				st2, hdr2, byKey := p.ask(t, srv.base, "Authorization", "Bearer "+key)
				st3, _, byFinance := p.ask(t, srv.base, "Authorization", finance)
				if st != 200 || st2 != 200 || st3 != 200 || strings.Contains(byReader, `"error":{`) || strings.Contains(byFinance, `"error":{`) {
					t.Fatalf("%s: %d %d %d\n%s\n%s", p.name, st, st2, st3, byReader, byFinance)
				}
				// The same view (skills:read, by a token or a static key): the same document.
				if byReader != byKey || hdr != hdr2 || (p.method == "GET" && !strings.Contains(hdr, "Etag: ")) {
					t.Errorf("%s: a token and a static key of the same scopes are answered differently:\n%s%s\n%s%s", p.name, hdr, byReader, hdr2, byKey)
				}
				if st, _, body := p.ask(t, srv.base); st != 401 || strings.Contains(body, "public") {
					t.Errorf("%s without a credential: %d %s", p.name, st, body)
				}
				// Each caller's changes: the reader's skills' (forecast's move out of finance/
				// as its arrival, audit's move into it as its removal), the finance caller's
				// with the ledger's and both moves; never the draft's, nor, in a private
				// catalog, a commit or subject.
				if p.path == "/changes.atom" {
					for _, doc := range []string{byReader, byFinance} {
						if strings.Contains(doc, "Commit:") || strings.Contains(doc, "Subject:") || !strings.Contains(doc, "tools/forecast") {
							t.Errorf("%s: %s", p.name, doc)
						}
					}
					if !strings.Contains(byFinance, "finance/ledger") {
						t.Errorf("%s: the finance caller's feed does not name the ledger:\n%s", p.name, byFinance)
					}
					continue
				}
				for _, c := range []struct {
					doc, want string
				}{{byReader, "added public, added tools/audit, added tools/forecast, changed public, removed tools/audit"},
					{byFinance, "added finance/forecast, added finance/ledger, added public, added tools/audit, changed finance/forecast, changed finance/forecast, changed finance/ledger, changed public, moved finance/forecast to tools/forecast, moved tools/audit to finance/audit"}} {
					doc := c.doc
					if p.method == "POST" {
						doc = gjson.Get(doc, "result.contents.0.text").Str
					}
					var got []string
					for _, ch := range gjson.Get(doc, "changes").Array() {
						kind := "changed "
						switch {
						case !ch.Get("from").Exists():
							kind = "added "
						case !ch.Get("to").Exists():
							kind = "removed "
						case ch.Get("movedFrom").Exists():
							kind = "moved " + ch.Get("movedFrom").Str + " to "
						}
						got = append(got, kind+ch.Get("skill.path").Str)
						if ch.Get("commit").Exists() || ch.Get("subject").Exists() {
							t.Errorf("%s: a private feed with a commit or subject: %s", p.name, ch.Raw)
						}
					}
					if slices.Sort(got); strings.Join(got, ", ") != c.want {
						t.Errorf("%s: the feed's changes are %q, want %s:\n%s", p.name, got, c.want, doc)
					}
				}
			}
		})
	}
}
