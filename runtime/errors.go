package runtime

import "errors"

var (
	// ErrClosed is returned by a Pool or Server used after Close.
	ErrClosed = errors.New("runtime: closed")
	// ErrMemoryLimit is wrapped by NewPool when the per-instance memory limit is too small
	// for the pack, and by Compile when the limit is out of range.
	ErrMemoryLimit = errors.New("runtime: memory limit")
	// ErrInstance is wrapped by every error caused by an instance that trapped, panicked,
	// ran out of memory or time, or broke the ABI. The instance has been discarded; the
	// next request gets a fresh one.
	ErrInstance = errors.New("runtime: plugin instance failed")
)
