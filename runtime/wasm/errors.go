package wasm

import "errors"

var (
	// ErrClosed is returned by a Pool used after Close.
	ErrClosed = errors.New("wasm: closed")
	// ErrMemoryLimit is wrapped by NewPool when the per-instance memory limit is too small
	// for the pack, and by Compile when the limit is out of range.
	ErrMemoryLimit = errors.New("wasm: memory limit")
	// ErrInstance is wrapped by every error caused by an instance that trapped, panicked,
	// ran out of memory or time, or broke the ABI. The instance has been discarded; the
	// next request gets a fresh one.
	ErrInstance = errors.New("wasm: plugin instance failed")
	// ErrTimeout is wrapped, with ErrInstance, by the error of a call into an instance that
	// ran past its deadline (Options.Timeout) and was stopped.
	ErrTimeout = errors.New("request timed out")
	// ErrBusy is wrapped, with context.DeadlineExceeded, by the error of a request that
	// waited the pool's Timeout for a free instance in vain: no instance was called.
	ErrBusy = errors.New("wasm: no instance became free in time")
	// ErrNotPlugin is wrapped by the error of Compile, or of a call, when plugin.wasm lacks
	// an export the harness calls: it is not a skilledge plugin, or not one built as a
	// reactor (-buildmode=c-shared).
	ErrNotPlugin = errors.New("wasm: not a skilledge plugin")
)
