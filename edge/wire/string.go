package wire

import "unsafe"

// unsafeString views b as a string without copying. The frame must outlive the string and
// must not be modified while it is in use, which the package contract requires anyway.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
