package runtime

import (
	"bytes"
	"errors"
	"fmt"
)

// The per-request deadline, without wazero's termination checks.
//
// wazero can stop a running call only with WithCloseOnContextDone, which compiles a call
// into a trampoline at every loop header; every Go function compiled to wasm starts with
// a loop, so the plugin ran three to five times slower with it on (RATIONALE.md). Instead,
// the harness gives the module one more global, a mutable i32 exported as
// deadlineGlobal, and inserts at the top of every loop body
//
//	global.get $deadline  if  unreachable  end
//
// a load and a branch. The host sets the global from a timer when a call's time is up;
// the call then traps at its next loop header (every function call and every iteration
// passes one), and the instance is discarded like any trapped one.

// deadlineGlobal is the export name of the global the harness sets to stop a call.
const deadlineGlobal = "skilledge.deadline"

// errInstrument is wrapped by instrumentDeadline's errors: the module could not be read
// or uses an instruction the instrumenter does not know.
var errInstrument = errors.New("runtime: instrumenting plugin.wasm for deadlines")

// Section ids of the binary format. See
// https://webassembly.github.io/spec/core/binary/modules.html#sections
const (
	secImport = 2
	secGlobal = 6
	secExport = 7
	secCode   = 10
)

// instrumentDeadline returns wasm with the deadline global added and exported and the
// check inserted at every loop header (see above). It reads every instruction of every
// function, so that it never mistakes an immediate for an opcode; an instruction outside
// WebAssembly 2.0 without SIMD is an error. The result is deterministic.
func instrumentDeadline(wasm []byte) ([]byte, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" || string(wasm[4:8]) != "\x01\x00\x00\x00" {
		return nil, fmt.Errorf("%w: not a WebAssembly 1.0 binary", errInstrument)
	}
	type section struct {
		id   byte
		body []byte
	}
	var sections []section
	r := reader{b: wasm, at: 8}
	for r.at < len(r.b) {
		id := r.byte()
		n := r.u32()
		body := r.bytes(int(n))
		if r.err != nil {
			return nil, fmt.Errorf("%w: section %d: %v", errInstrument, id, r.err)
		}
		sections = append(sections, section{id, body})
	}

	// The new global's index: after the imported globals and the defined ones.
	var imported, defined uint32
	hasGlobals := false
	for _, s := range sections {
		switch s.id {
		case secImport:
			n, err := importedGlobals(s.body)
			if err != nil {
				return nil, err
			}
			imported = n
		case secGlobal:
			hasGlobals = true
			sr := reader{b: s.body}
			defined = sr.u32()
			if sr.err != nil {
				return nil, fmt.Errorf("%w: global section: %v", errInstrument, sr.err)
			}
		}
	}
	global := imported + defined
	newGlobal := []byte{0x7f, 0x01, 0x41, 0x00, 0x0b} // mut i32, init i32.const 0
	check := append(append([]byte{0x23}, appendU32(nil, global)...), 0x04, 0x40, 0x00, 0x0b)

	out := append([]byte(nil), wasm[:8]...)
	emit := func(id byte, body []byte) {
		out = append(out, id)
		out = appendU32(out, uint32(len(body)))
		out = append(out, body...)
	}
	sawExport, sawCode := false, false
	for _, s := range sections {
		switch s.id {
		case secGlobal:
			emit(secGlobal, appendVecItem(s.body, newGlobal))
		case secExport:
			if !hasGlobals { // the global section goes before the exports
				emit(secGlobal, append(appendU32(nil, 1), newGlobal...))
			}
			sawExport = true
			entry := appendName(nil, deadlineGlobal)
			entry = append(entry, 0x03) // a global
			entry = appendU32(entry, global)
			emit(secExport, appendVecItem(s.body, entry))
		case secCode:
			code, err := instrumentCode(s.body, check)
			if err != nil {
				return nil, err
			}
			sawCode = true
			emit(secCode, code)
		default:
			emit(s.id, s.body)
		}
	}
	if !sawExport || !sawCode {
		return nil, fmt.Errorf("%w: the module has no export or no code section", errInstrument)
	}
	return out, nil
}

// importedGlobals counts the globals an import section imports.
func importedGlobals(body []byte) (uint32, error) {
	r := reader{b: body}
	var globals uint32
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		r.bytes(int(r.u32())) // module
		r.bytes(int(r.u32())) // name
		switch kind := r.byte(); kind {
		case 0x00: // func: type index
			r.u32()
		case 0x01: // table: reftype, limits
			r.byte()
			r.limits()
		case 0x02: // memory: limits
			r.limits()
		case 0x03: // global: valtype, mutability
			r.byte()
			r.byte()
			globals++
		default:
			r.fail("import kind %#x", kind)
		}
	}
	if r.err != nil {
		return 0, fmt.Errorf("%w: import section: %v", errInstrument, r.err)
	}
	return globals, nil
}

// appendVecItem returns the vector vec (count, then items) with item appended.
func appendVecItem(vec, item []byte) []byte {
	r := reader{b: vec}
	n := r.u32()
	out := appendU32(nil, n+1)
	out = append(out, vec[r.at:]...)
	return append(out, item...)
}

func appendName(b []byte, s string) []byte {
	return append(appendU32(b, uint32(len(s))), s...)
}

// instrumentCode rewrites the code section: every function body with check inserted
// after the block type of each loop.
func instrumentCode(body []byte, check []byte) ([]byte, error) {
	r := reader{b: body}
	n := r.u32()
	out := appendU32(make([]byte, 0, len(body)+len(body)/8), n)
	var fn []byte
	for i := uint32(0); i < n && r.err == nil; i++ {
		size := r.u32()
		code := r.bytes(int(size))
		if r.err != nil {
			break
		}
		var err error
		if fn, err = instrumentFunc(fn[:0], code, check); err != nil {
			return nil, fmt.Errorf("%w: function %d: %v", errInstrument, i, err)
		}
		out = appendU32(out, uint32(len(fn)))
		out = append(out, fn...)
	}
	if r.err == nil && r.at != len(r.b) {
		r.fail("%d bytes after the last function", len(r.b)-r.at)
	}
	if r.err != nil {
		return nil, fmt.Errorf("%w: code section: %v", errInstrument, r.err)
	}
	return out, nil
}

// instrumentFunc appends to dst one function body (locals, then instructions) with check
// inserted at the top of every loop body.
func instrumentFunc(dst, code, check []byte) ([]byte, error) {
	r := reader{b: code}
	for n := r.u32(); n > 0 && r.err == nil; n-- { // local declarations: count, type
		r.u32()
		r.byte()
	}
	copied := 0
	depth := 1 // the function body is a block
	for depth > 0 && r.err == nil {
		op := r.byte()
		switch {
		case op == 0x02 || op == 0x03 || op == 0x04: // block, loop, if
			r.blockType()
			depth++
			if op == 0x03 && r.err == nil {
				dst = append(dst, code[copied:r.at]...)
				dst = append(dst, check...)
				copied = r.at
			}
		case op == 0x0b: // end
			depth--
		case op == 0x05, op == 0x00, op == 0x01, op == 0x0f, op == 0x1a, op == 0x1b, op == 0xd1:
			// else, unreachable, nop, return, drop, select, ref.is_null
		case op == 0x0c, op == 0x0d, op == 0x10, op == 0x20, op == 0x21, op == 0x22,
			op == 0x23, op == 0x24, op == 0x25, op == 0x26, op == 0xd2:
			// br, br_if, call, local.get/set/tee, global.get/set, table.get/set, ref.func
			r.u32()
		case op == 0x0e: // br_table: labels, default
			for k := r.u32(); k > 0 && r.err == nil; k-- {
				r.u32()
			}
			r.u32()
		case op == 0x11: // call_indirect: type, table
			r.u32()
			r.u32()
		case op == 0x1c: // select with types
			for k := r.u32(); k > 0 && r.err == nil; k-- {
				r.byte()
			}
		case op >= 0x28 && op <= 0x3e: // loads and stores: align, offset
			r.u32()
			r.u32()
		case op == 0x3f || op == 0x40: // memory.size, memory.grow: memory index
			r.u32()
		case op == 0x41: // i32.const
			r.sleb(32)
		case op == 0x42: // i64.const
			r.sleb(64)
		case op == 0x43: // f32.const
			r.bytes(4)
		case op == 0x44: // f64.const
			r.bytes(8)
		case op >= 0x45 && op <= 0xc4: // numeric instructions, sign extension
		case op == 0xd0: // ref.null: reftype
			r.byte()
		case op == 0xfc:
			r.miscOp()
		default:
			r.fail("opcode %#x at %d", op, r.at-1)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.at != len(code) {
		return nil, fmt.Errorf("%d bytes after the end of the body", len(code)-r.at)
	}
	return append(dst, code[copied:]...), nil
}

// reader decodes the binary format; the first error sticks and later reads return zeros.
type reader struct {
	b   []byte
	at  int
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *reader) byte() byte {
	if r.err != nil || r.at >= len(r.b) {
		r.fail("unexpected end")
		return 0
	}
	c := r.b[r.at]
	r.at++
	return c
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b)-r.at {
		r.fail("unexpected end")
		return nil
	}
	b := r.b[r.at : r.at+n]
	r.at += n
	return b
}

// u32 reads an unsigned LEB128 of at most 5 bytes.
func (r *reader) u32() uint32 {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		v |= uint32(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	r.fail("integer too long")
	return 0
}

// sleb reads a signed LEB128 of at most bits bits.
func (r *reader) sleb(bits int) {
	for n := 0; n < (bits+6)/7; n++ {
		if r.byte() < 0x80 {
			return
		}
	}
	r.fail("integer too long")
}

// blockType reads a block type: empty (0x40), a value type, or a type index (s33).
func (r *reader) blockType() {
	if r.err != nil || r.at >= len(r.b) {
		r.fail("unexpected end")
		return
	}
	if c := r.b[r.at]; c == 0x40 || (c >= 0x6f && c <= 0x7f) {
		r.at++
		return
	}
	r.sleb(33)
}

func (r *reader) limits() {
	if flags := r.byte(); flags&1 != 0 {
		r.u32()
		r.u32()
	} else {
		r.u32()
	}
}

// miscOp reads the rest of a 0xfc instruction: saturating truncations, bulk memory and
// table instructions.
func (r *reader) miscOp() {
	switch sub := r.u32(); sub {
	case 0, 1, 2, 3, 4, 5, 6, 7: // trunc_sat
	case 8: // memory.init: data, memory
		r.u32()
		r.u32()
	case 9, 13, 15, 16, 17: // data.drop, elem.drop, table.grow, table.size, table.fill
		r.u32()
	case 10, 12, 14: // memory.copy, table.init, table.copy
		r.u32()
		r.u32()
	case 11: // memory.fill
		r.u32()
	default:
		r.fail("instruction 0xfc %d", sub)
	}
}

// appendU32 appends v as an unsigned LEB128.
func appendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// hasDeadlineGlobal reports whether wasm already exports the deadline global (it was
// instrumented before).
func hasDeadlineGlobal(wasm []byte) bool {
	return bytes.Contains(wasm, appendName(nil, deadlineGlobal))
}
