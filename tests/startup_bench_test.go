//go:build e2e && benchreport

package tests

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/runtime/front"
	"github.com/skilledge/skilledge/runtime/pluginbuild"
	"github.com/skilledge/skilledge/runtime/store"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// The start-up benchmark (issue 22): the time from a process's start to its first answer,
// for the Worker in workerd and for `skilledge serve` and `stdio`, beside their baselines,
// and where that time goes, in one run.
//
//	go test -tags 'e2e benchreport' -run StartupReport -count=1 -timeout 60m ./tests/
//
// writes the startup section of BENCHMARKS.md. Nothing here fails on a timing.
//
// What it measures:
//   - the Worker: workerd started on the example deployment, to its first 200 answer to
//     skills/list, beside the plain Worker (plainWorker) and the Workers in between
//     (workerSteps), each one step of the skilledge Worker's start further than the one
//     before it: the differences of their times are the phases;
//   - `skilledge serve DIR` (a skills folder, its build in the cache) and `serve OUT` (a
//     built 1,000-skill catalog), to their first 200 answer, beside the TS SDK v2 server
//     on the same folder;
//   - the first `skilledge stdio` launch on a machine (empty caches) and a later one, on
//     the ~10 MB realistic catalog, to the answer to initialize;
//   - the harness's phases, in this process, through the functions the CLI calls, on
//     both plugins.
//
// Every start is measured on this tree (after) and on startupBaseline (before), in turn.
// The CLIs are release builds (releaseCLI), which carry plugin.wasm: what a user runs.

// startupBaseline is the last commit before the lighter plugin (issue 33): one plugin,
// with the credential checks, for every catalog.
const startupBaseline = "b985e0d"

const (
	startupStarts = 11 // process starts per server, the servers taken in turn
	workerStarts  = 21 // process starts per Worker of the phase split, which are short
	coldLaunches  = 5  // stdio launches with empty caches per variant; cold compilations in process
	warmLaunches  = 7  // stdio launches with warm caches per variant
	phaseRuns     = 11 // in-process runs of each other phase
)

// releaseCLI builds the CLI of tree into cli as build/release does for this machine:
// plugin.wasm first (cli + ".wasm"; and the public plugin, cli + ".public.wasm", where the
// tree carries one), then the CLI carrying it (the tag pluginbuild.ReleaseTag), here
// through an overlay so that nothing is written into tree.
func releaseCLI(t *testing.T, tree, cli string) {
	replace := map[string]string{}
	wasmEnv := append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	plugin := cli + ".wasm"
	flags := []string{"build", "-buildmode=c-shared", "-trimpath", "-buildvcs=false"}
	if release, _ := os.ReadFile(filepath.Join(tree, "build", "release")); bytes.Contains(release, []byte("-buildvcs=false -ldflags=-s")) {
		flags = append(flags, "-ldflags=-s") // the tree's plugins have no name section
	}
	run(t, tree, wasmEnv, "go", append(flags, "-o", plugin, "./edge/plugin")...)
	replace[filepath.Join(tree, "runtime", "pluginbuild", "plugin.wasm")] = plugin
	if embeds, _ := os.ReadFile(filepath.Join(tree, "runtime", "pluginbuild", "embed_release.go")); bytes.Contains(embeds, []byte("plugin-public.wasm")) {
		public := cli + ".public.wasm"
		run(t, tree, wasmEnv, "go", append(flags, "-tags", pluginbuild.PublicTag, "-o", public, "./edge/plugin")...)
		replace[filepath.Join(tree, "runtime", "pluginbuild", "plugin-public.wasm")] = public
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil || os.WriteFile(cli+".overlay.json", overlay, 0o644) != nil {
		t.Fatal(err)
	}
	run(t, tree, append(os.Environ(), "CGO_ENABLED=0"), "go", "build", "-overlay", cli+".overlay.json", "-tags", pluginbuild.ReleaseTag,
		"-trimpath", "-buildvcs=false", "-ldflags", "-s -w -buildid=", "-o", cli, "./runtime/cmd/skilledge")
}

// workerStep is one Worker of the phase split: what it imports, and what its first
// request does before it answers. Each step does what the ones before it do, and more.
type workerStep struct {
	name    string
	imports string // import declarations
	start   string // statements run once, by the first request
}

// workerSteps go from the plain Worker to the skilledge Worker: the Extism SDK and the
// index imported, plugin.wasm imported (workerd compiles it as it loads the script), then
// what Host.start (build/host.mjs) does on the first request, through the same SDK calls
// and raw exports. The step after the last is the skilledge Worker itself.
var workerSteps = []workerStep{
	{"+ the Extism SDK and catalog.pack imported", "import createPlugin from \"./sdk.js\";\nimport pack from \"./catalog.pack\";\n", ""},
	{"+ plugin.wasm imported (compiled at script load)", "import module from \"./plugin.wasm\";\n", ""},
	{"+ instantiate and `_initialize` (the SDK's createPlugin, getInstance)", "",
		"x = (await (await createPlugin({ wasm: [{ module }] }, { useWasi: true, enableWasiOutput: true })).getInstance()).exports;\n"},
	{"+ configure and load (the raw exports)", "",
		"call(\"skilledge_configure\", new TextEncoder().encode(OPTIONS));\ncall(\"skilledge_load\", new Uint8Array(pack));\n"},
}

// workerStepConfigs writes into dir a workerd configuration per workerSteps entry, with the
// real parts: the SDK's browser build from build/node_modules (which the root
// wrangler.toml aliases), and the plugin.wasm and catalog.pack of deployment d. Every step
// answers 200 with an empty JSON object.
func workerStepConfigs(t *testing.T, dir string, d *deployment) []string {
	for name, target := range map[string]string{
		"sdk.js":       filepath.Join(repoRoot(t), "build", "node_modules", "@extism", "extism", "dist", "browser", "mod.js"),
		"plugin.wasm":  bundleFile(t, d.bundle, "*-plugin.wasm"),
		"catalog.pack": bundleFile(t, d.bundle, "*-catalog.pack"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	options, _ := json.Marshal(deployedOptions(t)) // a JSON string is a JavaScript string
	var configs []string
	var imports, start strings.Builder
	for k, s := range workerSteps {
		imports.WriteString(s.imports)
		start.WriteString(s.start)
		js := imports.String() + "const OPTIONS = " + string(options) + `;
let x = null;
let started = false;
function call(name, b) {
  const ptr = x.skilledge_alloc(b.length) >>> 0;
  new Uint8Array(x.memory.buffer, ptr, b.length).set(b);
  if (x[name](ptr, b.length) !== 0) throw new Error(name);
}
export default {
  async fetch(request) {
    await request.text();
    if (!started) {
      started = true;
` + start.String() + `    }
    return new Response("{}", { headers: { "Content-Type": "application/json" } });
  },
};
`
		main := fmt.Sprintf("step%d.js", k+1)
		if err := os.WriteFile(filepath.Join(dir, main), []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
		modules := []string{fmt.Sprintf("(name = %q, esModule = embed %q)", main, main),
			`(name = "sdk.js", esModule = embed "sdk.js")`, `(name = "catalog.pack", data = embed "catalog.pack")`}
		if k >= 1 {
			modules = append(modules, `(name = "plugin.wasm", wasm = embed "plugin.wasm")`)
		}
		config, err := writeWorkerdConfig(filepath.Join(dir, fmt.Sprintf("step%d.capnp", k+1)), modules, []string{""}, "")
		if err != nil {
			t.Fatal(err)
		}
		configs = append(configs, config)
	}
	return configs
}

// startTimes starts each server once unmeasured (the files in the page cache, a build
// cache filled), then n times more, the servers in turn, and returns each one's times from
// process start to the first 200 answer to skills/list, sorted.
func startTimes(t *testing.T, servers []runtimeServer, n int) [][]time.Duration {
	list := loadCases()[1]
	out := make([][]time.Duration, len(servers))
	for i := range n + 1 {
		for k, srv := range servers {
			d, cmd, _ := startTimed(t, srv, list)
			cmd.Process.Kill()
			cmd.Wait()
			if i > 0 {
				out[k] = append(out[k], d)
			}
		}
	}
	for _, d := range out {
		slices.Sort(d)
	}
	return out
}

// serveServer is `v serve dir` on the port given.
func serveServer(v *variant, dir string) runtimeServer {
	return runtimeServer{"skilledge serve", func(port int) *exec.Cmd {
		cmd := exec.Command(v.cli, "serve", dir, "--addr", "127.0.0.1:"+strconv.Itoa(port))
		cmd.Env = v.env()
		return cmd
	}}
}

// tsServer is the TS SDK v2 server (tests/loadbench/ts-server.mjs) on Node 22 serving
// dir on the port given.
func tsServer(t *testing.T, dir string) runtimeServer {
	script := filepath.Join(repoRoot(t), "tests", "loadbench", "ts-server.mjs")
	return runtimeServer{"TS SDK v2 server", func(port int) *exec.Cmd {
		return exec.Command(nodeBin(t), script, dir, strconv.Itoa(port))
	}}
}

// runs calls f n times and returns the durations it measured, sorted.
func runs(n int, f func() time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = f()
	}
	slices.Sort(out)
	return out
}

// spread is "median (min–max)" of sorted durations.
func spread(d []time.Duration) string {
	return fmt.Sprintf("%s (%s–%s)", latency(quantile(d, 0.5)), latency(d[0]), latency(d[len(d)-1]))
}

// ratio is a/b of the medians of two sorted samples, as "0.12×".
func ratio(a, b []time.Duration) string {
	return fmt.Sprintf("%.3g×", float64(quantile(a, 0.5))/float64(quantile(b, 0.5)))
}

// delta is a difference of durations with its sign.
func delta(d time.Duration) string {
	if d < 0 {
		return "−" + latency(-d)
	}
	return "+" + latency(d)
}

// startupCatalog is a built catalog whose start the harness's phases are measured on.
type startupCatalog struct {
	name   string
	folder string // the skills folder, or "" when the CLI serves the built OUT
	out    string // the build (skilledge build folder -o out): catalog.pack and assets/
}

// harnessPhases is what the harness does before its first answer, timed in this process
// through the functions serve and stdio call.
type harnessPhases struct {
	selfHash   []time.Duration
	exeSize    int64
	perCatalog []catalogPhases
}

// catalogPhases are the phases that depend on the catalog.
type catalogPhases struct {
	index                                   int
	skills, files                           int
	loadDir, open, check, pool, first, next []time.Duration
}

// modulePhases are the phases of a start that depend on the module alone.
type modulePhases struct {
	compileCold, compileWarm, moduleWarm, poolTiny []time.Duration
}

// measureModule times compiling module (plugin.wasm's bytes) with a cold and a warm
// compilation cache, wazero's part of the warm one, and a pool on a one-skill index.
func measureModule(t *testing.T, module []byte) modulePhases {
	ctx := context.Background()
	var h modulePhases
	compileIn := func(cache string, limit uint64) (*wasm.Plugin, time.Duration) {
		start := time.Now()
		p, err := wasm.Compile(ctx, module, wasm.Config{MemoryLimit: limit, CacheDir: cache, Stderr: io.Discard})
		d := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		return p, d
	}
	h.compileCold = runs(coldLaunches, func() time.Duration {
		p, d := compileIn(t.TempDir(), 0)
		p.Close(ctx)
		return d
	})
	warm := t.TempDir()
	p, _ := compileIn(warm, 0)
	p.Close(ctx)
	h.compileWarm = runs(phaseRuns, func() time.Duration {
		p, d := compileIn(warm, 0)
		p.Close(ctx)
		return d
	})
	// wazero's part of a warm Compile, on the module as it is (Compile compiles it with the
	// deadline instrumented in, which this package cannot do alone): a new runtime and
	// cache each time, as in a new process.
	rawCache := t.TempDir()
	moduleWarm := func() time.Duration {
		cache, err := wazero.NewCompilationCacheWithDir(rawCache)
		if err != nil {
			t.Fatal(err)
		}
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
		defer rt.Close(ctx)
		start := time.Now()
		if _, err := rt.CompileModule(ctx, module); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	moduleWarm()
	h.moduleWarm = runs(phaseRuns, moduleWarm)

	// A pool on a one-skill index: instantiate, _initialize, configure, a load of almost
	// nothing, fields.
	tinyDir := t.TempDir()
	if err := writeFile(filepath.Join(tinyDir, "one", "SKILL.md"), []byte("---\nname: one\ndescription: One skill.\n---\nBody.\n")); err != nil {
		t.Fatal(err)
	}
	c, _, err := compile.LoadDir(tinyDir, compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tiny, err := compile.Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	p, _ = compileIn(warm, 0)
	h.poolTiny = runs(phaseRuns, func() time.Duration {
		start := time.Now()
		pool, err := p.NewPool(ctx, wasm.Catalog{Index: tiny.Index, Store: tiny.Store}, wasm.Options{Size: 1})
		d := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		pool.Close(ctx)
		return d
	})
	p.Close(ctx)
	return h
}

// measureHarness times the phases of a start of each catalog on the plugin module (the
// bytes of plugin.wasm), and of hashing the executable exe (the build cache's key for a
// folder).
func measureHarness(t *testing.T, module []byte, exe string, cats []startupCatalog) harnessPhases {
	ctx := context.Background()
	var h harnessPhases
	warm := t.TempDir()
	compileIn := func(limit uint64) *wasm.Plugin {
		p, err := wasm.Compile(ctx, module, wasm.Config{MemoryLimit: limit, CacheDir: warm, Stderr: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	h.selfHash = runs(phaseRuns, func() time.Duration {
		start := time.Now()
		// As serve and stdio hash it (selfDigest).
		f, err := os.Open(exe)
		if err == nil {
			_, err = io.Copy(sha256.New(), f)
			f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	})
	if fi, err := os.Stat(exe); err == nil {
		h.exeSize = fi.Size()
	}

	list := loadCases()[1]
	for _, cat := range cats {
		var ph catalogPhases
		if cat.folder != "" {
			ph.loadDir = runs(phaseRuns, func() time.Duration {
				start := time.Now()
				// As serve and stdio load a folder (always asking for the skipped skills' warnings).
				if _, _, err := compile.LoadDir(cat.folder, compile.Options{SkipInvalid: true}); err != nil {
					t.Fatal(err)
				}
				return time.Since(start)
			})
		}
		var index []byte
		var pack *catalog.Pack
		ph.open = runs(phaseRuns, func() time.Duration {
			start := time.Now()
			var err error
			if index, err = os.ReadFile(filepath.Join(cat.out, "catalog.pack")); err == nil {
				pack, err = catalog.Open(index)
			}
			if err != nil {
				t.Fatal(err)
			}
			return time.Since(start)
		})
		ph.index, ph.skills, ph.files = len(index), pack.NumSkills(), pack.NumFiles()
		var st *store.Dir
		ph.check = runs(phaseRuns, func() time.Duration {
			start := time.Now()
			var err error
			if st, err = store.Open(filepath.Join(cat.out, "assets")); err == nil {
				err = st.CheckPresent(pack)
			}
			if err != nil {
				t.Fatal(err)
			}
			return time.Since(start)
		})
		// The memory limit serve gives an index of this size (memoryFlag.limit).
		p := compileIn(min(max(wasm.DefaultMemoryLimit, wasm.MinMemoryLimit(index, wasm.DefaultMaxBody)), 4<<30))
		for range phaseRuns {
			start := time.Now()
			pool, err := p.NewPool(ctx, wasm.Catalog{Index: index, Store: st, Pack: pack, Checked: true}, wasm.Options{Size: 1})
			ph.pool = append(ph.pool, time.Since(start))
			if err != nil {
				t.Fatal(err)
			}
			srv := front.NewServer(pool, io.Discard, front.Options{})
			for k := range 2 {
				req, err := list.request("http://127.0.0.1/mcp", firstID)
				if err != nil {
					t.Fatal(err)
				}
				rec := httptest.NewRecorder()
				start := time.Now()
				srv.ServeHTTP(rec, req)
				d := time.Since(start)
				if rec.Code != 200 {
					t.Fatalf("%s: skills/list: %d %.300s", cat.name, rec.Code, rec.Body.Bytes())
				}
				if k == 0 {
					ph.first = append(ph.first, d)
				} else {
					ph.next = append(ph.next, d)
				}
			}
			srv.Close(ctx)
		}
		p.Close(ctx)
		for _, d := range [][]time.Duration{ph.pool, ph.first, ph.next} {
			slices.Sort(d)
		}
		h.perCatalog = append(h.perCatalog, ph)
	}
	return h
}

// TestStartupReport measures every start and writes the startup section of BENCHMARKS.md.
func TestStartupReport(t *testing.T) {
	root := repoRoot(t)
	vs := variantsOf(t, startupBaseline, releaseCLI)
	before, after := vs[0], vs[1]
	cats := t.TempDir()
	skills := loadCatalog(t)
	large := filepath.Join(cats, "large")
	if _, err := writeLargeCatalog(large); err != nil {
		t.Fatal(err)
	}
	realistic := filepath.Join(cats, "realistic")
	realBytes, err := writeRealisticCatalog(realistic)
	if err != nil {
		t.Fatal(err)
	}
	built := func(v *variant, name, dir string) string {
		out := filepath.Join(cats, v.name+"-"+name+"-out")
		run(t, root, v.env(), v.cli, "build", dir, "-o", out)
		return out
	}
	largeOut := [2]string{built(before, "large", large), built(after, "large", large)}

	// The plugins: before's (one, with the credential checks), and after's two.
	read := func(name string) []byte {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	beforeFull, afterFull, afterPublic := read(before.cli+".wasm"), read(after.cli+".wasm"), read(after.cli+".public.wasm")

	// The Worker: the plain one, the steps, the skilledge Worker as build ships it for the
	// examples (the public plugin), with the full plugin (build --with-auth) and before,
	// each started in turn.
	d := deployed(t)
	dir := t.TempDir()
	workerConfig := func(name string, d *deployment) string {
		sub := filepath.Join(dir, name)
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		c, err := workerdConfig(sub, d, []string{deployedOptions(t)})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	skConfig := workerConfig("public", d)
	fullConfig := workerConfig("full", deployedFull(t))
	beforeConfig := workerConfig("before", deployVariant(t, before, skills))
	plainConfig, err := plainWorker(dir, workerAnswers(t, workerd(t, deployedOptions(t))[0]+"/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	stepsDir := filepath.Join(dir, "steps")
	if err := os.Mkdir(stepsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	configs := append(append([]string{plainConfig}, workerStepConfigs(t, stepsDir, d)...), skConfig, fullConfig, beforeConfig)
	workers := make([][]time.Duration, len(configs))
	for i := range workerStarts + 1 {
		for k, c := range configs {
			if first := timeToFirst(t, c, 1); i > 0 {
				workers[k] = append(workers[k], first...)
			}
		}
	}
	for _, w := range workers {
		slices.Sort(w)
	}
	n := len(workers)
	plain, sk, skFull, skBefore := workers[0], workers[n-3], workers[n-2], workers[n-1]
	steps := workers[:n-2] // the plain Worker, the steps and the skilledge Worker

	// serve: a folder (its build cached by the unmeasured first start) and a built catalog,
	// after, before and the TS server in turn.
	folder := startTimes(t, []runtimeServer{serveServer(after, skills), serveServer(before, skills), tsServer(t, skills)}, startupStarts)
	big := startTimes(t, []runtimeServer{serveServer(after, largeOut[1]), serveServer(before, largeOut[0]), tsServer(t, large)}, startupStarts)

	// stdio on the realistic catalog: first launches on an empty machine, then launches
	// with the caches warm, before and after in turn.
	var cold, warm [2][]time.Duration
	for range coldLaunches {
		for i, v := range vs {
			home := t.TempDir()
			fresh := &variant{name: v.name, cli: v.cli, cache: filepath.Join(home, ".cache"), home: home}
			cold[i] = append(cold[i], firstAnswer(t, fresh, realistic))
		}
	}
	for _, v := range vs {
		firstAnswer(t, v, realistic)
	}
	for range warmLaunches {
		for i, v := range vs {
			warm[i] = append(warm[i], firstAnswer(t, v, realistic))
		}
	}
	for i := range vs {
		slices.Sort(cold[i])
		slices.Sort(warm[i])
	}

	// The harness's phases: the module's, on the three plugins; the catalogs', on the
	// public plugin, which serve and stdio run for them.
	mods := []struct {
		name   string
		module []byte
		m      modulePhases
	}{{"before: the one plugin", beforeFull, modulePhases{}}, {"after: full", afterFull, modulePhases{}}, {"after: public", afterPublic, modulePhases{}}}
	for i := range mods {
		mods[i].m = measureModule(t, mods[i].module)
	}
	startupCats := []startupCatalog{
		{"`serve DIR`", skills, built(after, "folder", skills)},
		{"`serve OUT`, 1,000 skills", "", largeOut[1]},
		{"`stdio DIR`, ~10 MB", realistic, built(after, "realistic", realistic)},
	}
	h := measureHarness(t, afterPublic, after.cli, startupCats)
	nSkills := h.perCatalog[0].skills

	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (%d CPUs), %s, workerd %s, Node %s. Every figure is median (min–max) of several\n",
		time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), runtime.Version(), workerdVersion(t), nodeVersion(t))
	b.WriteString("starts of a new process, the servers compared taken in turn, each started once unmeasured first (but for the first\n")
	b.WriteString("launches on an empty machine); the time runs from the process's start to the first 200 answer to `skills/list`\n")
	b.WriteString("(the server polled every millisecond; workerd's socket listens before it starts), or for `stdio` to the answer to\n")
	b.WriteString("`initialize` on its stdout. The CLIs are release builds (the plugins inside, as `build/release` makes them) of this\n")
	fmt.Fprintf(&b, "tree (**after**) and of %s (**before**, the last commit before the lighter plugin: one plugin, with the\n", startupBaseline)
	b.WriteString("credential checks, for every catalog), each with a user cache of its own. After, `build` ships the public plugin for\n")
	b.WriteString("a catalog without an access policy and `serve` and `stdio` run it unless given `--auth`: every catalog here is public.\n\n")

	b.WriteString("| start | after | before | baseline | after ÷ baseline | target |\n|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| the Worker in workerd, the examples | %s | %s | plain Worker %s | %s (before %s) | ≤ 3× |\n",
		ms(quantile(sk, 0.5)), ms(quantile(skBefore, 0.5)), ms(quantile(plain, 0.5)), ratio(sk, plain), ratio(skBefore, plain))
	fmt.Fprintf(&b, "| `serve DIR`, %d skills (a 3 MiB file), build cached | %s | %s | TS SDK v2 server %s | %s (before %s) | ≤ 0.3× |\n", nSkills,
		ms(quantile(folder[0], 0.5)), ms(quantile(folder[1], 0.5)), ms(quantile(folder[2], 0.5)), ratio(folder[0], folder[2]), ratio(folder[1], folder[2]))
	fmt.Fprintf(&b, "| `serve OUT`, built, 1,000 skills / 10,000 files | %s | %s | TS SDK v2 server %s | %s (before %s) | ≤ 0.1× |\n",
		ms(quantile(big[0], 0.5)), ms(quantile(big[1], 0.5)), ms(quantile(big[2], 0.5)), ratio(big[0], big[2]), ratio(big[1], big[2]))
	fmt.Fprintf(&b, "| `stdio` launch, caches warm, ~10 MB catalog | %s | %s | — | — | ≤ 100 ms |\n", ms(quantile(warm[1], 0.5)), ms(quantile(warm[0], 0.5)))
	fmt.Fprintf(&b, "| first `stdio` launch, empty caches, ~10 MB catalog | %s | %s | — | — | ≤ 1.0 s |\n", ms(quantile(cold[1], 0.5)), ms(quantile(cold[0], 0.5)))
	fmt.Fprintf(&b, "| public plugin.wasm | %s | — | — | — | ≤ 3.5 MiB |\n", mibf(int64(len(afterPublic))))
	fmt.Fprintf(&b, "| full plugin.wasm (a catalog with an access policy, or `--with-auth`) | %s | %s | — | — | no bigger than before |\n",
		mibf(int64(len(afterFull))), mibf(int64(len(beforeFull))))

	b.WriteString("\n**The plugins.** Each module's bytes, its code section and its gzipped size (what counts against the Workers limit):\n\n")
	b.WriteString("| plugin.wasm | bytes | code | gzipped |\n|---|---|---|---|\n")
	for _, m := range mods {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", m.name, thousands(len(m.module)), thousands(codeSection(t, m.module)), byteSize(gzippedSize(m.module)))
	}

	fmt.Fprintf(&b, "\n**The Worker.** workerd serving the bundle `wrangler deploy --dry-run` makes of the examples (plugin.wasm %s,\n", fileSize(t, d.bundle, "*-plugin.wasm"))
	fmt.Fprintf(&b, "catalog.pack %s), one process per start; the plain Worker answers with the same bytes, held in memory, after\n", fileSize(t, d.bundle, "*-catalog.pack"))
	b.WriteString("reading the body. The Workers between them each take one more step of the skilledge Worker's start, with its\n")
	b.WriteString("parts (the SDK's browser build from build/node_modules, the bundle's plugin.wasm and catalog.pack; generated by\n")
	fmt.Fprintf(&b, "`workerStepConfigs`), and answer `{}`: the differences of the medians are the phases. %d starts each:\n\n", workerStarts)
	b.WriteString("| Worker | first answer | the step |\n|---|---|---|\n")
	names := []string{"plain Worker"}
	for _, s := range workerSteps {
		names = append(names, s.name)
	}
	names = append(names, "+ the first answer: the skilledge Worker (host.mjs, the request through `skilledge_http`)")
	for k, w := range steps {
		step := ""
		if k > 0 {
			step = delta(quantile(w, 0.5) - quantile(steps[k-1], 0.5))
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", names[k], spread(w), step)
	}
	fmt.Fprintf(&b, "| the skilledge Worker with the full plugin (`build --with-auth`) | %s | %s |\n", spread(skFull), delta(quantile(skFull, 0.5)-quantile(sk, 0.5)))
	fmt.Fprintf(&b, "| the skilledge Worker before (%s) | %s | %s |\n", startupBaseline, spread(skBefore), delta(quantile(skBefore, 0.5)-quantile(sk, 0.5)))

	fmt.Fprintf(&b, "\n**`serve`.** The after and before CLIs and the TS SDK v2 server (`tests/loadbench/ts-server.mjs`, Node %s) on the same\n", nodeVersion(t))
	fmt.Fprintf(&b, "folder: the load benchmark's catalog (the examples, a 10-byte file, a 3 MiB binary), served from the folder with its\n")
	fmt.Fprintf(&b, "build in the cache, and a generated catalog of 1,000 skills of 10 one-line files, served by skilledge as its `skilledge\n")
	fmt.Fprintf(&b, "build` wrote it (the TS server reads the folder). %d starts each:\n\n", startupStarts)
	b.WriteString("| catalog | `skilledge serve` after | before | TS SDK v2 server | after ÷ TS |\n|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| %d skills, `serve DIR` | %s | %s | %s | %s |\n", nSkills, spread(folder[0]), spread(folder[1]), spread(folder[2]), ratio(folder[0], folder[2]))
	fmt.Fprintf(&b, "| 1,000 skills, `serve OUT` | %s | %s | %s | %s |\n", spread(big[0]), spread(big[1]), spread(big[2]), ratio(big[0], big[2]))

	fmt.Fprintf(&b, "\n**`stdio`.** `skilledge stdio DIR` on the ~10 MB realistic catalog (%s, 16 skills, generated in the shape of a\n", mibf(realBytes))
	fmt.Fprintf(&b, "popular public skills repository): the first launch with a new empty HOME and XDG_CACHE_HOME (the module compiled,\n")
	fmt.Fprintf(&b, "the folder built: what a new user waits for), %d each, and a launch with both caches warm, %d each:\n\n", coldLaunches, warmLaunches)
	fmt.Fprintf(&b, "| launch | before (%s) | after | after / before |\n|---|---|---|---|\n", startupBaseline)
	fmt.Fprintf(&b, "| first, empty caches | %s | %s | %s |\n", spread(cold[0]), spread(cold[1]), ratio(cold[1], cold[0]))
	fmt.Fprintf(&b, "| again, caches warm | %s | %s | %s |\n", spread(warm[0]), spread(warm[1]), ratio(warm[1], warm[0]))

	fmt.Fprintf(&b, "\n**The harness's phases**, timed in the benchmark's process through the functions `serve` and `stdio` call; %d runs\n", phaseRuns)
	fmt.Fprintf(&b, "each (cold compilations %d). The CLI compiles the module on a goroutine of its own while it opens the catalog, so a\n", coldLaunches)
	b.WriteString("start is not the sum of its phases. First the module's, on each plugin:\n\n")
	b.WriteString("| phase |")
	for _, m := range mods {
		fmt.Fprintf(&b, " %s |", m.name)
	}
	b.WriteString("\n|---|---|---|---|\n")
	modRow := func(name string, f func(m modulePhases) string) {
		fmt.Fprintf(&b, "| %s |", name)
		for _, m := range mods {
			fmt.Fprintf(&b, " %s |", f(m.m))
		}
		b.WriteString("\n")
	}
	modRow(fmt.Sprintf("`wasm.Compile`, cold compilation cache (deadline instrumentation; wazero compiles every function on %d goroutines, writes the cache)", runtime.GOMAXPROCS(0)),
		func(m modulePhases) string { return spread(m.compileCold) })
	modRow("`wasm.Compile`, warm cache", func(m modulePhases) string { return spread(m.compileWarm) })
	modRow("≈ of it, wazero's `CompileModule` from its warm cache (decoding and validating the module, loading the machine code), timed on plugin.wasm as it is",
		func(m modulePhases) string { return spread(m.moduleWarm) })
	modRow("≈ of it, the rest: the deadline instrumentation and the runtime's set-up (the difference of the medians)",
		func(m modulePhases) string {
			return latency(quantile(m.compileWarm, 0.5) - quantile(m.moduleWarm, 0.5))
		})
	modRow("`NewPool` on a one-skill index: instantiate, `_initialize`, configure, load, fields", func(m modulePhases) string { return spread(m.poolTiny) })
	fmt.Fprintf(&b, "\nThen the catalogs', on the public plugin, and a folder's build cache key: SHA-256 of the after executable (%s), %s.\n\n", mibf(h.exeSize), spread(h.selfHash))
	b.WriteString("| phase |")
	for _, c := range startupCats {
		fmt.Fprintf(&b, " %s |", c.name)
	}
	b.WriteString("\n|---|")
	for range startupCats {
		b.WriteString("---|")
	}
	b.WriteString("\n| catalog |")
	for _, ph := range h.perCatalog {
		fmt.Fprintf(&b, " %s skills, %s files; index %s |", thousands(ph.skills), thousands(ph.files), byteSize(ph.index))
	}
	row := func(name string, f func(ph catalogPhases) string) {
		fmt.Fprintf(&b, "\n| %s |", name)
		for _, ph := range h.perCatalog {
			fmt.Fprintf(&b, " %s |", f(ph))
		}
	}
	row("loading the folder (`compile.LoadDir`: every file read and hashed, the build's fingerprint)", func(ph catalogPhases) string {
		if ph.loadDir == nil {
			return "—"
		}
		return spread(ph.loadDir)
	})
	row("reading and opening the index (`os.ReadFile`, `catalog.Open`)", func(ph catalogPhases) string { return spread(ph.open) })
	row("checking the store (`store.Dir.CheckPresent`)", func(ph catalogPhases) string { return spread(ph.check) })
	row("`NewPool`: instantiate, `_initialize`, configure, load the index, fields", func(ph catalogPhases) string { return spread(ph.pool) })
	row("the first answer to `skills/list` (`front.Server`)", func(ph catalogPhases) string { return spread(ph.first) })
	row("the next answer", func(ph catalogPhases) string { return spread(ph.next) })
	b.WriteString("\n")
	writeReport(t, "startup", b.String())
}

// codeSection is the size of module's code section (id 10), 0 if it has none.
func codeSection(t *testing.T, module []byte) int {
	i := 8 // magic and version
	for i < len(module) {
		id := module[i]
		size, n := binary.Uvarint(module[i+1:])
		if n <= 0 {
			t.Fatal("plugin.wasm: a bad section header")
		}
		i += 1 + n
		if id == 10 {
			return int(size)
		}
		i += int(size)
	}
	return 0
}

// gzippedSize is the length of data gzipped as the Workers limit measures it.
func gzippedSize(data []byte) int {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	zw.Write(data)
	zw.Close()
	return buf.Len()
}
