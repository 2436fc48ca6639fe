//go:build linux || darwin

package wasm

import (
	"sync/atomic"
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// linearMemory is the memory allocator of every instance: its linear memory lives outside
// the Go heap, in an anonymous mapping of the instance's whole memory limit reserved at
// once (address space only: the pages are inaccessible until the module grows into them,
// and have no backing until touched). So growing never copies, the memory is never
// scanned or paced by the Go collector (which, for memory on the heap, lets the heap grow
// to twice what is live), and closing the instance returns every page to the system at
// once. Where the reservation fails, the memory falls back to the Go heap.
//
// Why does each instance's linear memory live in a mapping of its own, outside the Go
// heap? With file contents out of the plugin, an instance's linear memory is a few MiB
// (the Go runtime inside, the index, the buffers), but on the Go heap, as wazero keeps it
// by default, it cost serve about four times that in peak RSS per instance under load,
// and every memory.grow copied the memory into a larger slice and left the old one as
// garbage. Measured with the same load when this was chosen, an instance beyond the first
// cost less than half of what it cost on the heap; what is left on the Go heap per
// instance is wazero's own structures (BENCHMARKS.md, "Why linear memory is a mapping of
// its own"; the store section has the latest run). Reserving address space costs nothing
// on 64-bit systems.
//
// Why is a discarded instance's memory unmapped at once? Two clients crashing instances in
// a loop once took serve to over four times its RSS, where it stayed (BENCHMARKS.md, "Why a
// discarded instance's memory is unmapped"): the linear memory was on the Go heap, which
// returns pages to the system lazily. The mapping is unmapped when wazero closes the
// module (Free), which the pool does as it discards a failed instance;
// TestDiscardedInstanceUnmapped counts the live mappings through five crashes and a
// close.
var linearMemory experimental.MemoryAllocator = experimental.MemoryAllocatorFunc(func(capacity, limit uint64) experimental.LinearMemory {
	if limit == 0 || limit > 1<<32 {
		limit = 1 << 32
	}
	b, err := syscall.Mmap(-1, 0, int(limit), syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return &heapMemory{buf: make([]byte, 0, capacity)}
	}
	reservations.Add(1)
	return &mappedMemory{mem: b}
})

// reservations counts the mapped memories not yet freed: one per live instance.
var reservations atomic.Int64

// mappedMemory is a linear memory in a reserved mapping; accessible is how much of it
// has been made readable and writable, a whole number of system pages.
type mappedMemory struct {
	mem        []byte
	accessible int
}

// Reallocate makes the first size bytes accessible and returns them; nil when size is
// beyond the reservation or the system refuses.
func (m *mappedMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.mem)) {
		return nil
	}
	if n := int(size); n > m.accessible {
		page := syscall.Getpagesize()
		end := min((n+page-1)/page*page, len(m.mem))
		if err := syscall.Mprotect(m.mem[m.accessible:end], syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
			return nil
		}
		m.accessible = end
	}
	return m.mem[:size:size]
}

// Free unmaps the memory. wazero calls it once the module is closed and no call is
// running in it.
func (m *mappedMemory) Free() {
	if m.mem != nil {
		syscall.Munmap(m.mem)
		m.mem, m.accessible = nil, 0
		reservations.Add(-1)
	}
}
