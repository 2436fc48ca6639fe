// Package telemetry tells an operator what `skilledge serve` answers: it implements
// front.Observer three ways, each fed the plugin's facts of every answer (wire.Facts) and
// what the HTTP front knows (front.Record):
//
//   - Log: one JSON line per answer, in the shape of log/slog's JSON handler, the keys
//     OpenTelemetry's attribute names where it has them (the JavaScript entries write the
//     same line: build/host/telemetry.mjs);
//   - Metrics: Prometheus metrics on a listener of their own (prometheus/client_golang):
//     the request duration histogram named after OpenTelemetry's
//     mcp.server.operation.duration, requests and activations per skill, errors by type,
//     replays, the plugin's instances and their memory, key set fetches;
//   - OTel: a span per request (sampled as OTEL_TRACES_SAMPLER says, continuing an
//     incoming traceparent) and the same metrics, over OTLP/HTTP to where the standard
//     OTEL_EXPORTER_OTLP_* variables say (the OpenTelemetry Go SDK).
//
// None of them records a token, a request or response body, or a file's contents; a
// caller (a token's sub or a static key's name, and its client_id) only when the auth
// option let them in, and never when the caller option is off (serve --log-callers=false),
// which also leaves out the client's address. Skills are named only as the plugin names
// them: a skill the caller may not see never is.
package telemetry
