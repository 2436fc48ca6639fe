package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/front"
	"github.com/skilledge/skilledge/runtime/telemetry"
)

// observeFlags are serve's flags of what it tells an operator: --metrics, --log,
// --log-callers; and the OTEL_* variables, read from the environment.
type observeFlags struct {
	metrics string // --metrics ADDR
	log     logFormat
	callers bool
}

func (o *observeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.metrics, "metrics", "", "serve Prometheus metrics at http://`ADDR`/metrics, a listener of its own (off by default; loopback only, unless --public)")
	o.log = "text"
	fs.Var(&o.log, "log", "`FORMAT` of the log on stderr: text (start-up lines and errors), or json (those as JSON lines, and a JSON line per request, as log/slog writes them)")
	fs.BoolVar(&o.callers, "log-callers", true, "with --auth, name the caller (a token's sub and client_id, a static key's name) and its address in the log, the metrics and the spans; false leaves them out")
}

// logFormat is --log: text or json.
type logFormat string

func (l *logFormat) String() string { return string(*l) }

func (l *logFormat) Set(v string) error {
	if v != "text" && v != "json" {
		return errors.New("give text or json")
	}
	*l = logFormat(v)
	return nil
}

// observing is what serve tells of every answer: the front's Observer (nil for nothing),
// the metrics listener (nil for none), and what to stop at the end.
type observing struct {
	observer front.Observer
	metrics  *telemetry.Metrics
	otel     *telemetry.OTel
	otelCfg  telemetry.Config
}

// start makes what the flags and the environment ask for; logs are the request lines'
// writer (stderr). srv and keys are read by the metrics when scraped.
func (o *observeFlags) start(ctx context.Context, logs io.Writer, srv func() *front.Server, keys *front.KeySets) (*observing, error) {
	var obs telemetry.Observers
	ob := &observing{otelCfg: telemetry.ConfigFromEnv(os.Getenv)}
	if o.log == "json" {
		obs = append(obs, telemetry.NewLog(logs, o.callers))
	}
	if o.metrics != "" {
		src := telemetry.Sources{Instances: func() (int64, int64) {
			if s := srv(); s != nil && s.Pool() != nil {
				return s.Pool().Instances()
			}
			return 0, 0
		}}
		if keys != nil {
			src.KeyFetches = keys.Fetches
		}
		ob.metrics = telemetry.NewMetrics(src, o.callers)
		obs = append(obs, ob.metrics)
	}
	otel, err := telemetry.NewOTel(ctx, ob.otelCfg, wire.Version, o.callers)
	if err != nil {
		return nil, fmt.Errorf("OpenTelemetry (the OTEL_* variables): %w", err)
	}
	if otel != nil {
		ob.otel = otel
		obs = append(obs, otel)
	}
	switch len(obs) {
	case 0:
	case 1:
		ob.observer = obs[0]
	default:
		ob.observer = obs
	}
	return ob, nil
}

// serveMetrics serves the metrics on ln until ctx ends.
func (ob *observing) serveMetrics(ln net.Listener) {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", ob.metrics.Handler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
}

// stop sends what the OTLP exporters hold, for at most a few seconds.
func (ob *observing) stop() {
	if ob == nil || ob.otel == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ob.otel.Shutdown(ctx)
}

// otelWhat says what OTLP carries: "traces and metrics", "traces" or "metrics".
func otelWhat(c telemetry.Config) string {
	switch {
	case c.Traces && c.Metrics:
		return "traces and metrics"
	case c.Traces:
		return "traces"
	}
	return "metrics"
}
