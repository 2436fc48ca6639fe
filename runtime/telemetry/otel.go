package telemetry

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/skilledge/skilledge/runtime/front"
)

// OTel sends a span per request and the request metrics over OTLP/HTTP (protobuf), where
// the standard variables say: OTEL_EXPORTER_OTLP_ENDPOINT (or the _TRACES_ and _METRICS_
// ones), OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES,
// OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (default parentbased_always_on),
// OTEL_TRACES_EXPORTER or OTEL_METRICS_EXPORTER "none" to send none of one, and
// OTEL_SDK_DISABLED=true to send nothing.
type OTel struct {
	tp      *sdktrace.TracerProvider // nil: no traces
	mp      *sdkmetric.MeterProvider // nil: no metrics
	tracer  trace.Tracer
	prop    propagation.TraceContext
	callers bool

	duration              metric.Float64Histogram
	requests, skill, acts metric.Int64Counter
	// sets holds, by seriesKey, the attribute sets an answer of that kind is recorded
	// with, made once: an attribute set sorts and copies its attributes.
	sets sync.Map // seriesKey -> *otelSets
}

// otelSets are the attributes of one seriesKey's measurements (nil: not measured).
type otelSets struct {
	requests, duration, skill, acts metric.MeasurementOption
}

// Config says where OTel sends, as read from the environment (ConfigFromEnv).
type Config struct {
	Traces, Metrics bool
	// Where names the endpoint, for the line serve prints.
	Where string
}

// ConfigFromEnv reads what the OTEL_* variables ask for; the zero Config sends nothing.
func ConfigFromEnv(getenv func(string) string) Config {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return Config{}
	}
	base := getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	c := Config{
		Traces:  (base != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "") && !strings.EqualFold(getenv("OTEL_TRACES_EXPORTER"), "none"),
		Metrics: (base != "" || getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != "") && !strings.EqualFold(getenv("OTEL_METRICS_EXPORTER"), "none"),
		Where:   base,
	}
	if c.Where == "" {
		c.Where = getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") + " " + getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
	}
	c.Where = strings.TrimSpace(c.Where)
	return c
}

// NewOTel starts the exporters cfg asks for, as the service version given; nil for a
// Config that asks for none. Shutdown sends what is left.
func NewOTel(ctx context.Context, cfg Config, version string, callers bool) (*OTel, error) {
	if !cfg.Traces && !cfg.Metrics {
		return nil, nil
	}
	res, err := resource.New(ctx, resource.WithFromEnv(), resource.WithTelemetrySDK(),
		resource.WithAttributes(semconv.ServiceName(serviceName()), semconv.ServiceVersion(version)))
	if err != nil {
		return nil, err
	}
	o := &OTel{callers: callers}
	if cfg.Traces {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, err
		}
		o.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)) // the sampler of OTEL_TRACES_SAMPLER
		o.tracer = o.tp.Tracer("github.com/skilledge/skilledge")
	}
	if cfg.Metrics {
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, errors.Join(err, o.Shutdown(ctx))
		}
		o.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
		m := o.mp.Meter("github.com/skilledge/skilledge")
		o.duration, err = m.Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"),
			metric.WithDescription("How long the server took to answer an MCP request."), metric.WithExplicitBucketBoundaries(DurationBuckets...))
		if err == nil {
			o.requests, err = m.Int64Counter("skilledge.requests", metric.WithDescription("HTTP requests answered, by route and status."))
		}
		if err == nil {
			o.skill, err = m.Int64Counter("skilledge.skill.requests", metric.WithDescription("Answers that read a skill, by skill and what was read."))
		}
		if err == nil {
			o.acts, err = m.Int64Counter("skilledge.skill.activations", metric.WithDescription("Reads of a skill's SKILL.md, by skill."))
		}
		if err != nil {
			return nil, errors.Join(err, o.Shutdown(ctx))
		}
	}
	return o, nil
}

// serviceName is OTEL_SERVICE_NAME, or "skilledge" (resource.WithFromEnv reads the
// variable too, and wins).
func serviceName() string {
	if s := os.Getenv("OTEL_SERVICE_NAME"); s != "" {
		return s
	}
	return "skilledge"
}

// Shutdown sends the spans and metrics not sent yet, and stops.
func (o *OTel) Shutdown(ctx context.Context) error {
	var errs []error
	if o.tp != nil {
		errs = append(errs, o.tp.Shutdown(ctx))
	}
	if o.mp != nil {
		errs = append(errs, o.mp.Shutdown(ctx))
	}
	return errors.Join(errs...)
}

// SpanName is the name of r's span: "{mcp.method.name} {target}" for an MCP request, the
// target being the URI read, else the skill's path, else none; "{http.request.method}
// {route}" for any other request.
func SpanName(r *front.Record) string {
	f := &r.Facts
	if f.Method != "" {
		switch {
		case f.URI != "":
			return f.Method + " " + f.URI
		case f.Skill != "":
			return f.Method + " " + f.Skill
		}
		return f.Method
	}
	method := "GET"
	if r.Request != nil {
		method = r.Request.Method
	}
	return method + " " + routeOf(r)
}

// Observe records r: its span (when sampled) and its metrics.
func (o *OTel) Observe(r *front.Record) {
	if o.tp != nil {
		o.span(r)
	}
	if o.mp != nil {
		o.count(r)
	}
}

// span makes r's span, once r is answered, with the start time it had.
//
// Why is a request's span made once it is answered? A span made when the request arrives
// is carried through the front, the pool and the instance, for a sampler that keeps one in
// a hundred. Made at the end, it costs an unsampled request a trace id and a sampling
// decision, and nothing else: its attributes are set only on a span that records. The
// facts are all known by then, so the span has its name (SpanName) from the start, and the
// client's traceparent is read only when present.
func (o *OTel) span(r *front.Record) {
	ctx := context.Background()
	if r.Request != nil && r.Request.Header.Get("Traceparent") != "" {
		ctx = o.prop.Extract(ctx, propagation.HeaderCarrier(r.Request.Header))
	}
	_, span := o.tracer.Start(ctx, SpanName(r), trace.WithTimestamp(r.Start), trace.WithSpanKind(trace.SpanKindServer))
	if span.IsRecording() {
		fs := fields(r, o.callers)
		attrs := make([]attribute.KeyValue, 0, len(fs)+4)
		for _, f := range fs {
			switch {
			case f.key == "duration_ms":
			case f.kind == 's':
				attrs = append(attrs, attribute.String(f.key, f.str))
			case f.kind == 'b':
				attrs = append(attrs, attribute.Bool(f.key, true))
			default:
				attrs = append(attrs, attribute.Int64(f.key, int64(f.num)))
			}
		}
		if r.Facts.Method != "" && r.Body != nil {
			if id := gjson.GetBytes(r.Body, "id"); id.Type == gjson.String || id.Type == gjson.Number {
				attrs = append(attrs, attribute.String("jsonrpc.request.id", id.String()))
			}
		}
		if req := r.Request; req != nil {
			attrs = append(attrs, attribute.String("network.protocol.name", "http"),
				attribute.String("network.protocol.version", strconv.Itoa(req.ProtoMajor)+"."+strconv.Itoa(req.ProtoMinor)),
				attribute.String("network.transport", "tcp"))
		}
		span.SetAttributes(attrs...)
		if et := errorType(r); et != "" {
			span.SetStatus(codes.Error, et)
		}
	}
	span.End(trace.WithTimestamp(r.Start.Add(r.Duration)))
}

func (o *OTel) count(r *front.Record) {
	ctx := context.Background()
	key := keyOf(r)
	var s *otelSets
	if v, ok := o.sets.Load(key); ok {
		s = v.(*otelSets)
	} else {
		s = newOTelSets(key)
		v, _ := o.sets.LoadOrStore(key, s)
		s = v.(*otelSets)
	}
	o.requests.Add(ctx, 1, s.requests)
	if s.duration != nil {
		o.duration.Record(ctx, r.Duration.Seconds(), s.duration)
	}
	if s.skill != nil {
		o.skill.Add(ctx, 1, s.skill)
	}
	if s.acts != nil {
		o.acts.Add(ctx, 1, s.acts)
	}
}

// newOTelSets makes the attribute sets of the measurements of k.
func newOTelSets(k seriesKey) *otelSets {
	s := &otelSets{requests: metric.WithAttributeSet(attribute.NewSet(attribute.String("skilledge.route", k.route), attribute.Int("http.response.status_code", k.status)))}
	if k.route == "mcp" && k.method != "" {
		attrs := []attribute.KeyValue{attribute.String("mcp.method.name", k.method)}
		if k.version != "" {
			attrs = append(attrs, attribute.String("mcp.protocol.version", k.version))
		}
		if k.errType != "" {
			attrs = append(attrs, attribute.String("error.type", k.errType))
		}
		s.duration = metric.WithAttributeSet(attribute.NewSet(attrs...))
	}
	if k.skill != "" {
		path, name := attribute.String("skilledge.skill.path", k.skill), attribute.String("skilledge.skill.name", k.skill[strings.LastIndexByte(k.skill, '/')+1:])
		s.skill = metric.WithAttributeSet(attribute.NewSet(path, name, attribute.String("skilledge.read", k.read)))
		if k.read == "activation" {
			s.acts = metric.WithAttributeSet(attribute.NewSet(path, name))
		}
	}
	return s
}
