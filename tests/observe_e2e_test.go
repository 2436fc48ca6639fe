//go:build e2e

package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
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
)

// The operator's view of a deployment (DEPLOY.md, "Observe a deployment"), each checked with
// the real thing on the other end: Prometheus (Debian's package, which build/test
// installs) scraping `serve --metrics`, the OpenTelemetry Collector (tests/otelcol)
// receiving serve's OTLP, workerd running the Worker with an Analytics Engine binding,
// and the Node entry's log lines.

var metricsLine = regexp.MustCompile(`metrics at (http://\S+/metrics)`)

// observedServe starts `skilledge serve` with args and env added, and returns its MCP URL,
// its metrics URL ("" without --metrics) and its stderr so far and to come.
func observedServe(t *testing.T, env []string, args ...string) (mcp, metrics string, stderr *lockedBuffer) {
	t.Helper()
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // serve sends what OTLP holds on the way out
	stderr = new(lockedBuffer)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("serve's stderr:\n%s", stderr.String())
		}
	})
	wantMetrics := strings.Contains(strings.Join(args, " "), "--metrics")
	found := make(chan [2]string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		var got [2]string
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				got[0] = m[1]
			}
			if m := metricsLine.FindStringSubmatch(sc.Text()); m != nil {
				got[1] = m[1]
			}
			if got[0] != "" && (got[1] != "" || !wantMetrics) {
				found <- got
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case got := <-found:
		return got[0], got[1], stderr
	case <-time.After(3 * time.Minute):
		t.Fatalf("skilledge serve did not say where it serves:\n%s", stderr.String())
	}
	return "", "", nil
}

// mcpCall is one request of a known mix: a 2026-07-28 request with the routing headers it
// needs, or a legacy one.
type mcpCall struct {
	method, params string
	modern         bool
}

// body is c's body with id.
func (c mcpCall) body(id int) string {
	params := c.params
	if c.modern {
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		if params == "" {
			params = "{" + meta + "}"
		} else {
			params = strings.TrimSuffix(params, "}") + "," + meta + "}"
		}
	}
	b := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":` + strconv.Quote(c.method)
	if params != "" {
		b += `,"params":` + params
	}
	return b + "}"
}

// send posts c with id to url, with the header fields given (name, value, …), and
// returns the status.
func (c mcpCall) send(t *testing.T, u string, id int, fields ...string) int {
	t.Helper()
	req, err := http.NewRequest("POST", u, strings.NewReader(c.body(id)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.modern {
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", c.method)
		var p struct{ URI string }
		json.Unmarshal([]byte(c.params), &p)
		if c.method == "resources/read" {
			req.Header.Set("Mcp-Name", p.URI)
		}
	} else {
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	for i := 0; i+1 < len(fields); i += 2 {
		req.Header.Set(fields[i], fields[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// knownMix is the mix of requests the metrics tests send, with what each counts: the
// skill it reads and whether it is an activation.
var knownMix = []struct {
	call       mcpCall
	times      int
	skill      string
	activation bool
}{
	{mcpCall{"resources/read", `{"uri":"skill://git-workflow/SKILL.md"}`, true}, 5, "git-workflow", true},
	{mcpCall{"resources/read", `{"uri":"skill://acme/billing/refunds/policies/regions/eu.md"}`, false}, 3, "acme/billing/refunds", false},
	{mcpCall{"skills/get", `{"uri":"skill://acme/billing/refunds/SKILL.md"}`, true}, 2, "acme/billing/refunds", true},
	{mcpCall{"skills/list", ``, true}, 4, "", false},
	{mcpCall{"resources/read", `{"uri":"skill://no-such-skill/SKILL.md"}`, false}, 2, "", false},
	{mcpCall{"made/up", ``, false}, 1, "", false},
}

// freeAddr is a loopback address no one listens on, for a program that takes a port and
// not a socket.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestPrometheusScrapesServe: Prometheus scrapes `serve --metrics` while a known mix of
// requests goes to serve, and its query API then gives, per skill, the requests and
// activations sent, and the histogram's count of MCP requests.
func TestPrometheusScrapesServe(t *testing.T) {
	prom := needPrometheus(t)
	mcp, metrics, _ := observedServe(t, nil, "--metrics", "127.0.0.1:0")
	target := strings.TrimSuffix(strings.TrimPrefix(metrics, "http://"), "/metrics")
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	_, readmeYAML, _ := readmeObserve(t) // DEPLOY.md's, scraping this serve, every second
	if !strings.Contains(readmeYAML, "'127.0.0.1:9464'") {
		t.Fatalf("DEPLOY.md's Prometheus configuration does not scrape 127.0.0.1:9464:\n%s", readmeYAML)
	}
	os.WriteFile(config, []byte("global:\n  scrape_interval: 1s\n"+strings.Replace(readmeYAML, "127.0.0.1:9464", target, 1)+"\n"), 0o644)
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, prom, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	startLogged(t, cmd, cancel, "prometheus")

	want := map[string][2]int{} // skill -> requests, activations
	mcpRequests := 0
	id := 0
	for _, m := range knownMix {
		for range m.times {
			id++
			m.call.send(t, mcp, id)
			mcpRequests++
			if m.skill != "" {
				w := want[m.skill]
				w[0]++
				if m.activation {
					w[1]++
				}
				want[m.skill] = w
			}
		}
	}
	// Prometheus has the last of them once the histogram's count is all of them.
	query := func(q string) map[string]float64 {
		resp, err := http.Get("http://" + addr + "/api/v1/query?query=" + url.QueryEscape(q))
		if err != nil {
			return nil
		}
		defer resp.Body.Close()
		var r struct {
			Status string
			Data   struct {
				Result []struct {
					Metric map[string]string
					Value  [2]any
				}
			}
		}
		if json.NewDecoder(resp.Body).Decode(&r) != nil || r.Status != "success" {
			return nil
		}
		out := map[string]float64{}
		for _, s := range r.Data.Result {
			v, _ := strconv.ParseFloat(fmt.Sprint(s.Value[1]), 64)
			out[s.Metric["skill_path"]] = v
		}
		return out
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if got := query(`sum(mcp_server_operation_duration_seconds_count)`); got[""] == float64(mcpRequests) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus did not see the %d requests sent within a minute: %v", mcpRequests, query(`sum(mcp_server_operation_duration_seconds_count)`))
		}
		time.Sleep(500 * time.Millisecond)
	}
	requests := query(`sum by (skill_path) (skilledge_skill_requests_total)`)
	activations := query(`sum by (skill_path) (skilledge_skill_activations_total)`)
	for skill, w := range want {
		if requests[skill] != float64(w[0]) || activations[skill] != float64(w[1]) {
			t.Errorf("%s: Prometheus has %v requests and %v activations, %d and %d were sent", skill, requests[skill], activations[skill], w[0], w[1])
		}
	}
	if len(requests) != len(want) {
		t.Errorf("Prometheus has requests of the skills %v, the mix read %v", requests, want)
	}
	if errs := query(`sum(skilledge_errors_total)`); errs[""] != 3 {
		t.Errorf("Prometheus has %v errors, the mix sent 3 (two unknown resources, one unknown method)", errs)
	}
	if replays := query(`skilledge_replays_total`); replays[""] < 1 {
		t.Errorf("no replay counted: %v", replays)
	}
}

// otelcolBinary builds the Collector of tests/otelcol (a module of its own) once per test
// binary.
var otelcolBinary = sync.OnceValues(func() (string, error) {
	dir, err := scratchDir("skilledge-otelcol-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "otelcol")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Join(repoRoot(nil), "tests", "otelcol")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building tests/otelcol: %v\n%s", err, out)
	}
	return bin, nil
})

// startCollector runs the Collector with an OTLP/HTTP receiver on a free loopback port
// and returns its endpoint and the file it writes what it receives to, a line of OTLP
// JSON a batch.
func startCollector(t *testing.T) (endpoint, file string) {
	t.Helper()
	bin := needCollector(t)
	dir := t.TempDir()
	addr := freeAddr(t)
	file = filepath.Join(dir, "otlp.jsonl")
	config := filepath.Join(dir, "otelcol.yaml")
	os.WriteFile(config, []byte(`receivers:
  otlp:
    protocols:
      http:
        endpoint: `+addr+`
exporters:
  filejson:
    path: `+file+`
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [filejson]
    metrics:
      receivers: [otlp]
      exporters: [filejson]
`), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config=file:"+config)
	logs, exited := startLogged(t, cmd, cancel, "otelcol")
	deadline := time.Now().Add(time.Minute)
	for {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr, file
		}
		select {
		case <-exited:
			t.Fatalf("the Collector exited:\n%s", logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Collector did not listen on %s:\n%s", addr, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// otlpSpan is a span as the Collector writes it (OTLP JSON), with its resource's
// service.name.
type otlpSpan struct {
	Service      string
	TraceID      string `json:"traceId"`
	SpanID       string `json:"spanId"`
	ParentSpanID string `json:"parentSpanId"`
	Name         string `json:"name"`
	Kind         int    `json:"kind"`
	Attributes   map[string]string
	Status       struct {
		Code int `json:"code"`
	} `json:"status"`
}

// otlpValue is an OTLP JSON AnyValue.
type otlpValue struct {
	StringValue *string `json:"stringValue"`
	IntValue    *string `json:"intValue"`
	BoolValue   *bool   `json:"boolValue"`
}

func (v otlpValue) String() string {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.IntValue != nil:
		return *v.IntValue
	case v.BoolValue != nil:
		return strconv.FormatBool(*v.BoolValue)
	}
	return ""
}

type otlpAttr struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

// collected reads the Collector's file: the spans, and the names of the metrics.
func collected(file string) (spans []otlpSpan, metrics map[string]bool) {
	metrics = map[string]bool{}
	b, _ := os.ReadFile(file)
	for _, line := range bytes.Split(b, []byte("\n")) {
		var batch struct {
			ResourceSpans []struct {
				Resource   struct{ Attributes []otlpAttr }
				ScopeSpans []struct {
					Spans []struct {
						otlpSpan
						Attributes []otlpAttr `json:"attributes"`
					}
				}
			}
			ResourceMetrics []struct {
				ScopeMetrics []struct {
					Metrics []struct{ Name string }
				}
			}
		}
		if json.Unmarshal(line, &batch) != nil {
			continue
		}
		for _, rs := range batch.ResourceSpans {
			service := ""
			for _, a := range rs.Resource.Attributes {
				if a.Key == "service.name" {
					service = a.Value.String()
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					sp := s.otlpSpan
					sp.Service, sp.Attributes = service, map[string]string{}
					for _, a := range s.Attributes {
						sp.Attributes[a.Key] = a.Value.String()
					}
					spans = append(spans, sp)
				}
			}
		}
		for _, rm := range batch.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					metrics[m.Name] = true
				}
			}
		}
	}
	return spans, metrics
}

// TestOTLPSpans: serve sends a span per request to the Collector, as the OTEL_* variables
// say, named and attributed by OpenTelemetry's MCP conventions, the client's traceparent
// its parent; and the request metrics.
func TestOTLPSpans(t *testing.T) {
	endpoint, file := startCollector(t)
	mcp, _, _ := observedServe(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint, "OTEL_SERVICE_NAME=skills-under-test",
		"OTEL_BSP_SCHEDULE_DELAY=100", "OTEL_METRIC_EXPORT_INTERVAL=500", "OTEL_TRACES_SAMPLER=parentbased_always_on"})
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	read := mcpCall{"resources/read", `{"uri":"skill://git-workflow/SKILL.md"}`, true}
	read.send(t, mcp, 41, "traceparent", "00-"+traceID+"-"+parentID+"-01")
	mcpCall{"made/up", ``, false}.send(t, mcp, 42)
	mcpCall{"skills/get", `{"name":"git-workflow"}`, true}.send(t, mcp, 43)

	var spans []otlpSpan
	var metrics map[string]bool
	deadline := time.Now().Add(time.Minute)
	for {
		spans, metrics = collected(file)
		if len(spans) >= 3 && metrics["mcp.server.operation.duration"] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Collector received %d spans and the metrics %v within a minute", len(spans), metrics)
		}
		time.Sleep(200 * time.Millisecond)
	}
	byName := map[string]otlpSpan{}
	for _, s := range spans {
		byName[s.Name] = s
	}
	r, ok := byName["resources/read skill://git-workflow/SKILL.md"]
	if !ok {
		t.Fatalf("no span named %q: %+v", "resources/read skill://git-workflow/SKILL.md", spans)
	}
	if r.TraceID != traceID || r.ParentSpanID != parentID {
		t.Errorf("the read's span is of trace %s, parent %s: not the client's traceparent", r.TraceID, r.ParentSpanID)
	}
	if r.Kind != 2 || r.Service != "skills-under-test" {
		t.Errorf("the read's span is of kind %d (not 2, SERVER) and service %q", r.Kind, r.Service)
	}
	for k, v := range map[string]string{"mcp.method.name": "resources/read", "mcp.protocol.version": "2026-07-28", "jsonrpc.request.id": "41",
		"mcp.resource.uri": "skill://git-workflow/SKILL.md", "skilledge.skill.path": "git-workflow", "skilledge.skill.name": "git-workflow",
		"skilledge.read": "activation", "http.response.status_code": "200", "network.protocol.name": "http", "network.transport": "tcp"} {
		if r.Attributes[k] != v {
			t.Errorf("the read's span has %s = %q, not %q", k, r.Attributes[k], v)
		}
	}
	e, ok := byName["_OTHER"]
	if !ok {
		t.Fatalf("no span of the unknown method: %+v", spans)
	}
	if e.Attributes["rpc.response.status_code"] != "-32601" || e.Attributes["error.type"] != "-32601" || e.Status.Code != 2 {
		t.Errorf("the unknown method's span: %+v", e)
	}
	if e.TraceID == traceID {
		t.Error("a request without traceparent continued another's trace")
	}
	if g, ok := byName["skills/get git-workflow"]; !ok || g.Attributes["skilledge.read"] != "activation" {
		t.Errorf("the skills/get span: %+v", g)
	}
	for _, s := range spans {
		for k, v := range s.Attributes {
			if strings.Contains(v, "jsonrpc") || strings.Contains(k, "body") && k != "http.response.body.size" && k != "http.request.body.size" {
				t.Errorf("span %s has %s = %q", s.Name, k, v)
			}
		}
	}
}

// aePoint is a data point as workerd forwards an Analytics Engine event: JSON, its
// strings as arrays of bytes.
type aePoint struct {
	Index1                     []byte
	Blob1, Blob2, Blob3, Blob4 []byte
	Blob5, Blob6, Blob7, Blob9 []byte
	Double1, Double2, Double4  float64
}

func (p *aePoint) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	bytesOf := func(k string) []byte {
		var ints []int
		json.Unmarshal(raw[k], &ints)
		out := make([]byte, len(ints))
		for i, n := range ints {
			out[i] = byte(n)
		}
		return out
	}
	num := func(k string) float64 {
		var f float64
		json.Unmarshal(raw[k], &f)
		return f
	}
	*p = aePoint{Index1: bytesOf("index1"), Blob1: bytesOf("blob1"), Blob2: bytesOf("blob2"), Blob3: bytesOf("blob3"), Blob4: bytesOf("blob4"),
		Blob5: bytesOf("blob5"), Blob6: bytesOf("blob6"), Blob7: bytesOf("blob7"), Blob9: bytesOf("blob9"),
		Double1: num("double1"), Double2: num("double2"), Double4: num("double4")}
	return nil
}

// requestLines are the JSON request lines in a log.
func requestLines(log string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(log, "\n") {
		if i := strings.Index(line, `{"time"`); i >= 0 {
			var m map[string]any
			if json.Unmarshal([]byte(line[i:]), &m) == nil && m["msg"] == "request" {
				out = append(out, m)
			}
		}
	}
	return out
}

// TestWorkerTelemetry: the Worker in workerd, with SKILLEDGE_LOG = "json" and an Analytics
// Engine binding (workerd forwards its events to a service of the test's), logs a JSON line
// and writes a data point for every request, replays included, naming the skill and what
// of it was read.
//
// Why does the Worker test bind Analytics Engine in workerd rather than stand one in?
// workerd has the binding (behind --experimental) and forwards each data point to a
// service of the configuration as JSON, which the test serves: the Worker writes through
// the real binding, and the test reads what the runtime made of it, blobs and doubles in
// order.
func TestWorkerTelemetry(t *testing.T) {
	var mu sync.Mutex
	var points []aePoint
	ae := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		var p aePoint
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &p); err != nil {
			t.Errorf("an event that is no JSON: %q", b)
		}
		mu.Lock()
		points = append(points, p)
		mu.Unlock()
	})
	d := deployed(t)
	dir := t.TempDir()
	config, err := workerdConfig(dir, d, []string{deployedOptions(t)},
		`(name = "SKILLEDGE_ANALYTICS", analyticsEngine = "ae")`, `(name = "SKILLEDGE_LOG", text = "json")`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(config)
	os.WriteFile(config, bytes.Replace(b, []byte("  services = [\n"),
		[]byte("  services = [\n    (name = \"ae\", external = (address = \""+strings.TrimPrefix(ae, "http://")+"\", http = ())),\n"), 1), 0o644)
	p, err := startWorkerd(workerdBin(t), config, 1, "--experimental")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("workerd:\n%s", p.logs.String())
		}
	})
	mcp := p.urls[0] + "/mcp"
	read := mcpCall{"resources/read", `{"uri":"skill://git-workflow/SKILL.md"}`, true}
	deadline := time.Now().Add(time.Minute)
	for read.sendStatus(mcp, 1) != 200 { // workerd listens at once, but the Worker starts on its first request
		if time.Now().After(deadline) {
			t.Fatal("the Worker did not answer")
		}
		time.Sleep(100 * time.Millisecond)
	}
	read.send(t, mcp, 2)
	mcpCall{"made/up", ``, false}.send(t, mcp, 3)
	resp, err := http.Get(p.urls[0] + "/.well-known/agent-skills/csv-insights/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	deadline = time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := len(points)
		mu.Unlock()
		if n >= 4 && len(requestLines(p.logs.String())) >= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d data points and %d log lines, not 4 of each", n, len(requestLines(p.logs.String())))
		}
		time.Sleep(100 * time.Millisecond)
	}
	lines := requestLines(p.logs.String())
	for i, want := range []map[string]any{
		{"mcp.method.name": "resources/read", "skilledge.skill.path": "git-workflow", "skilledge.read": "activation", "http.response.status_code": 200.0},
		{"mcp.method.name": "resources/read", "skilledge.skill.path": "git-workflow", "skilledge.replayed": true},
		{"mcp.method.name": "_OTHER", "error.type": "-32601", "rpc.response.status_code": "-32601"},
		{"skilledge.route": "well-known", "skilledge.skill.path": "csv-insights", "skilledge.read": "activation", "url.path": "/.well-known/agent-skills/csv-insights/SKILL.md"},
	} {
		for k, v := range want {
			if lines[i][k] != v {
				t.Errorf("log line %d has %s = %v, not %v: %v", i, k, lines[i][k], v, lines[i])
			}
		}
	}
	// workerd forwards the points as they come, in no set order: they are compared as a set.
	mu.Lock()
	defer mu.Unlock()
	var got, want []string
	for _, p := range points {
		if string(p.Index1) != string(p.Blob1) || p.Double1 != 200 {
			t.Errorf("data point %+v: the index is not the skill, or the status not 200", p)
		}
		got = append(got, fmt.Sprintf("%s|%s|%s|%s|%v", p.Blob1, p.Blob3, p.Blob4, p.Blob6, p.Double4))
	}
	for _, w := range []string{"git-workflow|activation|resources/read||0", "git-workflow|activation|resources/read||1",
		"||_OTHER|-32601|0", "csv-insights|activation|||0"} {
		want = append(want, w)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the data points (skill|read|method|error|replayed) are\n%q\nnot\n%q", got, want)
	}
}

// sendStatus is send without a test: the status, or 0 when no answer came.
func (c mcpCall) sendStatus(u string, id int) int {
	req, _ := http.NewRequest("POST", u, strings.NewReader(c.body(id)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", c.method)
	if c.method == "resources/read" {
		var p struct{ URI string }
		json.Unmarshal([]byte(c.params), &p)
		req.Header.Set("Mcp-Name", p.URI)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// httptestServer serves h on loopback until the test ends, and returns its URL.
func httptestServer(t *testing.T, h http.HandlerFunc) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &http.Server{Handler: h}
	go s.Serve(ln)
	t.Cleanup(func() { s.Close() })
	return "http://" + ln.Addr().String()
}

// TestEntriesTelemetry: the Deno, Bun and Node entries, run by DEPLOY.md's commands with
// SKILLEDGE_LOG=json and an OTLP endpoint, write a JSON line per request, replays
// included, and send the Collector a span per request, the client's traceparent its
// parent.
func TestEntriesTelemetry(t *testing.T) {
	endpoint, file := startCollector(t)
	dir := withSDK(t, deployed(t))
	for i, rt := range jsRuntimes {
		t.Run(rt.name, func(t *testing.T) {
			command, env := loopbackCommand(t, rt)
			env = append(env, "SKILLEDGE_OPTIONS="+deployedOptions(t), "SKILLEDGE_LOG=json", "OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint,
				"OTEL_SERVICE_NAME=entry-"+rt.name)
			logs := startCommand(t, dir, command, "http://127.0.0.1:", 2*time.Minute, env...)
			base := listening.FindString(logs.String())
			if base == "" {
				t.Fatalf("no address in the output of %s:\n%s", command, logs.String())
			}
			traceID := fmt.Sprintf("%032x", 0xabc0+i)
			read := mcpCall{"resources/read", `{"uri":"skill://acme/billing/refunds/SKILL.md"}`, true}
			read.send(t, base+"/mcp", 1, "traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
			read.send(t, base+"/mcp", 2)
			mcpCall{"made/up", ``, false}.send(t, base+"/mcp", 3)
			deadline := time.Now().Add(30 * time.Second)
			var lines []map[string]any
			for {
				lines = requestLines(logs.String())
				spans, _ := collected(file)
				n := 0
				for _, s := range spans {
					if s.Service == "entry-"+rt.name {
						n++
					}
				}
				if len(lines) >= 3 && n >= 3 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d log lines and %d spans, not 3 of each:\n%s", len(lines), n, logs.String())
				}
				time.Sleep(200 * time.Millisecond)
			}
			for i, want := range []map[string]any{
				{"mcp.method.name": "resources/read", "skilledge.skill.path": "acme/billing/refunds", "skilledge.skill.name": "refunds", "skilledge.read": "activation"},
				{"mcp.method.name": "resources/read", "skilledge.skill.path": "acme/billing/refunds", "skilledge.replayed": true},
				{"mcp.method.name": "_OTHER", "error.type": "-32601"},
			} {
				for k, v := range want {
					if lines[i][k] != v {
						t.Errorf("log line %d has %s = %v, not %v: %v", i, k, lines[i][k], v, lines[i])
					}
				}
			}
			spans, _ := collected(file)
			found := false
			for _, s := range spans {
				if s.Service == "entry-"+rt.name && s.TraceID == traceID {
					found = true
					if s.ParentSpanID != "00f067aa0ba902b7" || s.Name != "resources/read skill://acme/billing/refunds/SKILL.md" || s.Kind != 2 ||
						s.Attributes["jsonrpc.request.id"] != "1" || s.Attributes["mcp.protocol.version"] != "2026-07-28" {
						t.Errorf("the traced read's span: %+v", s)
					}
				}
			}
			if !found {
				t.Errorf("no span of the trace the client started: %+v", spans)
			}
		})
	}
}

// readmeObserve returns DEPLOY.md's blocks of "Observe a deployment": the serve command,
// the Prometheus configuration, and the two stats commands.
func readmeObserve(t *testing.T) (serve, prometheusYAML string, stats []string) {
	t.Helper()
	for _, b := range docBlocks(t, "DEPLOY.md") {
		switch {
		case strings.Contains(b, "serve --metrics"):
			serve = b
		case strings.Contains(b, "job_name: skilledge"):
			prometheusYAML = b
		case strings.Contains(b, "skilledge stats") && !strings.Contains(b, "\n"):
			stats = append(stats, b)
		}
	}
	if serve == "" || prometheusYAML == "" || len(stats) != 2 {
		t.Fatalf("DEPLOY.md's \"Observe a deployment\" lacks the serve --metrics block, the Prometheus configuration or the two stats blocks: %q %q %q", serve, prometheusYAML, stats)
	}
	return serve, prometheusYAML, stats
}

// TestREADMEObserve runs DEPLOY.md's "Observe a deployment" commands as written, in a
// scratch checkout: serve with --metrics and --log json, a known mix of requests, then
// both stats commands, whose tables name the skills read and the methods asked.
func TestREADMEObserve(t *testing.T) {
	serveBlock, _, stats := readmeObserve(t)
	root := repoRoot(t)
	dir := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == ".git" || e.Name() == "dist" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	path, err := userPath()
	if err != nil {
		t.Fatal(err)
	}
	startCommand(t, dir, serveBlock, "metrics at http://127.0.0.1:9464/metrics", 5*time.Minute, path)
	id := 0
	for _, m := range knownMix {
		for range m.times {
			id++
			m.call.send(t, "http://127.0.0.1:8787/mcp", id)
		}
	}
	for _, block := range stats {
		var out []byte
		deadline := time.Now().Add(30 * time.Second)
		for {
			cmd := exec.Command("sh", "-c", block)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), path)
			out, err = cmd.CombinedOutput()
			if err == nil && strings.Contains(string(out), fmt.Sprintf("%d requests", id)) {
				break
			}
			if time.Now().After(deadline) { // the log is written as requests end
				t.Fatalf("%s: %v\n%s", block, err, out)
			}
			time.Sleep(200 * time.Millisecond)
		}
		squeezed := strings.Join(strings.Fields(string(out)), " ")
		for _, want := range []string{"git-workflow 5 5", "acme/billing/refunds 5 2", "resources/read 10 2 20.0%", "skills/list 4 0 0.0%", "_OTHER 1 1 100.0%"} {
			if !strings.Contains(squeezed, want) {
				t.Errorf("%s does not print %q:\n%s", block, want, out)
			}
		}
	}
}
