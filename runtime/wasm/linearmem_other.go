//go:build !(linux || darwin)

package wasm

import "github.com/tetratelabs/wazero/experimental"

// linearMemory is nil where address space cannot be reserved: wazero keeps linear memory
// on the Go heap, as it does by default.
var linearMemory experimental.MemoryAllocator
