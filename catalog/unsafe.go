package catalog

import "unsafe"

// unsafeString views b as a string without copying. b must not change afterwards, which
// the Pack contract (an index never changes once opened) guarantees.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
