package wire

import (
	"encoding/binary"
	"math/bits"
)

// Frames are cut into lines and fields by scans of their own rather than bytes.IndexByte
// and strings.Cut: inside the wasm plugin those are a call per line into a byte-at-a-time
// loop, plus a call per candidate separator, and a request's header lines were a sixth of
// the plugin's time per small request. A line is scanned eight bytes at a time.

const (
	ones  = 0x0101010101010101 // 0x01 in every byte
	highs = 0x8080808080808080 // the high bit of every byte
)

// indexNewline returns the index of the first '\n' in b, or -1.
func indexNewline(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		v := binary.LittleEndian.Uint64(b[i:]) ^ (ones * '\n')
		if m := (v - ones) &^ v & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] == '\n' {
			return i
		}
	}
	return -1
}

// cutLine returns b's first line (without its '\n', as a string aliasing b) and the rest;
// false when b has no '\n'.
func cutLine(b []byte) (string, []byte, bool) {
	i := indexNewline(b)
	if i < 0 {
		return "", nil, false
	}
	return unsafeString(b[:i]), b[i+1:], true
}

// cutField splits a header line at its first ": ", as strings.Cut(line, ": ") does.
func cutField(line string) (name, value string, ok bool) {
	for i := 0; i+1 < len(line); i++ {
		if line[i] == ':' && line[i+1] == ' ' {
			return line[:i], line[i+2:], true
		}
	}
	return "", "", false
}

// cutSpace splits a request line at its first ' ', as strings.Cut(line, " ") does.
func cutSpace(line string) (before, after string, ok bool) {
	for i := 0; i < len(line); i++ {
		if line[i] == ' ' {
			return line[:i], line[i+1:], true
		}
	}
	return "", "", false
}
