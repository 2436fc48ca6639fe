package telemetry

import (
	"bytes"
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/front"
	"github.com/skilledge/skilledge/runtime/internal/require"
)

// statsRecords are the answers both sources are made of: four reads of one skill (three
// activations), one of another, an unknown method.
func statsRecords() []*front.Record {
	var out []*front.Record
	add := func(ms int, f wire.Facts) {
		out = append(out, &front.Record{Request: httptest.NewRequest("POST", "/mcp", nil), Start: time.Unix(1_900_000_000, 0),
			Duration: time.Duration(ms) * time.Millisecond, Status: 200, Facts: f})
	}
	read := func(skill, what string) wire.Facts {
		return wire.Facts{Route: "mcp", Method: "resources/read", Version: "2026-07-28", Read: what, Skill: skill}
	}
	add(1, read("acme/deploy", "activation"))
	add(2, read("acme/deploy", "activation"))
	add(3, read("acme/deploy", "activation"))
	add(4, read("acme/deploy", "file"))
	add(8, read("notes", "activation"))
	add(20, wire.Facts{Route: "mcp", Method: "_OTHER", Code: -32601})
	return out
}

// TestStats: the same answers, written by Log and Metrics and read back from a JSON log
// and from a metrics listener, give the same counts; percentiles exactly from the log, to
// within a bucket from the metrics.
func TestStats(t *testing.T) {
	var log bytes.Buffer
	l := NewLog(&log, true)
	m := NewMetrics(Sources{}, true)
	for _, r := range statsRecords() {
		l.Observe(r)
		m.Observe(r)
	}
	log.WriteString("skilledge: a line that is not a request\n")
	file := filepath.Join(t.TempDir(), "requests.log")
	require.NoError(t, os.WriteFile(file, log.Bytes(), 0o644))
	ts := httptest.NewServer(m.Handler())
	defer ts.Close()
	for _, c := range []struct {
		src  string
		want []string
	}{
		{file, []string{"6 requests, 0 replayed, 1 errors (16.7%)", "acme/deploy      4            3  3.0 ms  4.0 ms", "notes      1            1  8.0 ms  8.0 ms",
			"resources/read         5       0        0.0%  3.0 ms   8.0 ms", "_OTHER         1       1      100.0%  20.0 ms  20.0 ms"}},
		{ts.URL + "/metrics", []string{"6 requests, 0 replayed, 1 errors (16.7%)", "acme/deploy      4            3", "notes      1            1",
			"resources/read         5       0        0.0%  3.1 ms  9.8 ms", "_OTHER         1       1      100.0%  17.5 ms  24.9 ms"}},
	} {
		st, err := ReadStats(context.Background(), c.src)
		require.NoError(t, err)
		var out bytes.Buffer
		st.Print(&out, 10)
		squeezed := strings.Join(strings.Fields(out.String()), " ")
		for _, w := range c.want {
			if !strings.Contains(squeezed, strings.Join(strings.Fields(w), " ")) {
				t.Errorf("stats %s lacks %q:\n%s", c.src, w, out.String())
			}
		}
	}
	empty := filepath.Join(t.TempDir(), "empty.log")
	os.WriteFile(empty, []byte("skilledge: serving\n"), 0o644)
	_, err := ReadStats(context.Background(), empty)
	require.Equal(t, true, err != nil && strings.Contains(err.Error(), "holds no request lines"), err)
}

func TestStatsQuantile(t *testing.T) {
	m := &methodStats{buckets: map[float64]float64{0.001: 10, 0.01: 90, math.Inf(1): 100}}
	for _, c := range []struct{ q, want float64 }{{0.05, 0.0005}, {0.5, 0.001 + 0.009*40/80}, {0.9, 0.01}, {0.99, 0.01}} {
		if got := m.quantile(c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
}

// TestStatsBounded: a metrics listener that sends without end is cut off at
// maxMetricsBytes, with an error that says so.
func TestStatsBounded(t *testing.T) {
	line := []byte(strings.Repeat("# a comment, which a parser passes over\n", 1000))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for sent := 0; sent <= maxMetricsBytes+len(line); sent += len(line) {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	}))
	defer ts.Close()
	_, err := ReadStats(context.Background(), ts.URL+"/metrics")
	if err == nil || !strings.Contains(err.Error(), "the metrics are over 16 MiB") {
		t.Fatalf("stats of an endless body: %v", err)
	}
}

// TestMetricsURL: ReadStats adds /metrics to a listener's bare address, and leaves any
// other path as given.
func TestMetricsURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:9090":         "http://127.0.0.1:9090/metrics",
		"http://127.0.0.1:9090/":        "http://127.0.0.1:9090/metrics",
		"http://127.0.0.1:9090/metrics": "http://127.0.0.1:9090/metrics",
		"http://127.0.0.1:9090/other":   "http://127.0.0.1:9090/other",
	} {
		if got := metricsURL(in); got != want {
			t.Errorf("metricsURL(%s) = %s, want %s", in, got, want)
		}
	}
}
