package main

import (
	"errors"
	"flag"
	"io"
	"os"

	"github.com/skilledge/skilledge/runtime/telemetry"
)

// observeFlags are serve's flags of what it tells an operator: --metrics, --log,
// --log-callers; and the OTEL_* variables, read from the environment.
type observeFlags struct {
	metrics string // --metrics ADDR
	log     logFormat
	callers bool
	otel    telemetry.Config // read by options
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

// lines is the writer of serve's own lines (start-up, errors) given the requests' lines'
// writer: with --log json, each as a JSON line among the requests'.
func (o *observeFlags) lines(logs io.Writer) io.Writer {
	if o.log == "json" {
		return telemetry.NewLines(logs)
	}
	return logs
}

// options are what the flags and the environment ask telemetry.Start for; logs are the
// request lines' writer (stderr), src what the metrics read when scraped.
func (o *observeFlags) options(logs io.Writer, src telemetry.Sources) telemetry.Options {
	o.otel = telemetry.ConfigFromEnv(os.Getenv)
	opt := telemetry.Options{Metrics: o.metrics != "", Sources: src, Callers: o.callers, OTel: o.otel}
	if o.log == "json" {
		opt.Log = logs
	}
	return opt
}
