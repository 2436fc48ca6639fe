package wire

import (
	"bytes"
	"strings"
	"testing"
)

var requestSeeds = []string{
	"GET /\n\n",
	"POST /mcp\nHost: 127.0.0.1:8787\nContent-Type: application/json\nMCP-Protocol-Version: 2026-07-28\nMcp-Method: resources/read\nMcp-Name: =?base64?c2tpbGw6Ly9naXQtd29ya2Zsb3cvU0tJTEwubWQ=?=\n\n{\"jsonrpc\":\"2.0\",\"id\":1}",
	"POST /mcp\nA: b: c\nA: d\n\nbody\n\nwith: blank\n\n",
	"GET /\nA:b\n\n",
	"GET /\n: b\n\n",
	"GET\n\n",
	"GET /",
	"",
}

// FuzzParseRequest: ParseRequest never panics, and a frame it accepts is canonical:
// appending the result gives the same bytes back, which parse to an equal request.
func FuzzParseRequest(f *testing.F) {
	for _, s := range requestSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		orig := bytes.Clone(frame)
		r, err := ParseRequest(frame)
		if !bytes.Equal(frame, orig) {
			t.Fatal("ParseRequest modified its input")
		}
		if err != nil {
			if err != ErrFrame {
				t.Fatalf("error %v is not ErrFrame", err)
			}
			return
		}
		if r.Method == "" || r.Target == "" {
			t.Fatalf("accepted an empty method or target: %#v", r)
		}
		for _, h := range r.Header {
			if h.Name == "" {
				t.Fatalf("accepted an empty header name: %#v", r)
			}
		}
		again := AppendRequest(nil, &r)
		if !bytes.Equal(again, frame) {
			t.Fatalf("AppendRequest(ParseRequest(%q)) = %q", frame, again)
		}
		r2, err := ParseRequest(again)
		if err != nil {
			t.Fatalf("re-parsing %q: %v", again, err)
		}
		if !equalRequest(r, r2) {
			t.Fatalf("round trip %#v != %#v", r, r2)
		}
	})
}

// FuzzParseResponse: ParseResponse never panics, and appending what it accepts parses to
// an equal response.
func FuzzParseResponse(f *testing.F) {
	for _, s := range []string{
		"200\nContent-Type: application/json\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
		"202\n\n",
		"405\nAllow: POST, OPTIONS\nVary: Origin\nVary: Accept\n\n\n\nbody",
		"+200\n\n",
		"0200\n\n",
		"99\n\n",
		"1000\n\n",
		"200\nA:b\n\n",
		"200",
		"",
		"200\nContent-Type: application/json\n@12 14 " + strings.Repeat("9f", 32) + "\n\n{\"contents\":}",
		"200\n@0 3 " + strings.Repeat("ab", 32) + "\n@0 1 " + strings.Repeat("ab", 32) + "\n\n",
		"200\n@1 3 " + strings.Repeat("ab", 32) + "\nX: y\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		orig := bytes.Clone(frame)
		r, err := ParseResponse(frame)
		if !bytes.Equal(frame, orig) {
			t.Fatal("ParseResponse modified its input")
		}
		if err != nil {
			if err != ErrFrame {
				t.Fatalf("error %v is not ErrFrame", err)
			}
			return
		}
		if r.Status < 200 || r.Status > 599 {
			t.Fatalf("accepted status %d", r.Status)
		}
		again := AppendResponse(nil, &r)
		r2, err := ParseResponse(again)
		if err != nil {
			t.Fatalf("re-parsing %q: %v", again, err)
		}
		if !equalResponse(r, r2) {
			t.Fatalf("round trip %#v != %#v", r, r2)
		}
		if !bytes.Equal(AppendResponse(nil, &r2), again) {
			t.Fatalf("second append differs: %q", again)
		}
	})
}

// FuzzAppendRequest builds requests from parts: whenever the parts are representable
// (no LF in names, values, method or target; no space in the method; no ": " in a name;
// nothing empty that must not be), the frame parses back to the same request.
func FuzzAppendRequest(f *testing.F) {
	f.Add("POST", "/mcp", "Content-Type", "application/json", "X", "a: b", []byte("{}\n\n{}"))
	f.Add("GET", "/a b", "A", "", "a", "b", []byte(nil))
	f.Fuzz(func(t *testing.T, method, target, n1, v1, n2, v2 string, body []byte) {
		ok := method != "" && target != "" && n1 != "" && n2 != "" &&
			!strings.ContainsAny(method, " \n") && !strings.Contains(target+n1+n2+v1+v2, "\n") &&
			!strings.Contains(n1, ": ") && !strings.Contains(n2, ": ")
		if !ok {
			return
		}
		r := Request{Method: method, Target: target, Header: Header{{n1, v1}, {n2, v2}}, Body: body}
		got, err := ParseRequest(AppendRequest(nil, &r))
		if err != nil {
			t.Fatalf("ParseRequest(AppendRequest(%#v)): %v", r, err)
		}
		if !equalRequest(got, r) {
			t.Fatalf("round trip %#v != %#v", got, r)
		}
	})
}

// FuzzParseRPCOutput: ParseRPCOutput never panics, and appending what it accepts gives the
// same bytes back.
func FuzzParseRPCOutput(f *testing.F) {
	for _, s := range []string{
		"2025-06-18\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
		"\n",
		"v\n@2 3 " + strings.Repeat("ab", 32) + "\n{\"x\":}",
		"v\n@0 3 " + strings.Repeat("ab", 32),
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		r, err := ParseRPCOutput(frame)
		if err != nil {
			if err != ErrFrame {
				t.Fatalf("error %v is not ErrFrame", err)
			}
			return
		}
		for i, ref := range r.Refs {
			if ref.At > len(r.Message) || (i > 0 && ref.At < r.Refs[i-1].At) || ref.Size < 0 {
				t.Fatalf("accepted reference %v of %q", ref, r.Message)
			}
		}
		if again := AppendRPC(nil, &r); !bytes.Equal(again, frame) {
			t.Fatalf("AppendRPC(ParseRPCOutput(%q)) = %q", frame, again)
		}
	})
}

var factsSeeds = []string{
	"route mcp\nmethod resources/read\nversion 2026-07-28\nread activation\nskill acme/billing/refunds\ncaller alice\nclient app\n",
	"route mcp\nmethod _OTHER\ncode -32601\n",
	"caller a%0Ab%25c\n",
	"later fact\nroute page\n",
	"route mcp\nroute mcp\n",
	"code 007\n",
	"caller %0\n",
	"route\n",
	"route mcp",
	"",
}

// FuzzParseFacts: ParseFacts never panics, takes only what AppendFacts could have written
// (but for the names it skips and the length of caller and client), and facts it accepts
// encode to bytes that parse to the same facts, caller and client clipped to FactMax.
func FuzzParseFacts(f *testing.F) {
	for _, s := range factsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		facts, err := ParseFacts(b)
		if err != nil {
			if err != ErrFacts {
				t.Fatalf("error %v is not ErrFacts", err)
			}
			return
		}
		enc := AppendFacts(nil, &facts)
		again, err := ParseFacts(enc)
		if err != nil {
			t.Fatalf("AppendFacts(%+v) = %q, which does not parse: %v", facts, enc, err)
		}
		want := facts
		want.Caller, want.Client = ClipFact(want.Caller), ClipFact(want.Client)
		if again != want {
			t.Fatalf("%q parses to %+v, which encodes to %q, which parses to %+v", b, facts, enc, again)
		}
		if bytes.Count(enc, []byte("\n")) != strings.Count(string(enc), " ")-strings.Count(strings.Join([]string{facts.Route, facts.Method, facts.Version, facts.Read, facts.Skill, facts.URI, ClipFact(facts.Caller), ClipFact(facts.Client)}, ""), " ") {
			t.Fatalf("%q: a line without its one separating space", enc)
		}
	})
}
