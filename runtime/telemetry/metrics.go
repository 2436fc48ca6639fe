package telemetry

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/skilledge/skilledge/runtime/front"
)

// DurationBuckets are the bounds, in seconds, of the request duration histograms (the
// Prometheus one and the OTLP one).
//
// Why finer buckets than OpenTelemetry's MCP conventions advise? The conventions advise
// buckets from 10 ms to 300 s for mcp.server.operation.duration, for servers whose tools
// run for seconds. skilledge answers in tens of microseconds to a few milliseconds
// (BENCHMARKS.md): every answer would fall in the first bucket, and p50 and p99 would say
// nothing. The buckets run from 50 µs to 10 s, 17 of them.
var DurationBuckets = []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Names of the Prometheus metrics (DEPLOY.md's "Observe a deployment" lists them).
const (
	MetricDuration    = "mcp_server_operation_duration_seconds"
	MetricRequests    = "skilledge_requests_total"
	MetricSkill       = "skilledge_skill_requests_total"
	MetricActivations = "skilledge_skill_activations_total"
	MetricErrors      = "skilledge_errors_total"
	MetricReplays     = "skilledge_replays_total"
	MetricCallers     = "skilledge_caller_requests_total"
	MetricInstances   = "skilledge_plugin_instances"
	MetricMemory      = "skilledge_plugin_memory_bytes"
	MetricKeyFetches  = "skilledge_key_set_fetches_total"
)

// The labels ReadStats reads back (stats.go), named once for the writer and the reader.
const (
	labelMethod    = "mcp_method_name"
	labelSkillPath = "skill_path"
	labelErrorType = "error_type"
)

// Metrics counts every answer as Prometheus metrics, served by Handler (serve --metrics).
type Metrics struct {
	reg                                           *prometheus.Registry
	duration                                      *prometheus.HistogramVec
	requests, skill, activations, errors, callers *prometheus.CounterVec
	replays                                       prometheus.Counter
	callersOn                                     bool
	// series holds, by seriesKey, the series an answer of that kind counts in: one map
	// lookup an answer, rather than a hash of the labels per metric.
	series sync.Map // seriesKey -> *series
}

// seriesKey is what decides which series an answer counts in.
type seriesKey struct {
	route, method, version, errType, skill, read string
	status                                       int
}

// keyOf is the series r counts in: its labels, the error type only for an error.
func keyOf(r *front.Record) seriesKey {
	f := &r.Facts
	key := seriesKey{route: routeOf(r), method: f.Method, version: f.Version, skill: f.Skill, read: f.Read, status: r.Status}
	if r.Failure != "" || f.Code != 0 || r.Status >= 500 {
		key.errType = errorType(r)
	}
	return key
}

// series are the series of one seriesKey; nil for the metrics it does not count in.
type series struct {
	requests, errors, skill, activations prometheus.Counter
	duration                             prometheus.Observer
}

// Sources are the gauges Metrics reads when scraped: the plugin's instances and their
// memory (wasm.Pool.Instances, of the pool serving), and the key set fetches
// (front.KeySets.Fetches); nil leaves one out.
type Sources struct {
	Instances  func() (alive, memory int64)
	KeyFetches func() (ok, failed int64)
}

// NewMetrics returns the metrics, with Go's and the process's own; callers counts
// requests by caller (skilledge_caller_requests_total), under the auth option.
func NewMetrics(src Sources, callers bool) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		reg: reg,
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricDuration,
			Help:    "How long the server took to answer an MCP request (OpenTelemetry's mcp.server.operation.duration), by method, protocol revision and error type.",
			Buckets: DurationBuckets}, []string{labelMethod, "mcp_protocol_version", labelErrorType}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricRequests,
			Help: "HTTP requests answered, by route (mcp, well-known, page, changes, metadata, other) and status."}, []string{"route", "status"}),
		skill: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricSkill,
			Help: "Answers that read a skill, by the skill's path and name and what of it was read (activation, file, archive, directory)."}, []string{labelSkillPath, "skill_name", "read"}),
		activations: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricActivations,
			Help: "Reads of a skill's SKILL.md (resources/read, skills/get, prompts/get, load_skill, its well-known URL), by skill."}, []string{labelSkillPath, "skill_name"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricErrors,
			Help: "Answers that were errors, by error type: a JSON-RPC error code, a 5xx status, or the host's own failure (busy, instance, store, body)."}, []string{labelErrorType}),
		callers: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricCallers,
			Help: "Requests by caller (a token's sub or a static key's name, and its client_id), under the auth option."}, []string{"caller", "client_id"}),
		replays: prometheus.NewCounter(prometheus.CounterOpts{Name: MetricReplays,
			Help: "Answers given again from the replay cache, without running the plugin."}),
		callersOn: callers,
	}
	reg.MustRegister(m.duration, m.requests, m.skill, m.activations, m.errors, m.replays,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if callers {
		reg.MustRegister(m.callers)
	}
	if f := src.Instances; f != nil {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: MetricInstances, Help: "Plugin instances alive."},
			func() float64 { n, _ := f(); return float64(n) }))
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: MetricMemory, Help: "Linear memory of the plugin instances alive, in bytes."},
			func() float64 { _, b := f(); return float64(b) }))
	}
	if f := src.KeyFetches; f != nil {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: MetricKeyFetches, Help: "Fetches of the key sets the auth option names that brought a set.", ConstLabels: prometheus.Labels{"result": "ok"}},
			func() float64 { n, _ := f(); return float64(n) }))
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: MetricKeyFetches, Help: "Fetches of the key sets the auth option names that brought a set.", ConstLabels: prometheus.Labels{"result": "failed"}},
			func() float64 { _, n := f(); return float64(n) }))
	}
	return m
}

// Handler serves the metrics in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Observe counts r.
func (m *Metrics) Observe(r *front.Record) {
	key := keyOf(r)
	var s *series
	if v, ok := m.series.Load(key); ok {
		s = v.(*series)
	} else {
		s = m.newSeries(key)
	}
	s.requests.Inc()
	if s.duration != nil {
		s.duration.Observe(r.Duration.Seconds())
	}
	if s.errors != nil {
		s.errors.Inc()
	}
	if s.skill != nil {
		s.skill.Inc()
	}
	if s.activations != nil {
		s.activations.Inc()
	}
	if r.Replayed {
		m.replays.Inc()
	}
	if m.callersOn && r.Facts.Caller != "" {
		m.callers.WithLabelValues(r.Facts.Caller, r.Facts.Client).Inc()
	}
}

// newSeries makes (or finds, when another answer made it first) the series of k.
func (m *Metrics) newSeries(k seriesKey) *series {
	s := &series{requests: m.requests.WithLabelValues(k.route, statusText(k.status))}
	if k.route == "mcp" && k.method != "" {
		s.duration = m.duration.WithLabelValues(k.method, k.version, k.errType)
	}
	if k.errType != "" {
		s.errors = m.errors.WithLabelValues(k.errType)
	}
	if k.skill != "" {
		name := k.skill[strings.LastIndexByte(k.skill, '/')+1:]
		s.skill = m.skill.WithLabelValues(k.skill, name, k.read)
		if k.read == "activation" {
			s.activations = m.activations.WithLabelValues(k.skill, name)
		}
	}
	v, _ := m.series.LoadOrStore(k, s)
	return v.(*series)
}

// routeOf is the route of r: the plugin's, or "other" for a failure it did not answer.
func routeOf(r *front.Record) string {
	if r.Facts.Route == "" {
		return "other"
	}
	return r.Facts.Route
}

// statusText is a status as a label, without allocating for the common ones.
func statusText(status int) string {
	switch status {
	case 200:
		return "200"
	case 202:
		return "202"
	case 204:
		return "204"
	case 304:
		return "304"
	case 400:
		return "400"
	case 401:
		return "401"
	case 403:
		return "403"
	case 404:
		return "404"
	}
	return strconv.Itoa(status)
}
