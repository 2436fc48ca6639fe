//go:build e2e

package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/pluginbuild"
)

// The worker target: the example catalog deployed as the README says (skilledge build,
// then the pinned wrangler's deploy --dry-run), and wrangler's output bundle served by the
// pinned workerd, Cloudflare's Workers runtime, on loopback.
//
// Why test the Worker in workerd serving wrangler's dry-run bundle, rather than under
// `wrangler dev`? The bundle wrangler deploy --dry-run --outdir writes is exactly what
// would be uploaded; serving it with the pinned workerd binary tests those bytes in
// Cloudflare's runtime, answers within a fraction of a second of starting (BENCHMARKS.md,
// "The Worker in workerd"), takes its sockets as file descriptors (no port guessed), and
// can host several Workers with different options in one process. wrangler dev adds a
// proxy and a simulator around the same workerd; the README test still runs it, once, and
// checks it answers like serve.

// deployment is the result of the README's deploy commands.
type deployment struct {
	dir    string // the scratch checkout the commands ran in
	bundle string // wrangler's --outdir: worker.js and the modules it imports
	assets string // the Worker's static assets: the content store build wrote
	output string // what the commands printed, stdout and stderr
}

// deployBlock returns DEPLOY.md's code block that builds and dry-runs the deployment
// from a clone (the one with the release binary is TestReleaseREADME's).
func deployBlock(root string) (string, error) {
	readme, err := os.ReadFile(filepath.Join(root, "DEPLOY.md"))
	if err != nil {
		return "", err
	}
	for _, b := range codeBlocks(string(readme)) {
		if strings.Contains(b, "go run ./runtime/cmd/skilledge build") && strings.Contains(b, "wrangler deploy --dry-run") {
			return b, nil
		}
	}
	return "", errors.New("DEPLOY.md has no code block with `go run ./runtime/cmd/skilledge build` and `wrangler deploy --dry-run`")
}

// toolEnv is added to the environment of the README's commands: wrangler sends no
// telemetry (there is no network to send it to) and prints no colours or prompts.
var toolEnv = []string{"WRANGLER_SEND_METRICS=false", "NO_COLOR=1", "CI=1"}

var (
	outdirFlag = regexp.MustCompile(`--outdir (\S+)`)
	buildOut   = regexp.MustCompile(`skilledge build \S+ -o (\S+)`)
)

// exampleDeployment runs the README's deploy block on the example catalog once per test
// binary: the public plugin, as build ships it for a catalog without an access policy.
var exampleDeployment = sync.OnceValues(func() (*deployment, error) {
	return deployFolder(filepath.Join(repoRoot(nil), "catalog", "examples", "skills"))
})

// exampleDeploymentFull is exampleDeployment with the full plugin: the build given
// --with-auth.
var exampleDeploymentFull = sync.OnceValues(func() (*deployment, error) {
	return deployFolderWith(filepath.Join(repoRoot(nil), "catalog", "examples", "skills"), "--with-auth")
})

// deployFolder runs the README's deploy block in a scratch checkout (scratchCheckout) on
// the skills folder given.
func deployFolder(skills string) (*deployment, error) { return deployFolderWith(skills, "") }

// deployFolderWith is deployFolder with buildFlags added to the block's skilledge build.
func deployFolderWith(skills, buildFlags string) (*deployment, error) {
	block, err := deployBlock(repoRoot(nil))
	if err != nil {
		return nil, err
	}
	m := outdirFlag.FindStringSubmatch(block)
	b := buildOut.FindStringSubmatch(block)
	if m == nil || b == nil {
		return nil, fmt.Errorf("the README's deploy block has no skilledge build -o or no --outdir:\n%s", block)
	}
	if buildFlags != "" {
		block = strings.Replace(block, b[0], b[0]+" "+buildFlags, 1)
	}
	dir, out, err := runBlock(block, skills)
	if err != nil {
		return nil, err
	}
	return &deployment{dir: dir, bundle: filepath.Join(dir, m[1]), assets: filepath.Join(dir, b[1], "assets"), output: out}, nil
}

// blockTimeout bounds a README block's run (runBlock): a build of the examples and a dry
// run take seconds; the 50,000-skill catalog's benchmark raises it.
var blockTimeout = 5 * time.Minute

// runBlock runs a README code block with sh in a scratch checkout: every top-level entry
// of the repository linked in (so dist/ is the scratch one, never the developer's), and
// skills/ linked to the skills folder given. It returns the checkout and what the block
// printed, stdout and stderr; or, before running anything, a missingPart when the
// pinned tooling the blocks run (node, under npm, and wrangler) is not installed.
func runBlock(block, skills string) (dir, output string, err error) {
	for _, name := range []string{"node", "wrangler"} {
		if err := toolingCommand(name); err != nil {
			return "", "", err
		}
	}
	root := repoRoot(nil)
	if dir, err = scratchDir("skilledge-deploy-"); err != nil {
		return "", "", err
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return "", "", err
	}
	for _, e := range entries {
		switch e.Name() {
		case ".git", ".wrangler", "dist", "tmp", "skills":
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return "", "", err
		}
	}
	if err := os.Symlink(skills, filepath.Join(dir, "skills")); err != nil {
		return "", "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), blockTimeout)
	defer cancel()
	path, err := userPath()
	if err != nil {
		return "", "", err
	}
	cmd := exec.CommandContext(ctx, "sh", "-ec", block)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), toolEnv...), path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", "", fmt.Errorf("the README's commands failed (%v):\n%s\n%s", err, block, out)
	}
	return dir, string(out), nil
}

// deployed returns the example deployment, failing t if the commands failed.
func deployed(t testing.TB) *deployment {
	d, err := exampleDeployment()
	if err != nil {
		failOrSkip(t, err)
	}
	return d
}

// deployedFull returns the example deployment with the full plugin, failing t if the
// commands failed.
func deployedFull(t testing.TB) *deployment {
	d, err := exampleDeploymentFull()
	if err != nil {
		failOrSkip(t, err)
	}
	return d
}

// wranglerSettings is what the root wrangler.toml deploys the Worker with.
type wranglerSettings struct {
	compatibilityDate string
	// options is the [vars.SKILLEDGE_OPTIONS] table as JSON. The table's values are TOML
	// arrays of strings, numbers and strings, which read the same in JSON.
	options string
}

// rootWrangler reads the root wrangler.toml once per test binary.
var rootWrangler = sync.OnceValues(func() (wranglerSettings, error) {
	var w wranglerSettings
	b, err := os.ReadFile(filepath.Join(repoRoot(nil), "wrangler.toml"))
	if err != nil {
		return w, err
	}
	var fields []string
	table := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			table = line
			continue
		}
		k, v, ok := strings.Cut(line, " = ")
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case !ok:
			return w, fmt.Errorf("wrangler.toml: cannot read %q", line)
		case table == "" && k == "compatibility_date":
			if w.compatibilityDate, err = strconv.Unquote(v); err != nil {
				return w, fmt.Errorf("wrangler.toml: compatibility_date %s: %v", v, err)
			}
		case table == "[vars.SKILLEDGE_OPTIONS]":
			fields = append(fields, strconv.Quote(k)+":"+v)
		}
	}
	if w.compatibilityDate == "" || fields == nil {
		return w, errors.New("wrangler.toml has no compatibility_date or no [vars.SKILLEDGE_OPTIONS] table")
	}
	w.options = "{" + strings.Join(fields, ",") + "}"
	return w, nil
})

// deployedOptions is the options JSON the deployed Worker runs with.
func deployedOptions(t testing.TB) string {
	w, err := rootWrangler()
	if err != nil {
		t.Fatal(err)
	}
	return w.options
}

// workerd serves the example deployment's bundle in a new workerd process, one Worker per
// options JSON (each bound as SKILLEDGE_OPTIONS; "" binds none), each on its own loopback
// socket, and returns their base URLs ("http://127.0.0.1:PORT") in order. The sockets
// listen before it returns; the process stops when the test ends.
func workerd(t testing.TB, options ...string) []string {
	return workerdFor(t, deployed(t), options...)
}

// workerdFor is workerd for deployment d.
func workerdFor(t testing.TB, d *deployment, options ...string) []string {
	return workerdWith(t, d, nil, options...)
}

// workerdWith is workerdFor with more bindings for every Worker (workerdConfig's extra).
func workerdWith(t testing.TB, d *deployment, extra []string, options ...string) []string {
	return workerdProcessWith(t, d, extra, options...).urls
}

// workerdProcessWith is workerdWith's process, whose logs (the Workers' console among
// them) a test may read.
func workerdProcessWith(t testing.TB, d *deployment, extra []string, options ...string) *workerdProcess {
	configPath, err := workerdConfig(t.TempDir(), d, options, extra...)
	if err != nil {
		t.Fatal(err)
	}
	p, err := startWorkerd(workerdBin(t), configPath, len(options))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("workerd output:\n%s", p.logs.String())
		}
	})
	return p
}

// workerdProcess is a running workerd.
type workerdProcess struct {
	urls    []string // the base URL of each socket, http0 first
	pid     int
	started time.Time
	logs    *lockedBuffer
	stop    func()
}

// startWorkerd runs `workerd serve config` with its sockets http0 … http(n-1) on loopback
// ports that are listening before the process starts (the sockets are handed over as
// file descriptors, so no port is ever guessed and no request is refused while it boots).
// flags go to workerd after the configuration (--experimental, for the Analytics Engine
// binding).
func startWorkerd(bin, config string, n int, flags ...string) (*workerdProcess, error) {
	args := append([]string{"serve", config}, flags...)
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	p := &workerdProcess{logs: new(lockedBuffer)}
	for i := range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		f, err := ln.(*net.TCPListener).File()
		ln.Close()
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		args = append(args, "--socket-fd", fmt.Sprintf("http%d=%d", i, 3+i))
		p.urls = append(p.urls, "http://"+ln.Addr().String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.ExtraFiles = files
	cmd.Stdout, cmd.Stderr = p.logs, p.logs
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	p.pid = cmd.Process.Pid
	p.stop = func() { cancel(); cmd.Wait() }
	return p, nil
}

// workerdConfig writes, into dir, a workerd configuration serving d's bundle once per
// options JSON, with the modules wrangler wrote (the entry worker.js, then the Data index
// and the CompiledWasm plugin, named and ordered as worker.js imports them) and d's assets
// bound as ASSETS, and returns its path. The modules are linked into dir: capnp's embed takes
// paths relative to the configuration file.
//
// The assets are served by a workerd disk service: a GET of /sha256/NAME answers the file
// assets/sha256/NAME, as the Workers asset layer answers the binding's fetch of that
// path. (wrangler dev, which the README test runs, puts Cloudflare's own asset worker
// there.)
//
// extra are more bindings (capnp list items) every Worker gets, such as a secret.
func workerdConfig(dir string, d *deployment, options []string, extra ...string) (string, error) {
	bundle := d.bundle
	entries, err := os.ReadDir(bundle)
	if err != nil {
		return "", err
	}
	// The other modules in the order worker.js imports them, as wrangler lists them, not
	// by file name: their names begin with their content's hash, and workerd's start
	// depends on the order (the plugin's module before the index's answered the first
	// request of the anthropics-shaped catalog about 4 ms later than after it), so an
	// order by name would make a start's time depend on the hashes of the bytes.
	main, err := os.ReadFile(filepath.Join(bundle, "worker.js"))
	if err != nil {
		return "", err
	}
	imported := func(name string) int {
		if i := bytes.Index(main, []byte(`"./`+name+`"`)); i >= 0 {
			return i
		}
		return len(main)
	}
	slices.SortStableFunc(entries, func(a, b os.DirEntry) int { return imported(a.Name()) - imported(b.Name()) })
	modules := []string{`(name = "worker.js", esModule = embed "worker.js")`} // the main module comes first
	for _, e := range entries {
		name := e.Name()
		kind := ""
		switch {
		case name == "worker.js":
		case strings.HasSuffix(name, ".wasm"):
			kind = "wasm"
		case strings.HasSuffix(name, ".pack"):
			kind = "data"
		default:
			continue
		}
		if err := os.Symlink(filepath.Join(bundle, name), filepath.Join(dir, name)); err != nil {
			return "", err
		}
		if kind != "" {
			modules = append(modules, fmt.Sprintf("(name = %q, %s = embed %q)", name, kind, name))
		}
	}
	bindings := make([]string, len(options))
	for i, o := range options {
		var b []string
		if d.assets != "" {
			b = append(b, `(name = "ASSETS", service = "assets")`)
		}
		if o != "" {
			b = append(b, fmt.Sprintf("(name = \"SKILLEDGE_OPTIONS\", json = %s)", strconv.Quote(o)))
		}
		bindings[i] = strings.Join(append(b, extra...), ", ")
	}
	return writeWorkerdConfig(filepath.Join(dir, "config.capnp"), modules, bindings, d.assets)
}

// writeWorkerdConfig writes to path a workerd configuration of one Worker per bindings
// entry (a capnp list's items, "" for none), each made of modules (the main one first)
// with the root wrangler.toml's compatibility date and served on socket http<i>, and
// returns path. With assets not "", a disk service "assets" serves that folder read-only.
func writeWorkerdConfig(path string, modules, bindings []string, assets string) (string, error) {
	w, err := rootWrangler()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("using Workerd = import \"/workerd/workerd.capnp\";\n\nconst config :Workerd.Config = (\n  services = [\n")
	for i := range bindings {
		fmt.Fprintf(&b, "    (name = \"worker%d\", worker = .worker%d),\n", i, i)
	}
	if assets != "" {
		fmt.Fprintf(&b, "    (name = \"assets\", disk = (path = %q, writable = false)),\n", assets)
	}
	// The Workers' fetch reaches loopback too: a test's issuer serves its key set there.
	b.WriteString("    (name = \"internet\", network = (allow = [\"public\", \"local\"])),\n")
	b.WriteString("  ],\n  sockets = [\n")
	for i := range bindings {
		fmt.Fprintf(&b, "    (name = \"http%d\", http = (), service = \"worker%d\"),\n", i, i)
	}
	b.WriteString("  ],\n);\n")
	for i, binding := range bindings {
		fmt.Fprintf(&b, "\nconst worker%d :Workerd.Worker = (\n  modules = [\n    %s\n  ],\n  compatibilityDate = %q,\n  bindings = [%s],\n);\n",
			i, strings.Join(modules, ",\n    "), w.compatibilityDate, binding)
	}
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

// workerTarget is the worker in workerd, spoken to over HTTP on loopback.
type workerTarget struct{ base string }

var workerClient = &http.Client{
	Transport: &http.Transport{DisableCompression: true},
	Timeout:   30 * time.Second,
}

func newWorker(t *testing.T, options []byte, skills *caseSkills) target {
	d := deployed(t)
	if skills != nil {
		d = caseDeployment(t, skills)
	}
	return newWorkerOf(t, d, options)
}

// newWorkerOf is the Worker of deployment d with options (none: {}).
func newWorkerOf(t *testing.T, d *deployment, options []byte) target {
	o := string(options)
	if o == "" {
		o = "{}"
	}
	return workerTarget{workerdFor(t, d, strings.TrimSpace(o))[0]}
}

// caseDeployments holds the deployment of each case folder, by key, once per test binary.
var caseDeployments sync.Map // key -> func() (*deployment, error)

// caseDeployment runs the README's deploy block on the case folder skills, written to a
// scratch directory, once per test binary.
func caseDeployment(t *testing.T, skills *caseSkills) *deployment {
	return caseDeploymentWith(t, skills, "")
}

// caseDeploymentFull is caseDeployment with the full plugin (build --with-auth).
func caseDeploymentFull(t *testing.T, skills *caseSkills) *deployment {
	return caseDeploymentWith(t, skills, "--with-auth")
}

func caseDeploymentWith(t *testing.T, skills *caseSkills, buildFlags string) *deployment {
	f, _ := caseDeployments.LoadOrStore(skills.key+"\x00"+buildFlags, sync.OnceValues(func() (*deployment, error) {
		dir, err := scratchDir("skilledge-case-")
		if err != nil {
			return nil, err
		}
		for rel, file := range skills.fs {
			if err := writeFile(filepath.Join(dir, filepath.FromSlash(rel)), file.Data); err != nil {
				return nil, err
			}
		}
		return deployFolderWith(dir, buildFlags)
	}))
	d, err := f.(func() (*deployment, error))()
	if err != nil {
		failOrSkip(t, err)
	}
	return d
}

// HTTP sends the frame as a real HTTP request: the frame's Host header becomes the
// request's Host, every other header is sent as it is.
func (w workerTarget) HTTP(t *testing.T, frame []byte) []byte {
	r, err := wire.ParseRequest(frame)
	if err != nil {
		t.Fatalf("bad request frame %q: %v", frame, err)
	}
	req, err := http.NewRequest(r.Method, w.base+r.Target, bytes.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header["User-Agent"] = []string{""} // Go's own would be one more header
	for _, h := range r.Header {
		if strings.EqualFold(h.Name, "Host") {
			req.Host = h.Value
			continue
		}
		req.Header.Add(h.Name, h.Value)
	}
	resp, err := workerClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := wire.Response{Status: resp.StatusCode, Body: body}
	for name, values := range resp.Header {
		for _, v := range values {
			out.Header = append(out.Header, wire.Field{Name: name, Value: v})
		}
	}
	return wire.AppendResponse(nil, &out)
}

// Message: a Worker has no stdio transport, so the stdio sections do not apply to it.
func (w workerTarget) Message(t *testing.T, version string, line []byte) ([]byte, string) {
	t.Fatal("a Worker has no stdio transport")
	return nil, ""
}

var dotSegment = regexp.MustCompile(`(?i)^[^ \n]* [^?\n]*/(\.|%2e){1,2}(/|\?|\n)`)

// unsupported: a Worker has no stdio, and never sees a path with dot segments: the Fetch
// API's URL parser resolves them before the fetch handler runs (as Cloudflare's edge does
// before that), so the plugin's own refusal of them is unreachable there.
func (workerTarget) unsupported(section string, data []byte) string {
	switch {
	case section == "stdio":
		return "a Worker is reached over HTTP only; stdio is the runtime's transport"
	case dotSegment.Match(data):
		return "the Workers runtime resolves dot segments in the URL before the Worker sees it"
	}
	return ""
}

// normalize puts a response frame in the form an HTTP round trip preserves: header names
// canonical, repeated fields joined with ", " (as the Fetch API's Headers do), fields
// sorted by name, and without the fields the HTTP layer owns (Content-Length, Date,
// connection management), which the plugin's frame does not carry and workerd adds.
//
// Why are workerd's answers compared after normalising the headers, and why are some
// exchanges not run there? Across a real HTTP hop header order and name case are not
// preserved, the Fetch API joins repeated fields with ", ", and workerd adds
// Content-Length and Date; so a case compares status, the set of fields and the body byte
// for byte, which is what a client sees. The stdio section has no meaning for a Worker,
// and requests with dot segments never reach one as sent, so those exchanges are listed as
// not run, with the reason (unsupported), rather than given different expectations.
func (workerTarget) normalize(frame []byte) []byte {
	r, err := wire.ParseResponse(frame)
	if err != nil {
		return frame
	}
	var names []string
	values := map[string][]string{}
	for _, h := range r.Header {
		name := http.CanonicalHeaderKey(h.Name)
		switch name {
		case "Content-Length", "Date", "Connection", "Keep-Alive", "Transfer-Encoding":
			continue
		}
		if _, ok := values[name]; !ok {
			names = append(names, name)
		}
		values[name] = append(values[name], h.Value)
	}
	slices.Sort(names)
	out := wire.Response{Status: r.Status, Body: r.Body}
	for _, n := range names {
		out.Header = append(out.Header, wire.Field{Name: n, Value: strings.Join(values[n], ", ")})
	}
	return wire.AppendResponse(nil, &out)
}

// e2eServer is a running deployment of the example catalog for the third-party suites.
type e2eServer struct {
	name    string
	url     string // the MCP endpoint
	private string // the MCP endpoint of the same server accepting only loopback Host and Origin
}

// e2eServers starts the example catalog on every server: `skilledge serve` (the plugin in
// the wazero harness; loopback only by default), the Worker in workerd, and the Deno, Bun
// and Node entries, each but serve once with the options wrangler.toml deploys (every Host
// and Origin) and once without any (the plugin's loopback defaults). They stop when the test ends.
func e2eServers(t *testing.T) []e2eServer {
	local := serve(t)
	full, err := pluginbuild.Locate(context.Background(), "", pluginbuild.Full, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	localFull := serve(t, "--plugin", full)
	w := workerd(t, deployedOptions(t), "")
	wf := workerdFor(t, deployedFull(t), deployedOptions(t), "")
	return append([]e2eServer{{"serve", local, local}, {"serve-full", localFull, localFull},
		{"workerd", w[0] + "/mcp", w[1] + "/mcp"}, {"workerd-full", wf[0] + "/mcp", wf[1] + "/mcp"}}, runtimeServers(t)...)
}

// TestCasesWorkerd runs the protocol cases against the worker in workerd, each case file
// in a fresh workerd with the case's options bound as SKILLEDGE_OPTIONS: the example
// deployment with the public plugin, and with the full one.
func TestCasesWorkerd(t *testing.T) {
	t.Run("public", func(t *testing.T) { runCases(t, newWorker, false) })
	t.Run("full", func(t *testing.T) {
		runCases(t, func(t *testing.T, options []byte, skills *caseSkills) target {
			if skills != nil {
				return newWorkerOf(t, caseDeploymentFull(t, skills), options)
			}
			return newWorkerOf(t, deployedFull(t), options)
		}, false)
	})
}

// TestWorkerBadOptions: a Worker whose SKILLEDGE_OPTIONS the plugin refuses answers 500
// with the plugin's reason, and keeps answering so (the options never change, nor does
// the answer) instead of serving with options nobody asked for.
func TestWorkerBadOptions(t *testing.T) {
	url := workerd(t, `{"pageSize":"ten"}`)[0] + "/mcp"
	for range 2 {
		resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 500 || !strings.Contains(string(body), "the plugin did not start") || !strings.Contains(string(body), "pageSize") {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
	}
}

// TestWorkerPublicPluginAuth: the Worker of a catalog built without an access policy
// carries the public plugin, which refuses an auth option: every request is the host's
// 500 for an invalid auth option, which quotes nothing of it, and the Worker's log says
// which plugin to build instead.
func TestWorkerPublicPluginAuth(t *testing.T) {
	options := `{"auth":{"resource":"http://localhost/mcp","tokens":[{"name":"ci","sha256":"` + strings.Repeat("ab", 32) + `","scopes":["skills:read"]}]}}`
	p := workerdProcessWith(t, deployed(t), nil, options)
	for range 2 {
		resp, err := http.Post(p.urls[0]+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 500 || !strings.Contains(string(body), "auth option is invalid") || strings.Contains(string(body), "public build") || strings.Contains(string(body), "ab"+"abab") {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
	}
	if logs := p.logs.String(); !strings.Contains(logs, "skilledge's public build") || !strings.Contains(logs, "--with-auth") {
		t.Fatalf("the Worker's log does not say which plugin to build:\n%s", logs)
	}
}

// TestWorkerStoreObjects: the Worker keeps the small store objects it has fetched, so a
// small file read once is served again without the assets; a file it has not read, small
// (assembled in memory) or large (streamed), needs its object, and without it the answer
// is a 500 with a JSON-RPC -32603 body, never a truncated or empty file.
func TestWorkerStoreObjects(t *testing.T) {
	skills := t.TempDir()
	big := bytes.Repeat([]byte("large file line\n"), 8<<10) // 128 KiB: streamed, never cached
	for rel, data := range map[string][]byte{
		"store/SKILL.md":  []byte("---\nname: store\ndescription: Files for the store test.\n---\nRead the files.\n"),
		"store/first.txt": []byte("the first small file\n"),
		"store/other.txt": []byte("another small file\n"),
		"store/big.txt":   big,
	} {
		if err := writeFile(filepath.Join(skills, rel), data); err != nil {
			t.Fatal(err)
		}
	}
	d, err := deployFolder(skills)
	if err != nil {
		failOrSkip(t, err)
	}
	url := workerdFor(t, d, deployedOptions(t))[0] + "/mcp"
	read := func(name string) (int, []byte) {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://store/` + name + `"}}`
		resp, err := http.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, b
	}
	status, first := read("first.txt")
	if status != 200 || !bytes.Contains(first, []byte(`"text":"the first small file\n"`)) {
		t.Fatalf("first.txt: %d %s", status, first)
	}
	// The store goes away: every object is removed from the assets.
	objects, err := filepath.Glob(filepath.Join(d.assets, "sha256", "*"))
	if err != nil || len(objects) == 0 {
		t.Fatalf("no objects in %s (%v)", d.assets, err)
	}
	for _, o := range objects {
		if err := os.Remove(o); err != nil {
			t.Fatal(err)
		}
	}
	if status, again := read("first.txt"); status != 200 || !bytes.Equal(again, first) {
		t.Fatalf("first.txt again, from the isolate's cache: %d %s", status, again)
	}
	for _, name := range []string{"other.txt", "big.txt"} {
		status, b := read(name)
		if status != 500 || !bytes.Contains(b, []byte(`"code":-32603`)) || !bytes.Contains(b, []byte("content store")) {
			t.Fatalf("%s without its object: %d %.200s", name, status, b)
		}
	}
}

// TestWorkerReplays: the Worker answers requests that repeat one but for the id from the
// answers it kept (build/host/replay.mjs, Replays); each answer must be what edge itself
// answers, whether it was replayed or not: another id of either kind, a longer one, ids it
// may not stand for, other files and hosts, a body at the size limit and one byte over it.
func TestWorkerReplays(t *testing.T) {
	const maxBody = 2048
	options := `{"allowHosts":["*"],"allowOrigins":["*"],"maxBody":` + strconv.Itoa(maxBody) + `}`
	worker := workerTarget{workerd(t, options)[0]}
	ref := newInProcess(t, []byte(options))
	read := func(id, uri string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"resources/read","params":{"uri":"` + uri + `"}}`
	}
	const md = "skill://git-workflow/SKILL.md"
	full := read("1", md)
	full = full[:len(full)-1] + strings.Repeat(" ", maxBody-len(full)) + "}"
	for _, c := range []struct{ name, host, body string }{
		{"first read", "", read("1", md)},
		{"again, another id", "", read("2", md)},
		{"a longer id", "", read("123456789012345", md)},
		{"an id of the other kind", "", read(`"abc"`, md)},
		{"a string id again", "", read(`"req-2"`, md)},
		{"a number once more", "", read("3", md)},
		{"an id with a fraction", "", read("4.0", md)},
		{"an id past 15 digits", "", read("1234567890123456", md)},
		{"an escaped id", "", read(`"\u0035"`, md)},
		{"another file", "", read("5", "skill://csv-insights/assets/chart-template.png")},
		{"that file again", "", read("6", "skill://csv-insights/assets/chart-template.png")},
		{"another Host", "other.example", read("7", md)},
		{"the id elsewhere", "", `{"jsonrpc":"2.0","method":"resources/read","params":{"uri":"` + md + `"},"id":9}`},
		{"a missing file", "", read("10", "skill://git-workflow/nope.md")},
		{"the missing file again", "", read("11", "skill://git-workflow/nope.md")},
		{"a body of maxBody bytes", "", full},
		{"the same, one byte too long", "", strings.Replace(full, `"id":1`, `"id":12`, 1)},
		{"the same, another short id", "", strings.Replace(full, `"id":1`, `"id":7`, 1)},
	} {
		host := c.host
		if host == "" {
			host = "127.0.0.1"
		}
		frame := wire.AppendRequest(nil, &wire.Request{Method: "POST", Target: "/mcp", Body: []byte(c.body), Header: wire.Header{
			{Name: "Host", Value: host}, {Name: "Content-Type", Value: "application/json"}, {Name: "Accept", Value: "application/json, text/event-stream"},
		}})
		got := worker.normalize(worker.HTTP(t, frame))
		want := worker.normalize(ref.HTTP(t, frame))
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: the Worker answered\n%s\nwhere edge answers\n%s", c.name, got, want)
		}
	}
}
