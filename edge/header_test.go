package edge

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// b64 is the =?base64?…?= form of s.
func b64(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }

func TestDecodeHeaderValue(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"2026-07-28", "2026-07-28"},
		{"skill://git-workflow/SKILL.md", "skill://git-workflow/SKILL.md"},
		{"=?base64?MjAyNi0wNy0yOA==?=", "2026-07-28"},
		{b64("skill://café/SKILL.md"), "skill://café/SKILL.md"},
		{b64("  padded  "), "  padded  "},
		{b64("line\r\nbreak"), "line\r\nbreak"},
		// The spec's own example: a literal value that looks like the sentinel.
		{"=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", "=?base64?literal?="},
		{"=?base64??=", ""},

		// Anything that is not exactly the sentinel form is taken as is.
		{"=?base64?", "=?base64?"},
		{"=?base64?=", "=?base64?="},
		{"=?base64?YQ==", "=?base64?YQ=="},
		{"base64?YQ==?=", "base64?YQ==?="},
		{"=?BASE64?YQ==?=", "=?BASE64?YQ==?="}, // the markers are case-sensitive
		{"=?Base64?YQ==?=", "=?Base64?YQ==?="},
		{" =?base64?YQ==?=", " =?base64?YQ==?="},
		{"=?base64?YQ==?= ", "=?base64?YQ==?= "},
		{"x=?base64?YQ==?=", "x=?base64?YQ==?="},
		{"=?base64?!!!!?=", "=?base64?!!!!?="},
		{"=?base64?Y Q==?=", "=?base64?Y Q==?="},
		{"=?base64?YQ==?=?=", "=?base64?YQ==?=?="},
		{"=?base64?YQ?=", "=?base64?YQ?="}, // unpadded: the standard encoding pads
		{"=?base64?c2tpbGw6Ly9jYWbDqS9TS0lMTC5tZA?=", "=?base64?c2tpbGw6Ly9jYWbDqS9TS0lMTC5tZA?="}, // unpadded
		{"=?base64?_-8=?=", "=?base64?_-8=?="},                                                     // URL-safe alphabet is not the standard one
		{"=?base64?YQ=?=", "=?base64?YQ=?="},                                                       // short padding
		{"=?base64?YQ===?=", "=?base64?YQ===?="},                                                   // extra padding
	} {
		if got := decodeHeaderValue(tc.in); got != tc.want {
			t.Errorf("decodeHeaderValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIsJSONContentType(t *testing.T) {
	for _, tc := range []struct {
		ct   string
		want bool
	}{
		{"application/json", true},
		{"Application/JSON", true},
		{"APPLICATION/JSON", true},
		{"application/json; charset=utf-8", true},
		{"application/json;charset=UTF-8", true},
		{"application/json ; charset=utf-8", true},
		{"  application/json  ", true},
		{"\tapplication/json\t;x=y", true},
		{"application/json;", true},
		{"application/json; charset=utf-8; profile=x", true},

		{"", false},
		{";", false},
		{"application", false},
		{"application/", false},
		{"json", false},
		{"text/json", false},
		{"text/plain", false},
		{"application/json-seq", false},
		{"application/jsonl", false},
		{"application/json+ld", false},
		{"application/ld+json", false},
		{"application/vnd.api+json", false},
		{"application/x-www-form-urlencoded", false},
		{"multipart/form-data", false},
		{"application/json charset=utf-8", false},
		{"application/json,text/plain", false},
		{"application / json", false},
		{"application/*", false},
		{"*/*", false},
	} {
		if got := isJSONContentType(tc.ct); got != tc.want {
			t.Errorf("isJSONContentType(%q) = %v, want %v", tc.ct, got, tc.want)
		}
	}
}

func TestModernStatus(t *testing.T) {
	for _, tc := range []struct {
		code int64
		want int
	}{
		{0, 200},
		{jsonrpc.CodeMethodNotFound, 404},
		{jsonrpc.CodeParseError, 400},
		{jsonrpc.CodeInvalidRequest, 400},
		{jsonrpc.CodeInvalidParams, 400},
		{jsonrpc.CodeInternalError, 400},
		{codeHeaderMismatch, 400},
		{codeUnsupportedVersion, 400},
		{1, 400},
	} {
		if got := modernStatus(tc.code); got != tc.want {
			t.Errorf("modernStatus(%d) = %d, want %d", tc.code, got, tc.want)
		}
	}
}

func TestCheckModernHeaders(t *testing.T) {
	const v = V20260728
	list := request(1, "skills/list", `{`+modernMeta+`}`)
	read := func(uri string) string {
		return request(2, "resources/read", `{`+modernMeta+`,"uri":`+jsonQuote(uri)+`}`)
	}
	for _, tc := range []struct {
		name    string
		msg     string
		version string
		header  wire.Header
		wantErr string // substring of the -32020 message; "" for success
	}{
		{"match", list, v, header(hdrProtocolVersion, v, hdrMethod, "skills/list"), ""},
		{"names are case-insensitive", list, v, header("mcp-protocol-version", v, "MCP-METHOD", "skills/list"), ""},
		{"base64 values", list, v, header(hdrProtocolVersion, b64(v), hdrMethod, b64("skills/list")), ""},
		{"extra headers ignored", list, v, header("X-Other", "1", hdrProtocolVersion, v, hdrName, "whatever", hdrMethod, "skills/list"), ""},
		{"no headers", list, v, nil, `Missing MCP-Protocol-Version header (expected "2026-07-28")`},
		{"version missing", list, v, header(hdrMethod, "skills/list"), "Missing MCP-Protocol-Version"},
		{"version mismatch", list, v, header(hdrProtocolVersion, "2025-11-25", hdrMethod, "skills/list"),
			`MCP-Protocol-Version header "2025-11-25" does not match the request body ("2026-07-28")`},
		{"version empty", list, v, header(hdrProtocolVersion, "", hdrMethod, "skills/list"), "MCP-Protocol-Version header"},
		{"version with space", list, v, header(hdrProtocolVersion, v+" ", hdrMethod, "skills/list"), "does not match"},
		{"version checked before method", list, v, header(hdrProtocolVersion, "x"), "MCP-Protocol-Version header"},
		{"method missing", list, v, header(hdrProtocolVersion, v), `Missing Mcp-Method header (expected "skills/list")`},
		{"method mismatch", list, v, header(hdrProtocolVersion, v, hdrMethod, "skills/get"), `Mcp-Method header "skills/get" does not match`},
		{"method value is case-sensitive", list, v, header(hdrProtocolVersion, v, hdrMethod, "Skills/List"), "Mcp-Method header"},
		{"first of repeated headers counts", list, v, header(hdrProtocolVersion, v, hdrMethod, "skills/get", hdrMethod, "skills/list"), "Mcp-Method header"},
		{"bad base64 is compared as is", list, v, header(hdrProtocolVersion, v, hdrMethod, "=?base64?!!?="), "Mcp-Method header"},

		{"read match", read("skill://git-workflow/SKILL.md"), v,
			header(hdrProtocolVersion, v, hdrMethod, "resources/read", hdrName, "skill://git-workflow/SKILL.md"), ""},
		{"read name missing", read("skill://git-workflow/SKILL.md"), v,
			header(hdrProtocolVersion, v, hdrMethod, "resources/read"), `Missing Mcp-Name header (expected "skill://git-workflow/SKILL.md")`},
		{"read name mismatch", read("skill://git-workflow/SKILL.md"), v,
			header(hdrProtocolVersion, v, hdrMethod, "resources/read", hdrName, "skill://release-notes/SKILL.md"), "Mcp-Name header"},
		{"read name compared with the URI as sent, not canonical", read("SKILL://git-workflow/SKILL.md"), v,
			header(hdrProtocolVersion, v, hdrMethod, "resources/read", hdrName, "skill://git-workflow/SKILL.md"), "Mcp-Name header"},
		{"read non-ASCII URI base64", read("skill://café/SKILL.md"), v,
			header(hdrProtocolVersion, v, hdrMethod, "resources/read", hdrName, b64("skill://café/SKILL.md")), ""},
		{"read non-ASCII URI raw", read("skill://café/SKILL.md"), v,
			header(hdrProtocolVersion, v, hdrMethod, "resources/read", hdrName, "skill://café/SKILL.md"), ""},
		{"read non-ASCII URI base64 of another", read("skill://café/SKILL.md"), v,
			header(hdrProtocolVersion, v, hdrMethod, "resources/read", hdrName, b64("skill://cafe/SKILL.md")), "Mcp-Name header"},
		{"read URI that looks like the sentinel", read("=?base64?literal?="), v,
			header(hdrProtocolVersion, v, hdrMethod, "resources/read", hdrName, "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="), ""},
		{"read empty URI", read(""), v,
			header(hdrProtocolVersion, v, hdrMethod, "resources/read", hdrName, ""), ""},
		{"read empty URI, no header", read(""), v,
			header(hdrProtocolVersion, v, hdrMethod, "resources/read"), "Missing Mcp-Name"},
		{"read URI not a string: no name check", request(3, "resources/read", `{`+modernMeta+`,"uri":5}`), v,
			header(hdrProtocolVersion, v, hdrMethod, "resources/read"), ""},
		{"read without uri: no name check", request(3, "resources/read", `{`+modernMeta+`}`), v,
			header(hdrProtocolVersion, v, hdrMethod, "resources/read"), ""},
		{"name only checked for resources/read", request(4, "skills/get", `{`+modernMeta+`,"uri":"skill://a/SKILL.md"}`), v,
			header(hdrProtocolVersion, v, hdrMethod, "skills/get"), ""},
		{"directory read has no name check", request(5, "resources/directory/read", `{`+modernMeta+`,"uri":"skill://acme"}`), v,
			header(hdrProtocolVersion, v, hdrMethod, "resources/directory/read", hdrName, "other"), ""},
		{"version argument is what is compared", list, "2027-01-01",
			header(hdrProtocolVersion, "2027-01-01", hdrMethod, "skills/list"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := parseMsg(t, tc.msg)
			var c call
			c.read(&m, nil)
			c.version = tc.version
			hd := scanHeaders(tc.header, hdrAccessAssertion)
			err := (&Server{}).checkModernHeaders(&hd, &c)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("checkModernHeaders = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("checkModernHeaders = nil, want an error containing %q", tc.wantErr)
			}
			if err.Code != codeHeaderMismatch || !strings.Contains(err.Message, tc.wantErr) {
				t.Fatalf("checkModernHeaders = %d %q, want %d containing %q", err.Code, err.Message, codeHeaderMismatch, tc.wantErr)
			}
		})
	}
}

// jsonQuote is s as a JSON string.
func jsonQuote(s string) string { return string(jsonrpc.AppendString(nil, s)) }

// TestServeHTTPNonASCIIName sends resources/read for a file whose name is not ASCII, in
// the modern era, with Mcp-Name carried as base64 of the URI exactly as in the body.
func TestServeHTTPNonASCIIName(t *testing.T) {
	p := packOf(t, map[string]string{"s0/SKILL.md": skillMD("s0"), "s0/café.md": "bonjour\n"})
	s := New(p, wire.Options{})
	for _, tc := range []struct {
		name, uri, mcpName string
		status             int
	}{
		{"raw URI, base64 header", "skill://s0/café.md", b64("skill://s0/café.md"), 200},
		{"canonical URI, plain header", "skill://s0/caf%C3%A9.md", "skill://s0/caf%C3%A9.md", 200},
		{"canonical URI, base64 header", "skill://s0/caf%C3%A9.md", b64("skill://s0/caf%C3%A9.md"), 200},
		{"raw URI, canonical header", "skill://s0/café.md", "skill://s0/caf%C3%A9.md", 400},
		{"raw URI, base64 of canonical", "skill://s0/café.md", b64("skill://s0/caf%C3%A9.md"), 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := request(7, "resources/read", `{`+modernMeta+`,"uri":`+jsonQuote(tc.uri)+`}`)
			resp := s.ServeHTTP(&wire.Request{Method: "POST", Target: "/mcp", Body: []byte(body), Header: header(
				"Host", "localhost", "Content-Type", "application/json",
				hdrProtocolVersion, V20260728, hdrMethod, "resources/read", hdrName, tc.mcpName)})
			if resp.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, tc.status, resp.Body)
			}
			if tc.status != 200 {
				if got := gjson.GetBytes(resp.Body, "error.code").Int(); got != codeHeaderMismatch {
					t.Fatalf("error code %d, want %d: %s", got, codeHeaderMismatch, resp.Body)
				}
				return
			}
			full := resolved(t, s, resp.Body, resp.Refs)
			if got := gjson.GetBytes(full, "result.contents.0.uri").Str; got != tc.uri {
				t.Errorf("contents[0].uri = %q, want %q (as sent)", got, tc.uri)
			}
			if got := gjson.GetBytes(full, "result.contents.0.text").Str; got != "bonjour\n" {
				t.Errorf("contents[0].text = %q", got)
			}
		})
	}
}

// scanHeaders finds what wire.Header.Get finds: the first field of each name, compared
// ignoring ASCII case, present or not.
func TestScanHeaders(t *testing.T) {
	h := header("x-long-name", "0", "ORIGIN", "a", "origin", "b", "host", "", "Content-type", "c",
		"mcp-method", "m", "MCP-NAME", "n", "Mcp-Protocol-Version", "v", "if-none-match", "i", "Hos", "x", "Hoſt", "y",
		"accept", "text/html", "ACCEPT", "second", "x-forwarded-proto", "https", "Accepts", "z")
	hd := scanHeaders(h, hdrAccessAssertion)
	for _, tc := range []struct {
		name, got string
		has       bool
	}{
		{"Host", hd.host, hd.hasHost}, {"Origin", hd.origin, hd.hasOrigin}, {"Content-Type", hd.contentType, hd.hasContentType},
		{hdrProtocolVersion, hd.protocolVersion, hd.hasVersion}, {hdrMethod, hd.method, hd.hasMethod}, {hdrName, hd.name, hd.hasName},
		{"If-None-Match", hd.ifNoneMatch, hd.hasIfNoneMatch}, {"Accept", hd.accept, hd.hasAccept},
		{"X-Forwarded-Proto", hd.forwardedProto, hd.hasForwardedProto},
	} {
		want, ok := h.Get(tc.name)
		if tc.got != want || tc.has != ok {
			t.Errorf("%s: %q, %v; Get says %q, %v", tc.name, tc.got, tc.has, want, ok)
		}
	}
	if hd := scanHeaders(nil, hdrAccessAssertion); hd.hasHost || hd.hasOrigin || hd.hasContentType {
		t.Error("fields found in an empty header")
	}
}

// RequestFields names every field scanHeaders reads and nothing else: a header of only the
// listed fields scans as the whole header does, each listed field alone lands in a field
// of its own, and headers has one string field per name (a field added to headers without
// its name in the list fails here).
func TestRequestFields(t *testing.T) {
	var all []string
	others := []string{"User-Agent", "Content-Length", "Accept-Encoding", "Accept-Language", "Proxy-Authorization",
		"Cookie", "Mcp-Session-Id", "Last-Event-ID", "Referer", "X-Forwarded-For", "X-Forwarded-Host",
		"Forwarded", "Cache-Control", "Connection", "Transfer-Encoding", "Te", "Sec-Fetch-Mode", "Sec-Fetch-Site", "Upgrade"}
	for i, name := range others {
		all = append(all, name, fmt.Sprint("other ", i))
	}
	listed := header()
	for i, name := range RequestFields {
		v := fmt.Sprint("value ", i)
		all = append(all, strings.ToUpper(name), v)
		listed = append(listed, wire.Field{Name: name, Value: v})
		hd := scanHeaders(header(name, v), hdrAccessAssertion)
		if !slices.Contains(stringFields(hd), v) {
			t.Errorf("%s alone: scanHeaders does not read it", name)
		}
	}
	if got, want := scanHeaders(listed, hdrAccessAssertion), scanHeaders(header(all...), hdrAccessAssertion); got != want {
		t.Errorf("the listed fields scan as %+v, the whole header as %+v", got, want)
	}
	if n := len(stringFields(headers{})); n != len(RequestFields) {
		t.Errorf("headers has %d string fields, RequestFields %d names", n, len(RequestFields))
	}
}

// stringFields returns the values of hd's string fields.
func stringFields(hd headers) []string {
	v := reflect.ValueOf(hd)
	var out []string
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.String {
			out = append(out, f.String())
		}
	}
	return out
}
