package wire

import (
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
//	"@" AT SP SIZE SP NAME LF
//
// AT is the offset in the framed BODY where the object's SIZE bytes go, NAME the object's
// 64 lowercase hex digits. Offsets never decrease, and references at the same offset are
// spliced in the order listed. The body a client receives is BODY with every object
// inserted, BodySize(body, refs) bytes long. A frame without references is a plain frame.

// Ref is one reference to a store object.
type Ref struct {
	At   int    // offset in the framed body
	Size int64  // the object's length
	Name string // the object's name: 64 lowercase hex digits, the SHA-256 of its bytes
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
	if !ok || len(rest) != 65 || rest[0] != ' ' || !catalog.IsObjectName(rest[1:]) || at >= 1<<53 || size >= 1<<53 {
		return Ref{}, false
	}
	return Ref{At: int(at), Size: size, Name: rest[1:]}, true
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
// the referenced size. It fails, wrapping ErrObject (and fs.ErrNotExist for a missing
// object), on the first that does not.
func Objects(refs []Ref, st Store) ([][]byte, error) {
	objs := make([][]byte, len(refs))
	for i, r := range refs {
		b, err := st.Object(r.Name)
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
