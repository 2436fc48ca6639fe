package telemetry

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/front"
)

// Options say what Start makes: serve's --log json, --metrics and --log-callers, and the
// OTEL_* variables.
type Options struct {
	// Log, when not nil, is written a JSON line per answer (NewLog).
	Log io.Writer
	// Metrics makes the Prometheus metrics (NewMetrics), which read Sources when scraped.
	Metrics bool
	Sources Sources
	// Callers keeps the caller in the lines, the metrics and the spans.
	Callers bool
	// OTel says where the OTLP exporters send (ConfigFromEnv); the zero Config, nowhere.
	OTel Config
}

// Telemetry is what Start made: the front's Observer (nil when nothing records answers),
// the metrics (nil without Options.Metrics) and the OTLP exporters (nil when Options.OTel
// asks for none).
type Telemetry struct {
	Observer front.Observer
	Metrics  *Metrics
	OTel     *OTel
}

// Start makes the observers opt asks for, in the order Log, Metrics, OTel, told of every
// answer through one Observer.
func Start(ctx context.Context, opt Options) (*Telemetry, error) {
	t := &Telemetry{}
	var obs Observers
	if opt.Log != nil {
		obs = append(obs, NewLog(opt.Log, opt.Callers))
	}
	if opt.Metrics {
		t.Metrics = NewMetrics(opt.Sources, opt.Callers)
		obs = append(obs, t.Metrics)
	}
	otel, err := NewOTel(ctx, opt.OTel, wire.Version, opt.Callers)
	if err != nil {
		return nil, fmt.Errorf("OpenTelemetry (the OTEL_* variables): %w", err)
	}
	if otel != nil {
		t.OTel = otel
		obs = append(obs, otel)
	}
	switch len(obs) {
	case 0:
	case 1:
		t.Observer = obs[0]
	default:
		t.Observer = obs
	}
	return t, nil
}

// ServeMetrics serves the metrics at /metrics on ln, on a goroutine of its own, until the
// process ends.
func (t *Telemetry) ServeMetrics(ln net.Listener) {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", t.Metrics.Handler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
}

// Shutdown sends what the OTLP exporters hold, for at most a few seconds.
func (t *Telemetry) Shutdown() {
	if t == nil || t.OTel == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	t.OTel.Shutdown(ctx)
}

// What says what OTLP carries: "traces and metrics", "traces" or "metrics".
func (c Config) What() string {
	switch {
	case c.Traces && c.Metrics:
		return "traces and metrics"
	case c.Traces:
		return "traces"
	}
	return "metrics"
}
