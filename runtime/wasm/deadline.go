package wasm

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// The per-request deadline, without wazero's termination checks.
//
// Why is the per-request deadline a counter compiled into the plugin, and not wazero's
// `WithCloseOnContextDone`? A runaway call must be stopped (an instance abandoned instead
// would burn a core forever), and wazero can stop a running call only with
// WithCloseOnContextDone, which compiles an exit to Go into every loop header; every Go
// function compiled to wasm starts with a loop, so the plugin ran three to five times
// slower with it on (BENCHMARKS.md, "Why the deadline is a counter in the plugin"; the
// boundary section's last column measures it on every run). Instead, the
// harness gives the module one more global, the deadline flag (a mutable i32 exported as
// deadlineGlobal), gives every function one more local, a counter, and inserts at the
// top of every loop body
//
//	counter += 1
//	if counter % tickEvery == 0 {
//		sched_yield()                    // the plugin's own WASI import
//		if deadline { unreachable }
//	}
//
// arithmetic on a local, which the compiler keeps in a register, and a branch; and every
// tickEvery iterations of one loop, a call into the host. That call matters as much as
// the flag: machine code compiled from wasm never reaches a Go safe point by itself, so a
// loop that never calls out would keep the Go runtime from stopping the world for a
// collection, and the timer that sets the flag from ever running (wazero's RATIONALE,
// "Why context cancellation is handled in Go code"). A call that never ends keeps some
// frame looping forever (or recurses until its stack runs out, which traps anyway), so
// that frame's counter comes round: the host sets the flag from a timer when a call's
// time is up, and the call traps within tickEvery iterations; the instance is then
// discarded like any trapped one.
//
// The same request then cost about a fifth more than with no check at all (and, on the
// faster plugin of the latest run, about the same). Two other designs were tried and
// rejected. Checking only the flag at every loop header (no measurable cost) deadlocks the
// process: while a runaway loop spins, a collection cannot stop the world and the timer
// that would set the flag never runs. Counting down a global instead of a local turns
// every loop header into loads and stores to the module's memory: a small read through
// Pool.HTTP took about a sixth longer that way than with the local, on the same build. A
// call whose deadline passes in its last few thousand iterations finishes, its answer
// kept. TestRunawayCall runs a test-only export that spins forever beside a stream of
// requests and a forced collection: stopped at the deadline (2 s), a collection finishes
// while it spins, no other request failed, the instance replaced. Where the module cannot
// be instrumented (an instruction the rewriter does not know, no sched_yield import) the
// harness falls back to WithCloseOnContextDone.

// tickEvery is how many iterations of one loop pass between two calls into the host:
// microseconds of the plugin's work, so the Go runtime is never held off longer. A power
// of two, for the mask.
const tickEvery = 4096

// deadlineGlobal is the export name of the global the harness sets to stop a call.
const deadlineGlobal = "skilledge.deadline"

// section is one section of a module: its id and contents.
type section struct {
	id   byte
	body []byte
}

// errInstrument is wrapped by instrumentDeadline's errors: the module could not be read
// or uses an instruction the instrumenter does not know.
var errInstrument = errors.New("wasm: instrumenting plugin.wasm for deadlines")

// Section ids of the binary format. See
// https://webassembly.github.io/spec/core/binary/modules.html#sections
const (
	secType     = 1
	secImport   = 2
	secFunction = 3
	secGlobal   = 6
	secExport   = 7
	secCode     = 10
)

// instrumentDeadline returns wasm with the deadline global added and exported and the
// check inserted at every loop header (see above). It reads every instruction of every
// function, so that it never mistakes an immediate for an opcode; an instruction outside
// WebAssembly 2.0 without SIMD is an error. The result is deterministic.
func instrumentDeadline(wasm []byte) ([]byte, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" || string(wasm[4:8]) != "\x01\x00\x00\x00" {
		return nil, fmt.Errorf("%w: not a WebAssembly 1.0 binary", errInstrument)
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

	// The new globals' indexes: after the imported globals and the defined ones.
	var imported, defined uint32
	hasGlobals := false
	yield := int64(-1) // the function index of the sched_yield import
	var types [][]byte
	for _, s := range sections {
		switch s.id {
		case secType:
			var err error
			if types, err = funcTypes(s.body); err != nil {
				return nil, err
			}
		case secImport:
			n, y, err := readImports(s.body, types)
			if err != nil {
				return nil, err
			}
			imported, yield = n, y
		case secGlobal:
			hasGlobals = true
			sr := reader{b: s.body}
			defined = sr.u32()
			if sr.err != nil {
				return nil, fmt.Errorf("%w: global section: %v", errInstrument, sr.err)
			}
		}
	}
	if yield < 0 {
		return nil, fmt.Errorf("%w: the module does not import wasi_snapshot_preview1.sched_yield", errInstrument)
	}
	global := imported + defined
	newGlobal := []byte{0x7f, 0x01, 0x41, 0x00, 0x0b} // the flag: mut i32, init i32.const 0
	params, err := funcParams(sections, types)
	if err != nil {
		return nil, err
	}

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
			code, err := instrumentCode(s.body, params, global, uint32(yield))
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

// tickCode is the code inserted at the top of every loop body (see above), counting in
// local counter.
func tickCode(flag, counter, yield uint32) []byte {
	b := appendU32([]byte{0x20}, counter) // local.get
	b = append(b, 0x41, 0x01, 0x6a)       // i32.const 1, i32.add
	b = appendU32(append(b, 0x22), counter)
	b = append(b, 0x41)                         // local.tee, i32.const
	b = appendS32(b, tickEvery-1)               // the mask
	b = append(b, 0x71, 0x45, 0x04, 0x40)       // i32.and, i32.eqz, if
	b = appendU32(append(b, 0x10), yield)       // call sched_yield
	b = append(b, 0x1a)                         // drop its errno
	b = appendU32(append(b, 0x23), flag)        // global.get
	b = append(b, 0x04, 0x40, 0x00, 0x0b, 0x0b) // if unreachable end, end
	return b
}

// funcParams returns, for every function the module defines, how many parameters it
// takes: its counter is the local after its parameters and its own locals.
func funcParams(sections []section, types [][]byte) ([]uint32, error) {
	for _, s := range sections {
		if s.id != secFunction {
			continue
		}
		r := reader{b: s.body}
		n := r.u32()
		params := make([]uint32, 0, n)
		for ; n > 0 && r.err == nil; n-- {
			t := r.u32()
			if int(t) >= len(types) {
				r.fail("type %d out of range", t)
				break
			}
			tr := reader{b: types[t], at: 1}
			params = append(params, tr.u32())
		}
		if r.err != nil {
			return nil, fmt.Errorf("%w: function section: %v", errInstrument, r.err)
		}
		return params, nil
	}
	return nil, nil
}

// funcTypes returns the function types of a type section, each as its encoding.
func funcTypes(body []byte) ([][]byte, error) {
	r := reader{b: body}
	var types [][]byte
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		start := r.at
		if form := r.byte(); form != 0x60 {
			r.fail("type form %#x", form)
		}
		for k := r.u32(); k > 0 && r.err == nil; k-- { // params
			r.byte()
		}
		for k := r.u32(); k > 0 && r.err == nil; k-- { // results
			r.byte()
		}
		types = append(types, r.b[start:r.at])
	}
	if r.err != nil {
		return nil, fmt.Errorf("%w: type section: %v", errInstrument, r.err)
	}
	return types, nil
}

// readImports counts the globals an import section imports, and finds the function index
// of wasi_snapshot_preview1.sched_yield, of type () -> i32 (-1 if none).
func readImports(body []byte, types [][]byte) (globals uint32, yield int64, err error) {
	r := reader{b: body}
	yield = -1
	var funcs int64
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		module := string(r.bytes(int(r.u32())))
		name := string(r.bytes(int(r.u32())))
		switch kind := r.byte(); kind {
		case 0x00: // func: type index
			t := r.u32()
			if module == "wasi_snapshot_preview1" && name == "sched_yield" && yield < 0 &&
				int(t) < len(types) && string(types[t]) == "\x60\x00\x01\x7f" {
				yield = funcs
			}
			funcs++
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
		return 0, -1, fmt.Errorf("%w: import section: %v", errInstrument, r.err)
	}
	return globals, yield, nil
}

// appendVecItem returns the vector vec (count, then items) with item appended.
func appendVecItem(vec, item []byte) []byte { return appendVecItems(vec, 1, item) }

// appendVecItems returns the vector vec (count, then items) with n items, encoded in
// items, appended.
func appendVecItems(vec []byte, n uint32, items []byte) []byte {
	r := reader{b: vec}
	count := r.u32()
	out := appendU32(nil, count+n)
	out = append(out, vec[r.at:]...)
	return append(out, items...)
}

func appendName(b []byte, s string) []byte {
	return append(appendU32(b, uint32(len(s))), s...)
}

// instrumentRun is the fewest bytes of code worth a goroutine of their own
// (instrumentCode); tests lower it.
var instrumentRun = 256 << 10

// instrumentCode rewrites the code section: every function body with a counter local
// and the tick code inserted after the block type of each loop. params holds each
// function's parameter count. The bodies are independent, so they are rewritten in
// contiguous runs on up to GOMAXPROCS goroutines (the plugin's 4 MB of code took about
// 30 ms on one core, on every start) and joined in order: the result does not depend on
// how they were split.
//
// Why does the deadline instrumenter look instructions up in a table, on several
// goroutines? Every start rewrites the module's function bodies (the compilation cache
// holds the machine code of the rewritten module, not the rewrite). One table lookup per
// instruction (opClass), where there was a chain of comparisons, and the bodies split in
// runs over GOMAXPROCS goroutines take about half the time it took (BENCHMARKS.md, "Why
// the instrumenter uses a table"). A test holds the output to the same bytes. Rejected for
// now: caching the rewritten module keyed by the plugin's digest (a few more milliseconds
// saved, another file in the cache to keep consistent).
func instrumentCode(body []byte, params []uint32, flag, yield uint32) ([]byte, error) {
	r := reader{b: body}
	n := r.u32()
	if int(n) != len(params) {
		return nil, fmt.Errorf("%w: %d function bodies for %d functions", errInstrument, n, len(params))
	}
	// Where each body is: reading the sizes is cheap next to rewriting the bodies.
	codes := make([][]byte, 0, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		size := r.u32()
		code := r.bytes(int(size))
		if r.err != nil {
			break
		}
		codes = append(codes, code)
	}
	if r.err == nil && r.at != len(r.b) {
		r.fail("%d bytes after the last function", len(r.b)-r.at)
	}
	if r.err != nil {
		return nil, fmt.Errorf("%w: code section: %v", errInstrument, r.err)
	}
	// Runs of about equal bytes, one per goroutine; a small module is one run.
	runs := min(runtime.GOMAXPROCS(0), max(len(body)/instrumentRun, 1))
	bounds := make([]int, 0, runs+1) // run k is codes[bounds[k]:bounds[k+1]]
	bounds = append(bounds, 0)
	at := 0
	for i, code := range codes {
		at += len(code)
		if len(bounds) < runs && at >= len(body)*len(bounds)/runs {
			bounds = append(bounds, i+1)
		}
	}
	bounds = append(bounds, len(codes))
	outs := make([][]byte, len(bounds)-1)
	errs := make([]error, len(bounds)-1)
	var wg sync.WaitGroup
	for k := range outs {
		run := func() {
			from, to := bounds[k], bounds[k+1]
			size := 0
			for _, code := range codes[from:to] {
				size += len(code)
			}
			out := make([]byte, 0, size+size/4)
			var fn []byte
			for i := from; i < to; i++ {
				var err error
				if fn, err = instrumentFunc(fn[:0], codes[i], params[i], flag, yield); err != nil {
					errs[k] = fmt.Errorf("%w: function %d: %v", errInstrument, i, err)
					return
				}
				out = appendU32(out, uint32(len(fn)))
				out = append(out, fn...)
			}
			outs[k] = out
		}
		if k == len(outs)-1 {
			run() // the last run on this goroutine
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); run() }()
	}
	wg.Wait()
	size := 5
	for k, out := range outs {
		if errs[k] != nil {
			return nil, errs[k] // the first failing run names its first failing function
		}
		size += len(out)
	}
	out := appendU32(make([]byte, 0, size), n)
	for _, o := range outs {
		out = append(out, o...)
	}
	return out, nil
}

// instrumentFunc appends to dst one function body (locals, then instructions) with a
// counter local declared last and the tick code at the top of every loop body. params is
// the function's parameter count.
func instrumentFunc(dst, code []byte, params, flag, yield uint32) ([]byte, error) {
	r := reader{b: code}
	groups := r.u32()
	locals := uint64(params)
	for n := groups; n > 0 && r.err == nil; n-- { // local declarations: count, type
		locals += uint64(r.u32())
		r.byte()
	}
	if r.err == nil && locals >= 50000 {
		r.fail("%d locals", locals) // wazero's own limit is 50,000
	}
	if r.err != nil {
		return nil, r.err
	}
	// The declarations again, with one group more: one i32, the counter.
	dst = appendU32(dst, groups+1)
	dst = append(dst, code[reader{b: code}.skipU32():r.at]...)
	dst = append(dst, 0x01, 0x7f)
	check := tickCode(flag, uint32(locals), yield)
	body := r.at
	copied := body
	depth := 1 // the function body is a block
	for depth > 0 && r.err == nil {
		op := r.byte()
		switch opClass[op] {
		case opBlock: // block, if
			r.blockType()
			depth++
		case opLoop:
			r.blockType()
			depth++
			if r.err == nil {
				dst = append(dst, code[copied:r.at]...)
				dst = append(dst, check...)
				copied = r.at
			}
		case opEnd:
			depth--
		case opPlain:
		case opIndex:
			r.u32()
		case opIndex2:
			r.u32()
			r.u32()
		case opBrTable: // labels, default
			for k := r.u32(); k > 0 && r.err == nil; k-- {
				r.u32()
			}
			r.u32()
		case opSelectTypes:
			for k := r.u32(); k > 0 && r.err == nil; k-- {
				r.byte()
			}
		case opI32:
			r.sleb(32)
		case opI64:
			r.sleb(64)
		case opF32:
			r.bytes(4)
		case opF64:
			r.bytes(8)
		case opByte:
			r.byte()
		case opMisc:
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

// The classes of opcodes by their immediates (instrumentFunc), so that reading an
// instruction is one table lookup rather than a chain of comparisons; opUnknown (zero) is
// an instruction outside WebAssembly 2.0 without SIMD.
const (
	opUnknown     = iota
	opPlain       // no immediate
	opBlock       // block, if: a block type
	opLoop        // loop: a block type
	opEnd         // end
	opIndex       // one u32
	opIndex2      // two u32
	opBrTable     // br_table: a vector of u32, then one
	opSelectTypes // select with types: a vector of value types
	opI32         // i32.const
	opI64         // i64.const
	opF32         // f32.const
	opF64         // f64.const
	opByte        // ref.null: a reference type
	opMisc        // 0xfc: a u32 sub-opcode and its immediates
)

var opClass = func() (t [256]byte) {
	for _, op := range []byte{0x00, 0x01, 0x05, 0x0f, 0x1a, 0x1b, 0xd1} {
		t[op] = opPlain // unreachable, nop, else, return, drop, select, ref.is_null
	}
	for op := 0x45; op <= 0xc4; op++ {
		t[op] = opPlain // numeric instructions, sign extension
	}
	t[0x02], t[0x04] = opBlock, opBlock
	t[0x03] = opLoop
	t[0x0b] = opEnd
	// br, br_if, call, local.get/set/tee, global.get/set, table.get/set, ref.func,
	// memory.size, memory.grow
	for _, op := range []byte{0x0c, 0x0d, 0x10, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0xd2, 0x3f, 0x40} {
		t[op] = opIndex
	}
	t[0x11] = opIndex2 // call_indirect: type, table
	for op := 0x28; op <= 0x3e; op++ {
		t[op] = opIndex2 // loads and stores: align, offset
	}
	t[0x0e] = opBrTable
	t[0x1c] = opSelectTypes
	t[0x41], t[0x42], t[0x43], t[0x44] = opI32, opI64, opF32, opF64
	t[0xd0] = opByte
	t[0xfc] = opMisc
	return t
}()

// skipU32 returns where the unsigned LEB128 at the start of r.b ends.
func (r reader) skipU32() int {
	r.u32()
	return r.at
}

// reader decodes the binary format; the first error sticks and later reads return zeros.
// It reads every byte of the plugin's code on each start (instrumentDeadline): byte and
// u32 are kept small enough to be inlined.
type reader struct {
	b   []byte
	at  int
	err error
}

// fail sets the error, once, and moves to the end of the input, so that the fast paths of
// byte and u32 need not check for an error: every later read takes the slow path, which
// returns zero.
func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
	r.at = len(r.b)
}

func (r *reader) byte() byte {
	if at := r.at; at < len(r.b) {
		r.at = at + 1
		return r.b[at]
	}
	return r.atEnd()
}

// atEnd is byte's slow path, apart so that byte is inlined.
func (r *reader) atEnd() byte {
	r.fail("unexpected end")
	return 0
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

// u32 reads an unsigned LEB128 of at most 5 bytes. Most are one byte: that case is
// inlined.
func (r *reader) u32() uint32 {
	if at := r.at; at < len(r.b) && r.b[at] < 0x80 {
		r.at = at + 1
		return uint32(r.b[at])
	}
	return r.u32Long()
}

func (r *reader) u32Long() uint32 {
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

// appendS32 appends v as a signed LEB128.
func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
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
