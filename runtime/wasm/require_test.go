package wasm

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// A dependency-free subset of wazero's internal/testing/require.

func requireNoError(t testing.TB, err error, msg ...any) {
	t.Helper()
	if err != nil {
		t.Fatal(append(msg, "unexpected error:", err)...)
	}
}

func requireErrorIs(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v is not %v", err, target)
	}
}

func requireEqual(t testing.TB, want, got any, msg ...any) {
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

func requireContains(t testing.TB, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Fatalf("%q does not contain %q", s, sub)
	}
}
