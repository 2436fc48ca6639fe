package edge

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// fuzzServers are servers on the example catalog under differing options, picked by a
// fuzz input byte.
var fuzzServers = sync.OnceValue(func() []*Server {
	p, err := examplePack()
	if err != nil {
		panic(err)
	}
	return []*Server{
		New(p, wire.Options{}),
		New(p, wire.Options{AllowOrigins: []string{"*"}, AllowHosts: []string{"*"}, PageSize: 1, Tools: true, Prompts: true}),
		New(p, wire.Options{AllowOrigins: []string{"https://app.example"}, AllowHosts: []string{"example.com"}, MaxBody: 64, PageSize: 2}),
		New(p, wire.Options{Endpoint: "/", AllowHosts: []string{"*"}, PageSize: 3, Name: "n\"\n", Version: "\x00", Instructions: "i\u2028", Tools: true}),
	}
})

// fuzzHeader turns "Name: value" lines into a header. A line without ": " is split at its
// first ':' (or taken as a name), so names and values may be empty or odd.
func fuzzHeader(lines string) wire.Header {
	var h wire.Header
	for _, line := range strings.Split(lines, "\n") {
		if line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, ": ")
		if !ok {
			name, value, _ = strings.Cut(line, ":")
		}
		h = append(h, wire.Field{Name: name, Value: value})
	}
	return h
}

// checkXML fails unless b is well-formed XML.
func checkXML(t *testing.T, b []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		if _, err := d.Token(); err == io.EOF {
			return
		} else if err != nil {
			t.Fatalf("not well-formed XML (%v): %q", err, b)
		}
	}
}

// checkJSONLine fails unless b is one line of valid JSON.
func checkJSONLine(t *testing.T, what string, b []byte) {
	t.Helper()
	if !json.Valid(b) || !utf8.Valid(b) {
		t.Fatalf("%s is not valid UTF-8 JSON: %q", what, b)
	}
	if bytes.IndexByte(b, '\n') >= 0 {
		t.Fatalf("%s spans lines: %q", what, b)
	}
}

// checkReply fails unless reply answers the single message msg: a JSON-RPC response with
// the request's id (null when the request was unreadable).
func checkReply(t *testing.T, msg, reply []byte) {
	t.Helper()
	if jsonrpc.IsBatch(msg) {
		if !jsonrpc.IsBatch(reply) {
			if r, err := jsonrpc.Parse(reply); err != nil || r.Kind != jsonrpc.KindResponse || r.Error == nil {
				t.Fatalf("batch answered with %q", reply)
			}
			return
		}
		elems, err := jsonrpc.SplitBatch(reply, 0)
		if err != nil {
			t.Fatalf("batch reply %q: %v", reply, err)
		}
		for _, e := range elems {
			if r, err := jsonrpc.Parse(e); err != nil || r.Kind != jsonrpc.KindResponse {
				t.Fatalf("batch reply element %q is not a response", e)
			}
		}
		return
	}
	r, err := jsonrpc.Parse(reply)
	if err != nil || r.Kind != jsonrpc.KindResponse {
		t.Fatalf("reply %q is not a JSON-RPC response (%v)", reply, err)
	}
	if m, perr := jsonrpc.Parse(msg); perr == nil && m.Kind == jsonrpc.KindRequest && !bytes.Equal(r.ID, m.ID) {
		t.Fatalf("reply id %s, request id %s", r.ID, m.ID)
	}
}

func FuzzServeHTTP(f *testing.F) {
	const (
		hdrLocal = "Host: 127.0.0.1:8787\nContent-Type: application/json\n"
		hdrMod   = hdrLocal + "MCP-Protocol-Version: 2026-07-28\n"
	)
	for _, s := range []struct {
		method, target, header, body string
		sel                          uint8
	}{
		{"POST", "/mcp", hdrLocal, request(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`), 0},
		{"POST", "/mcp", hdrLocal + "MCP-Protocol-Version: 2025-11-25\n", request(2, "skills/list", ""), 0},
		{"POST", "/mcp?x=1", hdrLocal + "MCP-Protocol-Version: 2025-06-18\nOrigin: http://localhost:6274\n", request(3, "resources/read", `{"uri":"skill://csv-insights/assets/chart-template.png"}`), 0},
		{"POST", "/mcp", hdrMod + "Mcp-Method: skills/list\n", request(4, "skills/list", `{`+modernMeta+`}`), 1},
		{"POST", "/mcp", hdrMod + "Mcp-Method: resources/read\nMcp-Name: =?base64?c2tpbGw6Ly9naXQtd29ya2Zsb3cvU0tJTEwubWQ=?=\n",
			request(5, "resources/read", `{`+modernMeta+`,"uri":"skill://git-workflow/SKILL.md"}`), 0},
		{"POST", "/mcp", hdrMod + "Mcp-Method: resources/directory/read\nOrigin: https://app.example\n",
			request(6, "resources/directory/read", `{`+modernMeta+`,"uri":"skill://acme/billing/refunds"}`), 1},
		{"POST", "/", "Host: example.com\nContent-Type: application/json\nMCP-Protocol-Version: 2026-07-28\nMcp-Method: server/discover\n",
			request(7, "server/discover", `{`+modernMeta+`}`), 3},
		{"POST", "/mcp", hdrLocal, `[` + request(8, "ping", "") + `,{"jsonrpc":"2.0","method":"notifications/initialized"},1]`, 0},
		{"POST", "/mcp", hdrLocal, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0},
		{"POST", "/mcp", hdrLocal, `{"jsonrpc":"2.0","id":`, 0},
		{"POST", "/mcp", "Host: example.com\nContent-Type: application/json\n", request(9, "skills/get", `{"uri":"skill://git-workflow/SKILL.md"}`), 2},
		{"OPTIONS", "/mcp", "Host: localhost\nOrigin: http://localhost:6274\nAccess-Control-Request-Method: POST\n", "", 0},
		{"GET", "/mcp", "Host: localhost\nAccept: text/event-stream\n", "", 0},
		{"HEAD", "/nope", "Host: localhost\n", "", 0},
		{"DELETE", "/mcp", "Host: evil.example\n", "", 1},
		{"POST", "/mcp", hdrLocal + "MCP-Protocol-Version: 2025-11-25\n", request(10, "tools/call", `{"name":"load_skill","arguments":{"name":"refunds"}}`), 1},
		{"POST", "/mcp", hdrMod + "Mcp-Method: tools/call\nMcp-Name: read_skill_file\n",
			request(11, "tools/call", `{`+modernMeta+`,"name":"read_skill_file","arguments":{"uri":"skill://csv-insights/assets/chart-template.png"}}`), 1},
		{"POST", "/mcp", hdrLocal, request(12, "tools/call", `{"name":"list_skills","arguments":{"cursor":"bDoxOjY4NDRkNDIy"}}`), 1},
		{"POST", "/mcp", hdrLocal, request(13, "prompts/get", `{"name":"refunds"}`), 1},
		{"GET", "/", "Host: a\"<b>&c:8080\nAccept: text/html\n", "", 1},
		{"GET", "/sitemap.xml", "Host: x.example\nX-Forwarded-Proto: http\n", "", 1},
		{"HEAD", "/sitemap-2.xml", "Host: localhost\n", "", 0},
	} {
		f.Add(s.method, s.target, s.header, []byte(s.body), s.sel)
	}
	f.Fuzz(func(t *testing.T, method, target, headerLines string, body []byte, sel uint8) {
		servers := fuzzServers()
		s := servers[int(sel)%len(servers)]
		r := &wire.Request{Method: method, Target: target, Header: fuzzHeader(headerLines), Body: body}
		bodyCopy := bytes.Clone(body)

		resp := s.ServeHTTP(r)
		if resp == nil {
			t.Fatal("nil response")
		}
		if !bytes.Equal(body, bodyCopy) {
			t.Fatal("ServeHTTP modified the request body")
		}
		if resp.Status < 100 || resp.Status > 599 {
			t.Fatalf("status %d", resp.Status)
		}
		if (resp.Status == 202 || resp.Status == 204) && len(resp.Body) > 0 {
			t.Fatalf("status %d with a body %q", resp.Status, resp.Body)
		}
		full := resolved(t, s, resp.Body, resp.Refs)
		if ct, _ := resp.Header.Get("Content-Type"); method == "HEAD" {
			if len(full) > 0 { // the fields a GET would get, and no body
				t.Fatalf("HEAD answered with a body: %q", full)
			}
		} else if ct == "application/json" {
			checkJSONLine(t, "response body", full)
			if resp.Status == 200 {
				checkReply(t, body, full)
			}
		} else if strings.HasPrefix(ct, "application/xml") {
			checkXML(t, full)
		} else if resp.Status == 200 && len(resp.Refs) == 0 {
			t.Fatalf("200 with Content-Type %q and no store object", ct)
		}

		// The response must survive the wire, and AppendHTTP must agree with ServeHTTP.
		frame := wire.AppendResponse(nil, resp)
		back, err := wire.ParseResponse(frame)
		if err != nil || back.Status != resp.Status || len(back.Header) != len(resp.Header) || !bytes.Equal(back.Body, resp.Body) || !slices.Equal(back.Refs, resp.Refs) {
			t.Fatalf("response frame %q does not parse back (%v)", frame, err)
		}
		for range 2 { // twice: the second answer reuses the scratch buffer
			got, replay := s.AppendHTTP([]byte("prefix"), r)
			if !bytes.Equal(got, append([]byte("prefix"), frame...)) {
				t.Fatalf("AppendHTTP = %q, ServeHTTP frame %q", got, frame)
			}
			if replay.IDLen > 0 {
				checkReplay(t, s, r, got[len("prefix"):], replay)
			}
		}
	})
}

// checkReplay holds the answer frame AppendHTTP gave r, with replay, to wire.Hint's
// promise: for other ids of the same kind, the answer is frame with that id in its place.
func checkReplay(t *testing.T, s *Server, r *wire.Request, frame []byte, replay wire.Replay) {
	t.Helper()
	body := r.Body
	if replay.IDAt < 0 || replay.IDAt+replay.IDLen > len(body) || replay.AnswerAt+replay.IDLen > len(frame) || replay.MaxBody != s.opt.MaxBody {
		t.Fatalf("replay %+v out of the body (%d bytes) or the answer (%d)", replay, len(body), len(frame))
	}
	id := body[replay.IDAt : replay.IDAt+replay.IDLen]
	kind := wire.ReplayableID(id)
	if kind == 0 || !bytes.Equal(frame[replay.AnswerAt:replay.AnswerAt+len(id)], id) {
		t.Fatalf("replay %+v: id %q of no kind, or not echoed in %q", replay, id, frame)
	}
	others := []string{"0", "-7", "123456789012345", `""`, `"x"`, `"a longer id, 0123456789"`}
	for _, other := range others {
		if wire.ReplayableID([]byte(other)) != kind {
			continue
		}
		r2 := *r
		r2.Body = slices.Concat(body[:replay.IDAt], []byte(other), body[replay.IDAt+len(id):])
		if len(r2.Body) > replay.MaxBody {
			continue // outside the promise
		}
		got, replay2 := s.AppendHTTP(nil, &r2)
		want := replayed(t, frame, replay.AnswerAt, len(id), []byte(other))
		if !bytes.Equal(got, want) {
			t.Fatalf("id %s for %s: answer\n%q\nnot the replay\n%q", other, id, got, want)
		}
		if replay2.IDLen != len(other) || replay2.AnswerAt != replay.AnswerAt || replay2.IDAt != replay.IDAt {
			t.Fatalf("id %s: replay %+v, want %+v with IDLen %d", other, replay2, replay, len(other))
		}
	}
}

// replayed is the response frame frame with the n bytes at at replaced by id, and its
// references after them moved by the difference in length, as a host replays it.
func replayed(t *testing.T, frame []byte, at, n int, id []byte) []byte {
	t.Helper()
	resp, err := wire.ParseResponse(frame)
	if err != nil {
		t.Fatal(err)
	}
	at -= len(frame) - len(resp.Body)
	if at < 0 {
		t.Fatalf("the echo at %d is not in the body", at)
	}
	resp.Body = slices.Concat(resp.Body[:at], id, resp.Body[at+n:])
	resp.Refs = slices.Clone(resp.Refs)
	for i := range resp.Refs {
		if resp.Refs[i].At < at+n {
			t.Fatalf("reference %+v before the end of the echoed id", resp.Refs[i])
		}
		resp.Refs[i].At += len(id) - n
	}
	return wire.AppendResponse(nil, &resp)
}

func FuzzHandleMessage(f *testing.F) {
	for _, s := range []struct {
		version, msg string
	}{
		{"", request(1, "initialize", `{"protocolVersion":"2025-03-26","capabilities":{}}`)},
		{"", request(1, "initialize", `{"protocolVersion":"1999-01-01","capabilities":{}}`)},
		{"", request(1, "initialize", `{"protocolVersion":5}`)},
		{V20251125, request(2, "skills/list", `{"cursor":null}`)},
		{V20251125, request(3, "resources/read", `{"uri":"SKILL://git-workflow/%53KILL.md"}`)},
		{V20251125, request(4, "skills/get", `{"uri":"skill://release-notes/changelog-entry/SKILL.md"}`)},
		{"", request(5, "resources/list", `{`+modernMeta+`}`)},
		{"", request(6, "resources/directory/read", `{`+modernMeta+`,"uri":"skill://acme"}`)},
		{V20251125, request(10, "resources/list", `{"uri":"skill://release-notes/","cursor":null}`)},
		{V20251125, request(11, "completion/complete", `{"ref":{"type":"ref/resource","uri":"`+fileTemplate+`"},"argument":{"name":"filePath","value":"t"},"context":{"arguments":{"skillPath":"release-notes"}}}`)},
		{"", request(12, "completion/complete", `{`+modernMeta+`,"ref":{"type":"ref/resource","uri":"`+skillTemplate+`"},"argument":{"name":"skillPath","value":"a\u0063me"}}`)},
		{V20251125, request(13, "skills/get", `{"name":"release-notes","arguments":{"version":"1","version":2}}`)},
		{"", `{"jsonrpc":"2.0","id":"x","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`},
		{V20250326, `[` + request(7, "ping", "") + `,` + request(8, "initialize", `{}`) + `,{"jsonrpc":"2.0","method":"x"},"y"]`},
		{V20251125, `[` + request(9, "ping", "") + `]`},
		{V20250326, `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`},
		{V20250326, `[]`},
		{"", `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"", `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"", `{"jsonrpc":"2.0","id":1,`},
		{"", `{"jsonrpc":"1.0","id":1,"method":"ping"}`},
		{"", "\"\u2028\""},
		{"", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"ping\"}"},
		{V20250326, "[" + request(10, "ping", "") + ",{\"jsonrpc\":\"2.0\",\"id\":\"\xc3\",\"method\":\"ping\"}]"},
		{V20250326, "[" + request(11, "resources/read", `{"uri":"skill://git-workflow/SKILL.md"}`) + "," + request(12, "resources/read", `{"uri":"skill://nope"}`) + "]"},
		{V20251125, request(13, "tools/call", `{"name":"load_skill","arguments":{"uri":"skill://acme/billing/refunds/SKILL.md"}}`)},
		{V20251125, request(14, "prompts/list", `{"cursor":"cDoxOjY4NDRkNDIy"}`)},
	} {
		f.Add(s.version, []byte(s.msg))
	}
	f.Fuzz(func(t *testing.T, version string, msg []byte) {
		for _, s := range fuzzServers()[:2] { // without and with the fallbacks
			handleOne(t, s, version, msg)
		}
	})
}

// handleOne checks s's answer to one stdio message.
func handleOne(t *testing.T, s *Server, version string, msg []byte) {
	t.Helper()
	{
		msgCopy := bytes.Clone(msg)
		reply, refs, negotiated := s.HandleMessage(version, msg)
		if !bytes.Equal(msg, msgCopy) {
			t.Fatal("HandleMessage modified its input")
		}
		if negotiated != version && !isLegacy(negotiated) {
			t.Fatalf("negotiated %q from %q", negotiated, version)
		}
		if m, err := jsonrpc.Parse(msg); err == nil && !jsonrpc.IsBatch(msg) {
			if (m.Kind == jsonrpc.KindRequest) != (reply != nil) {
				t.Fatalf("%s message answered with %q", m.Kind, reply)
			}
		}
		if reply != nil {
			full := resolved(t, s, reply, refs)
			checkJSONLine(t, "reply", full)
			checkReply(t, msg, full)
			// The bounds of limits.go: an answer names at most one object; a reply is
			// never more than wire.MaxReply.
			if answers := bytes.Count(reply, []byte(`{"jsonrpc":"2.0","id":`)); len(refs) > answers {
				t.Fatalf("%d objects named in %d answers", len(refs), answers)
			}
			if limit := wire.MaxReply(len(s.pack.Bytes()), len(msg), len(s.opt.Instructions)); int64(len(reply)) > limit {
				t.Fatalf("a reply of %d bytes to %d, over wire.MaxReply %d", len(reply), len(msg), limit)
			}
		} else if refs != nil {
			t.Fatalf("no reply, but references %v", refs)
		}
		want := wire.AppendRPC([]byte("prefix"), &wire.RPC{Version: negotiated, Refs: refs, Message: reply})
		for range 2 { // twice: the second answer reuses the scratch buffer
			got := s.AppendRPC([]byte("prefix"), version, msg)
			if !bytes.Equal(got, want) {
				t.Fatalf("AppendRPC = %q, HandleMessage %q", got, want)
			}
			if strings.Contains(version, "\n") {
				continue // not a version an rpc frame can carry: AppendRPC's contract excludes it
			}
			back, err := wire.ParseRPCOutput(got[len("prefix"):])
			if err != nil || back.Version != negotiated || !bytes.Equal(back.Message, reply) || !slices.Equal(back.Refs, refs) {
				t.Fatalf("rpc frame %q does not parse back (%v)", got, err)
			}
		}
	}
}

// FuzzParseOptions: options JSON from a host (the configure export, the Worker's
// environment) never panics the parser, and what it accepts renders back (wire.Options.JSON)
// to the same options.
func FuzzParseOptions(f *testing.F) {
	for _, s := range []string{
		`{"endpoint":"/mcp","allowOrigins":["*"],"allowHosts":["loopback","x"],"maxBody":1048576,"pageSize":100,"instructions":"i","name":"n","version":"v"}`,
		`{}`, ``, `[]`, `{"maxBody":-1}`, `{"pageSize":1.5}`, `{"bogus":1}`, `{"allowOrigins":[1]}`, `{"name":"\u2028\ud800"}`, "{\"name\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := wire.ParseOptions(b)
		if err != nil {
			return
		}
		back, err := wire.ParseOptions(o.JSON())
		if err != nil || !reflect.DeepEqual(normalOptions(back), normalOptions(o)) {
			t.Fatalf("%q parsed to %+v, which renders as %s and parses back to %+v (%v)", b, o, o.JSON(), back, err)
		}
	})
}

// normalOptions is o with empty lists as nil (JSON cannot tell them apart).
func normalOptions(o wire.Options) wire.Options {
	if len(o.AllowOrigins) == 0 {
		o.AllowOrigins = nil
	}
	if len(o.AllowHosts) == 0 {
		o.AllowHosts = nil
	}
	return o
}

// FuzzParseCursor: a cursor is whatever a client sends; parseCursor takes any string and
// accepts exactly the cursors appendNextCursor writes for that kind of listing.
func FuzzParseCursor(f *testing.F) {
	s := fuzzServers()[0]
	valid := func(kind string, n int) string {
		b := s.appendNextCursor(nil, kind, n, n+1)
		return gjson.GetBytes(append(append([]byte("{"), b[1:]...), '}'), "nextCursor").Str
	}
	for _, c := range []struct {
		cur, kind string
	}{{valid("s", 5), "s"}, {valid("d12", 3), "d12"}, {valid("s", 5), "r"}, {"", "s"}, {"czox", "s"}, {"====", "s"}, {"\r\n", "s"}} {
		f.Add(c.cur, c.kind)
	}
	f.Fuzz(func(t *testing.T, cur, kind string) {
		n, ok := s.parseCursor(cur, kind)
		if !ok {
			return
		}
		if strings.Contains(kind, ":") || n < 0 {
			t.Fatalf("cursor %q of kind %q accepted as %d", cur, kind, n)
		}
		if want := valid(kind, n); cur != want {
			t.Fatalf("cursor %q accepted as %s offset %d; appendNextCursor writes %q", cur, kind, n, want)
		}
	})
}
