//go:build e2e && benchreport

package tests

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The load benchmark with telemetry on: `skilledge serve` as it is by default, beside the
// same with its Prometheus metrics on, and with spans sampled at 1% sent over OTLP to the
// OpenTelemetry Collector (tests/otelcol), and again with --replays 0, where every request
// runs the plugin and asks it for its facts. The same cases, clients and rounds as the
// load benchmark (load_bench_test.go), the servers in turn.
//
//	go test -tags 'e2e benchreport' -run TelemetryReport -count=1 -timeout 60m ./tests/
//
// writes the telemetry section of BENCHMARKS.md. Nothing here fails on a timing.

// TestTelemetryReport measures and writes the telemetry section of BENCHMARKS.md.
func TestTelemetryReport(t *testing.T) {
	root := repoRoot(t)
	skills := loadCatalog(t)
	cli, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	run(t, root, nil, cli, "build", skills, "-o", out)
	endpoint, _ := startCollector(t)
	otel := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint, "OTEL_TRACES_SAMPLER=parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG=0.01"}
	start := func(name string, env []string, args ...string) loadServer {
		cmd := exec.Command(cli, append([]string{"serve", out, "--addr", "127.0.0.1:0"}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		addr, c := startProcess(t, name, cmd, servingLine)
		return loadServer{name: name, url: addr, pid: c.Process.Pid}
	}
	off := start("`serve`", nil)
	metrics := start("`serve --metrics`", nil, "--metrics", "127.0.0.1:0")
	traces := start("`serve`, traces at 1%", otel)
	offPlugin := start("`serve --replays 0`", nil, "--replays", "0")
	metricsPlugin := start("`--replays 0 --metrics`", nil, "--replays", "0", "--metrics", "127.0.0.1:0")
	tracesPlugin := start("`--replays 0`, traces at 1%", otel, "--replays", "0")
	answers := map[string][]byte{}
	for _, c := range loadCases() {
		status, body, err := c.post(http.DefaultClient, off.url, firstID)
		if err != nil || status != 200 {
			t.Fatalf("%s: %d %v %s", c.name, status, err, body)
		}
		answers[c.name] = body
	}
	servers := []*loadServer{&off, &metrics, &traces, &offPlugin, &metricsPlugin, &tracesPlugin}
	for _, srv := range servers {
		srv.expect(t, answers)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (%d CPUs), %s. The load benchmark's cases, clients and rounds (%d rounds of %v per server, the\n",
		time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), runtime.Version(), loadRounds, loadRound)
	b.WriteString("servers in turn), each ratio against `serve` as it is by default, with nothing recorded: `--metrics` counts every answer\n")
	b.WriteString("for Prometheus (nobody scrapes during the run); traces at 1% sample one request in a hundred\n")
	b.WriteString("(`OTEL_TRACES_SAMPLER=parentbased_traceidratio`, `_ARG=0.01`) and send the spans, and the OTLP metrics, to the\n")
	b.WriteString("OpenTelemetry Collector of `tests/otelcol` on the same cores. With `--replays 0` every request runs the plugin,\n")
	b.WriteString("which is then also asked for the answer's facts; those ratios are against `serve --replays 0`.\n\n")
	loadTable(t, &b, []loadServer{off, metrics, traces}, loadCases(), 1, manyClients)
	b.WriteString("\n")
	loadTable(t, &b, []loadServer{offPlugin, metricsPlugin, tracesPlugin}, loadCases(), 1, manyClients)
	writeReport(t, "telemetry", b.String())
}
