package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/skilledge/skilledge/catalog"
)

// References to the content store.
//
// File contents never cross the boundary: the plugin names them, and the host copies them
// from its content store (package catalog: objects named by the hex SHA-256 of their
// bytes) into the body it sends. A response frame lists its references after its header
// fields, one line each:
//
//	"@" AT SP SIZE SP NAME [SP PACK SP OFFSET] LF
//
// AT is the offset in the framed BODY where the object's SIZE bytes go, NAME the object's
// 64 lowercase hex digits. Offsets never decrease, and references at the same offset are
// spliced in the order listed. The body a client receives is BODY with every object
// inserted, BodySize(body, refs) bytes long. A frame without references is a plain frame.
//
// A packed object (catalog/packs.go) is no object of the store but SIZE bytes of one: the
// bytes at OFFSET (a canonical decimal below 2^53) of the store object PACK (64 lowercase
// hex digits), which a host reads by range. A host checks that those bytes hash to NAME
// before the first byte of the answer goes out, as it checks sizes: the packs of a large
// catalog live in storage that is not deployed with the Worker (R2), which a host must not
// take on trust.

// Ref is one reference to a store object.
type Ref struct {
	At     int    // offset in the framed body
	Size   int64  // the object's length
	Name   string // the object's name: 64 lowercase hex digits, the SHA-256 of its bytes
	Pack   string // for a packed object, the name of the pack that holds it; else ""
	Offset int64  // for a packed object, where in the pack its bytes start
}

// PackStore is a Store that reads packed objects itself (Objects asks it, rather than
// slicing and checking the whole pack from Object): Packed returns the bytes of r, a
// packed reference, checked against r.Name, or an error wrapping fs.ErrNotExist for a
// pack it does not hold, or ErrObject for bytes that are not r's.
type PackStore interface {
	Store
	Packed(r Ref) ([]byte, error)
}

// Store gives the bytes of content-store objects. Object returns an error wrapping
// fs.ErrNotExist for an object it does not hold; the result must not be modified.
type Store interface {
	Object(name string) ([]byte, error)
}

// ErrObject is wrapped by the errors of resolving references: an object the store does
// not hold (the store's error, wrapping fs.ErrNotExist, is wrapped too), or one whose size
// is not the size referenced.
var ErrObject = errors.New("content store")

func appendRefs(dst []byte, refs []Ref) []byte {
	for _, r := range refs {
		dst = append(dst, '@')
		dst = strconv.AppendInt(dst, int64(r.At), 10)
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, r.Size, 10)
		dst = append(dst, ' ')
		dst = append(dst, r.Name...)
		if r.Pack != "" {
			dst = append(dst, ' ')
			dst = append(dst, r.Pack...)
			dst = append(dst, ' ')
			dst = strconv.AppendInt(dst, r.Offset, 10)
		}
		dst = append(dst, '\n')
	}
	return dst
}

// parseRef decodes a reference line without its "@" and LF.
func parseRef(line string) (Ref, bool) {
	at, rest, ok := cutDecimal(line)
	if !ok || len(rest) == 0 || rest[0] != ' ' {
		return Ref{}, false
	}
	size, rest, ok := cutDecimal(rest[1:])
	if !ok || len(rest) < 65 || rest[0] != ' ' || !catalog.IsObjectName(rest[1:65]) || at >= 1<<53 || size >= 1<<53 {
		return Ref{}, false
	}
	r := Ref{At: int(at), Size: size, Name: rest[1:65]}
	if rest = rest[65:]; rest == "" {
		return r, true
	}
	if len(rest) < 67 || rest[0] != ' ' || !catalog.IsObjectName(rest[1:65]) || rest[65] != ' ' {
		return Ref{}, false
	}
	r.Pack = rest[1:65]
	if r.Offset, rest, ok = cutDecimal(rest[66:]); !ok || rest != "" || r.Offset >= 1<<53 {
		return Ref{}, false
	}
	return r, true
}

// cutDecimal reads a canonical decimal (no sign, no leading zero) of at most 16 digits.
func cutDecimal(s string) (int64, string, bool) {
	i := 0
	var n int64
	for i < len(s) && i < 17 && '0' <= s[i] && s[i] <= '9' {
		n = n*10 + int64(s[i]-'0')
		i++
	}
	if i == 0 || i > 16 || (s[0] == '0' && i > 1) {
		return 0, s, false
	}
	return n, s[i:], true
}

// checkRefs verifies that refs fit a body of n bytes in order.
func checkRefs(refs []Ref, n int) bool {
	at := 0
	for _, r := range refs {
		if r.At < at || r.At > n {
			return false
		}
		at = r.At
	}
	return true
}

// BodySize returns the length of body once refs are resolved.
func BodySize(body []byte, refs []Ref) int64 {
	n := int64(len(body))
	for _, r := range refs {
		n += r.Size
	}
	return n
}

// Objects looks up the object of every reference in st, in order, and checks each has
// the referenced size, and a packed one the referenced digest too (Packed). It fails,
// wrapping ErrObject (and fs.ErrNotExist for a missing object), on the first that does
// not.
func Objects(refs []Ref, st Store) ([][]byte, error) {
	objs := make([][]byte, len(refs))
	for i, r := range refs {
		var b []byte
		var err error
		if r.Pack != "" {
			b, err = Packed(st, r)
		} else {
			b, err = st.Object(r.Name)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrObject, err)
		}
		if int64(len(b)) != r.Size {
			return nil, fmt.Errorf("%w: object %s has %d bytes, not the %d referenced", ErrObject, r.Name, len(b), r.Size)
		}
		objs[i] = b
	}
	return objs, nil
}

// Packed returns the bytes of the packed reference r from st: st's own (PackStore), or
// the bytes at r.Offset of the object r.Pack, checked against r.Name.
func Packed(st Store, r Ref) ([]byte, error) {
	if ps, ok := st.(PackStore); ok {
		return ps.Packed(r)
	}
	b, err := SliceOf(st, r)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != r.Name {
		return nil, fmt.Errorf("%w: the bytes at %d of pack %s are not object %s", ErrObject, r.Offset, r.Pack, r.Name)
	}
	return b, nil
}

// SliceOf returns the bytes of the packed reference r in st's object r.Pack, unchecked (Slice):
// what a PackStore whose packs are checked as they are read answers.
func SliceOf(st Store, r Ref) ([]byte, error) {
	pack, err := st.Object(r.Pack)
	if err != nil {
		return nil, err
	}
	return Slice(pack, r)
}

// Slice returns the bytes of the packed reference r in pack, the bytes of r.Pack, unchecked;
// an error wrapping ErrObject when they lie outside it.
func Slice(pack []byte, r Ref) ([]byte, error) {
	if r.Offset > int64(len(pack)) || r.Size > int64(len(pack))-r.Offset {
		return nil, fmt.Errorf("%w: pack %s has %d bytes, not the %d at %d referenced", ErrObject, r.Pack, len(pack), r.Size, r.Offset)
	}
	return pack[r.Offset : r.Offset+r.Size : r.Offset+r.Size], nil
}

// AppendResolved appends body with the objects of refs (from Objects) spliced in.
func AppendResolved(dst, body []byte, refs []Ref, objs [][]byte) []byte {
	at := 0
	for i, r := range refs {
		dst = append(dst, body[at:r.At]...)
		dst = append(dst, objs[i]...)
		at = r.At
	}
	return append(dst, body[at:]...)
}

// WriteResolved writes body with the objects of refs (from Objects) spliced in to w,
// straight from where they are held, without assembling the whole body first.
func WriteResolved(w io.Writer, body []byte, refs []Ref, objs [][]byte) error {
	at := 0
	for i, r := range refs {
		if r.At > at {
			if _, err := w.Write(body[at:r.At]); err != nil {
				return err
			}
		}
		if _, err := w.Write(objs[i]); err != nil {
			return err
		}
		at = r.At
	}
	if at < len(body) {
		_, err := w.Write(body[at:])
		return err
	}
	return nil
}

// ResolveResponse appends to dst the response frame r with its references resolved from
// st: a plain frame, as a client would see it. On error nothing is appended.
func ResolveResponse(dst []byte, r *Response, st Store) ([]byte, error) {
	objs, err := Objects(r.Refs, st)
	if err != nil {
		return dst, err
	}
	plain := Response{Status: r.Status, Header: r.Header}
	dst = AppendResponse(dst, &plain)
	return AppendResolved(dst, r.Body, r.Refs, objs), nil
}
