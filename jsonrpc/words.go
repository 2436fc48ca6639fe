package jsonrpc

import (
	"encoding/binary"
	"math/bits"
)

// Strings are scanned eight bytes at a time: one 64-bit load and a few arithmetic
// operations tell whether any of the eight bytes needs a look. Inside the wasm plugin a
// loop iteration per byte is the largest cost of answering a request (the JSON passes over
// the body were about half of the plugin's time per small request), and most bytes of a
// message are inside strings.
//
// Why scan strings and frame lines a word at a time, and look table cells up by array? Go
// compiled to wasm runs a byte loop many times slower than natively (wazero checks every
// load against the memory's bounds, and Go's wasm code keeps little in registers), and a
// profile of the plugin (wazero's perf map, perf record) put half of a small read in loops
// over bytes: the JSON passes, the frame's lines, the URI. So strings (here) and frame
// lines (edge/wire/lines.go) are scanned a word at a time, and only a byte the word marks
// is looked at alone. Lookups that were calls became tables: which URI characters stand
// for themselves (a 256-entry array, where a search of the punctuation list was a call per
// character), the index's tables by kind (an array, where a map cost a hash per field
// read), an already canonical URI accepted after one pass; catalog.RefOf no longer
// re-checks the 64 hex digits Open checked, and a call's params are read into it in place
// instead of a kilobyte returned and copied. Each step was measured by alternating batches
// of calls on the old and the new plugin in one process; together they took nearly a
// quarter off the plugin's time for the load benchmark's small read, which is still
// several times its native time (BENCHMARKS.md, "Why scan a word at a time"). Kept out,
// for no measured gain: the word loop inlined into validate to save a call per string,
// profile-guided optimisation, and more instances than cores in serve's pool. Every
// scanner is fuzzed against what it replaces (gjson.ValidBytes, bytes.IndexByte,
// strings.Cut, the full URI parse, ParseRef), and TestWordMarks checks the word tests for
// every byte value at every position.

const (
	ones  = 0x0101010101010101 // 0x01 in every byte
	highs = 0x8080808080808080 // the high bit of every byte
)

// zeroBytes has the high bit set in the lowest byte of v that is zero, and possibly in
// bytes above it; it is 0 when no byte of v is zero.
func zeroBytes(v uint64) uint64 { return (v - ones) &^ v & highs }

// quoteOrEscape is not 0 when the word v holds a '"' or a '\\'; its lowest set bit is in
// the first such byte.
func quoteOrEscape(v uint64) uint64 {
	return zeroBytes(v^(ones*'"')) | zeroBytes(v^(ones*'\\'))
}

// notPlain is not 0 when the word v holds a byte that a string scan must look at: '"',
// '\\', a control character (below 0x20) or a byte of a non-ASCII character (0x80 and
// above); its lowest set bit is in the first such byte. (v - 0x20 in every byte) has the
// high bit set exactly in the bytes below 0x20, save for borrows, which only reach bytes
// above one that is below 0x20.
func notPlain(v uint64) uint64 {
	q, e := v^(ones*'"'), v^(ones*'\\')
	return ((q-ones)&^q | (e-ones)&^e | (v - ones*0x20) | v) & highs
}

// firstMarked returns the index of the byte holding the lowest set bit of a mark from
// quoteOrEscape or notPlain.
func firstMarked(mark uint64) int { return bits.TrailingZeros64(mark) / 8 }

// word returns the eight bytes of b at i, i+8 <= len(b), as one little-endian load.
func word(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }
