package wire

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// equalRequest reports whether a and b are equal, treating nil and empty bodies alike.
func equalRequest(a, b Request) bool {
	return a.Method == b.Method && a.Target == b.Target && equalHeader(a.Header, b.Header) && bytes.Equal(a.Body, b.Body)
}

func equalResponse(a, b Response) bool {
	return a.Status == b.Status && equalHeader(a.Header, b.Header) && bytes.Equal(a.Body, b.Body)
}

func equalHeader(a, b Header) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRequestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name  string
		req   Request
		frame string
	}{
		{"minimal", Request{Method: "GET", Target: "/"}, "GET /\n\n"},
		{"post", Request{Method: "POST", Target: "/mcp", Header: Header{{"Content-Type", "application/json"}, {"Host", "localhost:8787"}},
			Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)},
			"POST /mcp\nContent-Type: application/json\nHost: localhost:8787\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"},
		{"query", Request{Method: "GET", Target: "/mcp?a=1&b=%20"}, "GET /mcp?a=1&b=%20\n\n"},
		{"target with spaces", Request{Method: "GET", Target: "/a b c"}, "GET /a b c\n\n"},
		{"empty body", Request{Method: "POST", Target: "/mcp", Header: Header{{"A", "b"}}, Body: []byte{}}, "POST /mcp\nA: b\n\n"},
		{"body with blank lines", Request{Method: "POST", Target: "/mcp", Body: []byte("a\n\nb\n\n\nX: y\n\n")}, "POST /mcp\n\na\n\nb\n\n\nX: y\n\n"},
		{"body only newlines", Request{Method: "POST", Target: "/", Body: []byte("\n\n")}, "POST /\n\n\n\n"},
		{"binary body", Request{Method: "PUT", Target: "/", Body: []byte{0, 0xff, '\r', '\n', 0}}, "PUT /\n\n\x00\xff\r\n\x00"},
		{"repeated headers", Request{Method: "GET", Target: "/", Header: Header{{"Accept", "a"}, {"accept", "b"}, {"ACCEPT", "c"}}},
			"GET /\nAccept: a\naccept: b\nACCEPT: c\n\n"},
		{"value with colon-space", Request{Method: "GET", Target: "/", Header: Header{{"X", "a: b: c"}, {"Y", ": "}}},
			"GET /\nX: a: b: c\nY: : \n\n"},
		{"empty value", Request{Method: "GET", Target: "/", Header: Header{{"X", ""}}}, "GET /\nX: \n\n"},
		{"value with spaces", Request{Method: "GET", Target: "/", Header: Header{{"X", "  a  "}}}, "GET /\nX:   a  \n\n"},
		{"name with colon", Request{Method: "GET", Target: "/", Header: Header{{"a:b", "c"}}}, "GET /\na:b: c\n\n"},
		{"value with CR", Request{Method: "GET", Target: "/", Header: Header{{"X", "a\rb"}}}, "GET /\nX: a\rb\n\n"},
		{"non-ASCII", Request{Method: "GET", Target: "/café", Header: Header{{"Mcp-Name", "skill://café/SKILL.md"}}},
			"GET /café\nMcp-Name: skill://café/SKILL.md\n\n"},
		{"lower-case method", Request{Method: "get", Target: "*"}, "get *\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame := AppendRequest(nil, &tc.req)
			if string(frame) != tc.frame {
				t.Fatalf("AppendRequest = %q, want %q", frame, tc.frame)
			}
			got, err := ParseRequest(frame)
			if err != nil {
				t.Fatalf("ParseRequest(%q): %v", frame, err)
			}
			if !equalRequest(got, tc.req) {
				t.Fatalf("ParseRequest(%q) = %#v, want %#v", frame, got, tc.req)
			}
			// AppendRequest appends.
			if b := AppendRequest([]byte("prefix"), &tc.req); string(b) != "prefix"+tc.frame {
				t.Fatalf("AppendRequest with a prefix = %q", b)
			}
		})
	}
}

func TestResponseRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name  string
		resp  Response
		frame string
	}{
		{"no content", Response{Status: 202}, "202\n\n"},
		{"json", Response{Status: 200, Header: Header{{"Content-Type", "application/json"}}, Body: []byte(`{"a":1}`)},
			"200\nContent-Type: application/json\n\n{\"a\":1}"},
		{"lowest", Response{Status: 100}, "100\n\n"},
		{"highest", Response{Status: 999}, "999\n\n"},
		{"empty body", Response{Status: 204, Header: Header{{"A", "b"}}, Body: []byte{}}, "204\nA: b\n\n"},
		{"body with blank lines", Response{Status: 404, Body: []byte("not\n\nfound\n")}, "404\n\nnot\n\nfound\n"},
		{"repeated headers", Response{Status: 200, Header: Header{{"Vary", "Origin"}, {"Vary", "Accept"}}}, "200\nVary: Origin\nVary: Accept\n\n"},
		{"value with colon-space", Response{Status: 200, Header: Header{{"X", "k: v"}}}, "200\nX: k: v\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame := AppendResponse(nil, &tc.resp)
			if string(frame) != tc.frame {
				t.Fatalf("AppendResponse = %q, want %q", frame, tc.frame)
			}
			got, err := ParseResponse(frame)
			if err != nil {
				t.Fatalf("ParseResponse(%q): %v", frame, err)
			}
			if !equalResponse(got, tc.resp) {
				t.Fatalf("ParseResponse(%q) = %#v, want %#v", frame, got, tc.resp)
			}
			if b := AppendResponse([]byte("prefix"), &tc.resp); string(b) != "prefix"+tc.frame {
				t.Fatalf("AppendResponse with a prefix = %q", b)
			}
		})
	}
}

func TestParseRequestMalformed(t *testing.T) {
	for _, frame := range []string{
		"",
		"GET /",            // no LF
		"GET /\n",          // no blank line
		"GET /\nA: b\n",    // no blank line after the header
		"GET /\nA: b",      // header line without LF
		"GET\n\n",          // no space in the request line
		"GET/mcp\n\n",      // no space in the request line
		" /mcp\n\n",        // empty method
		"GET \n\n",         // empty target
		" \n\n",            // both empty
		"\n\n",             // empty request line
		"GET /\nA:b\n\n",   // header line without ": "
		"GET /\nA\n\n",     // header line without ": "
		"GET /\nA:\n\n",    // header line with ":" but no space
		"GET /\n: b\n\n",   // empty header name
		"GET /\n: \n\n",    // empty header name and value
		"GET /\nA : \n",    // no blank line
		"GET /\nA: b\nC\n", // bad second line
	} {
		r, err := ParseRequest([]byte(frame))
		if !errors.Is(err, ErrFrame) {
			t.Errorf("ParseRequest(%q) = %#v, %v; want ErrFrame", frame, r, err)
		}
		if !reflect.DeepEqual(r, Request{}) {
			t.Errorf("ParseRequest(%q) returned %#v with an error", frame, r)
		}
	}
}

func TestParseResponseMalformed(t *testing.T) {
	for _, frame := range []string{
		"",
		"200",         // no LF
		"200\n",       // no blank line
		"200\nA: b\n", // no blank line after the header
		"\n\n",        // empty status
		"0\n\n",
		"99\n\n",
		"1000\n\n",
		"-200\n\n",
		"2e2\n\n",
		"200.0\n\n",
		"0x10\n\n",
		" 200\n\n",
		"200 \n\n",
		"200 OK\n\n",
		"OK\n\n",
		"200\r\n\r\n",
		"99999999999999999999999\n\n",
		"200\nA:b\n\n",
		"200\nA\n\n",
		"200\n: b\n\n",
	} {
		r, err := ParseResponse([]byte(frame))
		if !errors.Is(err, ErrFrame) {
			t.Errorf("ParseResponse(%q) = %#v, %v; want ErrFrame", frame, r, err)
		}
		if !reflect.DeepEqual(r, Response{}) {
			t.Errorf("ParseResponse(%q) returned %#v with an error", frame, r)
		}
	}
}

// TestParseAliases checks the documented zero-copy contract: strings and body alias the frame.
func TestParseAliases(t *testing.T) {
	frame := []byte("POST /mcp\nHost: h\n\nbody")
	r, err := ParseRequest(frame)
	if err != nil {
		t.Fatal(err)
	}
	frame[0], frame[len(frame)-1] = 'X', 'Y'
	if r.Method != "XOST" || string(r.Body) != "bodY" {
		t.Errorf("after changing the frame: method %q body %q; the result should alias the frame", r.Method, r.Body)
	}
}

func TestHeaderGet(t *testing.T) {
	h := Header{
		{"Content-Type", "application/json"},
		{"X-Multi", "1"},
		{"x-multi", "2"},
		{"X-MULTI", "3"},
		{"Empty", ""},
	}
	for _, tc := range []struct {
		name    string
		value   string
		present bool
	}{
		{"Content-Type", "application/json", true},
		{"content-type", "application/json", true},
		{"CONTENT-TYPE", "application/json", true},
		{"cOnTeNt-TyPe", "application/json", true},
		{"X-Multi", "1", true},
		{"x-multi", "1", true},
		{"Empty", "", true},
		{"EMPTY", "", true},
		{"Missing", "", false},
		{"", "", false},
		{"Content-Type ", "", false},
		{"Content", "", false},
		{"X-Multi2", "", false},
	} {
		v, ok := h.Get(tc.name)
		if v != tc.value || ok != tc.present {
			t.Errorf("Get(%q) = %q, %v; want %q, %v", tc.name, v, ok, tc.value, tc.present)
		}
	}
	var empty Header
	if v, ok := empty.Get("A"); v != "" || ok {
		t.Errorf("nil Header Get = %q, %v", v, ok)
	}
}

func TestStatusLineIsCanonical(t *testing.T) {
	for _, line := range []string{"+200", "0200", "20", "2000", " 200", "099", "abc"} {
		if _, err := ParseResponse([]byte(line + "\n\n")); err == nil {
			t.Errorf("ParseResponse accepted status line %q", line)
		}
	}
	if r, err := ParseResponse([]byte("404\n\n")); err != nil || r.Status != 404 {
		t.Errorf("ParseResponse(404) = %v, %v", r.Status, err)
	}
}

func TestHeaderFoldsASCIIOnly(t *testing.T) {
	h := Header{{Name: "Ho\u017ft", Value: "localhost"}, {Name: "host", Value: "evil.example"}}
	if v, _ := h.Get("Host"); v != "evil.example" {
		t.Errorf("Get(Host) = %q: a non-ASCII name matched", v)
	}
}
