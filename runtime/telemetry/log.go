package telemetry

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/skilledge/skilledge/runtime/front"
)

// Log writes one JSON line per answer to its writer (serve --log json), as log/slog's
// JSON handler writes a record: {"time", "level": "INFO", "msg": "request", then the
// answer's attributes (fields)}. Lines are written whole, one at a time.
type Log struct {
	handler slog.Handler
	callers bool
}

// NewLog returns a Log writing to w; callers keeps the caller in the lines.
func NewLog(w io.Writer, callers bool) *Log {
	return &Log{handler: slog.NewJSONHandler(w, nil), callers: callers}
}

// Observe writes the line of r, timed when the request came.
func (l *Log) Observe(r *front.Record) {
	fs := fields(r, l.callers)
	rec := slog.NewRecord(r.Start, slog.LevelInfo, "request", 0)
	attrs := make([]slog.Attr, 0, len(fs))
	for _, f := range fs {
		switch {
		case f.kind == 's':
			attrs = append(attrs, slog.String(f.key, f.str))
		case f.kind == 'b':
			attrs = append(attrs, slog.Bool(f.key, true))
		case f.isInt:
			attrs = append(attrs, slog.Int64(f.key, int64(f.num)))
		default:
			attrs = append(attrs, slog.Float64(f.key, f.num))
		}
	}
	rec.AddAttrs(attrs...)
	l.handler.Handle(context.Background(), rec)
}

// Observers tells each of its observers of every answer, in order.
type Observers []front.Observer

// Observe tells each observer of r.
func (os Observers) Observe(r *front.Record) {
	for _, o := range os {
		o.Observe(r)
	}
}

// Lines is a writer that writes each line written to it as a JSON log line of its own
// ({"time", "level": "INFO", "msg": the line}) to the writer it wraps: with serve --log
// json, the host's own lines (start-up, errors) are JSON lines too, among the requests'.
// A build's problem ("path:line: warning: …", "path:line: …") is logged at WARN or ERROR,
// a failure at ERROR, anything else at INFO.
// Writes are whole lines (serve's log writer writes each line in one call).
type Lines struct{ handler slog.Handler }

// NewLines returns Lines writing to w.
func NewLines(w io.Writer) *Lines { return &Lines{handler: slog.NewJSONHandler(w, nil)} }

func (l *Lines) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if line == "" {
			continue
		}
		level := slog.LevelInfo
		switch {
		case strings.Contains(line, "skilledge serve: ") || strings.Contains(line, " failed"):
			level = slog.LevelError
		case strings.Contains(line, ": warning: "): // a build's "path:line: warning: …"
			level = slog.LevelWarn
		case isProblem(line): // a build's "path:line: …", an error
			level = slog.LevelError
		}
		rec := slog.NewRecord(time.Now(), level, strings.TrimPrefix(line, "skilledge: "), 0)
		if err := l.handler.Handle(context.Background(), rec); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// isProblem reports whether line is a build's error, "path:line: message": a first field
// ending in ".md:N:" or a path with a line number.
func isProblem(line string) bool {
	path, rest, ok := strings.Cut(line, ": ")
	if !ok || rest == "" {
		return false
	}
	i := strings.LastIndexByte(path, ':')
	if i <= 0 || i == len(path)-1 {
		return false
	}
	for _, c := range path[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
