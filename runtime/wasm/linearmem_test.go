//go:build linux || darwin

package wasm

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/skilledge/skilledge/runtime/internal/require"
)

// The mapped linear memory grows in place up to its limit, holds what is written, and
// refuses to grow past the limit.
func TestMappedMemory(t *testing.T) {
	m := linearMemory.Allocate(64<<10, 16<<20)
	mm, ok := m.(*mappedMemory)
	if !ok {
		t.Skipf("the reservation failed; the heap fallback is in use (%T)", m)
	}
	defer m.Free()
	b := m.Reallocate(64 << 10)
	require.Equal(t, 64<<10, len(b))
	b[len(b)-1] = 42
	grown := m.Reallocate(3 << 20)
	require.Equal(t, 3<<20, len(grown))
	require.Equal(t, &b[0], &grown[0]) // in place: no copy
	require.Equal(t, byte(42), grown[64<<10-1])
	grown[len(grown)-1] = 7 // writable to the end
	require.Equal(t, true, m.Reallocate(16<<20) != nil)
	require.Equal(t, true, m.Reallocate(16<<20+1) == nil)
	m.Free()
	require.Equal(t, true, mm.mem == nil)
}

func TestHeapMemory(t *testing.T) {
	m := &heapMemory{}
	b := m.Reallocate(10)
	b[9] = 1
	require.Equal(t, byte(1), m.Reallocate(100)[9])
	require.Equal(t, 100, len(m.Reallocate(100)))
}

// TestDiscardedInstanceUnmapped: the memory of an instance goes back to the system when
// the pool discards it (here, after it ran out of memory) and when the pool closes, so a
// stream of failing requests cannot make the process grow.
func TestDiscardedInstanceUnmapped(t *testing.T) {
	_, cat := testPlugin(t)
	ctx := context.Background()
	limit := MinMemoryLimit(cat.Index, DefaultMaxBody)
	p, err := Compile(ctx, shared.wasm, Config{MemoryLimit: limit, Stderr: io.Discard})
	require.NoError(t, err)
	defer p.Close(ctx)
	before := reservations.Load()
	pool, err := p.NewPool(ctx, cat, Options{Size: 1})
	require.NoError(t, err)
	if reservations.Load() != before+1 {
		t.Skip("linear memory is not mapped on this system (the heap fallback is in use)")
	}
	for range 5 {
		_, err = pool.HTTP(ctx, postFrame(strings.Repeat(" ", int(limit))), nil)
		require.ErrorIs(t, err, ErrInstance)
		require.Equal(t, before, reservations.Load()) // discarded, not yet replaced
		_, err = pool.HTTP(ctx, postFrame(initialize), nil)
		require.NoError(t, err)
		require.Equal(t, before+1, reservations.Load())
	}
	_, failed := pool.Stats()
	require.Equal(t, int64(5), failed)
	require.NoError(t, pool.Close(ctx))
	require.Equal(t, before, reservations.Load())
}
