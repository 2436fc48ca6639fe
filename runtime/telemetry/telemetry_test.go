package telemetry

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/front"
	"github.com/skilledge/skilledge/runtime/internal/require"
)

var start = time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)

// record is a Record of a request to target with facts.
func record(method, target string, status int, facts wire.Facts) *front.Record {
	r := httptest.NewRequest(method, target, nil)
	r.RemoteAddr = "192.0.2.7:5555"
	r.Header.Set("Authorization", "Bearer SECRET-TOKEN")
	return &front.Record{Request: r, Start: start, Duration: 1500 * time.Microsecond, Status: status, Bytes: 120, BodyBytes: 80,
		Body: []byte(`{"jsonrpc":"2.0","id":7,"params":{"secret":"BODY-SECRET"}}`), Facts: facts}
}

var activation = wire.Facts{Route: "mcp", Method: "resources/read", Version: "2026-07-28", Read: "activation", Skill: "acme/billing/refunds",
	URI: "skill://acme/billing/refunds/SKILL.md", Caller: "alice", Client: "app-1"}

// TestLog: the JSON line of an answer, as the JavaScript entries write it
// (build/host.test.mjs has the same cases); without callers, no caller, client or address;
// never the token or the body.
func TestLog(t *testing.T) {
	replayed := record("POST", "/mcp?x=1", 200, activation)
	replayed.Replayed = true
	busy := record("GET", "/", 503, wire.Facts{})
	busy.Failure, busy.Bytes = "busy", 90
	for _, c := range []struct {
		name    string
		r       *front.Record
		callers bool
		want    string
	}{
		{"an activation by a caller", record("POST", "/mcp", 200, activation), true,
			`{"time":"2026-11-28T00:00:00Z","level":"INFO","msg":"request","http.request.method":"POST","url.path":"/mcp","http.response.status_code":200,"http.response.body.size":120,"http.request.body.size":80,"duration_ms":1.5,"skilledge.route":"mcp","mcp.method.name":"resources/read","mcp.protocol.version":"2026-07-28","skilledge.read":"activation","skilledge.skill.path":"acme/billing/refunds","skilledge.skill.name":"refunds","mcp.resource.uri":"skill://acme/billing/refunds/SKILL.md","user.id":"alice","skilledge.client_id":"app-1","client.address":"192.0.2.7"}`},
		{"callers not logged, a replay", replayed, false,
			`{"time":"2026-11-28T00:00:00Z","level":"INFO","msg":"request","http.request.method":"POST","url.path":"/mcp","http.response.status_code":200,"http.response.body.size":120,"http.request.body.size":80,"duration_ms":1.5,"skilledge.route":"mcp","mcp.method.name":"resources/read","mcp.protocol.version":"2026-07-28","skilledge.read":"activation","skilledge.skill.path":"acme/billing/refunds","skilledge.skill.name":"refunds","mcp.resource.uri":"skill://acme/billing/refunds/SKILL.md","skilledge.replayed":true}`},
		{"an error", record("POST", "/mcp", 200, wire.Facts{Route: "mcp", Method: "_OTHER", Version: "2025-11-25", Code: -32601}), true,
			`{"time":"2026-11-28T00:00:00Z","level":"INFO","msg":"request","http.request.method":"POST","url.path":"/mcp","http.response.status_code":200,"http.response.body.size":120,"http.request.body.size":80,"duration_ms":1.5,"skilledge.route":"mcp","mcp.method.name":"_OTHER","mcp.protocol.version":"2025-11-25","rpc.response.status_code":"-32601","error.type":"-32601"}`},
		{"the host's own failure", busy, true,
			`{"time":"2026-11-28T00:00:00Z","level":"INFO","msg":"request","http.request.method":"GET","url.path":"/","http.response.status_code":503,"http.response.body.size":90,"http.request.body.size":80,"duration_ms":1.5,"error.type":"busy","skilledge.failure":"busy"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			NewLog(&b, c.callers).Observe(c.r)
			require.Equal(t, c.want+"\n", b.String())
			for _, secret := range []string{"SECRET-TOKEN", "BODY-SECRET"} {
				require.Equal(t, false, strings.Contains(b.String(), secret), secret)
			}
		})
	}
}

// TestLines: each line written becomes a JSON line of its own, a build's warning at WARN
// and its error or a failure at ERROR.
func TestLines(t *testing.T) {
	var b bytes.Buffer
	io.WriteString(NewLines(&b), "skilledge: watching skills for changes\nskilledge serve: listen tcp: address in use\n"+
		"skills/x/SKILL.md:5: warning: metadata key \"v\": a number\nskills/y/SKILL.md:2: name \"Y\": must be lowercase\n"+
		"skilledge: serving 3 skills (7 files) at http://127.0.0.1:8787/mcp\n")
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Equal(t, 5, len(lines))
	for i, want := range []string{"INFO", "ERROR", "WARN", "ERROR", "INFO"} {
		var l struct{ Level, Msg string }
		require.NoError(t, json.Unmarshal([]byte(lines[i]), &l))
		require.Equal(t, want, l.Level)
	}
	var first struct{ Level, Msg string }
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	require.Equal(t, [2]string{"INFO", "watching skills for changes"}, [2]string{first.Level, first.Msg})
}

// TestMetrics: what a scrape reads after a known mix of answers.
func TestMetrics(t *testing.T) {
	m := NewMetrics(Sources{Instances: func() (int64, int64) { return 2, 1 << 20 }, KeyFetches: func() (int64, int64) { return 3, 1 }}, true)
	replayed := record("POST", "/mcp", 200, activation)
	replayed.Replayed = true
	for _, r := range []*front.Record{
		record("POST", "/mcp", 200, activation), replayed,
		record("POST", "/mcp", 200, wire.Facts{Route: "mcp", Method: "resources/read", Version: "2026-07-28", Read: "file", Skill: "acme/billing/refunds"}),
		record("POST", "/mcp", 200, wire.Facts{Route: "mcp", Method: "_OTHER", Code: -32601}),
		record("GET", "/nope", 404, wire.Facts{Route: "other"}),
	} {
		m.Observe(r)
	}
	w := httptest.NewRecorder()
	m.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	text := w.Body.String()
	for _, want := range []string{
		`skilledge_skill_requests_total{read="activation",skill_name="refunds",skill_path="acme/billing/refunds"} 2`,
		`skilledge_skill_requests_total{read="file",skill_name="refunds",skill_path="acme/billing/refunds"} 1`,
		`skilledge_skill_activations_total{skill_name="refunds",skill_path="acme/billing/refunds"} 2`,
		`mcp_server_operation_duration_seconds_count{error_type="",mcp_method_name="resources/read",mcp_protocol_version="2026-07-28"} 3`,
		`mcp_server_operation_duration_seconds_bucket{error_type="",mcp_method_name="resources/read",mcp_protocol_version="2026-07-28",le="0.0025"} 3`,
		`mcp_server_operation_duration_seconds_count{error_type="-32601",mcp_method_name="_OTHER",mcp_protocol_version=""} 1`,
		`skilledge_errors_total{error_type="-32601"} 1`,
		`skilledge_replays_total 1`,
		`skilledge_requests_total{route="mcp",status="200"} 4`,
		`skilledge_requests_total{route="other",status="404"} 1`,
		`skilledge_caller_requests_total{caller="alice",client_id="app-1"} 2`,
		`skilledge_plugin_instances 2`,
		`skilledge_plugin_memory_bytes 1.048576e+06`,
		`skilledge_key_set_fetches_total{result="failed"} 1`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("the scrape lacks %s", want)
		}
	}
	// Without callers, no caller is counted.
	m = NewMetrics(Sources{}, false)
	m.Observe(record("POST", "/mcp", 200, activation))
	w = httptest.NewRecorder()
	m.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	require.Equal(t, false, strings.Contains(w.Body.String(), "alice"), "a caller counted with callers off")
}

func TestSpanName(t *testing.T) {
	for _, c := range []struct {
		r    *front.Record
		want string
	}{
		{record("POST", "/mcp", 200, activation), "resources/read skill://acme/billing/refunds/SKILL.md"},
		{record("POST", "/mcp", 200, wire.Facts{Route: "mcp", Method: "skills/get", Skill: "acme/x"}), "skills/get acme/x"},
		{record("POST", "/mcp", 200, wire.Facts{Route: "mcp", Method: "initialize"}), "initialize"},
		{record("GET", "/.well-known/x", 404, wire.Facts{Route: "well-known"}), "GET well-known"},
		{record("GET", "/", 503, wire.Facts{}), "GET other"},
	} {
		require.Equal(t, c.want, SpanName(c.r))
	}
}
