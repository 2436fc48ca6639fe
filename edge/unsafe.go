package edge

import "unsafe"

// unsafeString views b as a string without copying; b must not change while the string
// is in use (a request's bytes do not, until its answer is written).
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// unsafeBytes views s as bytes without copying; the bytes must not be written.
func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
