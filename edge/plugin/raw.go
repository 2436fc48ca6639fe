//go:build wasip1

package main

import (
	"errors"
	"strings"
	"unsafe"

	"github.com/skilledge/skilledge/edge"
	"github.com/skilledge/skilledge/edge/wire"
)

// The raw ABI: for hosts we write. See the package comment in main.go.

var (
	// in is the buffer returned by the last skilledge_alloc: the input of every call until
	// the next alloc, except after load, which keeps it.
	in []byte
	// out holds the last output, reused across calls.
	out []byte
	// lastErr is the message of the last error.
	lastErr []byte
	// replay is the output of skilledge_replay for the last skilledge_http answer: empty,
	// or its four numbers (five with an expiry).
	replay []byte
)

var errBuffer = errors.New("skilledge: (ptr, size) is not the buffer from skilledge_alloc")

//go:wasmexport skilledge_alloc
func rawAlloc(size uint32) uint32 {
	if uint32(cap(in)) < size || in == nil {
		in = make([]byte, size, max(size, 512))
	}
	in = in[:cap(in)]
	return addr(in)
}

//go:wasmexport skilledge_load
func rawLoad(ptr, size uint32) uint32 {
	b, err := input(ptr, size)
	if err == nil {
		// The plugin takes the buffer over as the pack; the next alloc makes a new one.
		in = nil
		err = loadPack(b[:len(b):len(b)])
	}
	collectIfDue(true)
	return rawStatus(err)
}

//go:wasmexport skilledge_give
func rawGive(ptr, size uint32) uint32 {
	b, err := input(ptr, size)
	if err == nil {
		if pack == nil {
			err = errNoCatalog
		} else {
			in = nil // the plugin keeps the buffer as the shard; the next alloc makes a new one
			if name, obj, ok := wire.ParseGive(b[:len(b):len(b)]); ok {
				err = pack.Give(name, obj)
			} else {
				err = errors.New("skilledge_give: the input is not an object's name, LF and its bytes")
			}
		}
	}
	collectIfDue(true)
	return rawStatus(err)
}

//go:wasmexport skilledge_configure
func rawConfigure(ptr, size uint32) uint32 {
	b, err := input(ptr, size)
	if err == nil {
		err = configure(b)
	}
	collectIfDue(true)
	return rawStatus(err)
}

//go:wasmexport skilledge_http
func rawHTTP(ptr, size uint32) uint64 {
	b, err := input(ptr, size)
	if err != nil {
		rawStatus(err)
		return 0
	}
	var h wire.Hint
	out, h = serveHTTP(out[:0], b)
	replay = wire.AppendHint(replay[:0], h)
	collectIfDue(false)
	return packed(out)
}

//go:wasmexport skilledge_rpc
func rawRPC(ptr, size uint32) uint64 {
	b, err := input(ptr, size)
	if err == nil {
		out, err = handleRPC(out[:0], b)
	}
	collectIfDue(false)
	if err != nil {
		rawStatus(err)
		return 0
	}
	return packed(out)
}

//go:wasmexport skilledge_replay
func rawReplay() uint64 { return packed(replay) }

// factsOut is the output of skilledge_facts.
var factsOut []byte

//go:wasmexport skilledge_facts
func rawFacts() uint64 {
	factsOut = lastFacts.Append(factsOut[:0])
	return packed(factsOut)
}

//go:wasmexport skilledge_error
func rawError() uint64 { return packed(lastErr) }

// fieldNames is edge.Fields for the options, one name a line.
var fieldNames []byte

//go:wasmexport skilledge_fields
func rawFields() uint64 {
	fieldNames = append(fieldNames[:0], strings.Join(edge.Fields(opts), "\n")...)
	return packed(fieldNames)
}

//go:wasmexport skilledge_keys
func rawKeys(ptr, size uint32) uint32 {
	b, err := input(ptr, size)
	if err == nil {
		err = setKeys(b)
	}
	collectIfDue(true)
	return rawStatus(err)
}

// wanted is the output of skilledge_keys_wanted.
var wanted []byte

//go:wasmexport skilledge_keys_wanted
func rawKeysWanted() uint64 {
	wanted = append(wanted[:0], keysWanted()...)
	return packed(wanted)
}

// input checks that (ptr, size) lies in the buffer from the last alloc and returns it.
func input(ptr, size uint32) ([]byte, error) {
	if in == nil || ptr != addr(in) || int(size) > len(in) {
		return nil, errBuffer
	}
	return in[:size], nil
}

func rawStatus(err error) uint32 {
	if err != nil {
		lastErr = append(lastErr[:0], err.Error()...)
		return 1
	}
	return 0
}

func addr(b []byte) uint32 { return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b)))) }

func packed(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	return uint64(addr(b))<<32 | uint64(len(b))
}
