//go:build e2e && benchreport

package tests

import (
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
	"strings"
	"testing"
	"time"
)

// The Worker in workerd, measured against the floor of that runtime: a plain Worker that
// answers the same requests with the same bytes, without the plugin.
//
//	go test -tags 'e2e benchreport' -run WorkerdReport -count=1 ./tests/
//
// writes the workerd section of BENCHMARKS.md. Nothing here fails on a timing.

const (
	benchStarts   = 7    // process starts per Worker, for the time to the first response
	benchWarmup   = 200  // requests before measuring, per Worker and request
	benchRequests = 2000 // measured requests, one at a time on one connection
)

// benchCase is one request measured on every server.
type benchCase struct {
	name, body string
}

var benchCases = []benchCase{
	{"skills/list", `{"jsonrpc":"2.0","id":1,"method":"skills/list"}`},
	{"resources/read skill://git-workflow/SKILL.md", `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"skill://git-workflow/SKILL.md"}}`},
}

// benchPost sends one MCP request and returns the status and body.
func benchPost(client *http.Client, url, body string) (int, []byte, error) {
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// plainWorker writes a workerd configuration for a Worker that reads the request body and
// answers with answers[i] for the first benchCases[i] whose method the body names: the
// work any Worker does for these requests, and nothing of the plugin's.
func plainWorker(dir string, answers [][]byte) (string, error) {
	var js strings.Builder
	js.WriteString("const answers = [\n")
	for i, c := range benchCases {
		method := strings.SplitN(c.name, " ", 2)[0]
		text, _ := json.Marshal(string(answers[i])) // a JSON string is a JavaScript string
		fmt.Fprintf(&js, "  [%q, new TextEncoder().encode(%s)],\n", `"`+method+`"`, text)
	}
	js.WriteString(`];
export default {
  async fetch(request) {
    const body = await request.text();
    const [, bytes] = answers.find(([m]) => body.includes(m)) ?? answers[0];
    return new Response(bytes, { headers: { "Content-Type": "application/json" } });
  },
};
`)
	if err := os.WriteFile(filepath.Join(dir, "plain.js"), []byte(js.String()), 0o644); err != nil {
		return "", err
	}
	return writeWorkerdConfig(filepath.Join(dir, "plain.capnp"), []string{`(name = "plain.js", esModule = embed "plain.js")`}, []string{""}, "")
}

// workerAnswers is the answer of the Worker at url to each of benchCases, which must be 200.
func workerAnswers(t *testing.T, url string) [][]byte {
	answers := make([][]byte, len(benchCases))
	for i, c := range benchCases {
		status, body, err := benchPost(http.DefaultClient, url, c.body)
		if err != nil || status != 200 {
			t.Fatalf("%s: %d %v %s", c.name, status, err, body)
		}
		answers[i] = body
	}
	return answers
}

// timeToFirst starts workerd with config n times and returns the times from process start
// to the first 200 answer to benchCases[0], sorted.
func timeToFirst(t *testing.T, config string, n int) []time.Duration {
	var out []time.Duration
	for range n {
		p, err := startWorkerd(workerdBin(t), config, 1)
		if err != nil {
			t.Fatal(err)
		}
		client := &http.Client{Timeout: time.Minute}
		for {
			status, body, err := benchPost(client, p.urls[0]+"/mcp", benchCases[0].body)
			if err == nil && status == 200 {
				out = append(out, time.Since(p.started))
				break
			}
			if time.Since(p.started) > time.Minute {
				p.stop()
				t.Fatalf("no 200 within a minute: %d %v %s\n%s", status, err, body, p.logs.String())
			}
			time.Sleep(time.Millisecond)
		}
		p.stop()
	}
	slices.Sort(out)
	return out
}

// latencies sends each of urls the same request, benchWarmup times and then benchRequests
// times measured, one request at a time on one keep-alive connection per URL, taking the
// URLs in turn so that whatever else the machine does weighs on all of them alike. It
// checks every answer is want and returns each URL's measured latencies, sorted.
func latencies(t *testing.T, urls []string, body string, want []byte) [][]time.Duration {
	return latenciesN(t, urls, body, want, benchWarmup, benchRequests)
}

// latenciesN is latencies with warmup and n requests.
func latenciesN(t *testing.T, urls []string, body string, want []byte, warmup, n int) [][]time.Duration {
	clients := make([]*http.Client, len(urls))
	out := make([][]time.Duration, len(urls))
	for k := range urls {
		clients[k] = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
		out[k] = make([]time.Duration, 0, n)
	}
	for i := range warmup + n {
		for k, url := range urls {
			start := time.Now()
			status, got, err := benchPost(clients[k], url, body)
			d := time.Since(start)
			if err != nil || status != 200 || !bytes.Equal(got, want) {
				t.Fatalf("%s: %d %v\n%s", url, status, err, got)
			}
			if i >= warmup {
				out[k] = append(out[k], d)
			}
		}
	}
	for _, d := range out {
		slices.Sort(d)
	}
	return out
}

func quantile(d []time.Duration, q float64) time.Duration { return d[int(q*float64(len(d)-1))] }

func ms(d time.Duration) string {
	if d >= 10*time.Millisecond {
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.1f ms", float64(d)/1e6)
}

func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/1e3) }

// TestWorkerdReport measures the Worker in workerd next to the plain Worker, and
// `skilledge serve` on the same requests for reference, and writes the workerd section of
// BENCHMARKS.md.
func TestWorkerdReport(t *testing.T) {
	d := deployed(t)
	dir := t.TempDir()
	skilledgeConfig, err := workerdConfig(dir, d, []string{deployedOptions(t)})
	if err != nil {
		t.Fatal(err)
	}
	// The plain Worker's answers are the skilledge Worker's, byte for byte.
	w := workerd(t, deployedOptions(t))[0] + "/mcp"
	answers := workerAnswers(t, w)
	plainConfig, err := plainWorker(dir, answers)
	if err != nil {
		t.Fatal(err)
	}
	plainURL := func() string {
		p, err := startWorkerd(workerdBin(t), plainConfig, 1)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.stop)
		return p.urls[0] + "/mcp"
	}()
	local := serve(t)

	firstSk := timeToFirst(t, skilledgeConfig, benchStarts)
	firstPlain := timeToFirst(t, plainConfig, benchStarts)

	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (%d CPUs), workerd %s (from build/package-lock.json), %s. Both Workers\n",
		time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), workerdVersion(t), runtime.Version())
	b.WriteString("run in one workerd process each, from the bundle `wrangler deploy --dry-run` writes for the\n")
	b.WriteString("example catalog; the plain Worker answers the same requests with the same bytes, held in\n")
	b.WriteString("memory, after reading the request body: the floor of that runtime.\n\n")
	fmt.Fprintf(&b, "Time from process start to the first 200 answer to `skills/list` (the sockets listen before\n")
	fmt.Fprintf(&b, "workerd starts; the first request also creates the plugin instance and loads the pack),\n")
	fmt.Fprintf(&b, "median (min–max) of %d starts:\n\n", benchStarts)
	b.WriteString("| Worker | time to first response |\n|---|---|\n")
	fmt.Fprintf(&b, "| skilledge (plugin.wasm %s, catalog.pack %s) | %s (%s–%s) |\n", fileSize(t, d.bundle, "*-plugin.wasm"), fileSize(t, d.bundle, "*-catalog.pack"),
		ms(quantile(firstSk, 0.5)), ms(firstSk[0]), ms(firstSk[len(firstSk)-1]))
	fmt.Fprintf(&b, "| plain | %s (%s–%s) |\n\n", ms(quantile(firstPlain, 0.5)), ms(firstPlain[0]), ms(firstPlain[len(firstPlain)-1]))
	fmt.Fprintf(&b, "Latency over loopback, one request at a time on one keep-alive connection per server, the\n")
	fmt.Fprintf(&b, "servers taken in turn, %d requests each after %d to warm up; median (p90). `skilledge serve`\n", benchRequests, benchWarmup)
	b.WriteString("(the wazero harness) answers the same requests for reference.\n\n")
	b.WriteString("| request | response | skilledge Worker | plain Worker | skilledge − plain | skilledge serve |\n|---|---|---|---|---|---|\n")
	for i, c := range benchCases {
		l := latencies(t, []string{w, plainURL, local}, c.body, answers[i])
		sk, pl, sv := l[0], l[1], l[2]
		fmt.Fprintf(&b, "| `%s` | %s | %s (%s) | %s (%s) | %s | %s (%s) |\n", c.name, byteSize(len(answers[i])),
			us(quantile(sk, 0.5)), us(quantile(sk, 0.9)), us(quantile(pl, 0.5)), us(quantile(pl, 0.9)),
			us(quantile(sk, 0.5)-quantile(pl, 0.5)), us(quantile(sv, 0.5)), us(quantile(sv, 0.9)))
	}
	writeReport(t, "workerd", b.String())
}

func fileSize(t *testing.T, dir, glob string) string {
	fi, err := os.Stat(bundleFile(t, dir, glob))
	if err != nil {
		t.Fatal(err)
	}
	return byteSize(int(fi.Size()))
}

// bundleFile is the one file in dir that matches glob (wrangler names a bundle's modules
// by their hash: "*-plugin.wasm").
func bundleFile(t *testing.T, dir, glob string) string {
	m, _ := filepath.Glob(filepath.Join(dir, glob))
	if len(m) != 1 {
		t.Fatalf("%s in %s: %v", glob, dir, m)
	}
	return m[0]
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func workerdVersion(t *testing.T) string {
	out, err := exec.Command(workerdBin(t), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "workerd ")
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// writeReport replaces the named section of BENCHMARKS.md (between its start and end
// markers; appended if missing) with text.
func writeReport(t *testing.T, name, text string) {
	path := filepath.Join(repoRoot(t), "BENCHMARKS.md")
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	start, end := "<!-- "+name+":start -->\n", "<!-- "+name+":end -->"
	doc := string(old)
	i, j := strings.Index(doc, start), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("BENCHMARKS.md has no %q … %q section", start, end)
	}
	doc = doc[:i+len(start)] + text + doc[j:]
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote the %s section of BENCHMARKS.md:\n%s", name, text)
}
