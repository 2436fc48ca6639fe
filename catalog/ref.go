package catalog

import (
	"fmt"
	"strconv"
)

// Ref names an object of the content store: Name is the lowercase hex SHA-256 of the
// object's bytes, Size their length. A host that splices the object copies exactly Size
// bytes and may check them against Name.
type Ref struct {
	Name string
	Size int64
}

// Cell renders r as an index "ref" field: "SIZE NAME".
func (r Ref) Cell() []byte {
	b := strconv.AppendInt(nil, r.Size, 10)
	b = append(b, ' ')
	return append(b, r.Name...)
}

// ParseRef decodes a "ref" field. It accepts exactly "SIZE NAME" with SIZE a decimal
// without leading zeros below 2^53 and NAME 64 lowercase hex digits; anything else wraps
// ErrCorrupt. It does not allocate.
func ParseRef(cell []byte) (Ref, error) {
	n := len(cell) - 65
	if n < 1 || n > 16 || cell[n] != ' ' || !IsObjectName(unsafeString(cell[n+1:])) {
		return Ref{}, fmt.Errorf("%w: bad object reference", ErrCorrupt)
	}
	for i, c := range cell[:n] {
		if c < '0' || c > '9' || (i == 0 && c == '0' && n > 1) {
			return Ref{}, fmt.Errorf("%w: bad object size", ErrCorrupt)
		}
	}
	r := RefOf(cell) // checked: now only split
	if r.Size >= 1<<53 {
		return Ref{}, fmt.Errorf("%w: object size out of range", ErrCorrupt)
	}
	return r, nil
}

// A reference field may name an object in parts (a document of a large catalog larger
// than a Workers static asset may be): its cell is then the references of the parts, in
// order, each ended by LF but the last ("SIZE NAME\nSIZE NAME"), and the object is their
// bytes one after another. MaxPart bounds a part: the build cuts a larger object so.
const MaxPart = 16 << 20

// ParseRefs decodes a reference field of one object or of parts, calling f with each, in
// order; anything else wraps ErrCorrupt.
func ParseRefs(cell []byte, f func(Ref)) error {
	for {
		line, rest, more := bytesCut(cell, '\n')
		r, err := ParseRef(line)
		if err != nil {
			return err
		}
		if f != nil {
			f(r)
		}
		if !more {
			return nil
		}
		cell = rest
	}
}

// EachRef calls f with each part of a reference field ParseRefs accepted (Open has
// checked every one): the one object, or each of its parts in order.
func EachRef(cell []byte, f func(Ref)) {
	for {
		line, rest, more := bytesCut(cell, '\n')
		f(RefOf(line))
		if !more {
			return
		}
		cell = rest
	}
}

func bytesCut(b []byte, sep byte) (before, after []byte, found bool) {
	for i, c := range b {
		if c == sep {
			return b[:i], b[i+1:], true
		}
	}
	return b, nil, false
}

// IsObjectName reports whether s can name a store object: 64 lowercase hex digits.
func IsObjectName(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
