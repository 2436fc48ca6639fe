package search

import "unsafe"

// unsafeString views b as a string without copying. b must not change afterwards, which
// the index's contract (its cells never change once opened) guarantees.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
