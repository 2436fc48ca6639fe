package wasm

import (
	"github.com/tetratelabs/wazero/experimental"
)

// heapMemory is a linear memory on the Go heap, grown by copying: wazero's own way, for
// systems where reserving address space is not available.
type heapMemory struct{ buf []byte }

func (m *heapMemory) Reallocate(size uint64) []byte {
	if size > uint64(cap(m.buf)) {
		grown := make([]byte, size, max(size, 2*uint64(cap(m.buf))))
		copy(grown, m.buf)
		m.buf = grown
	}
	m.buf = m.buf[:size]
	return m.buf
}

func (m *heapMemory) Free() { m.buf = nil }

var _ experimental.LinearMemory = (*heapMemory)(nil)
