package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// equalRequest reports whether a and b are equal, treating nil and empty bodies alike.
func equalRequest(a, b Request) bool {
	return a.Method == b.Method && a.Target == b.Target && slices.Equal(a.Header, b.Header) && bytes.Equal(a.Body, b.Body)
}

func equalResponse(a, b Response) bool {
	return a.Status == b.Status && slices.Equal(a.Header, b.Header) && bytes.Equal(a.Body, b.Body) && slices.Equal(a.Refs, b.Refs)
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
		{"lowest", Response{Status: 200}, "200\n\n"},
		{"highest", Response{Status: 599}, "599\n\n"},
		{"empty body", Response{Status: 204, Header: Header{{"A", "b"}}, Body: []byte{}}, "204\nA: b\n\n"},
		{"body with blank lines", Response{Status: 404, Body: []byte("not\n\nfound\n")}, "404\n\nnot\n\nfound\n"},
		{"repeated headers", Response{Status: 200, Header: Header{{"Vary", "Origin"}, {"Vary", "Accept"}}}, "200\nVary: Origin\nVary: Accept\n\n"},
		{"value with colon-space", Response{Status: 200, Header: Header{{"X", "k: v"}}}, "200\nX: k: v\n\n"},
		{"one object", Response{Status: 200, Header: Header{{"ETag", `"x"`}}, Refs: []Ref{{At: 0, Size: 5, Name: obj1}}},
			"200\nETag: \"x\"\n@0 5 " + obj1 + "\n\n"},
		{"objects in a body", Response{Status: 200, Refs: []Ref{{At: 2, Size: 0, Name: obj1}, {At: 2, Size: 12, Name: obj2}, {At: 4, Size: 1 << 40, Name: obj1}, {At: 4, Size: 3, Name: obj2, Pack: obj1, Offset: 9}}, Body: []byte("[,]\n")},
			"200\n@2 0 " + obj1 + "\n@2 12 " + obj2 + "\n@4 1099511627776 " + obj1 + "\n@4 3 " + obj2 + " " + obj1 + " 9\n\n[,]\n"},
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

var (
	obj1 = strings.Repeat("0a", 32)
	obj2 = strings.Repeat("b9", 32)
)

func TestParseResponseMalformedRefs(t *testing.T) {
	for _, frame := range []string{
		"200\n@0 5 " + obj1 + "\nA: b\n\n",                         // a header field after a reference
		"200\n@1 5 " + obj1 + "\n\n",                               // offset past the body
		"200\n@3 5 " + obj1 + "\n@2 5 " + obj1 + "\n\nabc",         // offsets going back
		"200\n@0 5 " + obj1[:63] + "\n\n",                          // short name
		"200\n@0 5 " + strings.ToUpper(obj1) + "\n\n",              // upper-case name
		"200\n@0 05 " + obj1 + "\n\n",                              // leading zero
		"200\n@00 5 " + obj1 + "\n\n",                              // leading zero
		"200\n@-1 5 " + obj1 + "\n\n",                              // sign
		"200\n@0 5 " + obj1 + " \n\n",                              // trailing space
		"200\n@0  5 " + obj1 + "\n\n",                              // two spaces
		"200\n@0 5\n\n",                                            // no name
		"200\n@\n\n",                                               // nothing
		"200\n@0 99999999999999999 " + obj1 + "\n\n",               // size too long
		"200\n@0 5 " + obj1 + " " + obj2 + "\n\n",                  // a pack without an offset
		"200\n@0 5 " + obj1 + " " + obj2 + " \n\n",                 // an empty offset
		"200\n@0 5 " + obj1 + " " + obj2 + " 01\n\n",               // leading zero
		"200\n@0 5 " + obj1 + " " + obj2[:63] + " 1\n\n",           // short pack name
		"200\n@0 5 " + obj1 + " " + obj2 + " 1 \n\n",               // trailing space
		"200\n@0 5 " + obj1 + " " + obj2 + " 9007199254740992\n\n", // offset out of range
		"200\n@0 5 " + obj1 + " 3 1\n\n",                           // a pack number, not a name
	} {
		if r, err := ParseResponse([]byte(frame)); !errors.Is(err, ErrFrame) {
			t.Errorf("ParseResponse(%q) = %#v, %v; want ErrFrame", frame, r, err)
		}
	}
}

func TestRPCFrames(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rpc   RPC
		frame string
	}{
		{"no reply", RPC{Version: "2025-06-18"}, "2025-06-18\n"},
		{"before initialize", RPC{Message: []byte(`{"a":1}`)}, "\n{\"a\":1}"},
		{"objects", RPC{Version: "v", Refs: []Ref{{At: 1, Size: 3, Name: obj1}, {At: 2, Size: 4, Name: obj2}}, Message: []byte(`[1]`)}, "v\n@1 3 " + obj1 + "\n@2 4 " + obj2 + "\n[1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame := AppendRPC(nil, &tc.rpc)
			if string(frame) != tc.frame {
				t.Fatalf("AppendRPC = %q, want %q", frame, tc.frame)
			}
			got, err := ParseRPCOutput(frame)
			if err != nil || got.Version != tc.rpc.Version || !bytes.Equal(got.Message, tc.rpc.Message) || !slices.Equal(got.Refs, tc.rpc.Refs) {
				t.Fatalf("ParseRPCOutput(%q) = %#v, %v", frame, got, err)
			}
		})
	}
	// An input frame's message is never read as references, whatever it starts with.
	in, err := ParseRPCInput([]byte("v\n@0 3 " + obj1 + "\n"))
	if err != nil || in.Version != "v" || string(in.Message) != "@0 3 "+obj1+"\n" || in.Refs != nil {
		t.Fatalf("ParseRPCInput = %#v, %v", in, err)
	}
	for _, frame := range []string{"no version line", "v\n@9 3 " + obj1 + "\n{}", "v\n@0 3 " + obj1} {
		if _, err := ParseRPCOutput([]byte(frame)); !errors.Is(err, ErrFrame) {
			t.Errorf("ParseRPCOutput(%q): %v, want ErrFrame", frame, err)
		}
	}
}

// mapStore is a Store held in a map.
// TestResolvePacked: a packed object is the bytes at its offset of its pack, checked
// against its name; bytes outside the pack, or not the object's, are an error.
func TestResolvePacked(t *testing.T) {
	hexOf := func(s string) string { sum := sha256.Sum256([]byte(s)); return hex.EncodeToString(sum[:]) }
	a, b := `"text"`, "XY"
	pack := b + a
	st := mapStore{hexOf(pack): pack}
	r := Response{Status: 200, Refs: []Ref{
		{At: 0, Size: 2, Name: hexOf(b), Pack: hexOf(pack), Offset: 0},
		{At: 1, Size: 6, Name: hexOf(a), Pack: hexOf(pack), Offset: 2},
	}, Body: []byte(`[]`)}
	frame, err := ResolveResponse(nil, &r, st)
	if err != nil || string(frame) != "200\n\nXY["+a+"]" {
		t.Fatalf("ResolveResponse = %q, %v", frame, err)
	}
	round, err := ParseResponse(AppendResponse(nil, &r))
	if err != nil || !slices.Equal(round.Refs, r.Refs) {
		t.Fatalf("a packed reference does not survive its frame: %v, %v", round.Refs, err)
	}
	for _, bad := range []Ref{
		{Size: 2, Name: hexOf(b), Pack: hexOf(pack), Offset: 1},       // other bytes
		{Size: 6, Name: hexOf(a), Pack: hexOf(pack), Offset: 3},       // past the end
		{Size: 2, Name: hexOf(b), Pack: hexOf(pack), Offset: 1 << 40}, // far past it
		{Size: 2, Name: hexOf(b), Pack: strings.Repeat("cc", 32)},     // no such pack
	} {
		if _, err := Objects([]Ref{bad}, st); !errors.Is(err, ErrObject) {
			t.Errorf("Objects(%+v) = %v, want an ErrObject", bad, err)
		}
	}
}

type mapStore map[string]string

func (m mapStore) Object(name string) ([]byte, error) {
	if s, ok := m[name]; ok {
		return []byte(s), nil
	}
	return nil, fmt.Errorf("no object %s: %w", name, fs.ErrNotExist)
}

func TestResolve(t *testing.T) {
	st := mapStore{obj1: `"text"`, obj2: "XY"}
	r := Response{Status: 200, Header: Header{{"Content-Type", "application/json"}},
		Refs: []Ref{{At: 0, Size: 2, Name: obj2}, {At: 8, Size: 6, Name: obj1}, {At: 8, Size: 2, Name: obj2}, {At: 9, Size: 6, Name: obj1}}, Body: []byte(`{"a":[1,]}`)}
	const want = `XY{"a":[1,"text"XY]"text"}`
	if n := BodySize(r.Body, r.Refs); n != int64(len(want)) {
		t.Fatalf("BodySize = %d, want %d", n, len(want))
	}
	objs, err := Objects(r.Refs, st)
	if err != nil {
		t.Fatal(err)
	}
	if got := AppendResolved([]byte("<"), r.Body, r.Refs, objs); string(got) != "<"+want {
		t.Fatalf("AppendResolved = %q", got)
	}
	var buf bytes.Buffer
	if err := WriteResolved(&buf, r.Body, r.Refs, objs); err != nil || buf.String() != want {
		t.Fatalf("WriteResolved = %q, %v", buf.String(), err)
	}
	frame, err := ResolveResponse(nil, &r, st)
	if err != nil || string(frame) != "200\nContent-Type: application/json\n\n"+want {
		t.Fatalf("ResolveResponse = %q, %v", frame, err)
	}

	// A missing object or one of the wrong size is an error, and nothing is appended.
	for _, tc := range []struct {
		refs []Ref
		want string
	}{
		{[]Ref{{At: 0, Size: 2, Name: strings.Repeat("cc", 32)}}, "content store: no object cccc"},
		{[]Ref{{At: 0, Size: 3, Name: obj2}}, "content store: object " + obj2 + " has 2 bytes, not the 3 referenced"},
	} {
		bad := Response{Status: 200, Refs: tc.refs}
		out, err := ResolveResponse([]byte("keep"), &bad, st)
		if !errors.Is(err, ErrObject) || !strings.Contains(err.Error(), tc.want) || string(out) != "keep" {
			t.Errorf("ResolveResponse with %v = %q, %v", tc.refs, out, err)
		}
	}
	if _, err := Objects([]Ref{{At: 0, Size: 2, Name: strings.Repeat("cc", 32)}}, st); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing object's error %v does not wrap fs.ErrNotExist", err)
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
