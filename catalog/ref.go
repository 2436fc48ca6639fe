package catalog

import (
	"fmt"
	"strconv"
)

// Ref names an object of the content store: Name is the lowercase hex SHA-256 of the
// object's bytes, Size their length. A host that splices the object copies exactly Size
// bytes and may check them against Name.
//
// A packed object (Packed) is stored inside a pack, a larger object of the store that
// holds many: its bytes are the Size bytes at Offset of the index's pack number Pack
// (TablePacks, packs.go). A host reads them by range and checks them against Name.
type Ref struct {
	Name   string
	Size   int64
	Packed bool
	Pack   uint32 // the row of TablePacks, when Packed
	Offset int64  // where in that pack, when Packed
}

// Cell renders r as an index "ref" field: "SIZE NAME", and " PACK OFFSET" after it for a
// packed object.
func (r Ref) Cell() []byte {
	b := strconv.AppendInt(nil, r.Size, 10)
	b = append(b, ' ')
	b = append(b, r.Name...)
	if r.Packed {
		b = append(b, ' ')
		b = strconv.AppendUint(b, uint64(r.Pack), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, r.Offset, 10)
	}
	return b
}

// ParseRef decodes a "ref" field. It accepts exactly "SIZE NAME", or "SIZE NAME PACK
// OFFSET", with SIZE, PACK and OFFSET decimals without leading zeros (SIZE and OFFSET below
// 2^53, PACK below 2^32) and NAME 64 lowercase hex digits; anything else wraps
// ErrCorrupt. It does not allocate. Whether PACK names a pack, and OFFSET and SIZE lie
// within it, the index checks (Open).
func ParseRef(cell []byte) (Ref, error) {
	size, rest, ok := cutNumber(cell, 16)
	if !ok || len(rest) < 65 || rest[0] != ' ' || !IsObjectName(unsafeString(rest[1:65])) {
		return Ref{}, fmt.Errorf("%w: bad object reference", ErrCorrupt)
	}
	if size >= 1<<53 {
		return Ref{}, fmt.Errorf("%w: object size out of range", ErrCorrupt)
	}
	r := Ref{Name: unsafeString(rest[1:65]), Size: size}
	if rest = rest[65:]; len(rest) == 0 {
		return r, nil
	}
	if rest[0] == ' ' {
		if pack, rest, ok := cutNumber(rest[1:], 10); ok && pack < 1<<32 && len(rest) > 0 && rest[0] == ' ' {
			if off, rest, ok := cutNumber(rest[1:], 16); ok && len(rest) == 0 && off < 1<<53 {
				r.Packed, r.Pack, r.Offset = true, uint32(pack), off
				return r, nil
			}
		}
	}
	return Ref{}, fmt.Errorf("%w: bad packed object reference", ErrCorrupt)
}

// cutNumber reads a canonical decimal (no sign, no leading zero) of at most max digits
// from the start of b.
func cutNumber(b []byte, max int) (int64, []byte, bool) {
	i := 0
	var n int64
	for i < len(b) && i <= max && '0' <= b[i] && b[i] <= '9' {
		n = n*10 + int64(b[i]-'0')
		i++
	}
	if i == 0 || i > max || (b[0] == '0' && i > 1) {
		return 0, b, false
	}
	return n, b[i:], true
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
