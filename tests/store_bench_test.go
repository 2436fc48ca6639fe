//go:build e2e && benchreport

package tests

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// The content store, before and after: the same measurements on the code before file
// contents left the plugin (storeBaseline, extracted from git and built here) and on this
// tree, in one run, taking the two in turn wherever a timing is compared.
//
//	go test -tags 'e2e benchreport' -run StoreReport -count=1 -timeout 30m ./tests/
//
// writes the store section of BENCHMARKS.md. Nothing here fails on a timing.

// storeBaseline is the last commit before the content store (the index and the store
// split, references across the boundary).
const storeBaseline = "de139b7"

const (
	storeLaunches = 7               // measured stdio launches per variant
	loadClients   = 16              // concurrent clients of the memory measurement
	loadTime      = 5 * time.Second // how long they read
	bigReads      = 100             // measured 3 MiB reads per server, after 10 to warm up
)

// variant is one version of skilledge under measurement.
type variant struct {
	name  string // "before", "after"
	tree  string // its source tree
	cli   string // its skilledge binary
	cache string // its user cache (XDG_CACHE_HOME): plugin.wasm, compiled code, builds
	home  string // its HOME, if not the benchmark's
}

func (v *variant) env(extra ...string) []string {
	env := append(os.Environ(), append(toolEnv, "XDG_CACHE_HOME="+v.cache)...)
	if v.home != "" {
		env = append(env, "HOME="+v.home)
	}
	return append(env, extra...)
}

// variants extracts storeBaseline, builds both CLIs and gives each its own cache.
func variants(t *testing.T) [2]*variant {
	return variantsOf(t, storeBaseline, func(t *testing.T, tree, cli string) {
		run(t, tree, nil, "go", "build", "-o", cli, "./runtime/cmd/skilledge")
	})
}

// variantsOf extracts baseline, builds the CLI of it and of this tree with build (into
// the path given) and gives each its own cache.
func variantsOf(t *testing.T, baseline string, build func(t *testing.T, tree, cli string)) [2]*variant {
	root := repoRoot(t)
	base := t.TempDir()
	before := filepath.Join(base, "before")
	if err := os.MkdirAll(before, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, root, nil, "sh", "-c", "git archive "+baseline+" | tar -x -C "+before)
	// Both trees use the Node tooling installed here (the lock did not change).
	if err := os.Symlink(filepath.Join(root, "build", "node_modules"), filepath.Join(before, "build", "node_modules")); err != nil {
		t.Fatal(err)
	}
	var vs [2]*variant
	for i, v := range []struct{ name, tree string }{{"before", before}, {"after", root}} {
		vs[i] = &variant{name: v.name, tree: v.tree, cli: filepath.Join(base, v.name+"-skilledge"), cache: filepath.Join(base, v.name+"-cache")}
		build(t, v.tree, vs[i].cli)
	}
	return vs
}

// run runs a command in dir and returns its combined output, failing t if it fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// deployVariant builds skills with v and has wrangler bundle it with v's wrangler.toml,
// in a scratch folder, and returns the deployment.
func deployVariant(t *testing.T, v *variant, skills string) *deployment {
	dir := t.TempDir()
	for _, e := range []string{"wrangler.toml", "build"} {
		if err := os.Symlink(filepath.Join(v.tree, e), filepath.Join(dir, e)); err != nil {
			t.Fatal(err)
		}
	}
	out := run(t, dir, v.env(), v.cli, "build", skills, "-o", "dist")
	out += run(t, dir, v.env(), "npx", "--prefix", "build", "wrangler", "deploy", "--dry-run", "--outdir", "dist/bundle")
	d := &deployment{dir: dir, bundle: filepath.Join(dir, "dist", "bundle"), output: out}
	if fi, err := os.Stat(filepath.Join(dir, "dist", "assets")); err == nil && fi.IsDir() {
		d.assets = filepath.Join(dir, "dist", "assets")
	}
	return d
}

// scriptSize is wrangler's own figure for the script upload, gzipped, in KiB.
func scriptSize(t *testing.T, d *deployment) float64 {
	m := wranglerTotal.FindStringSubmatch(d.output)
	if m == nil {
		t.Fatalf("no wrangler total in:\n%s", d.output)
	}
	kib, _ := strconv.ParseFloat(m[1], 64)
	return kib
}

// assetsSize counts the files under d's assets and their bytes.
func assetsSize(d *deployment) (files int, bytes int64) {
	if d.assets == "" {
		return 0, 0
	}
	filepath.WalkDir(d.assets, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			files++
			if fi, err := e.Info(); err == nil {
				bytes += fi.Size()
			}
		}
		return err
	})
	return files, bytes
}

// firstAnswer launches `stdio dir` and returns the time from the start of the process to
// the first byte of the answer to initialize.
func firstAnswer(t *testing.T, v *variant, dir string) time.Duration {
	cmd := exec.Command(v.cli, "stdio", dir)
	cmd.Env = v.env()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`+"\n")
	line, err := bufio.NewReader(stdout).ReadString('\n')
	d := time.Since(start)
	stdin.Close()
	cmd.Wait()
	if err != nil || !strings.Contains(line, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("%s stdio: %v %q", v.name, err, line)
	}
	return d
}

// startServe runs `serve dir` with the given number of instances (GOMAXPROCS, which sets
// the pool size of both versions) and returns its MCP URL and process.
func startServe(t *testing.T, v *variant, dir string, instances int) (string, *exec.Cmd) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, v.cli, "serve", dir, "--addr", "127.0.0.1:0")
	cmd.Env = v.env("GOMAXPROCS=" + strconv.Itoa(instances))
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	m := servingLine.FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("%s serve: %v %q", v.name, err, line)
	}
	go io.Copy(io.Discard, stdout)
	return m[1], cmd
}

// peakRSS is the process's peak resident set size (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no VmHWM in /proc/PID/status")
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}

// loadRequests are skills/list and a resources/read of every file of the catalog at url.
func loadRequests(t *testing.T, url string) []string {
	status, body, err := benchPost(http.DefaultClient, url, `{"jsonrpc":"2.0","id":1,"method":"skills/list"}`)
	if err != nil || status != 200 {
		t.Fatalf("skills/list: %d %v", status, err)
	}
	reqs := []string{`{"jsonrpc":"2.0","id":1,"method":"skills/list"}`}
	for _, s := range gjson.GetBytes(body, "result.skills").Array() {
		for _, r := range s.Get("resources").Array() {
			reqs = append(reqs, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":%q}}`, r.Get("uri").Str))
		}
	}
	return reqs
}

// load has loadClients clients read reqs in turn from url for loadTime, each starting at
// a different request, and returns how many answers came back (all must be 200).
func load(t *testing.T, url string, reqs []string) int64 {
	var n atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(loadTime)
	for c := range loadClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
			for i := c * len(reqs) / loadClients; time.Now().Before(deadline); i++ {
				status, _, err := benchPost(client, url, reqs[i%len(reqs)])
				if err != nil || status != 200 {
					t.Errorf("%s: %d %v", reqs[i%len(reqs)], status, err)
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return n.Load()
}

func mibf(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// TestStoreReport measures the content store's effect and writes the store section of
// BENCHMARKS.md.
func TestStoreReport(t *testing.T) {
	vs := variants(t)
	cats := t.TempDir()
	realistic := filepath.Join(cats, "realistic")
	realBytes, err := writeRealisticCatalog(realistic)
	if err != nil {
		t.Fatal(err)
	}
	incompressible := filepath.Join(cats, "incompressible")
	incBytes, err := writeIncompressibleCatalog(incompressible)
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(cats, "big")
	bigFile := make([]byte, 3<<20)
	rand.NewChaCha8([32]byte{'3', 'm'}).Read(bigFile)
	writeFile(filepath.Join(big, "big", "SKILL.md"), []byte("---\nname: big\ndescription: One 3 MiB binary.\n---\nRead data.bin.\n"))
	writeFile(filepath.Join(big, "big", "data.bin"), bigFile)
	examples := filepath.Join(repoRoot(t), "catalog", "examples", "skills")

	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (%d CPUs), %s, workerd %s. **before** is commit %s (every file inside\n",
		time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), runtime.Version(), workerdVersion(t), storeBaseline)
	b.WriteString("`catalog.pack`, which each instance and the Worker script carry); **after** is this tree (the index in\n")
	b.WriteString("`catalog.pack`, contents in `assets/sha256/`, spliced in by the host). Both are built here from source and\n")
	b.WriteString("run with their own user cache, in one run. The ~10 MB catalog is generated in the shape of a popular public\n")
	fmt.Fprintf(&b, "skills repository (16 skills, 327 files, %s: markdown, Python, XML schemas three skills share, fonts);\n", mibf(realBytes))
	fmt.Fprintf(&b, "the 12 MiB one is %s of random bytes over 5 skills, one file of 4 MiB.\n\n", mibf(incBytes))

	// Sizes: wrangler's script figure and the assets, per catalog and variant.
	b.WriteString("What `wrangler deploy --dry-run` uploads (the script, gzipped, by wrangler's own figure; the Workers limits are\n")
	b.WriteString("3 MiB on the free plan and 10 MiB on paid) and the static assets beside it:\n\n")
	b.WriteString("| catalog | before: script | after: script | after: assets |\n|---|---|---|---|\n")
	deps := map[string][2]*deployment{}
	for _, c := range []struct{ name, dir string }{{"examples (6 skills, 13 files)", examples}, {"incompressible, 12 MiB", incompressible}, {"one 3 MiB binary", big}} {
		var d [2]*deployment
		for i, v := range vs {
			d[i] = deployVariant(t, v, c.dir)
		}
		deps[c.dir] = d
		files, bytes := assetsSize(d[1])
		fmt.Fprintf(&b, "| %s | %.2f MiB | %.2f MiB | %d files, %s |\n", c.name, scriptSize(t, d[0])/1024, scriptSize(t, d[1])/1024, files, mibf(bytes))
	}

	// stdio: the first answer of a second launch on an unchanged folder.
	for _, v := range vs {
		firstAnswer(t, v, realistic) // the first launch builds (plugin, compiled code, catalog)
	}
	var launches [2][]time.Duration
	for range storeLaunches {
		for i, v := range vs {
			launches[i] = append(launches[i], firstAnswer(t, v, realistic))
		}
	}
	for i := range launches {
		slices.Sort(launches[i])
	}
	fmt.Fprintf(&b, "\n`skilledge stdio DIR` on the ~10 MB catalog, launched again on the unchanged folder (caches warm, as for\n")
	fmt.Fprintf(&b, "a desktop client's every launch): time from process start to the answer to `initialize`, median (min–max)\n")
	fmt.Fprintf(&b, "of %d launches each, the variants in turn:\n\n", storeLaunches)
	b.WriteString("| before | after | after / before |\n|---|---|---|\n")
	mb, ma := quantile(launches[0], 0.5), quantile(launches[1], 0.5)
	fmt.Fprintf(&b, "| %s (%s–%s) | %s (%s–%s) | %.2f |\n", ms(mb), ms(launches[0][0]), ms(launches[0][len(launches[0])-1]),
		ms(ma), ms(launches[1][0]), ms(launches[1][len(launches[1])-1]), float64(ma)/float64(mb))

	// Memory: serve with one instance and with eight under the same load.
	fmt.Fprintf(&b, "\n`skilledge serve DIR` on the ~10 MB catalog (a second launch: the build is reused after), %d clients reading\n", loadClients)
	fmt.Fprintf(&b, "`skills/list` and every file in turn for %v; peak RSS (VmHWM) of the process with one plugin instance\n", loadTime)
	b.WriteString("and with eight (`GOMAXPROCS`, which sets the pool size), and what each instance beyond the first costs:\n\n")
	b.WriteString("| variant | 1 instance | 8 instances | (8 − 1) / 7 | requests answered (1; 8) |\n|---|---|---|---|---|\n")
	for _, v := range vs {
		var peak [2]int64
		var answered [2]int64
		for k, n := range []int{1, 8} {
			url, cmd := startServe(t, v, realistic, n)
			reqs := loadRequests(t, url)
			answered[k] = load(t, url, reqs)
			peak[k] = peakRSS(t, cmd.Process.Pid)
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d; %d |\n", v.name, mibf(peak[0]), mibf(peak[1]), mibf((peak[1]-peak[0])/7), answered[0], answered[1])
	}

	// A 3 MiB read through serve and through the Worker in workerd.
	var urls []string
	for _, v := range vs {
		url, _ := startServe(t, v, big, 2)
		urls = append(urls, url)
	}
	for _, d := range deps[big] {
		urls = append(urls, workerdFor(t, d, deployedOptions(t))[0]+"/mcp")
	}
	read := `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"skill://big/data.bin"}}`
	_, want, err := benchPost(http.DefaultClient, urls[0], read)
	if err != nil || len(want) < 4<<20 {
		t.Fatalf("3 MiB read: %v, %d bytes", err, len(want))
	}
	l := latenciesN(t, urls, read, want, 10, bigReads)
	fmt.Fprintf(&b, "\n`resources/read` of a 3 MiB binary (a %s answer), one request at a time on one keep-alive connection\n", byteSize(len(want)))
	fmt.Fprintf(&b, "per server, the four servers in turn, %d requests each after 10 to warm up; median (p90):\n\n", bigReads)
	b.WriteString("| server | before | after |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| `skilledge serve` | %s (%s) | %s (%s) |\n", ms(quantile(l[0], 0.5)), ms(quantile(l[0], 0.9)), ms(quantile(l[1], 0.5)), ms(quantile(l[1], 0.9)))
	fmt.Fprintf(&b, "| the Worker in workerd | %s (%s) | %s (%s) |\n", ms(quantile(l[2], 0.5)), ms(quantile(l[2], 0.9)), ms(quantile(l[3], 0.5)), ms(quantile(l[3], 0.9)))
	writeReport(t, "store", b.String())
}
