//go:build e2e && benchreport

package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The search at scale: catalogs of 10,000 and 50,000 generated skills (writeScaleCatalog),
// built, served and searched; beside the same catalogs built by the commit before the
// search index (searchBaseline, from source in the same run), for what the index adds to
// catalog.pack and to the build's time; and beside skills/get by name on the same server,
// for what a search costs. Each search is a query no request asked before (three words of
// the catalogs' vocabulary, picked by the request's id), each skills/get a name picked the
// same way, so nothing is answered from what a server kept. Server-side times are serve's
// own (its JSON log's duration_ms); the Worker's are measured in workerd against its
// skills/get too.
//
//	go test -tags 'e2e benchreport' -run SearchScaleReport -count=1 -timeout 60m ./tests/
//
// writes the search-scale section of BENCHMARKS.md. Nothing here fails on a timing.
// SKILLEDGE_SEARCH_SCALES (sizes, space-separated) measures others instead, the first of
// them in workerd too: a quick look at a change.

// searchBaseline is the commit before the search index (370b44f added it).
const searchBaseline = "1cf5f68"

// searchScales are the catalog sizes measured; searchWorkerd the one served in workerd too.
var searchScales = []int{10000, 50000}

const searchWorkerd = 10000

// searchRound is how long each measured round lasts; searchRounds how many a server and
// case get, in turn.
const (
	searchRound  = 2 * time.Second
	searchRounds = 3
)

// searchCase is a kind of request: its method, and its body for a request id.
type searchCase struct {
	name, method string
	body         func(id int64) string
}

// scaleWord is the k-th word of the catalogs' vocabulary, all four lists in one.
func scaleWord(k uint64) string {
	all := [][]string{scaleDomains, scaleActions, scaleObjects}
	n := uint64(0)
	for _, l := range all {
		n += uint64(len(l))
	}
	k %= n
	for _, l := range all {
		if k < uint64(len(l)) {
			return l[k]
		}
		k -= uint64(len(l))
	}
	return ""
}

// mix is SplitMix64's finalizer: ids that count up, mixed into no order a cache follows.
func mix(id int64) uint64 {
	z := uint64(id) + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func searchCases(names []string) []searchCase {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	return []searchCase{
		{"skills/get by name", "skills/get", func(id int64) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"skills/get","params":{"name":%q,%s}}`, id, names[mix(id)%uint64(len(names))], meta)
		}},
		{"search, a new query each time", "skills/list", func(id int64) string {
			z := mix(id)
			q := scaleWord(z) + " " + scaleWord(z>>16) + " " + scaleWord(z>>32)
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"skills/list","params":{"query":%q,"limit":10,%s}}`, id, q, meta)
		}},
		{"search, three of the commonest words", "skills/list", func(id int64) string {
			// The worst case: words most skills hold, so that the query reads nearly every
			// posting of three terms; a number no skill holds makes each query new.
			z := mix(id)
			q := fmt.Sprintf("n%d %s %s %s", z%1e9, commonWords[z>>32%8], commonWords[8+z>>40%8], commonWords[16+z>>48%8])
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"skills/list","params":{"query":%q,"limit":10,%s}}`, id, q, meta)
		}},
	}
}

// commonWords are 24 words of scaleProse that are not stop words, from its front (the
// commonest): three of them are in most skills of a generated catalog.
var commonWords = strings.Fields("skill user asks files project before after each step check output write read run command errors result value options config default new existing changes")

// searchResult is what a round saw: requests answered, in what time, and each one's
// latency at the client.
type searchResult struct {
	requests int
	elapsed  time.Duration
	lat      []time.Duration
}

// searchLoad sends c from clients concurrent clients to the MCP URL url for d, each
// answer checked (200, a result), and adds what it saw to r.
func searchLoad(t *testing.T, url string, c searchCase, clients int, d time.Duration, r *searchResult) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var failure error
	start := time.Now()
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
			defer client.CloseIdleConnections()
			id := int64(i+1)*1e9 + time.Now().UnixNano()%1e8*10 // ids no round used before
			var lat []time.Duration
			for time.Since(start) < d {
				id++
				req, _ := http.NewRequest("POST", url, strings.NewReader(c.body(id)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("MCP-Protocol-Version", "2026-07-28")
				req.Header.Set("Mcp-Method", c.method)
				t0 := time.Now()
				resp, err := client.Do(req)
				var body []byte
				if err == nil {
					body, err = io.ReadAll(resp.Body)
					resp.Body.Close()
					if err == nil && (resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"result":{`))) {
						err = fmt.Errorf("%s: %d %.300s", c.name, resp.StatusCode, body)
					}
				}
				if err != nil {
					mu.Lock()
					failure = err
					mu.Unlock()
					return
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			r.lat = append(r.lat, lat...)
			r.requests += len(lat)
			mu.Unlock()
		}()
	}
	wg.Wait()
	r.elapsed += time.Since(start)
	if failure != nil {
		t.Fatal(failure)
	}
}

func (r *searchResult) rps() float64 { return float64(r.requests) / r.elapsed.Seconds() }

// percentile is the p-quantile of lat, which it sorts in place.
func percentile(lat []time.Duration, p float64) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	slices.Sort(lat)
	return lat[min(len(lat)-1, int(p*float64(len(lat))))]
}

// serverTimes reads serve's JSON log lines from the file at path, from offset on, and
// returns the duration of each answer to method.
func serverTimes(t *testing.T, path string, offset int64, method string) []time.Duration {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Seek(offset, io.SeekStart)
	var out []time.Duration
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct {
			Method   string  `json:"mcp.method.name"`
			Duration float64 `json:"duration_ms"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Method == method {
			out = append(out, time.Duration(rec.Duration*float64(time.Millisecond)))
		}
	}
	return out
}

func sizeOf(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// scaleBuild is a catalog built for the benchmark: its catalog.pack, how long the build
// took and the most memory it held (peak resident set). A catalog `skilledge build` refuses
// for the Workers (an object over the asset limit: the edge at scale is issue 42's) is
// built by `serve DIR` into its build cache instead (viaServe): then the time is serve's
// until it serves, and the memory serve's peak by then, plugin instances included.
type scaleBuild struct {
	pack     string
	took     time.Duration
	peak     int64
	viaServe bool
	serve    *exec.Cmd // with viaServe, serving: its MCP URL is url
	url      string
}

// buildScale builds skills with cli (run in dir), as `build -o`, or, refused for the
// Workers, as `serve DIR` with serveFlags, left serving with its stderr on log (nil: the
// test's).
func buildScale(t *testing.T, dir, cli, skills string, log *os.File, serveFlags ...string) scaleBuild {
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(cli, "build", skills, "-o", out)
	cmd.Dir = dir
	start := time.Now()
	b, err := cmd.CombinedOutput()
	if err == nil {
		return scaleBuild{pack: filepath.Join(out, "catalog.pack"), took: time.Since(start), peak: cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10}
	}
	if !bytes.Contains(b, []byte("the most a Workers static asset may be")) {
		t.Fatalf("%s build: %v\n%s", cli, err, b)
	}
	cache := t.TempDir()
	cmd = exec.Command(cli, append([]string{"serve", skills}, serveFlags...)...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "XDG_CACHE_HOME="+cache)
	if log != nil {
		cmd.Stderr = log
	}
	start = time.Now()
	url, cmd := startProcess(t, "skilledge serve DIR", cmd, servingLine)
	took := time.Since(start)
	packs, _ := filepath.Glob(filepath.Join(cache, "skilledge", "catalogs", "*", "index-*.pack"))
	if len(packs) != 1 {
		t.Fatalf("serve DIR left %v in its build cache", packs)
	}
	return scaleBuild{pack: packs[0], took: took, peak: peakRSS(t, cmd.Process.Pid), viaServe: true, serve: cmd, url: url}
}

// cliAt builds the CLI of the commit ref from source, in a worktree, into bin.
func cliAt(t *testing.T, root, bin, ref string) (cli, src string) {
	src = filepath.Join(t.TempDir(), "src")
	run(t, root, nil, "git", "worktree", "add", "--detach", src, ref)
	t.Cleanup(func() { exec.Command("git", "-C", root, "worktree", "remove", "--force", src).Run() })
	cli = filepath.Join(bin, "skilledge-"+ref)
	run(t, src, nil, "go", "build", "-o", cli, "./runtime/cmd/skilledge")
	return cli, src
}

// scrape reads one gauge's value from a Prometheus text page.
func scrape(t *testing.T, url, metric string) float64 {
	for _, line := range strings.Split(string(get(t, url)), "\n") {
		if v, ok := strings.CutPrefix(line, metric+" "); ok {
			f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f
		}
	}
	t.Fatalf("%s has no %s", url, metric)
	return 0
}

// TestSearchScaleReport measures the search at scale and writes its section.
func TestSearchScaleReport(t *testing.T) {
	root := repoRoot(t)
	cli, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	scales, inWorkerd := searchScales, searchWorkerd
	if env := strings.Fields(os.Getenv("SKILLEDGE_SEARCH_SCALES")); len(env) > 0 {
		scales = nil
		for _, f := range env {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				t.Fatalf("SKILLEDGE_SEARCH_SCALES: %q is not a number of skills", f)
			}
			scales = append(scales, n)
		}
		inWorkerd = scales[0]
	}
	bin := t.TempDir()
	beforeCLI, beforeSrc := cliAt(t, root, bin, searchBaseline)

	var sizes, speed strings.Builder
	sizes.WriteString("| skills | catalog.pack | before the index | the index adds | build | before the index | the index adds | peak build memory | first search after start | plugin memory, one instance |\n|---|---|---|---|---|---|---|---|---|---|\n")
	speed.WriteString("| skills | server | clients | skills/get by name | search, a new query each time | search ÷ skills/get | search, three of the commonest words | ÷ skills/get |\n|---|---|---|---|---|---|---|---|\n")
	var workerdSkills string
	var workerdNames []string
	viaServe := false
	for _, n := range scales {
		skills := filepath.Join(t.TempDir(), "skills")
		if err := writeScaleCatalog(skills, n); err != nil {
			t.Fatal(err)
		}
		logPath := filepath.Join(t.TempDir(), "serve.log")
		logFile, err := os.Create(logPath)
		if err != nil {
			t.Fatal(err)
		}
		defer logFile.Close()
		metrics := "127.0.0.1:" + strconv.Itoa(freePort(t))
		serveFlags := []string{"--addr", "127.0.0.1:0", "--log", "json", "--metrics", metrics}
		built := buildScale(t, root, cli, skills, logFile, serveFlags...)
		before := buildScale(t, beforeSrc, beforeCLI, skills, nil, "--addr", "127.0.0.1:0")
		if !built.viaServe && !before.viaServe {
			// Two more builds of each, in turn, and the median of three: a build's time
			// varies by more than the index adds.
			took, tookBefore := []time.Duration{built.took}, []time.Duration{before.took}
			for range 2 {
				took = append(took, buildScale(t, root, cli, skills, nil).took)
				tookBefore = append(tookBefore, buildScale(t, beforeSrc, beforeCLI, skills, nil).took)
			}
			slices.Sort(took)
			slices.Sort(tookBefore)
			built.took, before.took = took[1], tookBefore[1]
		}
		if before.serve != nil {
			before.serve.Process.Kill()
			before.serve.Wait()
		}
		pack, packBefore := sizeOf(built.pack), sizeOf(before.pack)
		addr, cmd := built.url, built.serve
		if !built.viaServe {
			serve := exec.Command(cli, append([]string{"serve", filepath.Dir(built.pack)}, serveFlags...)...)
			serve.Stderr = logFile
			addr, cmd = startProcess(t, "skilledge serve", serve, servingLine)
		}
		first := searchCases([]string{"x"})[1]
		req, _ := http.NewRequest("POST", addr, strings.NewReader(first.body(1)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "skills/list")
		t0 := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("the first search: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		firstSearch := time.Since(t0)
		t.Logf("%d skills: built in %.1fs (before the index %.1fs), first search %s", n, built.took.Seconds(), before.took.Seconds(), latency(firstSearch))
		via := ""
		if built.viaServe {
			via, viaServe = " ¹", true
		}
		instances := scrape(t, "http://"+metrics+"/metrics", "skilledge_plugin_instances")
		memory := scrape(t, "http://"+metrics+"/metrics", "skilledge_plugin_memory_bytes")
		fmt.Fprintf(&sizes, "| %d | %s | %s | %+.0f%% | %.1f s | %.1f s | %+.0f%% | %s | %s | %s |\n", n,
			mib(pack), mib(packBefore), 100*float64(pack-packBefore)/float64(packBefore),
			built.took.Seconds(), before.took.Seconds(), 100*(built.took.Seconds()-before.took.Seconds())/before.took.Seconds(),
			mib(built.peak)+via, latency(firstSearch), mib(int64(memory/max(instances, 1))))

		var names []string
		entries, _ := os.ReadDir(skills)
		for _, e := range entries {
			names = append(names, e.Name())
		}
		cases := searchCases(names)
		for _, clients := range []int{1, 16} {
			res := make([]searchResult, len(cases))
			var server [3][]time.Duration
			for _, c := range cases {
				searchLoad(t, addr, c, clients, time.Second, &searchResult{}) // warm up
			}
			for range searchRounds {
				for i, c := range cases {
					at := sizeOf(logPath)
					searchLoad(t, addr, c, clients, searchRound, &res[i])
					time.Sleep(100 * time.Millisecond) // the log lines of the round are written
					server[i] = append(server[i], serverTimes(t, logPath, at, c.method)...)
				}
			}
			cell := func(i int) string {
				return fmt.Sprintf("%.0f rps; server p50 %s, p99 %s", res[i].rps(), latency(percentile(server[i], 0.5)), latency(percentile(server[i], 0.99)))
			}
			fmt.Fprintf(&speed, "| %d | `skilledge serve` | %d | %s | %s | %.2f× | %s | %.2f× |\n", n, clients, cell(0), cell(1), res[1].rps()/res[0].rps(), cell(2), res[2].rps()/res[0].rps())
		}
		cmd.Process.Kill()
		cmd.Wait()
		if n == inWorkerd {
			workerdSkills, workerdNames = skills, names
		}
	}

	// The Worker in workerd, at one scale: the same two requests, timed at the client.
	d, err := deployFolder(workerdSkills)
	if err != nil {
		t.Fatal(err)
	}
	worker := workerdFor(t, d, "")[0] + "/mcp"
	cases := searchCases(workerdNames)
	for _, clients := range []int{1, 16} {
		res := make([]searchResult, len(cases))
		for _, c := range cases {
			searchLoad(t, worker, c, clients, time.Second, &searchResult{})
		}
		for range searchRounds {
			for i, c := range cases {
				searchLoad(t, worker, c, clients, searchRound, &res[i])
			}
		}
		cell := func(i int) string {
			return fmt.Sprintf("%.0f rps; client p50 %s, p99 %s", res[i].rps(), latency(percentile(res[i].lat, 0.5)), latency(percentile(res[i].lat, 0.99)))
		}
		fmt.Fprintf(&speed, "| %d | the Worker, in workerd | %d | %s | %s | %.2f× | %s | %.2f× |\n", inWorkerd, clients, cell(0), cell(1), res[1].rps()/res[0].rps(), cell(2), res[2].rps()/res[0].rps())
	}

	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (%d CPUs), go%s: catalogs of generated skills (`writeScaleCatalog`: a SKILL.md each, shaped like real skills' text), each built by `skilledge build` and by the commit before the search index (%s, from source, in the same run; the median of three builds of each, in turn), then served by `skilledge serve` (with `--log json`, whose `duration_ms` are the server-side times) and searched with %s rounds of %s per request kind, in turn.\n\n",
		time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), strings.TrimPrefix(runtime.Version(), "go"), searchBaseline, strconv.Itoa(searchRounds), searchRound)
	b.WriteString(sizes.String())
	if viaServe {
		b.WriteString("\n¹ `skilledge build` refuses this catalog for the Workers (objects over the 25 MiB asset limit: the edge at this size is issue 42's), so it is built by `serve DIR` into its build cache: the build's time is serve's until it serves (the plugin's compilation, which runs beside the build, and the pool's start included), its memory serve's peak by then.\n")
	}
	b.WriteString("\n")
	b.WriteString(speed.String())
	writeReport(t, "search-scale", b.String())
}

// mib writes a byte count in MiB, one decimal.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
