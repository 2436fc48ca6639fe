// Package require is the harness's test assertions: a dependency-free subset of wazero's
// internal/testing/require, shared by the tests of every room of runtime/. Only tests
// import it.
package require

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// NoError fails t unless err is nil.
func NoError(t testing.TB, err error, msg ...any) {
	t.Helper()
	if err != nil {
		t.Fatal(append(msg, "unexpected error:", err)...)
	}
}

// ErrorIs fails t unless errors.Is(err, target).
func ErrorIs(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v is not %v", err, target)
	}
}

// Equal fails t unless want and got are equal: byte slices by their bytes, anything else
// by reflect.DeepEqual.
func Equal(t testing.TB, want, got any, msg ...any) {
	t.Helper()
	if wb, ok := want.([]byte); ok {
		if gb, ok := got.([]byte); ok && bytes.Equal(wb, gb) {
			return
		}
	} else if reflect.DeepEqual(want, got) {
		return
	}
	t.Fatal(append(msg, "\nwant:", want, "\ngot: ", got)...)
}

// Contains fails t unless s contains sub.
func Contains(t testing.TB, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Fatalf("%q does not contain %q", s, sub)
	}
}

// Buffer is a bytes.Buffer safe for a writer and a reader in different goroutines: what a
// test reads of a server's output while the server writes it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
