package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/skilledge/skilledge/runtime/store"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// TestAdvised: the CLI adds what to do to the errors it knows a remedy for, after what
// the library said; other errors are printed as they are.
func TestAdvised(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("%w: instances are limited to 16.0 MiB", wasm.ErrMemoryLimit), "wasm: memory limit: instances are limited to 16.0 MiB; raise the memory limit (--memory-limit MIB)"},
		{fmt.Errorf("%w: 1 of the 2 objects", store.ErrStore), "store: 1 of the 2 objects; build the catalog again"},
		{errors.New("open x: no such file or directory"), "open x: no such file or directory"},
	} {
		if got := advised(tc.err); got != tc.want {
			t.Errorf("advised(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
