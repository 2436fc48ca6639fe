package wasm

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"

	"github.com/skilledge/skilledge/runtime/internal/require"
)

func hostFunction(t *testing.T, name string) hostFunc {
	t.Helper()
	for _, f := range hostFuncs {
		if f.name == name {
			return f
		}
	}
	t.Fatalf("no host function %s", name)
	return hostFunc{}
}

// call runs host function name on h with args and returns the stack, or the panic.
func (h *hostState) call(t *testing.T, name string, args ...uint64) (stack []uint64, failure any) {
	f := hostFunction(t, name)
	if len(args) != len(f.params) {
		t.Fatalf("%s takes %d arguments", name, len(f.params))
	}
	stack = make([]uint64, max(len(f.params), len(f.results)))
	copy(stack, args)
	defer func() { failure = recover() }()
	f.fn(h, stack)
	return stack[:len(f.results)], nil
}

// TestHostFuncs checks each function of extism:host/env against the behaviour go-pdk
// relies on, including the arguments that must trap.
func TestHostFuncs(t *testing.T) {
	var logs bytes.Buffer
	newState := func() *hostState {
		h := newHostState(&logs, &sync.Mutex{})
		h.reset([]byte("0123456789abcdef!"))
		return h
	}
	// allocStr allocates s in the arena as go-pdk's AllocateBytes does.
	allocStr := func(h *hostState, s string) uint64 {
		off := h.alloc(uint64(len(s)))
		copy(h.mem[off:], s)
		return off
	}
	u64 := func(s string) uint64 { return binary.LittleEndian.Uint64([]byte(s)) }

	tests := []struct {
		name  string
		setup func(h *hostState) []uint64 // returns the arguments
		fn    string
		want  []uint64 // nil when the call must trap
		check func(t *testing.T, h *hostState)
	}{
		{name: "input_length", fn: "input_length", want: []uint64{17}},
		{name: "input_load_u8", fn: "input_load_u8", setup: func(*hostState) []uint64 { return []uint64{16} }, want: []uint64{'!'}},
		{name: "input_load_u8 past end", fn: "input_load_u8", setup: func(*hostState) []uint64 { return []uint64{17} }},
		{name: "input_load_u64", fn: "input_load_u64", setup: func(*hostState) []uint64 { return []uint64{8} }, want: []uint64{u64("89abcdef")}},
		{name: "input_load_u64 straddling end", fn: "input_load_u64", setup: func(*hostState) []uint64 { return []uint64{10} }},
		{name: "input_load_u64 huge offset", fn: "input_load_u64", setup: func(*hostState) []uint64 { return []uint64{1<<64 - 4} }},
		{name: "alloc is 8-aligned and non-zero", fn: "alloc", setup: func(h *hostState) []uint64 {
			h.alloc(3)
			return []uint64{5}
		}, want: []uint64{16}, check: func(t *testing.T, h *hostState) {
			require.Equal(t, uint64(5), h.blocks[16])
		}},
		{name: "alloc too large", fn: "alloc", setup: func(*hostState) []uint64 { return []uint64{1<<32 + 1} }},
		{name: "length", fn: "length", setup: func(h *hostState) []uint64 { return []uint64{allocStr(h, "hello")} }, want: []uint64{5}},
		{name: "length of unknown offset", fn: "length", setup: func(*hostState) []uint64 { return []uint64{12345} }, want: []uint64{0}},
		{name: "length_unsafe", fn: "length_unsafe", setup: func(h *hostState) []uint64 { return []uint64{allocStr(h, "hi")} }, want: []uint64{2}},
		{name: "free", fn: "free", setup: func(h *hostState) []uint64 { return []uint64{allocStr(h, "x")} }, want: []uint64{}, check: func(t *testing.T, h *hostState) {
			require.Equal(t, 0, len(h.blocks))
		}},
		{name: "store_u64 then load_u64", fn: "load_u64", setup: func(h *hostState) []uint64 {
			off := h.alloc(16)
			hostFunction(t, "store_u64").fn(h, []uint64{off + 8, 0x0102030405060708})
			return []uint64{off + 8}
		}, want: []uint64{0x0102030405060708}},
		{name: "store_u8 then load_u8", fn: "load_u8", setup: func(h *hostState) []uint64 {
			off := h.alloc(1)
			hostFunction(t, "store_u8").fn(h, []uint64{off, 0x1ff})
			return []uint64{off}
		}, want: []uint64{0xff}},
		{name: "load_u64 past the arena", fn: "load_u64", setup: func(h *hostState) []uint64 { return []uint64{h.alloc(4)} }},
		{name: "load_u8 at null", fn: "load_u8", setup: func(*hostState) []uint64 { return []uint64{0} }},
		{name: "store_u64 past the arena", fn: "store_u64", setup: func(h *hostState) []uint64 { return []uint64{h.alloc(8) + 4, 1} }},
		{name: "store_u8 huge offset", fn: "store_u8", setup: func(*hostState) []uint64 { return []uint64{1 << 40, 1} }},
		{name: "output_set", fn: "output_set", setup: func(h *hostState) []uint64 { return []uint64{allocStr(h, "reply"), 5} }, want: []uint64{},
			check: func(t *testing.T, h *hostState) {
				out := h.output
				require.Equal(t, []byte("reply"), out)
				h.reset(nil) // the output is a copy: reusing the arena leaves it alone
				allocStr(h, "XXXXX")
				require.Equal(t, []byte("reply"), out)
			}},
		{name: "output_set of empty", fn: "output_set", setup: func(h *hostState) []uint64 { return []uint64{allocStr(h, ""), 0} }, want: []uint64{},
			check: func(t *testing.T, h *hostState) { require.Equal(t, 0, len(h.output)) }},
		{name: "output_set out of range", fn: "output_set", setup: func(h *hostState) []uint64 { return []uint64{allocStr(h, "abc"), 4096} }},
		{name: "error_set", fn: "error_set", setup: func(h *hostState) []uint64 { return []uint64{allocStr(h, "boom")} }, want: []uint64{},
			check: func(t *testing.T, h *hostState) {
				require.Equal(t, true, h.errSet)
				require.Equal(t, []byte("boom"), h.err)
			}},
		{name: "error_set of a non-block", fn: "error_set", setup: func(h *hostState) []uint64 { return []uint64{allocStr(h, "boom") + 1} }},
		{name: "config_get present", fn: "config_get", setup: func(h *hostState) []uint64 {
			h.config = map[string]string{"k": "value"}
			return []uint64{allocStr(h, "k")}
		}, want: []uint64{16}, check: func(t *testing.T, h *hostState) {
			require.Equal(t, []byte("value"), h.block(16))
		}},
		{name: "config_get absent", fn: "config_get", setup: func(h *hostState) []uint64 { return []uint64{allocStr(h, "nope")} }, want: []uint64{0}},
		{name: "var_set then var_get", fn: "var_get", setup: func(h *hostState) []uint64 {
			hostFunction(t, "var_set").fn(h, []uint64{allocStr(h, "n"), allocStr(h, "42")})
			h.reset(nil) // vars outlive the call
			return []uint64{allocStr(h, "n")}
		}, want: []uint64{16}, check: func(t *testing.T, h *hostState) {
			require.Equal(t, []byte("42"), h.block(16))
			require.Equal(t, 2, h.varBytes)
		}},
		{name: "var_set 0 removes", fn: "var_get", setup: func(h *hostState) []uint64 {
			hostFunction(t, "var_set").fn(h, []uint64{allocStr(h, "n"), allocStr(h, "42")})
			hostFunction(t, "var_set").fn(h, []uint64{allocStr(h, "n"), 0})
			return []uint64{allocStr(h, "n")}
		}, want: []uint64{0}, check: func(t *testing.T, h *hostState) { require.Equal(t, 0, h.varBytes) }},
		{name: "var_set over the limit", fn: "var_set", setup: func(h *hostState) []uint64 {
			return []uint64{allocStr(h, "big"), h.alloc(maxVarBytes + 1)}
		}},
		{name: "get_log_level", fn: "get_log_level", want: []uint64{uint64(logInfo)}},
		{name: "log_info", fn: "log_info", setup: func(h *hostState) []uint64 { return []uint64{allocStr(h, "hello")} }, want: []uint64{},
			check: func(t *testing.T, h *hostState) { require.Contains(t, logs.String(), "plugin info: hello\n") }},
		{name: "log_debug below the level", fn: "log_debug", setup: func(h *hostState) []uint64 { return []uint64{allocStr(h, "quiet")} }, want: []uint64{},
			check: func(t *testing.T, h *hostState) { require.Equal(t, "", logs.String()) }},
		{name: "log_error of a non-block", fn: "log_error", setup: func(*hostState) []uint64 { return []uint64{3} }},
		{name: "http_request", fn: "http_request", setup: func(h *hostState) []uint64 { return []uint64{allocStr(h, "{}"), 0} }},
		{name: "http_status_code", fn: "http_status_code", want: []uint64{0}},
		{name: "http_headers", fn: "http_headers", want: []uint64{0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logs.Reset()
			h := newState()
			var args []uint64
			if tc.setup != nil {
				args = tc.setup(h)
			}
			got, failure := h.call(t, tc.fn, args...)
			if tc.want == nil {
				if failure == nil {
					t.Fatalf("%s(%v) = %v, want a trap", tc.fn, args, got)
				}
				if _, ok := failure.(error); !ok {
					t.Fatalf("%s panicked with %v, not an error", tc.fn, failure)
				}
				return
			}
			if failure != nil {
				t.Fatalf("%s(%v) trapped: %v", tc.fn, args, failure)
			}
			require.Equal(t, tc.want, got, fmt.Sprint(tc.fn, args))
			if tc.check != nil {
				tc.check(t, h)
			}
		})
	}
}

// TestHostFuncsComplete checks that every extism:host/env function go-pdk v1.1.3 may
// import is defined, with its signature.
func TestHostFuncsComplete(t *testing.T) {
	want := map[string]string{
		"input_length": "->i64", "input_load_u8": "i64->i32", "input_load_u64": "i64->i64",
		"output_set": "i64,i64->", "error_set": "i64->", "config_get": "i64->i64",
		"var_get": "i64->i64", "var_set": "i64,i64->", "log_info": "i64->", "log_debug": "i64->",
		"log_warn": "i64->", "log_error": "i64->", "log_trace": "i64->", "get_log_level": "->i32",
		"store_u8": "i64,i32->", "load_u8": "i64->i32", "store_u64": "i64,i64->",
		"load_u64": "i64->i64", "length": "i64->i64", "length_unsafe": "i64->i64",
		"alloc": "i64->i64", "free": "i64->", "http_request": "i64,i64->i64",
		"http_status_code": "->i32", "http_headers": "->i64",
	}
	sig := func(ts []byte) string {
		s := ""
		for i, v := range ts {
			if i > 0 {
				s += ","
			}
			s += map[byte]string{i32: "i32", i64: "i64"}[v]
		}
		return s
	}
	got := map[string]string{}
	for _, f := range hostFuncs {
		got[f.name] = sig(f.params) + "->" + sig(f.results)
	}
	require.Equal(t, want, got)
}
