package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

func TestParse(t *testing.T) {
	type want struct {
		kind   Kind
		id     string // "" means nil
		method string
		params string // "" means nil
		result string
		error  string
	}
	tests := []struct {
		name string
		in   string
		want want
	}{
		{"typical request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
			want{kind: KindRequest, id: `1`, method: "ping"}},
		{"members in any order", `{"method":"ping","id":2,"jsonrpc":"2.0"}`,
			want{kind: KindRequest, id: `2`, method: "ping"}},
		{"whitespace everywhere", " \t\r\n{ \"jsonrpc\" : \"2.0\" ,\n \"id\" :  7 , \"method\":\"x\" ,\"params\" : [ 1 , 2 ] }\n ",
			want{kind: KindRequest, id: `7`, method: "x", params: `[ 1 , 2 ]`}},

		// Ids of every kind are echoed byte for byte.
		{"id 0", `{"jsonrpc":"2.0","id":0,"method":"m"}`, want{kind: KindRequest, id: `0`, method: "m"}},
		{"id 1.0", `{"jsonrpc":"2.0","id":1.0,"method":"m"}`, want{kind: KindRequest, id: `1.0`, method: "m"}},
		{"id -0", `{"jsonrpc":"2.0","id":-0,"method":"m"}`, want{kind: KindRequest, id: `-0`, method: "m"}},
		{"id 1e3", `{"jsonrpc":"2.0","id":1e3,"method":"m"}`, want{kind: KindRequest, id: `1e3`, method: "m"}},
		{"id -1.5E-3", `{"jsonrpc":"2.0","id":-1.5E-3,"method":"m"}`, want{kind: KindRequest, id: `-1.5E-3`, method: "m"}},
		{"id beyond int64 and float64 precision", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"m"}`,
			want{kind: KindRequest, id: `123456789012345678901234567890`, method: "m"}},
		{"id string", `{"jsonrpc":"2.0","id":"abc","method":"m"}`, want{kind: KindRequest, id: `"abc"`, method: "m"}},
		{"id empty string", `{"jsonrpc":"2.0","id":"","method":"m"}`, want{kind: KindRequest, id: `""`, method: "m"}},
		{"id string with escapes kept as sent", `{"jsonrpc":"2.0","id":"a\"b\u0041\/","method":"m"}`,
			want{kind: KindRequest, id: `"a\"b\u0041\/"`, method: "m"}},
		{"id string non-ASCII", `{"jsonrpc":"2.0","id":"ключ","method":"m"}`, want{kind: KindRequest, id: `"ключ"`, method: "m"}},
		{"id null is a request", `{"jsonrpc":"2.0","id":null,"method":"m"}`, want{kind: KindRequest, id: `null`, method: "m"}},

		// Notifications.
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			want{kind: KindNotification, method: "notifications/initialized"}},
		{"notification with params", `{"jsonrpc":"2.0","method":"n","params":{"a":[1,{"b":2}]}}`,
			want{kind: KindNotification, method: "n", params: `{"a":[1,{"b":2}]}`}},

		// Params.
		{"params object", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"uri":"skill://x"}}`,
			want{kind: KindRequest, id: `1`, method: "m", params: `{"uri":"skill://x"}`}},
		{"params empty object", `{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`,
			want{kind: KindRequest, id: `1`, method: "m", params: `{}`}},
		{"params empty array", `{"jsonrpc":"2.0","id":1,"method":"m","params":[]}`,
			want{kind: KindRequest, id: `1`, method: "m", params: `[]`}},

		// Method names.
		{"method with unicode escapes", `{"jsonrpc":"2.0","id":1,"method":"\u0070ing"}`,
			want{kind: KindRequest, id: `1`, method: "ping"}},
		{"method with escaped slash", `{"jsonrpc":"2.0","id":1,"method":"resources\/read"}`,
			want{kind: KindRequest, id: `1`, method: "resources/read"}},
		{"method with surrogate pair", `{"jsonrpc":"2.0","id":1,"method":"\ud83d\ude00"}`,
			want{kind: KindRequest, id: `1`, method: "😀"}},
		{"method with lone surrogate", `{"jsonrpc":"2.0","id":1,"method":"\ud83dx"}`,
			want{kind: KindRequest, id: `1`, method: "\uFFFDx"}},
		{"method with lone surrogate before another escape", `{"jsonrpc":"2.0","id":1,"method":"\ud83d\u0041"}`,
			want{kind: KindRequest, id: `1`, method: "\uFFFDA"}},
		{"method non-ASCII", `{"jsonrpc":"2.0","id":1,"method":"ping–pong"}`,
			want{kind: KindRequest, id: `1`, method: "ping–pong"}},
		{"method empty", `{"jsonrpc":"2.0","id":1,"method":""}`,
			want{kind: KindRequest, id: `1`, method: ""}},

		// Members.
		{"jsonrpc with escapes", `{"jsonrpc":"2\u002e0","id":1,"method":"m"}`,
			want{kind: KindRequest, id: `1`, method: "m"}},
		{"key with escapes", `{"jsonrpc":"2.0","\u0069d":5,"method":"m"}`,
			want{kind: KindRequest, id: `5`, method: "m"}},
		{"unknown members ignored", `{"jsonrpc":"2.0","x":{"method":1},"id":1,"method":"m","y":[]}`,
			want{kind: KindRequest, id: `1`, method: "m"}},
		{"duplicate keys: first wins", `{"jsonrpc":"2.0","id":1,"id":2,"method":"a","method":"b","params":[1],"params":[2]}`,
			want{kind: KindRequest, id: `1`, method: "a", params: `[1]`}},
		{"duplicate keys: an invalid repeat is ignored", `{"jsonrpc":"2.0","id":1,"id":true,"method":"m","method":5}`,
			want{kind: KindRequest, id: `1`, method: "m"}},

		// Responses.
		{"response result", `{"jsonrpc":"2.0","id":"x","result":{"a":1}}`,
			want{kind: KindResponse, id: `"x"`, result: `{"a":1}`}},
		{"response result null", `{"jsonrpc":"2.0","id":3,"result":null}`,
			want{kind: KindResponse, id: `3`, result: `null`}},
		{"response result scalar", `{"jsonrpc":"2.0","id":3,"result":"ok"}`,
			want{kind: KindResponse, id: `3`, result: `"ok"`}},
		{"response error", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad","data":{"k":[]}}}`,
			want{kind: KindResponse, id: `null`, error: `{"code":-32600,"message":"bad","data":{"k":[]}}`}},
		{"response error without data", `{"jsonrpc":"2.0","id":9,"error":{"message":"m","code":1}}`,
			want{kind: KindResponse, id: `9`, error: `{"message":"m","code":1}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			m, e := Parse(in)
			requireNoError(t, e, "Parse")
			requireEqual(t, tc.want.kind, m.Kind, "Kind")
			requireBytes(t, bytesOrNil(tc.want.id), m.ID, "ID")
			requireEqual(t, tc.want.method, m.Method, "Method")
			requireBytes(t, bytesOrNil(tc.want.params), m.Params, "Params")
			requireBytes(t, bytesOrNil(tc.want.result), m.Result, "Result")
			requireBytes(t, bytesOrNil(tc.want.error), m.Error, "Error")
			for _, s := range [][]byte{m.ID, m.Params, m.Result, m.Error} {
				requireAliases(t, in, s, "raw slice")
			}
			// The id is echoed exactly.
			out := AppendResult(nil, m.ID, []byte(`{}`))
			requireValidJSON(t, out, "AppendResult")
			if m.ID != nil {
				requireEqual(t, string(m.ID), gjson.GetBytes(out, "id").Raw, "echoed id")
			}
		})
	}
}

func TestParse_invalid(t *testing.T) {
	tests := []struct {
		name string
		in   string
		code int64
		id   string // the id carried on error; "" means nil
	}{
		// Not JSON.
		{"empty", ``, CodeParseError, ""},
		{"whitespace", " \n", CodeParseError, ""},
		{"truncated", `{"jsonrpc":"2.0","id":1`, CodeParseError, ""},
		{"trailing comma", `{"jsonrpc":"2.0","id":1,}`, CodeParseError, ""},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"m"}x`, CodeParseError, ""},
		// JSON text is UTF-8 (RFC 8259 §8.1): raw bytes that are not are no JSON at all,
		// and an id of them could not be echoed as JSON.
		{"id not UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"ping\"}", CodeParseError, ""},
		{"method not UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\xffb\"}", CodeParseError, ""},
		{"params not UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"uri\":\"\xed\xa0\x80\"}}", CodeParseError, ""},
		{"two values", `{} {}`, CodeParseError, ""},
		{"single quotes", `{'jsonrpc':'2.0'}`, CodeParseError, ""},
		{"leading zero", `{"jsonrpc":"2.0","id":01,"method":"m"}`, CodeParseError, ""},
		{"NaN", `{"jsonrpc":"2.0","id":NaN,"method":"m"}`, CodeParseError, ""},
		{"raw control character", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\nb\"}", CodeParseError, ""},
		{"bad escape", `{"jsonrpc":"2.0","id":1,"method":"\x"}`, CodeParseError, ""},
		{"short unicode escape", `{"jsonrpc":"2.0","id":1,"method":"\u12"}`, CodeParseError, ""},

		// JSON, but not an object.
		{"array", `[{"jsonrpc":"2.0","id":1,"method":"m"}]`, CodeInvalidRequest, ""},
		{"empty array", `[]`, CodeInvalidRequest, ""},
		{"string", `"ping"`, CodeInvalidRequest, ""},
		{"number", `1`, CodeInvalidRequest, ""},
		{"null", `null`, CodeInvalidRequest, ""},
		{"true", `true`, CodeInvalidRequest, ""},
		{"empty object", `{}`, CodeInvalidRequest, ""},

		// Version.
		{"jsonrpc missing", `{"id":1,"method":"m"}`, CodeInvalidRequest, `1`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"m"}`, CodeInvalidRequest, `1`},
		{"jsonrpc number", `{"jsonrpc":2.0,"id":"a","method":"m"}`, CodeInvalidRequest, `"a"`},
		{"jsonrpc with space", `{"jsonrpc":"2.0 ","id":1,"method":"m"}`, CodeInvalidRequest, `1`},
		{"jsonrpc null", `{"jsonrpc":null,"id":1,"method":"m"}`, CodeInvalidRequest, `1`},
		{"jsonrpc missing on a notification", `{"method":"m"}`, CodeInvalidRequest, ""},

		// Id.
		{"id true", `{"jsonrpc":"2.0","id":true,"method":"m"}`, CodeInvalidRequest, ""},
		{"id false", `{"jsonrpc":"2.0","id":false,"method":"m"}`, CodeInvalidRequest, ""},
		{"id object", `{"jsonrpc":"2.0","id":{"a":1},"method":"m"}`, CodeInvalidRequest, ""},
		{"id array", `{"jsonrpc":"2.0","id":[1],"method":"m"}`, CodeInvalidRequest, ""},
		{"id invalid first, valid repeat ignored", `{"jsonrpc":"2.0","id":true,"id":1,"method":"m"}`, CodeInvalidRequest, ""},

		// Method.
		{"method number", `{"jsonrpc":"2.0","id":1,"method":1}`, CodeInvalidRequest, `1`},
		{"method null", `{"jsonrpc":"2.0","id":1,"method":null}`, CodeInvalidRequest, `1`},
		{"method object", `{"jsonrpc":"2.0","id":1.0,"method":{}}`, CodeInvalidRequest, `1.0`},
		{"method with result", `{"jsonrpc":"2.0","id":1,"method":"m","result":1}`, CodeInvalidRequest, `1`},
		{"method with error", `{"jsonrpc":"2.0","id":1,"method":"m","error":{"code":1,"message":"x"}}`, CodeInvalidRequest, `1`},

		// Params.
		{"params string", `{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}`, CodeInvalidRequest, `1`},
		{"params number", `{"jsonrpc":"2.0","id":1,"method":"m","params":1}`, CodeInvalidRequest, `1`},
		{"params null", `{"jsonrpc":"2.0","id":1,"method":"m","params":null}`, CodeInvalidRequest, `1`},
		{"params true", `{"jsonrpc":"2.0","id":1,"method":"m","params":true}`, CodeInvalidRequest, `1`},
		{"params invalid on a notification", `{"jsonrpc":"2.0","method":"m","params":0}`, CodeInvalidRequest, ""},

		// Neither request nor response.
		{"only id", `{"jsonrpc":"2.0","id":1}`, CodeInvalidRequest, `1`},
		{"only jsonrpc", `{"jsonrpc":"2.0"}`, CodeInvalidRequest, ""},
		{"only params", `{"jsonrpc":"2.0","id":"p","params":{}}`, CodeInvalidRequest, `"p"`},

		// Responses.
		{"response without id", `{"jsonrpc":"2.0","result":1}`, CodeInvalidRequest, ""},
		{"error response without id", `{"jsonrpc":"2.0","error":{"code":1,"message":"x"}}`, CodeInvalidRequest, ""},
		{"result and error", `{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"x"}}`, CodeInvalidRequest, `1`},
		{"error null", `{"jsonrpc":"2.0","id":1,"error":null}`, CodeInvalidRequest, `1`},
		{"error string", `{"jsonrpc":"2.0","id":1,"error":"x"}`, CodeInvalidRequest, `1`},
		{"error array", `{"jsonrpc":"2.0","id":1,"error":[]}`, CodeInvalidRequest, `1`},
		{"error without code", `{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}`, CodeInvalidRequest, `1`},
		{"error code fraction", `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}`, CodeInvalidRequest, `1`},
		{"error code exponent", `{"jsonrpc":"2.0","id":1,"error":{"code":1e2,"message":"x"}}`, CodeInvalidRequest, `1`},
		{"error code string", `{"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"x"}}`, CodeInvalidRequest, `1`},
		{"error without message", `{"jsonrpc":"2.0","id":1,"error":{"code":1}}`, CodeInvalidRequest, `1`},
		{"error message number", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}`, CodeInvalidRequest, `1`},
		{"response with bad version", `{"jsonrpc":"2","id":1,"result":1}`, CodeInvalidRequest, `1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, e := Parse([]byte(tc.in))
			requireCode(t, tc.code, e, "Parse")
			if !gjson.Valid(tc.in) {
				requireEqual(t, CodeParseError, e.Code, "code for invalid JSON")
			}
			// Only the id survives an error.
			requireBytes(t, bytesOrNil(tc.id), m.ID, "ID")
			requireEqual(t, Kind(0), m.Kind, "Kind")
			requireEqual(t, "", m.Method, "Method")
			requireBytes(t, nil, m.Params, "Params")
			requireBytes(t, nil, m.Result, "Result")
			requireBytes(t, nil, m.Error, "Error")
			// The error is a fresh *Error that matches its sentinel.
			switch tc.code {
			case CodeParseError:
				requireEqual(t, true, errors.Is(e, ErrParse), "errors.Is ErrParse")
				requireEqual(t, "Parse error", e.Message, "Message")
			case CodeInvalidRequest:
				requireEqual(t, true, errors.Is(e, ErrInvalidRequest), "errors.Is ErrInvalidRequest")
				requireEqual(t, "Invalid Request", e.Message, "Message")
				if e == ErrInvalidRequest {
					t.Fatal("Parse returned the sentinel itself")
				}
				if gjson.ParseBytes(e.Data).Type != gjson.String {
					t.Fatalf("Data %q is not a JSON string", e.Data)
				}
			}
			// The error response is valid JSON that echoes the id.
			out := AppendError(nil, m.ID, e)
			requireValidJSON(t, out, "AppendError")
			wantID := tc.id
			if wantID == "" {
				wantID = "null"
			}
			requireEqual(t, wantID, gjson.GetBytes(out, "id").Raw, "echoed id")
		})
	}
}

// TestParseAllocs pins the allocation contract of Parse: none for typical
// messages whose strings have no escapes.
func TestParseAllocs(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"abc","method":"resources/read","params":{"uri":"skill://a/b/SKILL.md","_meta":{"k":[1,2,3]}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":7,"result":{"ok":true}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}`,
	} {
		b := []byte(in)
		allocs := testing.AllocsPerRun(100, func() {
			if _, e := Parse(b); e != nil {
				t.Fatal(e)
			}
		})
		if allocs != 0 {
			t.Errorf("Parse(%s): %v allocations, want 0", in, allocs)
		}
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{
		0: "invalid", KindRequest: "request", KindNotification: "notification", KindResponse: "response", 9: "invalid",
	} {
		requireEqual(t, want, k.String(), "Kind.String")
	}
}

// FuzzParse checks that Parse never panics, that a parse error is reported
// exactly for invalid JSON, and that an accepted message's id and raw members
// round-trip through the writers as valid JSON.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a\"b","method":"\u0070ing","params":{"a":[1,2]}}`,
		`{"jsonrpc":"2.0","id":null,"method":"m","params":[]}`,
		`{"jsonrpc":"2.0","id":-1.5e3,"result":{"x":null}}`,
		`{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"no"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"a"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":true}`,
		`{"jsonrpc":"2.0","id":1,"method":"\ud800\u0041"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
		`{`, ``, `null`, `"x"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in := bytes.Clone(b)
		m, e := Parse(b)
		if !bytes.Equal(in, b) {
			t.Fatalf("Parse modified its input %q", in)
		}
		if !gjson.ValidBytes(b) || !utf8.Valid(b) {
			requireCode(t, CodeParseError, e, "invalid JSON")
			return
		}
		if e != nil {
			if e.Code != CodeInvalidRequest {
				t.Fatalf("valid JSON %q: code %d, want %d", b, e.Code, CodeInvalidRequest)
			}
			if m.Kind != 0 || m.Method != "" || m.Params != nil || m.Result != nil || m.Error != nil {
				t.Fatalf("%q: error %v with message %+v", b, e, m)
			}
			requireValidJSON(t, AppendError(nil, m.ID, e), "AppendError")
			return
		}
		for _, s := range [][]byte{m.ID, m.Params, m.Result, m.Error} {
			requireAliases(t, b, s, "raw slice")
		}
		out := AppendResult(nil, m.ID, m.Params)
		if !gjson.ValidBytes(out) || !json.Valid(out) || !utf8.Valid(out) {
			t.Fatalf("input %q: AppendResult wrote invalid JSON %q", b, out)
		}
		wantID := "null"
		if m.ID != nil {
			wantID = string(m.ID)
		}
		if got := gjson.GetBytes(out, "id").Raw; got != wantID {
			t.Fatalf("input %q: id %q echoed as %q", b, wantID, got)
		}
		switch m.Kind {
		case KindRequest, KindNotification:
			if (m.Kind == KindRequest) != (m.ID != nil) {
				t.Fatalf("input %q: kind %v with id %q", b, m.Kind, m.ID)
			}
			// Method is decoded as Unquote (and encoding/json) decode it.
			want, ok := Unquote([]byte(gjson.GetBytes(b, "method").Raw))
			if !ok || want != m.Method {
				t.Fatalf("input %q: Method %q, want %q", b, m.Method, want)
			}
			if m.Params != nil && m.Params[0] != '{' && m.Params[0] != '[' {
				t.Fatalf("input %q: params %q", b, m.Params)
			}
		case KindResponse:
			if m.ID == nil || (m.Result == nil) == (m.Error == nil) {
				t.Fatalf("input %q: response %+v", b, m)
			}
		default:
			t.Fatalf("input %q: kind %v without error", b, m.Kind)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"ping", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"read", `{"jsonrpc":"2.0","id":42,"method":"resources/read","params":{"uri":"skill://pdf-tools/SKILL.md","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}}`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"escaped method", `{"jsonrpc":"2.0","id":1,"method":"\u0070ing"}`},
	} {
		in := []byte(bc.in)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, e := Parse(in); e != nil {
					b.Fatal(e)
				}
			}
		})
	}
}

func bytesOrNil(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}
