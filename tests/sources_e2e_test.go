//go:build e2e

package tests

import (
	"bytes"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/signing"
	"github.com/skilledge/skilledge/catalog/sources/sourcestest"
)

// composedSkills are the URIs of the catalog composedFolder makes, and the source each
// mounted one names in its provenance ("" for the folder's own). Three names repeat:
// deploy in platform and team, pdf in vendor and the folder, and gamma twice in the remote
// catalog, which publishes them as x-gamma and y-gamma (mounted from the source shared,
// each under that name, its own last).
var composedSkills = map[string]string{
	"skill://local/SKILL.md":                 "",
	"skill://pdf/SKILL.md":                   "",
	"skill://platform/deploy/SKILL.md":       "platform",
	"skill://team/deploy/SKILL.md":           "team",
	"skill://platform/ops/rollback/SKILL.md": "platform",
	"skill://team/notes/SKILL.md":            "team",
	"skill://vendor/pdf/SKILL.md":            "vendor",
	"skill://remote/alpha/SKILL.md":          "remote",
	"skill://shared/x-gamma/gamma/SKILL.md":  "shared",
	"skill://shared/y-gamma/gamma/SKILL.md":  "shared",
}

// catalogSources are the composed folder's remote catalog sources.
var catalogSources = map[string]bool{"remote": true, "shared": true}

// composedIndexNames are the index names (PROTOCOL.md#index-names) of composedSkills'
// skills whose name another shares: qualified by path, but for the folder's own pdf, which
// keeps its name. Every other skill is known by its own name.
var composedIndexNames = map[string]string{
	"skill://platform/deploy/SKILL.md":      "platform-deploy",
	"skill://team/deploy/SKILL.md":          "team-deploy",
	"skill://vendor/pdf/SKILL.md":           "vendor-pdf",
	"skill://shared/x-gamma/gamma/SKILL.md": "shared-x-gamma-gamma",
	"skill://shared/y-gamma/gamma/SKILL.md": "shared-y-gamma-gamma",
}

// indexNameOf is the index name of the composed skill uri.
func indexNameOf(uri string) string {
	if n, ok := composedIndexNames[uri]; ok {
		return n
	}
	dir := strings.TrimSuffix(uri, "/SKILL.md")
	return dir[strings.LastIndex(dir, "/")+1:]
}

// composedFolder makes a skills folder that mounts three git repositories: platform over
// file:// (its skills folder), team over git's own protocol (git daemon) and vendor over
// HTTP (git http-backend); and a remote catalog `skilledge serve` serves, twice: alpha
// (remote), and the two skills it names gamma (shared); each on loopback for as long as
// the test runs; and two skills of its own. The catalog keeps versions: platform's deploy
// has two. It returns the folder and the platform repository.
func composedFolder(t *testing.T) (string, *sourcestest.Repo) {
	t.Helper()
	root := t.TempDir()
	platform := sourcestest.NewRepo(t, filepath.Join(root, "platform"))
	platform.Skill("skills/deploy", "Deploys a service.")
	platform.Skill("skills/ops/rollback", "Rolls a deployment back.")
	platform.Skill("skills/deploy", "Deploys a service, and waits for it.") // a second version
	served := filepath.Join(root, "served")
	team := sourcestest.NewRepo(t, filepath.Join(served, "team.git"))
	team.Skill("notes", "Takes meeting notes.")
	team.Skill("deploy", "Deploys the team's own services.")
	vendor := sourcestest.NewRepo(t, filepath.Join(served, "vendor.git"))
	vendor.Skill("pdf", "Reads PDF files.")
	vendor.Git("tag", "v1.0.0")
	daemon, http := sourcestest.Daemon(t, served), sourcestest.HTTPBackend(t, served)
	remote := filepath.Join(root, "remote")
	sourcestest.Write(t, filepath.Join(remote, "alpha", "SKILL.md"), "---\nname: alpha\ndescription: Alpha, from a catalog.\n---\n\n# Alpha\n")
	sourcestest.Write(t, filepath.Join(remote, "beta", "SKILL.md"), "---\nname: beta\ndescription: Beta, left out.\n---\n\n# Beta\n")
	for _, at := range []string{"x", "y"} {
		sourcestest.Write(t, filepath.Join(remote, at, "gamma", "SKILL.md"), "---\nname: gamma\ndescription: Gamma, from "+at+".\n---\n\n# Gamma\n")
	}
	catalogURL := strings.TrimSuffix(serve(t, remote), "/mcp")
	folder := filepath.Join(root, "skills")
	sourcestest.Write(t, filepath.Join(folder, "local", "SKILL.md"), "---\nname: local\ndescription: The folder's own skill.\n---\n\n# Local\n")
	sourcestest.Write(t, filepath.Join(folder, "local", "references", "guide.md"), "# Guide\n")
	sourcestest.Write(t, filepath.Join(folder, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: The folder's own PDF skill.\n---\n\n# PDF\n")
	sourcestest.Write(t, filepath.Join(folder, "skilledge.yaml"), "versions:\n  keep: 3\nsources:\n"+
		"  - path: platform\n    git: "+platform.URL()+"\n    ref: main\n    dir: skills\n"+
		"  - path: team\n    git: "+daemon+"/team.git\n"+
		"  - path: vendor\n    git: "+http+"/vendor.git\n    ref: v1.0.0\n"+
		"  - path: remote\n    catalog: "+catalogURL+"\n    skills: [alpha]\n"+
		"  - path: shared\n    catalog: "+catalogURL+"\n    skills: [x-gamma, y-gamma]\n")
	return folder, platform
}

// TestSourcesComposed: a catalog composed of three git repositories (file, git daemon and
// HTTP remotes) and its own folder, built signed by the README's deploy block, is built
// again with --frozen after a source's branch moved on, byte for byte the same; it is
// served under each source's prefix, with each mounted skill's provenance in its entry, by
// serve (the build, and the folder itself), the Worker in workerd and the Deno, Bun and
// Node entries, every file verified by the Inspector in both eras; the conformance
// suite's skills scenarios pass on serve and workerd; verify --trust-key and pull
// --trust-key hold it to its root.
func TestSourcesComposed(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10))
	key, _ := signingKey(t)
	sign := "--sign " + key + " --sign-catalog https://skills.example.com/"
	folder, platform := composedFolder(t)
	first, err := deployFolderWith(folder, sign)
	if err != nil {
		t.Fatal(err)
	}
	lock := readFile(t, filepath.Join(folder, "sources.lock"))
	for _, p := range []string{`"path": "platform"`, `"path": "team"`, `"path": "vendor"`} {
		if !strings.Contains(lock, p) {
			t.Fatalf("sources.lock has no %s:\n%s", p, lock)
		}
	}
	// The branch moves on; the lock holds the build to the commit it locked.
	platform.Skill("skills/deploy", "Deploys a service, changed after the lock.")
	second, err := deployFolderWith(folder, sign+" --frozen")
	if err != nil {
		t.Fatal(err)
	}
	// What build wrote, not wrangler's dry run (dist/bundle, which names its own folder).
	wrangler := func(rel string, _ os.DirEntry) bool { return rel == "bundle" }
	a, b := readTree(t, filepath.Dir(first.assets), wrangler), readTree(t, filepath.Dir(second.assets), wrangler)
	for name := range a {
		if a[name] != b[name] {
			t.Errorf("the build from sources.lock differs in %s", name)
		}
	}
	if len(a) != len(b) || len(a) < 10 {
		t.Errorf("the builds hold %d and %d files", len(a), len(b))
	}
	if after := readFile(t, filepath.Join(folder, "sources.lock")); after != lock {
		t.Errorf("build --frozen changed sources.lock:\n%s", after)
	}

	hosts := []struct{ name, url string }{
		{"serve", serve(t, filepath.Dir(first.assets))},
		{"serve the folder", serve(t, folder)},
		{"workerd", workerdFor(t, first, `{}`)[0] + "/mcp"},
	}
	for _, rt := range jsRuntimes {
		hosts = append(hosts, struct{ name, url string }{rt.name, startRuntime(t, rt, withSDK(t, first), "{}") + "/mcp"})
	}
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			list := newSession(t, h.url, "modern").call(t, "skills/list", nil)
			var uris []string
			for _, s := range list.Get("skills").Array() {
				uri := s.Get("uri").Str
				uris = append(uris, uri)
				if name, own := s.Get("name").Str, s.Get("frontmatter.name").Str; name != indexNameOf(uri) || !strings.HasSuffix(uri, "/"+own+"/SKILL.md") {
					t.Errorf("%s: named %q (frontmatter %q), want %q", uri, name, own, indexNameOf(uri))
				}
				src := s.Get(`_meta.io\.github\.skilledge/source`)
				want, ok := composedSkills[uri]
				switch {
				case !ok:
					t.Errorf("a skill not composed: %s", uri)
				case want == "" && src.Exists():
					t.Errorf("%s: the folder's own skill has provenance %s", uri, src.Raw)
				case catalogSources[want] && (src.Get("source").Str != want || !strings.HasPrefix(src.Get("digest").Str, "sha256:") || !strings.HasPrefix(src.Get("catalog").Str, "http://127.0.0.1:")):
					t.Errorf("%s: provenance %s, want the catalog's", uri, src.Raw)
				case want != "" && !catalogSources[want] && (src.Get("source").Str != want || len(src.Get("commit").Str) != 40 || src.Get("repository").Str == ""):
					t.Errorf("%s: provenance %s, want source %q", uri, src.Raw, want)
				}
			}
			if len(uris) != len(composedSkills) {
				t.Fatalf("skills/list: %v", uris)
			}
			for _, era := range []string{"legacy", "modern"} {
				inspectList(t, h.url, era, len(composedSkills))
			}
			// Every skill is published over well-known HTTP and found by skills/get {name},
			// each by its index name.
			var published []string
			_, _, index := privateProbe{"index", "GET", "/.well-known/agent-skills/index.json", ""}.ask(t, strings.TrimSuffix(h.url, "/mcp"))
			for _, e := range gjson.Get(index, "skills").Array() {
				published = append(published, e.Get("name").Str)
			}
			var want []string
			for uri := range composedSkills {
				want = append(want, indexNameOf(uri))
				got := newSession(t, h.url, "modern").call(t, "skills/get", map[string]any{"name": indexNameOf(uri)})
				if f := got.Get("files.0.uri").Str; f != uri {
					t.Errorf("skills/get {name: %q}: %s, want %s", indexNameOf(uri), f, uri)
				}
			}
			slices.Sort(published)
			slices.Sort(want)
			if !slices.Equal(published, want) {
				t.Errorf("the well-known index publishes %v, want %v", published, want)
			}
			page := privateProbe{"page", "GET", "/", ""}
			if st, _, body := page.ask(t, strings.TrimSuffix(h.url, "/mcp")); st != 200 || strings.Count(body, `class="source muted"`) != len(composedSkills)-2 {
				t.Errorf("the catalog page shows no provenance of each mounted skill: %d %.300s", st, body)
			}
		})
	}
	suite := conformanceSuite(t)
	// Two names repeat here on purpose: the suite's warning that names should be unique
	// (hosts must tell them apart by URI) is expected, and nothing else.
	baseline := filepath.Join(t.TempDir(), "expected-failures.yml")
	os.WriteFile(baseline, []byte(readFile(t, filepath.Join(repoRoot(t), "tests", "conformance", "expected-failures.yml"))+
		"  # composedFolder's names repeat (deploy, pdf): a warning, as the build's.\n  - sep-2640-skills-enumeration:sep-2640-names-should-be-unique\n"), 0o644)
	for _, h := range []int{0, 2} {
		for _, run := range conformanceRuns {
			if strings.HasPrefix(run.scenario, "sep-2640-skills") {
				t.Run(hosts[h].name+"/"+run.scenario+"/"+strings.Join(run.args, "_"), func(t *testing.T) {
					conformanceRun(t, suite, baseline, hosts[h].url, run.scenario, run.args)
				})
			}
		}
	}
	base := strings.TrimSuffix(hosts[0].url, "/mcp")
	if code, out := pullCLI(t, nil, "verify", base, "--trust-key", key+".pub"); code != 0 || !strings.Contains(out, "signed root of https://skills.example.com/") ||
		!strings.Contains(out, "ok  platform-deploy  (1 file, 2 versions, named deploy)") || !strings.Contains(out, "ok  vendor-pdf  (1 file, 1 version, named pdf)") {
		t.Fatalf("verify --trust-key: %d %s", code, out)
	}
	dir := filepath.Join(t.TempDir(), "agent-skills")
	if code, out := pullCLI(t, nil, "pull", base, dir, "--trust-key", key+".pub"); code != 0 {
		t.Fatalf("pull --trust-key: %d %s", code, out)
	}
	for uri := range composedSkills {
		if _, err := os.Stat(filepath.Join(dir, indexNameOf(uri), "SKILL.md")); err != nil {
			t.Errorf("pull installed no %s: %v", indexNameOf(uri), err)
		}
	}
	// A kept version of a skill whose name is qualified is pinned by that name, into its
	// folder.
	versions := newSession(t, hosts[0].url, "modern").call(t, "skills/get", map[string]any{"uri": "skill://platform/deploy/SKILL.md"}).Get(`_meta.io\.github\.skilledge/versions.#.version`).Array()
	if len(versions) != 2 {
		t.Fatalf("platform/deploy keeps %v, want two versions", versions)
	}
	pinned := filepath.Join(t.TempDir(), "pinned")
	if code, out := pullCLI(t, nil, "pull", base, pinned, "--trust-key", key+".pub", "--skill", "platform-deploy@"+versions[1].Str); code != 0 ||
		!strings.Contains(readFile(t, filepath.Join(pinned, "platform-deploy", "SKILL.md")), "Deploys a service.") {
		t.Fatalf("pull --skill platform-deploy@%s: %d %s", versions[1].Str, code, out)
	}
	if e := gjson.Get(readFile(t, filepath.Join(pinned, "skills.lock")), `skills.#(name=="platform-deploy")`); !e.Get("pinned").Bool() || e.Get("named").Str != "deploy" {
		t.Errorf("the pinned version's lock entry: %s", e.Raw)
	}
	// The lock says which skill each qualified folder holds: its own name and its path.
	locked := gjson.Get(readFile(t, filepath.Join(dir, "skills.lock")), "skills")
	for uri, name := range composedIndexNames {
		e := locked.Get(`#(name==` + strconv.Quote(name) + `)`)
		if named := e.Get("named").Str; named == "" || !strings.HasSuffix(uri, "/"+named+"/SKILL.md") {
			t.Errorf("skills.lock's %s: %s, want it named as %s", name, e.Raw, uri)
		}
	}
}

// TestSourcesFrozenRefused: build --frozen refuses, naming the source and writing nothing
// to OUT, a lock that does not hold a source as configured (another ref, a source added)
// and a tag moved under it.
func TestSourcesFrozenRefused(t *testing.T) {
	folder, platform := composedFolder(t)
	out := filepath.Join(t.TempDir(), "out")
	if code, msg := pullCLI(t, nil, "build", folder, "-o", out); code != 0 {
		t.Fatalf("build: %d %s", code, msg)
	}
	policy := readFile(t, filepath.Join(folder, "skilledge.yaml"))
	for _, c := range []struct {
		name, policy, want string
		before             func(t *testing.T)
	}{
		{name: "another ref", policy: strings.Replace(policy, "ref: main", "ref: other", 1),
			want: `source "platform" (skilledge.yaml line 4): sources.lock does not hold the sources as configured: its entry in sources.lock was locked for git ` + platform.URL() + `, ref main, dir skills`},
		{name: "a source added", policy: policy + "  - path: more\n    git: " + platform.URL() + "\n",
			want: `source "more" (skilledge.yaml line 19): sources.lock does not hold the sources as configured: sources.lock has no entry for it`},
		{name: "a moved tag", policy: strings.Replace(policy, "ref: main", "ref: v1", 1), before: func(t *testing.T) {
			platform.Git("tag", "v1")
			if code, msg := pullCLI(t, nil, "sources", "update", "platform", "--dir", folder); code != 0 || !strings.Contains(msg, "platform: ") {
				t.Fatalf("sources update: %d %s", code, msg)
			}
			platform.Skill("skills/deploy", "Changed, and the tag moved.")
			platform.Git("tag", "-f", "v1")
		}, want: `source "platform" (skilledge.yaml line 4): sources.lock does not hold the sources as configured: its tag v1 moved from the locked commit`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(folder, "skilledge.yaml"), []byte(c.policy), 0o644); err != nil {
				t.Fatal(err)
			}
			if c.before != nil {
				c.before(t)
			}
			lock := readFile(t, filepath.Join(folder, "sources.lock"))
			dest := filepath.Join(t.TempDir(), "out")
			code, msg := pullCLI(t, nil, "build", folder, "-o", dest, "--frozen")
			if code != 1 || !strings.Contains(msg, c.want) {
				t.Fatalf("build --frozen: %d\n%s\nwant %q", code, msg, c.want)
			}
			if _, err := os.Stat(dest); !os.IsNotExist(err) {
				t.Errorf("a refused build wrote %s", dest)
			}
			if after := readFile(t, filepath.Join(folder, "sources.lock")); after != lock {
				t.Errorf("a refused build changed sources.lock")
			}
		})
	}
}

// TestSourcesPrivateLeakNothing is the private leak suite on the private test catalog
// composed: its finance skill mounted from a git repository whose URL holds a word of the
// ledger's, signed; served by serve, the Worker in workerd and the Deno, Bun and Node
// entries. A caller without skills:finance learns nothing of the ledger on any surface,
// provenance and roots included, and its root is byte for byte the root of a catalog built
// of the public skill alone; and, the catalog keeping versions, nothing through the change
// feeds either (the insider's feed names the ledger's source).
func TestSourcesPrivateLeakNothing(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10))
	key, pub := signingKey(t)
	sign := "--sign " + key + " --sign-catalog https://skills.skilledge.test/"
	root := t.TempDir()
	finance := sourcestest.NewRepo(t, filepath.Join(root, "finance-QUARTERLYSECRET"))
	local := map[string]string{}
	for p, data := range privateFiles {
		if rest, ok := strings.CutPrefix(p, "finance/"); ok {
			sourcestest.Write(t, filepath.Join(finance.Dir, rest), data)
			continue
		}
		local[p] = data
	}
	finance.Git("add", "-A")
	finance.Git("commit", "-q", "-m", "the ledger")
	local["skilledge.yaml"] += "sources:\n  - path: finance\n    git: " + finance.URL() + "\n"
	folder := filepath.Join(root, "skills")
	if err := writeFiles(folder, local); err != nil {
		t.Fatal(err)
	}
	alone := filepath.Join(root, "alone")
	if err := writeFiles(alone, map[string]string{"public/SKILL.md": privateFiles["public/SKILL.md"], "public/guide.md": privateFiles["public/guide.md"]}); err != nil {
		t.Fatal(err)
	}
	want, err := deployFolderWith(alone, sign)
	if err != nil {
		t.Fatal(err)
	}
	wantRoot := builtDoc(t, want, catalog.RootJSON)
	if r, err := signing.OpenRoot(wantRoot, pub); err != nil || len(r.Subjects) != 1 {
		t.Fatalf("the public skill's root alone: %+v %v", r, err)
	}
	var files []string
	for _, f := range []string{"finance/ledger/SKILL.md", "finance/ledger/notes.md"} {
		files = append(files, privateFiles[f])
	}
	reader, insider := "Bearer "+privateToken("skills:read"), "Bearer "+privateToken("skills:read skills:finance")
	feeds := []privateProbe{
		{"changes.json", "GET", catalog.ChangesJSON, ""},
		{"changes.atom", "GET", catalog.ChangesAtom, ""},
		{"changes resource", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"` + catalog.ChangesURI + `"}}`},
	}
	for _, history := range []bool{false, true} {
		name := "latest"
		if history {
			name = "versions"
		}
		t.Run(name, func(t *testing.T) {
			policy := local["skilledge.yaml"]
			if history {
				policy += "versions:\n  keep: 3\n"
			}
			if err := os.WriteFile(filepath.Join(folder, "skilledge.yaml"), []byte(policy), 0o644); err != nil {
				t.Fatal(err)
			}
			built, err := deployFolderWith(folder, sign)
			if err != nil {
				t.Fatal(err)
			}
			servers, _ := privateServersOf(t, filepath.Dir(built.assets), built)
			probes := privateProbes(t)
			if history {
				// The change feeds too: the ledger's arrival is a change of the source's
				// history, which the reader's feeds must not show.
				probes = append(probes, feeds...)
			}
			privateLeaks(t, servers, probes, []string{"ledger", "finance", "QUARTERLYSECRET", "notes only"}, files)
			get := privateProbe{"root", "GET", catalog.RootJSON, ""}
			list := privateProbe{"list", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"skills/list"}`}
			for _, srv := range servers {
				if st, _, body := get.ask(t, srv.base, "Authorization", reader); !history && (st != 200 || !bytes.Equal([]byte(body), wantRoot)) {
					t.Errorf("%s: the reader's root is not the public skill's alone: %d %.300s", srv.name, st, body)
				}
				_, _, body := list.ask(t, srv.base, "Authorization", insider)
				if !strings.Contains(body, `"io.github.skilledge/source":{"source":"finance","repository":"`+finance.URL()+`"`) {
					t.Errorf("%s: the insider's listing has no provenance of the ledger: %.500s", srv.name, body)
				}
				if history {
					if _, _, body := feeds[0].ask(t, srv.base, "Authorization", insider); !strings.Contains(body, `"source":"finance"`) {
						t.Errorf("%s: the insider's feed does not name the ledger's source: %.300s", srv.name, body)
					}
				}
			}
		})
	}
}

// TestSourcesRemoteCatalogRefused: a remote catalog source is held to what it publishes. A
// catalog that serves a file other than its index's digest says (a proxy in front of
// `skilledge serve` that rewrites alpha's SKILL.md) fails the build, naming the source and
// writing nothing. A catalog that changed after the lock builds from the cache as locked,
// byte for byte; with the cache gone, or a cached file edited, the build fails, saying the
// catalog no longer serves what was locked, until sources update moves the lock.
func TestSourcesRemoteCatalogRefused(t *testing.T) {
	root := t.TempDir()
	serveFolder := func(desc string) *url.URL {
		dir := filepath.Join(t.TempDir(), "remote")
		sourcestest.Write(t, filepath.Join(dir, "alpha", "SKILL.md"), "---\nname: alpha\ndescription: "+desc+"\n---\n\n# Alpha\n")
		u, err := url.Parse(strings.TrimSuffix(serve(t, dir), "/mcp"))
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	first, second := serveFolder("Alpha, as locked."), serveFolder("Alpha, changed since.")
	var backend atomic.Pointer[url.URL]
	backend.Store(first)
	var lie atomic.Bool
	proxy := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(backend.Load()); r.Out.Host = r.In.Host },
		ModifyResponse: func(resp *http.Response) error {
			if !lie.Load() || !strings.HasSuffix(resp.Request.URL.Path, "/alpha/SKILL.md") {
				return nil
			}
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				return err
			}
			resp.Body = io.NopCloser(bytes.NewReader(bytes.Replace(b, []byte("Alpha"), []byte("Evil!"), 1)))
			return nil
		},
	})
	t.Cleanup(proxy.Close)
	folder := filepath.Join(root, "skills")
	sourcestest.Write(t, filepath.Join(folder, "skilledge.yaml"), "sources:\n  - path: remote\n    catalog: "+proxy.URL+"\n")
	build := func(env []string, args ...string) (int, string, string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out")
		code, msg := pullCLI(t, env, append([]string{"build", folder, "-o", out}, args...)...)
		return code, msg, out
	}
	// A fresh cache for each build that must read the catalog.
	fresh := func() []string { return []string{"XDG_CACHE_HOME=" + t.TempDir()} }

	lie.Store(true)
	code, msg, out := build(fresh())
	if code != 1 || !strings.Contains(msg, `source "remote"`) || !strings.Contains(msg, "alpha") {
		t.Fatalf("a catalog that lies about a digest: %d %s", code, msg)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused build wrote %s", out)
	}
	if _, err := os.Stat(filepath.Join(folder, "sources.lock")); !os.IsNotExist(err) {
		t.Errorf("a refused build wrote sources.lock")
	}
	lie.Store(false)

	cache := []string{"XDG_CACHE_HOME=" + t.TempDir()}
	code, msg, out = build(cache)
	if code != 0 {
		t.Fatalf("build: %d %s", code, msg)
	}
	lock := readFile(t, filepath.Join(folder, "sources.lock"))
	backend.Store(second) // the catalog changes
	code, msg, again := build(cache, "--frozen")
	if code != 0 || !maps.Equal(readTree(t, out, nil), readTree(t, again, nil)) {
		t.Fatalf("a build from the cache, as locked, after the catalog changed: %d %s", code, msg)
	}
	code, msg, _ = build(fresh())
	if code != 1 || !strings.Contains(msg, `source "remote"`) || !strings.Contains(msg, "the catalog serves other skills than sources.lock locked") {
		t.Fatalf("a build without the cache after the catalog changed: %d %s", code, msg)
	}
	// A cached file edited: not served, the catalog read again (and refused, as it changed).
	cached, _ := filepath.Glob(filepath.Join(strings.TrimPrefix(cache[0], "XDG_CACHE_HOME="), "skilledge", "sources", "catalogs", "*", "alpha", "SKILL.md"))
	if len(cached) != 1 {
		t.Fatalf("the cached alpha: %v", cached)
	}
	if err := os.WriteFile(cached[0], []byte("---\nname: alpha\ndescription: Edited in the cache.\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, msg, _ := build(cache, "--frozen"); code != 1 || !strings.Contains(msg, "the catalog serves other skills than sources.lock locked") {
		t.Fatalf("a build from an edited cache: %d %s", code, msg)
	}
	if readFile(t, filepath.Join(folder, "sources.lock")) != lock {
		t.Error("a refused build changed sources.lock")
	}
	if code, msg := pullCLI(t, fresh(), "sources", "update", "--dir", folder); code != 0 || !strings.Contains(msg, "remote: sha256:") {
		t.Fatalf("sources update: %d %s", code, msg)
	}
	if code, msg, _ := build(fresh(), "--frozen"); code != 0 {
		t.Fatalf("the build after sources update: %d %s", code, msg)
	}
}
