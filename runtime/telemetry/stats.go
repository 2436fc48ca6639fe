package telemetry

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// ReadStats reads what a deployment answered from src: a serve's metrics listener when
// src is an http or https URL (serve --metrics ADDR: http://ADDR/metrics, or http://ADDR,
// to which /metrics is added), else a JSON log (serve --log json, or an entry's
// SKILLEDGE_LOG=json lines) in the file src, "-" for stdin. A log's lines that are not
// requests are skipped; a log with none is an error.
//
// Why does `skilledge stats` read a metrics listener or a log, not Prometheus? It is the
// look without a dashboard: a serve on a laptop or a single machine has its metrics
// listener, and any host has its JSON log (the Worker's, from Logpush or wrangler tail).
// From the metrics the percentiles are read from the histogram's buckets, to within a
// bucket; from a log they are exact, and per skill too. A Prometheus server, when there is
// one, already answers these questions with its own queries.
func ReadStats(ctx context.Context, src string) (*Stats, error) {
	st := &Stats{}
	var err error
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		err = st.fromMetrics(ctx, metricsURL(src))
	} else {
		err = st.fromLog(src)
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Stats is what a deployment answered (skilledge stats): per skill, per method, and the
// whole. From metrics, percentiles are read from the histogram's buckets (to within a
// bucket); from a log, they are exact.
type Stats struct {
	source                    string
	requests, replays, errors float64
	skills                    map[string]*skillStats
	methods                   map[string]*methodStats
	exact                     bool // durations are from a log, not buckets
}

type skillStats struct {
	path              string
	reads, activation float64
	durations         []float64 // seconds, from a log
}

type methodStats struct {
	name             string
	requests, errors float64
	durations        []float64           // seconds, from a log
	buckets          map[float64]float64 // cumulative counts by upper bound, from metrics
}

func (st *Stats) skill(path string) *skillStats {
	if st.skills == nil {
		st.skills = map[string]*skillStats{}
	}
	if s := st.skills[path]; s != nil {
		return s
	}
	s := &skillStats{path: path}
	st.skills[path] = s
	return s
}

func (st *Stats) method(name string) *methodStats {
	if st.methods == nil {
		st.methods = map[string]*methodStats{}
	}
	if m := st.methods[name]; m != nil {
		return m
	}
	m := &methodStats{name: name, buckets: map[float64]float64{}}
	st.methods[name] = m
	return m
}

// fromLog reads the request lines of a JSON log (file, or "-" for stdin).
func (st *Stats) fromLog(file string) error {
	var r io.Reader = os.Stdin
	st.source, st.exact = file, true
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	} else {
		st.source = "stdin"
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	lines := 0
	for sc.Scan() {
		// The keys are Log's (fields.go); TestStats reads back what Log and Metrics write.
		var l struct {
			Msg       string  `json:"msg"`
			Duration  float64 `json:"duration_ms"`
			Method    string  `json:"mcp.method.name"`
			Read      string  `json:"skilledge.read"`
			Skill     string  `json:"skilledge.skill.path"`
			ErrorType string  `json:"error.type"`
			Replayed  bool    `json:"skilledge.replayed"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Msg != "request" {
			continue
		}
		lines++
		d := l.Duration / 1000
		st.requests++
		if l.Replayed {
			st.replays++
		}
		if l.ErrorType != "" {
			st.errors++
		}
		if l.Method != "" {
			m := st.method(l.Method)
			m.requests++
			m.durations = append(m.durations, d)
			if l.ErrorType != "" {
				m.errors++
			}
		}
		if l.Skill != "" {
			s := st.skill(l.Skill)
			s.reads++
			s.durations = append(s.durations, d)
			if l.Read == "activation" {
				s.activation++
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if lines == 0 {
		return fmt.Errorf("%s holds no request lines (serve --log json writes them, as an entry does with SKILLEDGE_LOG=json)", st.source)
	}
	return nil
}

// metricsURL is u with the path /metrics when it has none: the listener's address is
// enough (serve --metrics ADDR serves it there).
func metricsURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Path != "" && p.Path != "/" {
		return u
	}
	p.Path = "/metrics"
	return p.String()
}

// maxMetricsBytes bounds what ReadStats reads of a metrics listener: a serve's metrics are a
// fixed set of series, some kilobytes; a server that sends without end is cut off.
const maxMetricsBytes = 16 << 20

// bounded reads r up to left bytes, then fails, setting over.
type bounded struct {
	r    io.Reader
	left int64
	over bool
}

func (b *bounded) Read(p []byte) (int, error) {
	if b.left <= 0 {
		b.over = true
		return 0, errors.New("over the limit")
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

// fromMetrics reads a serve's metrics listener, at most maxMetricsBytes of it.
func (st *Stats) fromMetrics(ctx context.Context, url string) error {
	st.source = url
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("%s: %s (is it a serve's --metrics listener, http://ADDR/metrics?)", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	body := &bounded{r: resp.Body, left: maxMetricsBytes}
	fams, err := parser.TextToMetricFamilies(body)
	if body.over {
		return fmt.Errorf("%s: the metrics are over %d MiB: not a skilledge serve's metrics", url, maxMetricsBytes>>20)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	if fams[MetricRequests] == nil {
		return fmt.Errorf("%s has no %s: it is not a skilledge serve's metrics", url, MetricRequests)
	}
	label := func(m *dto.Metric, name string) string {
		for _, l := range m.GetLabel() {
			if l.GetName() == name {
				return l.GetValue()
			}
		}
		return ""
	}
	for _, m := range fams[MetricRequests].GetMetric() {
		st.requests += m.GetCounter().GetValue()
	}
	for _, m := range fams[MetricReplays].GetMetric() {
		st.replays += m.GetCounter().GetValue()
	}
	for _, m := range fams[MetricErrors].GetMetric() {
		st.errors += m.GetCounter().GetValue()
	}
	for _, m := range fams[MetricSkill].GetMetric() {
		st.skill(label(m, labelSkillPath)).reads += m.GetCounter().GetValue()
	}
	for _, m := range fams[MetricActivations].GetMetric() {
		st.skill(label(m, labelSkillPath)).activation += m.GetCounter().GetValue()
	}
	for _, m := range fams[MetricDuration].GetMetric() {
		ms := st.method(label(m, labelMethod))
		h := m.GetHistogram()
		ms.requests += float64(h.GetSampleCount())
		if label(m, labelErrorType) != "" {
			ms.errors += float64(h.GetSampleCount())
		}
		for _, b := range h.GetBucket() {
			if !math.IsInf(b.GetUpperBound(), 1) { // the count is the +Inf bucket's
				ms.buckets[b.GetUpperBound()] += float64(b.GetCumulativeCount())
			}
		}
		ms.buckets[math.Inf(1)] += float64(h.GetSampleCount())
	}
	return nil
}

// quantile is the q-quantile of m's durations, in seconds (NaN for none): exact from a log,
// from the buckets' upper bounds, interpolated within a bucket, from metrics.
func (m *methodStats) quantile(q float64) float64 {
	if len(m.durations) > 0 {
		return exactQuantile(m.durations, q)
	}
	bounds := make([]float64, 0, len(m.buckets))
	for b := range m.buckets {
		bounds = append(bounds, b)
	}
	slices.Sort(bounds)
	total := m.buckets[math.Inf(1)]
	if total == 0 {
		return math.NaN()
	}
	rank, lower, below := q*total, 0.0, 0.0
	for _, b := range bounds {
		n := m.buckets[b]
		if n >= rank {
			if math.IsInf(b, 1) {
				return lower // past the last bound: the most it can say
			}
			if n == below {
				return b
			}
			return lower + (b-lower)*(rank-below)/(n-below)
		}
		lower, below = b, n
	}
	return lower
}

func exactQuantile(d []float64, q float64) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// Print writes the tables: a line on the whole, the top skills most read (reads and
// activations, with p50 and p99 from a log), and each MCP method's requests, errors,
// error rate, p50 and p99.
func (st *Stats) Print(w io.Writer, top int) {
	fmt.Fprintf(w, "%s: %.0f requests, %.0f replayed, %.0f errors (%s)\n\n", st.source, st.requests, st.replays, st.errors, percent(st.errors, st.requests))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	skills := make([]*skillStats, 0, len(st.skills))
	for _, s := range st.skills {
		skills = append(skills, s)
	}
	slices.SortFunc(skills, func(a, b *skillStats) int {
		return cmp.Or(cmp.Compare(b.reads, a.reads), strings.Compare(a.path, b.path))
	})
	if len(skills) == 0 {
		fmt.Fprintln(w, "No skill was read.")
	} else {
		if st.exact {
			fmt.Fprintln(tw, "SKILL\tREADS\tACTIVATIONS\tP50\tP99\t")
		} else {
			fmt.Fprintln(tw, "SKILL\tREADS\tACTIVATIONS\t")
		}
		for _, s := range skills[:min(top, len(skills))] {
			if st.exact {
				fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%s\t%s\t\n", s.path, s.reads, s.activation, seconds(exactQuantile(s.durations, 0.5)), seconds(exactQuantile(s.durations, 0.99)))
			} else {
				fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t\n", s.path, s.reads, s.activation)
			}
		}
		tw.Flush()
		if len(skills) > top {
			fmt.Fprintf(w, "… and %d skills more (--top)\n", len(skills)-top)
		}
	}
	fmt.Fprintln(w)
	methods := make([]*methodStats, 0, len(st.methods))
	for _, m := range st.methods {
		methods = append(methods, m)
	}
	slices.SortFunc(methods, func(a, b *methodStats) int {
		return cmp.Or(cmp.Compare(b.requests, a.requests), strings.Compare(a.name, b.name))
	})
	if len(methods) == 0 {
		fmt.Fprintln(w, "No MCP request was answered.")
		return
	}
	fmt.Fprintln(tw, "METHOD\tREQUESTS\tERRORS\tERROR RATE\tP50\tP99\t")
	for _, m := range methods {
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%s\t%s\t%s\t\n", m.name, m.requests, m.errors, percent(m.errors, m.requests), seconds(m.quantile(0.5)), seconds(m.quantile(0.99)))
	}
	tw.Flush()
}

func percent(n, of float64) string {
	if of == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", 100*n/of)
}

// seconds is a duration in seconds for people: µs, ms or s.
func seconds(s float64) string {
	switch {
	case math.IsNaN(s):
		return "-"
	case s < 0.001:
		return fmt.Sprintf("%.0f µs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.1f ms", s*1e3)
	}
	return fmt.Sprintf("%.2f s", s)
}
