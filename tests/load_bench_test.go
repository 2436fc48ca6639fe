//go:build e2e && benchreport

package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
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
	"testing"
	"time"
)

// The load benchmark: throughput and latency under concurrent clients, skilledge beside
// its floor and beside the official TypeScript SDK v2 skills server, in one run, the
// servers taken in turn.
//
//	go test -tags 'e2e benchreport' -run LoadReport -count=1 -timeout 60m ./tests/
//
// writes the load section of BENCHMARKS.md. Nothing here fails on a timing.
//
// Two groups, each on the same catalog and the same requests:
//   - native: the floor (tests/loadbench/floor: a plain net/http handler answering with
//     the bytes skilledge answers with, the request's id in place), `skilledge serve`,
//     the same with `--replays 0` (every request through the plugin), and the TS SDK v2
//     server on Node 22 (tests/loadbench/ts-server.mjs);
//   - workerd: a plain Worker answering with the same bytes, the skilledge Worker (the
//     bundle `wrangler deploy --dry-run` makes, its assets bound), and the TS SDK v2
//     server as a Worker (tests/loadbench/ts-worker.mjs), each in a workerd of its own.
//
// The load generator is a Go net/http client in this process, on the same two cores as
// the servers: every figure counts its cost too, alike for every server. Beside
// throughput, the table gives each server's own CPU time per request (from
// /proc/PID/stat), which does not depend on the client.
//
// Why is the load benchmark's client Go's `net/http`, in the benchmark's own process? When
// the load benchmark was asked for, its figures came from a client of its own, which drew
// about a quarter as many requests per second from the floor as this client draws from the
// same kind of floor on the same two cores (BENCHMARKS.md, "Why the load benchmark's
// client is Go's"). A heavier client takes more of the two cores per request, for every
// server alike, which pushes every ratio towards 1: the ratios would look better and mean
// less. The lightest client we can write makes the servers' own costs count most, so the
// ratios are the strict ones. A client in another process (an npm load generator) would
// add nothing but its cost. Each server's answers are checked, every one, against the
// bytes it gave first, whose contents were checked against skilledge's, so no server wins
// by answering something else; and every answer must be the first one's bytes with the
// request's own id in place (the floor and the plain Worker echo the id too), so that a
// server that answered every request with one stored byte string could not pass.

const (
	loadRounds  = 3               // rounds per server and case, taken in turn
	loadRound   = 3 * time.Second // measured time of one round
	loadWarm    = time.Second     // unmeasured time before the first round
	manyClients = 16              // concurrent clients of the busy case; the other has one
)

// loadCase is one request measured on every server. Its body starts with idPrefix and
// the id: every request carries an id of its own, as a client's do.
type loadCase struct {
	name, method, uri string
	rest              string // the body after the id
	// spread are the files the case's reads spread over, one picked by each request's id
	// (spreadAt), its uri and rest ignored: reads no cache has seen lately (coldCase).
	spread []string
}

// idPrefix starts every request body, and every skilledge answer; the id follows it.
const idPrefix = `{"jsonrpc":"2.0","id":`

// firstID is the id of the request whose answer each server's later answers must repeat,
// with their own ids; distinct enough to occur once in an answer.
const firstID = 424242

// loadMeta is the _meta of every request: a 2026-07-28 client's.
const loadMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// read is the body of a resources/read of uri after the id.
func read(uri string) string {
	return `,"method":"resources/read","params":{"uri":"` + uri + `",` + loadMeta + `}}`
}

func loadCases() []loadCase {
	return []loadCase{
		{name: "small read (10 B file)", method: "resources/read", uri: "skill://tiny/ten.txt", rest: read("skill://tiny/ten.txt")},
		{name: "skills/list", method: "skills/list", rest: `,"method":"skills/list","params":{` + loadMeta + `}}`},
		{name: "3 MiB read", method: "resources/read", uri: "skill://big/data.bin", rest: read("skill://big/data.bin")},
	}
}

// body appends the body of c with id to dst.
func (c loadCase) body(dst []byte, id int64) []byte {
	dst = append(dst, idPrefix...)
	dst = strconv.AppendInt(dst, id, 10)
	if len(c.spread) > 0 {
		return append(dst, read(c.uriAt(id))...)
	}
	return append(dst, c.rest...)
}

// uriAt is the URI the request with id reads: c.uri, or for a spread case the file of
// c.spread that id picks, by a mix of its bits (SplitMix64's finalizer), so that the
// clients' ids, which count up, read the files in no order a cache could follow.
func (c loadCase) uriAt(id int64) string {
	if len(c.spread) == 0 {
		return c.uri
	}
	z := uint64(id) + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return c.spread[(z^z>>31)%uint64(len(c.spread))]
}

// key is the name of the answer that the request with id must repeat: the case's, or for
// a spread case the file's.
func (c loadCase) key(id int64) string {
	if len(c.spread) == 0 {
		return c.name
	}
	return c.name + " " + c.uriAt(id)
}

// answer is a server's first answer split around the id it echoes, which every later
// answer must repeat with its own id.
type answer struct{ before, after []byte }

// splitAnswer splits b, the answer to a request with firstID, around the id.
func splitAnswer(b []byte) (answer, bool) {
	echo := []byte(`"id":` + strconv.Itoa(firstID))
	i := bytes.Index(b, echo)
	if i < 0 || bytes.Count(b, echo) != 1 {
		return answer{}, false
	}
	at := i + len(`"id":`)
	return answer{b[:at], b[at+len(echo)-len(`"id":`):]}, true
}

// is reports whether b is a with id in place.
func (a answer) is(b []byte, id int64) bool {
	n := len(b) - len(a.before) - len(a.after)
	var room [20]byte
	return n > 0 && bytes.HasPrefix(b, a.before) && bytes.HasSuffix(b, a.after) &&
		bytes.Equal(b[len(a.before):len(a.before)+n], strconv.AppendInt(room[:0], id, 10))
}

// loadServer is one server under load: its MCP URL, its process (for CPU time) and its
// answer to each case, which every answer under load must repeat byte for byte.
type loadServer struct {
	name    string
	url     string
	pid     int
	answers map[string]answer
	fields  []string // header fields every request carries (name, value, …): a credential
}

// expect asks srv every case once and keeps its answers, which must be 200, echo the id
// once and carry the same contents as want's (the file's bytes, the skills' URIs).
func (srv *loadServer) expect(t *testing.T, want map[string][]byte) {
	srv.answers = map[string]answer{}
	for _, c := range loadCases() {
		status, body, err := c.post(http.DefaultClient, srv.url, firstID, srv.fields...)
		a, ok := splitAnswer(body)
		if err != nil || status != 200 || !ok || !sameContents(body, want[c.name]) {
			t.Fatalf("%s, %s: %d %v %.300s", srv.name, c.name, status, err, body)
		}
		srv.answers[c.name] = a
	}
}

// post sends c with id to url as a 2026-07-28 client does, with the header fields given
// (name, value, …).
func (c loadCase) post(client *http.Client, url string, id int64, fields ...string) (int, []byte, error) {
	req, err := c.request(url, id, fields...)
	if err != nil {
		return 0, nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// request is the request post sends.
func (c loadCase) request(url string, id int64, fields ...string) (*http.Request, error) {
	req, err := http.NewRequest("POST", url, bytes.NewReader(c.body(nil, id)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", c.method)
	if uri := c.uriAt(id); uri != "" {
		req.Header.Set("Mcp-Name", uri)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		req.Header.Set(fields[i], fields[i+1])
	}
	return req, nil
}

// loadResult is a server's figures for one case and one number of clients.
type loadResult struct {
	requests int
	elapsed  time.Duration
	lat      []time.Duration
	cpu      time.Duration // the server process's CPU time over the measured rounds
}

func (r *loadResult) rps() float64 { return float64(r.requests) / r.elapsed.Seconds() }

// q is the p-quantile of r's latencies (percentile: it sorts them in place), so that no
// report can give a quantile of samples in the order they came, as one once did.
func (r *loadResult) q(p float64) time.Duration { return percentile(r.lat, p) }

// cpuTime is the user and system CPU time of process pid so far.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100 // clock ticks; 100 per second on Linux
}

// measure runs clients concurrent clients sending c to srv for d, and adds what it saw
// to r. Every answer must be 200 and want.
func measure(t *testing.T, srv loadServer, c loadCase, clients int, d time.Duration, r *loadResult) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	cpu0 := cpuTime(srv.pid)
	start := time.Now()
	deadline := start.Add(d)
	var failure error
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
			defer client.CloseIdleConnections()
			var lat []time.Duration
			id := int64(i+1) * 1e9 // ids of its own, counting up
			for time.Now().Before(deadline) {
				id++
				t0 := time.Now()
				status, body, err := c.post(client, srv.url, id, srv.fields...)
				want := srv.answers[c.key(id)]
				if err == nil && (status != 200 || !want.is(body, id)) {
					err = fmt.Errorf("%s: status %d, %d bytes, not the %d expected with id %d", srv.name, status, len(body), len(want.before)+len(want.after), id)
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
	r.cpu += cpuTime(srv.pid) - cpu0
	if failure != nil {
		t.Fatal(failure)
	}
}

// loadTable measures every case of cases at each number of clients on the servers of a
// group, in turn, and writes the table; the first server is the floor the ratios refer to.
func loadTable(t *testing.T, b *strings.Builder, servers []loadServer, cases []loadCase, clientCounts ...int) {
	fmt.Fprintf(b, "| request | clients | %s |\n|---|---|", strings.Join(names(servers), " | "))
	for range servers {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, c := range cases {
		for _, clients := range clientCounts {
			results := make([]loadResult, len(servers))
			for _, srv := range servers { // warm up
				measure(t, srv, c, clients, loadWarm, &loadResult{})
			}
			for range loadRounds {
				for i, srv := range servers {
					measure(t, srv, c, clients, loadRound, &results[i])
				}
			}
			fmt.Fprintf(b, "| %s | %d |", c.name, clients)
			floor := results[0].rps()
			for i := range results {
				r := &results[i]
				cpu := ""
				if r.requests > 0 && r.cpu > 0 {
					cpu = fmt.Sprintf(", %s CPU", us(r.cpu/time.Duration(r.requests)))
				}
				ratio := ""
				if i > 0 {
					ratio = fmt.Sprintf(" (%.2f×)", r.rps()/floor)
				}
				fmt.Fprintf(b, " %.0f rps%s; p50 %s, p99 %s%s |", r.rps(), ratio, latency(r.q(0.5)), latency(r.q(0.99)), cpu)
			}
			b.WriteString("\n")
			t.Logf("%s, %d clients: %s", c.name, clients, b.String()[strings.LastIndexByte(strings.TrimSuffix(b.String(), "\n"), '\n')+1:])
		}
	}
}

func names(servers []loadServer) []string {
	var out []string
	for _, s := range servers {
		out = append(out, s.name)
	}
	return out
}

func latency(d time.Duration) string {
	if d >= time.Millisecond {
		return ms(d)
	}
	return us(d)
}

// startProcess starts a server command, waits for the line matching ready on its output
// and returns the first submatch and the process; it is stopped when the test ends.
func startProcess(t *testing.T, name string, cmd *exec.Cmd, ready *regexp.Regexp) (string, *exec.Cmd) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := ready.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case s := <-found:
		return s, cmd
	case <-time.After(3 * time.Minute):
		t.Fatalf("%s did not say it was ready", name)
	}
	return "", nil
}

// TestLoadReport measures both groups and writes the load section of BENCHMARKS.md.
func TestLoadReport(t *testing.T) {
	root := repoRoot(t)
	skills := loadCatalog(t)
	bin := t.TempDir()
	cli, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	run(t, root, nil, "go", "build", "-o", filepath.Join(bin, "floor"), "./tests/loadbench/floor")

	// skilledge serve on the built catalog; its answers are the ones every server must give.
	out := filepath.Join(t.TempDir(), "out")
	run(t, root, nil, cli, "build", skills, "-o", out)
	addr, serveCmd := startProcess(t, "skilledge serve", exec.Command(cli, "serve", out, "--addr", "127.0.0.1:0"), servingLine)
	sk := loadServer{name: "`skilledge serve`", url: addr, pid: serveCmd.Process.Pid}
	answers := map[string][]byte{}
	answerDir := t.TempDir()
	for _, c := range loadCases() {
		status, body, err := c.post(http.DefaultClient, sk.url, firstID)
		if err != nil || status != 200 {
			t.Fatalf("%s: %d %v %s", c.name, status, err, body)
		}
		answers[c.name] = body
		if err := os.WriteFile(filepath.Join(answerDir, answerName(c.method, c.uri)), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	floorURL, floorCmd := startProcess(t, "floor", exec.Command(filepath.Join(bin, "floor"), "127.0.0.1:0", answerDir), regexp.MustCompile(`listening on (http://\S+)`))
	floor := loadServer{name: "net/http floor", url: floorURL + "/mcp", pid: floorCmd.Process.Pid}
	// The same server running the plugin for every request: what the replays save.
	addr, plainCmd := startProcess(t, "skilledge serve --replays 0", exec.Command(cli, "serve", out, "--addr", "127.0.0.1:0", "--replays", "0"), servingLine)
	skPlugin := loadServer{name: "`serve --replays 0`", url: addr, pid: plainCmd.Process.Pid}
	tsURL, tsCmd := startProcess(t, "TS SDK v2 server", tsServerCmd(t, skills), regexp.MustCompile(`listening on (http://\S+/mcp)`))
	ts := loadServer{name: "TS SDK v2 server (Node 22)", url: tsURL, pid: tsCmd.Process.Pid}
	for _, srv := range []*loadServer{&sk, &floor, &skPlugin, &ts} {
		srv.expect(t, answers)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (%d CPUs), %s, Node %s, workerd %s. %d clients or one, each on a keep-alive\n",
		time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), runtime.Version(), nodeVersion(t), workerdVersion(t), manyClients)
	fmt.Fprintf(&b, "connection, in a Go net/http client in the benchmark's process on the same cores; every case is %d rounds of %v per\n", loadRounds, loadRound)
	fmt.Fprintf(&b, "server, the servers in turn, after %v of warm-up each. Requests are 2026-07-28 (stateless) MCP, each with an id of its\n", loadWarm)
	b.WriteString("own (every answer is checked: the first answer's bytes with that id). Each cell: requests per second (× the floor),\n")
	b.WriteString("p50 and p99 latency, and the server process's own CPU time per request. `serve` answers a request that repeats one\n")
	b.WriteString("but for its id from its replays; `serve --replays 0` runs the plugin for every request.\n\n")
	b.WriteString("Native:\n\n")
	loadTable(t, &b, []loadServer{floor, sk, skPlugin, ts}, loadCases(), 1, manyClients)

	// The Workers, each in a workerd of its own.
	keyed := map[string][]byte{}
	for _, c := range loadCases() {
		keyed[c.method+" "+c.uri] = answers[c.name]
	}
	plain, skw := loadWorkers(t, skills, keyed)
	tsw := workerdServer(t, "TS SDK v2 Worker", tsWorkerConfig(t, skills))
	for _, srv := range []*loadServer{&plain, &skw, &tsw} {
		srv.expect(t, answers)
	}
	b.WriteString("\nWorkers, in workerd:\n\n")
	loadTable(t, &b, []loadServer{plain, skw, tsw}, loadCases(), 1, manyClients)
	writeReport(t, "load", b.String())
}

// answerName is the floor's file name for a request (tests/loadbench/floor.AnswerName).
func answerName(method, name string) string { return fileSafe.Replace(method + "__" + name) }

var fileSafe = strings.NewReplacer("/", "_", ":", "_")

// workerdServer starts workerd with config (one Worker on socket http0) and returns it.
func workerdServer(t *testing.T, name, config string) loadServer {
	p, err := startWorkerd(workerdBin(t), config, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	srv := loadServer{name: name, url: p.urls[0] + "/mcp", pid: p.pid}
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(p.urls[0] + "/")
		if err == nil {
			resp.Body.Close()
			return srv
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer: %v\n%s", name, err, p.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// loadWorkers starts, each in a workerd of its own, the plain Worker answering with answers
// (plainAnswersWorker) and the skilledge Worker deployed from the skills folder, its
// objects in its assets (--pack never): workerd alone has no R2, where a catalog past the
// free plan's asset count keeps its objects (DEPLOY.md, "Large catalogs").
func loadWorkers(t *testing.T, skills string, answers map[string][]byte) (plain, skw loadServer) {
	d, err := deployFolderWith(skills, "--pack never")
	if err != nil {
		t.Fatal(err)
	}
	plainConfig, err := plainAnswersWorker(t.TempDir(), answers)
	if err != nil {
		t.Fatal(err)
	}
	skConfig, err := workerdConfig(t.TempDir(), d, []string{deployedOptions(t)})
	if err != nil {
		t.Fatal(err)
	}
	return workerdServer(t, "plain Worker", plainConfig), workerdServer(t, "skilledge Worker", skConfig)
}

// plainAnswersWorker writes a workerd configuration for a Worker that reads the request
// body and answers with the bytes of answers for the request's Mcp-Method and Mcp-Name
// (keyed "METHOD NAME"), the request's id in place of firstID: the floor of that runtime.
func plainAnswersWorker(dir string, answers map[string][]byte) (string, error) {
	var js strings.Builder
	js.WriteString("const enc = new TextEncoder();\nconst answers = new Map([\n")
	for _, key := range slices.Sorted(maps.Keys(answers)) {
		a, ok := splitAnswer(answers[key])
		if !ok {
			return "", fmt.Errorf("%s: the answer does not echo id %d once", key, firstID)
		}
		before, _ := json.Marshal(string(a.before)) // a JSON string is a JavaScript string
		after, _ := json.Marshal(string(a.after))
		fmt.Fprintf(&js, "  [%q, [enc.encode(%s), enc.encode(%s)]],\n", key, before, after)
	}
	fmt.Fprintf(&js, "]);\nconst idAt = %d;\n", len(idPrefix))
	js.WriteString(`export default {
  async fetch(request) {
    const body = new Uint8Array(await request.arrayBuffer());
    const key = request.headers.get("Mcp-Method") + " " + (request.headers.get("Mcp-Name") ?? "");
    const parts = answers.get(key);
    if (!parts) return new Response("not found", { status: 404 });
    let end = idAt; // the id: the digits after the body's fixed start
    while (end < body.length && body[end] >= 48 && body[end] <= 57) end++;
    const [before, after] = parts;
    const out = new Uint8Array(before.length + end - idAt + after.length);
    out.set(before);
    out.set(body.subarray(idAt, end), before.length);
    out.set(after, before.length + end - idAt);
    return new Response(out, { headers: { "Content-Type": "application/json" } });
  },
};
`)
	if err := os.WriteFile(filepath.Join(dir, "plain.js"), []byte(js.String()), 0o644); err != nil {
		return "", err
	}
	return writeWorkerdConfig(filepath.Join(dir, "plain.capnp"), []string{`(name = "plain.js", esModule = embed "plain.js")`}, []string{""}, "")
}

// sameContents reports whether two resources/read or skills/list answers carry the same
// contents: the TS server's JSON differs from skilledge's in members and order, but the
// file bytes (text or base64 blob) or the skill URIs must be the same.
func sameContents(got, want []byte) bool {
	var g, w struct {
		Result struct {
			Contents []struct{ Text, Blob string }
			Skills   []struct{ URI string }
		}
	}
	if json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil {
		return false
	}
	if len(w.Result.Contents) > 0 {
		return len(g.Result.Contents) == 1 && g.Result.Contents[0] == w.Result.Contents[0]
	}
	var gu, wu []string
	for _, s := range g.Result.Skills {
		gu = append(gu, s.URI)
	}
	for _, s := range w.Result.Skills {
		wu = append(wu, s.URI)
	}
	slices.Sort(gu)
	slices.Sort(wu)
	return slices.Equal(gu, wu)
}

func nodeVersion(t *testing.T) string {
	out, err := exec.Command(nodeBin(t), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
}

// tsServerCmd is the TS SDK v2 server on Node 22 serving skills on a free loopback port.
func tsServerCmd(t *testing.T, skills string) *exec.Cmd {
	return exec.Command(nodeBin(t), filepath.Join(repoRoot(t), "tests", "loadbench", "ts-server.mjs"), skills, "0")
}

// tsWorkerConfig bundles the TS SDK v2 Worker for skills (embed-skills.mjs, then
// wrangler deploy --dry-run) and writes a workerd configuration serving it on socket
// http0.
func tsWorkerConfig(t *testing.T, skills string) string {
	dir := filepath.Join(repoRoot(t), "tests", "loadbench")
	out := t.TempDir()
	run(t, dir, nil, nodeBin(t), "embed-skills.mjs", skills, "ts-worker-skills.mjs")
	wrangler := filepath.Join(repoRoot(t), "build", "node_modules", "wrangler", "bin", "wrangler.js")
	run(t, dir, append(os.Environ(), "WRANGLER_SEND_METRICS=false", "CI=1"), nodeBin(t), wrangler,
		"deploy", "--dry-run", "--config", "wrangler.ts-worker.toml", "--outdir", out)
	config, err := writeWorkerdConfig(filepath.Join(out, "ts-worker.capnp"), []string{`(name = "ts-worker.js", esModule = embed "ts-worker.js")`}, []string{""}, "")
	if err != nil {
		t.Fatal(err)
	}
	return config
}
