package jsonrpc

import (
	"strings"
	"testing"
)

func TestIsBatch(t *testing.T) {
	for in, want := range map[string]bool{
		`[]`:                      true,
		" \t\r\n[1]":              true,
		`[`:                       true, // IsBatch does not validate
		`{"jsonrpc":"2.0"}`:       false,
		` {}`:                     false,
		``:                        false,
		"   ":                     false,
		`"[1]"`:                   false,
		"\v[1]":                   false, // \v is not JSON whitespace
		`null`:                    false,
		"\n\n[{\"jsonrpc\":1}]\n": true,
	} {
		requireEqual(t, want, IsBatch([]byte(in)), "IsBatch("+in+")")
	}
}

func TestSplitBatch(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"one", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
			[]string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`}},
		{"two", `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"}]`,
			[]string{`{"jsonrpc":"2.0","id":1,"method":"a"}`, `{"jsonrpc":"2.0","method":"b"}`}},
		{"whitespace", " [ {\"a\" : 1} ,\n\t2 , \"x\" ]\n",
			[]string{`{"a" : 1}`, `2`, `"x"`}},
		{"every type", `[{},[],[1,[2]],"s",-1.5e3,0,true,false,null]`,
			[]string{`{}`, `[]`, `[1,[2]]`, `"s"`, `-1.5e3`, `0`, `true`, `false`, `null`}},
		{"string with brackets", `["]",",","[{"]`,
			[]string{`"]"`, `","`, `"[{"`}},
		{"single number", `[1]`, []string{`1`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			got, e := SplitBatch(in, 0)
			requireNoError(t, e, "SplitBatch")
			requireEqual(t, len(tc.want), len(got), "number of elements")
			for i, el := range got {
				requireBytes(t, []byte(tc.want[i]), el, "element")
				requireAliases(t, in, el, "element")
			}
		})
	}
}

func TestSplitBatch_invalid(t *testing.T) {
	for _, tc := range []struct {
		in   string
		code int64
	}{
		{`[]`, CodeInvalidRequest},
		{" [ \n ] ", CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1,"method":"m"}`, CodeInvalidRequest},
		{`1`, CodeInvalidRequest},
		{`"[]"`, CodeInvalidRequest},
		{`null`, CodeInvalidRequest},
		{``, CodeParseError},
		{`[`, CodeParseError},
		{`[1,]`, CodeParseError},
		{`[1 2]`, CodeParseError},
		{`[{"jsonrpc":"2.0","method":"m"}`, CodeParseError},
		{`[{"jsonrpc":"2.0","method":"m"}]]`, CodeParseError},
		{`[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":]`, CodeParseError},
	} {
		got, e := SplitBatch([]byte(tc.in), 0)
		requireCode(t, tc.code, e, "SplitBatch("+tc.in+")")
		if got != nil {
			t.Fatalf("SplitBatch(%s) returned elements %q with an error", tc.in, got)
		}
	}
}

// TestSplitBatch_mixed shows the intended use: a batch of which some elements
// are invalid is split, and each element is then answered on its own.
func TestSplitBatch_mixed(t *testing.T) {
	in := []byte(`[
		{"jsonrpc":"2.0","id":1,"method":"ping"},
		1,
		{"jsonrpc":"2.0","method":"notifications/initialized"},
		"x",
		{"jsonrpc":"1.0","id":"a","method":"ping"},
		{"foo":"boo"},
		[{"jsonrpc":"2.0","id":2,"method":"ping"}],
		{"jsonrpc":"2.0","id":3,"result":{}}
	]`)
	want := []struct {
		kind Kind
		code int64
		id   string
	}{
		{KindRequest, 0, `1`},
		{0, CodeInvalidRequest, ``},
		{KindNotification, 0, ``},
		{0, CodeInvalidRequest, ``},
		{0, CodeInvalidRequest, `"a"`},
		{0, CodeInvalidRequest, ``},
		{0, CodeInvalidRequest, ``}, // nested batches are not batches
		{KindResponse, 0, `3`},
	}
	els, e := SplitBatch(in, 0)
	requireNoError(t, e, "SplitBatch")
	requireEqual(t, len(want), len(els), "number of elements")
	for i, el := range els {
		m, e := Parse(el)
		if want[i].code == 0 {
			requireNoError(t, e, string(el))
		} else {
			requireCode(t, want[i].code, e, string(el))
		}
		requireEqual(t, want[i].kind, m.Kind, string(el))
		requireBytes(t, bytesOrNil(want[i].id), m.ID, string(el))
	}
}

func TestSplitBatchAllocs(t *testing.T) {
	in := []byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	allocs := testing.AllocsPerRun(100, func() {
		if _, e := SplitBatch(in, 0); e != nil {
			t.Fatal(e)
		}
	})
	if allocs > 1 {
		t.Errorf("SplitBatch: %v allocations, want at most 1", allocs)
	}
}

// TestSplitBatchMax: a batch of more than max elements is refused whole with -32600 saying
// so, and the count stops at max+1: a million elements cost what max+1 do.
func TestSplitBatchMax(t *testing.T) {
	elems := func(n int) []byte { return []byte("[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]") }
	got, e := SplitBatch(elems(3), 3)
	requireNoError(t, e, "SplitBatch of max elements")
	requireEqual(t, 3, len(got), "elements")
	for _, n := range []int{4, 1_000_000} {
		got, e = SplitBatch(elems(n), 3)
		requireCode(t, CodeInvalidRequest, e, "SplitBatch over max")
		if got != nil || !strings.Contains(string(e.Data), "more than 3 messages") {
			t.Fatalf("%d elements: %q, data %s", n, got, e.Data)
		}
	}
	big := elems(1_000_000)
	allocs := testing.AllocsPerRun(5, func() { SplitBatch(big, 3) })
	if allocs > 8 {
		t.Errorf("SplitBatch over max: %v allocations", allocs)
	}
}
