package jsonrpc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Dependency-free assertions in the style of wazero's internal/testing/require.

func requireEqual[T comparable](t testing.TB, want, got T, what string) {
	t.Helper()
	if want != got {
		t.Fatalf("%s: want %#v, got %#v", what, want, got)
	}
}

// requireBytes compares byte slices, treating nil and empty as different.
func requireBytes(t testing.TB, want, got []byte, what string) {
	t.Helper()
	if (want == nil) != (got == nil) || !bytes.Equal(want, got) {
		t.Fatalf("%s: want %s, got %s", what, showBytes(want), showBytes(got))
	}
}

func requireNoError(t testing.TB, e *Error, what string) {
	t.Helper()
	if e != nil {
		t.Fatalf("%s: unexpected error %v (data %s)", what, e, e.Data)
	}
}

func requireCode(t testing.TB, want int64, e *Error, what string) {
	t.Helper()
	if e == nil {
		t.Fatalf("%s: want error code %d, got no error", what, want)
	}
	if e.Code != want {
		t.Fatalf("%s: want error code %d, got %d (%v, data %s)", what, want, e.Code, e, e.Data)
	}
}

func requireValidJSON(t testing.TB, b []byte, what string) {
	t.Helper()
	if !json.Valid(b) {
		t.Fatalf("%s: invalid JSON %q", what, b)
	}
}

// requireAliases checks that sub is a sub-slice of b whose capacity ends with
// it, so appending to sub cannot write into b.
func requireAliases(t testing.TB, b, sub []byte, what string) {
	t.Helper()
	if len(sub) == 0 {
		return
	}
	if cap(sub) != len(sub) {
		t.Fatalf("%s: cap %d, want len %d", what, cap(sub), len(sub))
	}
	for i := range b {
		if &b[i] == &sub[0] {
			if i+len(sub) > len(b) || !bytes.Equal(b[i:i+len(sub)], sub) {
				t.Fatalf("%s: does not match input at %d", what, i)
			}
			return
		}
	}
	t.Fatalf("%s: %q does not alias the input", what, sub)
}

func showBytes(b []byte) string {
	if b == nil {
		return "nil"
	}
	return "`" + string(b) + "`"
}
