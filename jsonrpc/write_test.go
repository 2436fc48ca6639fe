package jsonrpc

import (
	"testing"

	"github.com/tidwall/gjson"
)

func TestAppendResult(t *testing.T) {
	tests := []struct {
		id, result []byte
		want       string
	}{
		{[]byte(`1`), []byte(`{}`), `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{[]byte(`1.0`), []byte(`{"a":[1,2]}`), `{"jsonrpc":"2.0","id":1.0,"result":{"a":[1,2]}}`},
		{[]byte(`-0`), []byte(`0`), `{"jsonrpc":"2.0","id":-0,"result":0}`},
		{[]byte(`1e3`), []byte(`"x"`), `{"jsonrpc":"2.0","id":1e3,"result":"x"}`},
		{[]byte(`"abc"`), []byte(`[]`), `{"jsonrpc":"2.0","id":"abc","result":[]}`},
		{[]byte(`"a\"\u0041"`), []byte(`true`), `{"jsonrpc":"2.0","id":"a\"\u0041","result":true}`},
		{[]byte(`null`), []byte(`null`), `{"jsonrpc":"2.0","id":null,"result":null}`},
		{nil, []byte(`{}`), `{"jsonrpc":"2.0","id":null,"result":{}}`},
		{[]byte{}, nil, `{"jsonrpc":"2.0","id":null,"result":null}`},
	}
	for _, tc := range tests {
		got := AppendResult(nil, tc.id, tc.result)
		requireEqual(t, tc.want, string(got), "AppendResult")
		requireValidJSON(t, got, "AppendResult")

		// AppendResultStart, a spliced result and '}' write the same bytes.
		spliced := AppendResultStart(nil, tc.id)
		spliced = appendRaw(spliced, tc.result)
		spliced = append(spliced, '}')
		requireEqual(t, tc.want, string(spliced), "AppendResultStart")
	}

	// It appends to dst.
	got := AppendResult([]byte("prefix\n"), []byte(`2`), []byte(`{}`))
	requireEqual(t, "prefix\n"+`{"jsonrpc":"2.0","id":2,"result":{}}`, string(got), "appends")
}

func TestAppendResultStart(t *testing.T) {
	requireEqual(t, `{"jsonrpc":"2.0","id":5,"result":`, string(AppendResultStart(nil, []byte(`5`))), "with id")
	requireEqual(t, `{"jsonrpc":"2.0","id":null,"result":`, string(AppendResultStart(nil, nil)), "nil id")
}

func TestAppendError(t *testing.T) {
	tests := []struct {
		name string
		id   []byte
		err  *Error
		want string
	}{
		{"parse error", nil, ErrParse,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"method not found", []byte(`"r1"`), ErrMethodNotFound,
			`{"jsonrpc":"2.0","id":"r1","error":{"code":-32601,"message":"Method not found"}}`},
		{"with data", []byte(`3`), NewError(-32022, "Unsupported protocol version").WithData([]byte(`{"supported":["2026-07-28"],"requested":"x"}`)),
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"x"}}}`},
		{"data null", []byte(`3`), ErrInternal.WithData([]byte(`null`)),
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error","data":null}}`},
		{"message escaped", []byte(`4`), NewError(1, "a \"quoted\"\nline\x01\u2028"),
			`{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"a \"quoted\"\nline\u0001\u2028"}}`},
		{"positive and large codes", []byte(`4`), NewError(9223372036854775807, ""),
			`{"jsonrpc":"2.0","id":4,"error":{"code":9223372036854775807,"message":""}}`},
		{"nil error", []byte(`5`), nil,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Internal error"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := AppendError(nil, tc.id, tc.err)
			requireEqual(t, tc.want, string(got), "AppendError")
			requireValidJSON(t, got, "AppendError")
		})
	}
}

// TestAppendRoundTrip parses what the writers produce.
func TestAppendRoundTrip(t *testing.T) {
	out := AppendResult(nil, []byte(`"id-1"`), []byte(`{"tools":[]}`))
	m, e := Parse(out)
	requireNoError(t, e, "Parse(AppendResult)")
	requireEqual(t, KindResponse, m.Kind, "Kind")
	requireBytes(t, []byte(`"id-1"`), m.ID, "ID")
	requireBytes(t, []byte(`{"tools":[]}`), m.Result, "Result")

	out = AppendError(nil, []byte(`7`), ErrInvalidParams.WithData([]byte(`"uri"`)))
	m, e = Parse(out)
	requireNoError(t, e, "Parse(AppendError)")
	requireEqual(t, KindResponse, m.Kind, "Kind")
	requireEqual(t, CodeInvalidParams, gjson.GetBytes(m.Error, "code").Int(), "code")
	requireEqual(t, `"uri"`, gjson.GetBytes(m.Error, "data").Raw, "data")
}

func TestAppendAllocs(t *testing.T) {
	dst := make([]byte, 0, 256)
	id, result := []byte(`1`), []byte(`{"ok":true}`)
	allocs := testing.AllocsPerRun(100, func() {
		dst = AppendResult(dst[:0], id, result)
		dst = AppendError(dst[:0], id, ErrMethodNotFound)
		dst = AppendResultStart(dst[:0], id)
	})
	if allocs != 0 {
		t.Errorf("writers into a large enough buffer: %v allocations, want 0", allocs)
	}
}
