package wasm

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// The host side of the Extism ABI: the module extism:host/env that go-pdk imports. See
// https://extism.org/docs/concepts/host-functions and go-pdk's env.go for the contract.
//
// Extism memory is not the module's linear memory: it is a host-side arena per instance,
// addressed by offsets the host hands out (0 means "none"). The plugin copies its data in
// and out 8 bytes per host call (store_u64/load_u64). The arena is reset before every
// export call, as Extism does, so nothing allocated in one call survives to the next;
// vars (var_set) do survive.
//
// Why implement `extism:host/env` in the harness instead of using the Extism Go SDK? The
// harness serves through the raw ABI and needs the Extism path only as proof and for
// benchmarks; the SDK would add a dependency to the main module (which the design limits
// to gjson, yaml.v3, go-pdk and wazero) and a second runtime setup. About 250 lines and
// table tests implement the host functions go-pdk imports. Proof with an official Extism
// host belongs in its own module, tests/extism.

const extismModule = "extism:host/env"

// Extism log levels as go-pdk numbers them; get_log_level returns the lowest one logged.
const (
	logTrace int32 = iota
	logDebug
	logInfo
	logWarn
	logError
)

// maxVarBytes bounds the total size of a plugin's vars, as Extism does.
const maxVarBytes = 1 << 20

// errExtismHTTP is the trap for outbound HTTP, which a skills server never needs.
var errExtismHTTP = errors.New("extism:host/env http_request: outbound HTTP is not available to skilledge plugins")

// hostState is one instance's Extism state.
type hostState struct {
	input  []byte
	output []byte
	err    []byte // set by error_set; nil when unset
	errSet bool

	mem    []byte            // the arena; offsets index it; mem[:arenaBase] is never handed out
	blocks map[uint64]uint64 // start offset → length of every live allocation

	vars     map[string][]byte
	varBytes int
	config   map[string]string

	log      io.Writer
	logMu    *sync.Mutex
	logLevel int32
}

const arenaBase = 8

func newHostState(log io.Writer, logMu *sync.Mutex) *hostState {
	if logMu == nil {
		logMu = &sync.Mutex{}
	}
	return &hostState{
		mem:      make([]byte, arenaBase, 4096),
		blocks:   map[uint64]uint64{},
		vars:     map[string][]byte{},
		log:      log,
		logMu:    logMu,
		logLevel: logInfo,
	}
}

// reset prepares for the next export call with input in.
func (h *hostState) reset(in []byte) {
	h.input = in
	h.output = nil
	h.err, h.errSet = nil, false
	h.mem = h.mem[:arenaBase]
	clear(h.blocks)
}

// hostError is the panic value of a host function that rejects its arguments; wazero
// turns it into an error from the export call, which discards the instance.
type hostError struct{ msg string }

func (e hostError) Error() string { return extismModule + ": " + e.msg }

func fail(format string, args ...any) { panic(hostError{fmt.Sprintf(format, args...)}) }

func (h *hostState) alloc(n uint64) uint64 {
	if n > 1<<32 {
		fail("alloc of %d bytes", n)
	}
	off := (uint64(len(h.mem)) + 7) &^ 7
	end := off + n
	if end > uint64(cap(h.mem)) {
		grown := make([]byte, end, max(end, 2*uint64(cap(h.mem))))
		copy(grown, h.mem)
		h.mem = grown
	} else {
		h.mem = h.mem[:end]
		clear(h.mem[off:end])
	}
	h.blocks[off] = n
	return off
}

// span returns the arena bytes [off, off+n), failing when that is not allocated memory.
// store copies v into a new block of Extism memory and returns its offset, or 0 when !ok
// (how the *_get functions say "no such key").
func store[T string | []byte](h *hostState, v T, ok bool) uint64 {
	if !ok {
		return 0
	}
	off := h.alloc(uint64(len(v)))
	copy(h.mem[off:], v)
	return off
}

func (h *hostState) span(off, n uint64) []byte {
	if off < arenaBase || off > uint64(len(h.mem)) || n > uint64(len(h.mem))-off {
		fail("offset %d length %d outside allocated memory", off, n)
	}
	return h.mem[off : off+n]
}

// block returns the whole allocation starting at off.
func (h *hostState) block(off uint64) []byte {
	n, ok := h.blocks[off]
	if !ok {
		fail("offset %d is not an allocated block", off)
	}
	return h.span(off, n)
}

func (h *hostState) inputSpan(off, n uint64) []byte {
	if off > uint64(len(h.input)) || n > uint64(len(h.input))-off {
		fail("input offset %d length %d outside the input (%d bytes)", off, n, len(h.input))
	}
	return h.input[off : off+n]
}

func (h *hostState) logf(level int32, name string, off uint64) {
	msg := h.block(off)
	if level < h.logLevel || h.log == nil {
		return
	}
	h.logMu.Lock()
	defer h.logMu.Unlock()
	fmt.Fprintf(h.log, "skilledge: plugin %s: %s\n", name, msg)
}

// hostFunc is one function of extism:host/env.
type hostFunc struct {
	name    string
	params  []api.ValueType
	results []api.ValueType
	fn      func(h *hostState, stack []uint64)
}

var (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
)

func types(t ...api.ValueType) []api.ValueType { return t }

// hostFuncs is the whole of extism:host/env, in the order of Extism's documentation.
var hostFuncs = []hostFunc{
	{"input_length", nil, types(i64), func(h *hostState, s []uint64) { s[0] = uint64(len(h.input)) }},
	{"input_load_u8", types(i64), types(i32), func(h *hostState, s []uint64) { s[0] = uint64(h.inputSpan(s[0], 1)[0]) }},
	{"input_load_u64", types(i64), types(i64), func(h *hostState, s []uint64) {
		s[0] = binary.LittleEndian.Uint64(h.inputSpan(s[0], 8))
	}},
	{"output_set", types(i64, i64), nil, func(h *hostState, s []uint64) {
		h.output = append(h.output[:0:0], h.span(s[0], s[1])...)
	}},
	{"error_set", types(i64), nil, func(h *hostState, s []uint64) {
		if s[0] == 0 {
			h.err, h.errSet = nil, false
			return
		}
		h.err, h.errSet = append([]byte(nil), h.block(s[0])...), true
	}},
	{"config_get", types(i64), types(i64), func(h *hostState, s []uint64) {
		v, ok := h.config[string(h.block(s[0]))]
		s[0] = store(h, v, ok)
	}},
	{"var_get", types(i64), types(i64), func(h *hostState, s []uint64) {
		v, ok := h.vars[string(h.block(s[0]))]
		s[0] = store(h, v, ok)
	}},
	{"var_set", types(i64, i64), nil, func(h *hostState, s []uint64) {
		key := string(h.block(s[0]))
		h.varBytes -= len(h.vars[key])
		delete(h.vars, key)
		if s[1] == 0 {
			return
		}
		v := h.block(s[1])
		if h.varBytes+len(v) > maxVarBytes {
			fail("var_set: vars exceed %d bytes", maxVarBytes)
		}
		h.vars[key] = append([]byte(nil), v...)
		h.varBytes += len(v)
	}},
	{"log_trace", types(i64), nil, func(h *hostState, s []uint64) { h.logf(logTrace, "trace", s[0]) }},
	{"log_debug", types(i64), nil, func(h *hostState, s []uint64) { h.logf(logDebug, "debug", s[0]) }},
	{"log_info", types(i64), nil, func(h *hostState, s []uint64) { h.logf(logInfo, "info", s[0]) }},
	{"log_warn", types(i64), nil, func(h *hostState, s []uint64) { h.logf(logWarn, "warn", s[0]) }},
	{"log_error", types(i64), nil, func(h *hostState, s []uint64) { h.logf(logError, "error", s[0]) }},
	{"get_log_level", nil, types(i32), func(h *hostState, s []uint64) { s[0] = uint64(uint32(h.logLevel)) }},
	{"alloc", types(i64), types(i64), func(h *hostState, s []uint64) { s[0] = h.alloc(s[0]) }},
	{"free", types(i64), nil, func(h *hostState, s []uint64) { delete(h.blocks, s[0]) }},
	{"length", types(i64), types(i64), func(h *hostState, s []uint64) { s[0] = h.blocks[s[0]] }},
	{"length_unsafe", types(i64), types(i64), func(h *hostState, s []uint64) { s[0] = h.blocks[s[0]] }},
	{"load_u8", types(i64), types(i32), func(h *hostState, s []uint64) { s[0] = uint64(h.span(s[0], 1)[0]) }},
	{"load_u64", types(i64), types(i64), func(h *hostState, s []uint64) {
		s[0] = binary.LittleEndian.Uint64(h.span(s[0], 8))
	}},
	{"store_u8", types(i64, i32), nil, func(h *hostState, s []uint64) { h.span(s[0], 1)[0] = byte(s[1]) }},
	{"store_u64", types(i64, i64), nil, func(h *hostState, s []uint64) {
		binary.LittleEndian.PutUint64(h.span(s[0], 8), s[1])
	}},
	{"http_request", types(i64, i64), types(i64), func(h *hostState, s []uint64) { panic(errExtismHTTP) }},
	{"http_status_code", nil, types(i32), func(h *hostState, s []uint64) { s[0] = 0 }},
	{"http_headers", nil, types(i64), func(h *hostState, s []uint64) { s[0] = 0 }},
}

// hostKey is the context key under which an export call carries its instance's state.
type hostKey struct{}

// instantiateHostModule defines extism:host/env in rt. Each function finds its
// instance's hostState in the call's context; a call without one (the raw ABI never
// calls these) fails.
func instantiateHostModule(ctx context.Context, rt wazero.Runtime) (api.Module, error) {
	b := rt.NewHostModuleBuilder(extismModule)
	for _, f := range hostFuncs {
		fn := f.fn
		b.NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, stack []uint64) {
				h, _ := ctx.Value(hostKey{}).(*hostState)
				if h == nil {
					panic(errors.New(extismModule + ": called outside an Extism export call"))
				}
				fn(h, stack)
			}), f.params, f.results).
			Export(f.name)
	}
	return b.Instantiate(ctx)
}
