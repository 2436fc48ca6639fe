package wire

import (
	"errors"
	"strconv"
	"strings"
)

// ErrFrame is returned for a frame that does not follow the grammar of the package doc.
var ErrFrame = errors.New("wire: malformed frame")

// Header is an ordered list of header fields.
type Header []Field

// Field is one header line.
type Field struct{ Name, Value string }

// Get returns the first value of name, compared case-insensitively, and whether it was present.
func (h Header) Get(name string) (string, bool) {
	for _, f := range h {
		if EqualFold(f.Name, name) {
			return f.Value, true
		}
	}
	return "", false
}

// Request is an HTTP request as seen by the plugin.
type Request struct {
	Method, Target string
	Header         Header
	Body           []byte
}

// Response is an HTTP response produced by the plugin. The body a client receives is Body
// with the objects of Refs spliced in.
type Response struct {
	Status int
	Header Header
	Refs   []Ref
	Body   []byte
}

// AppendRequest appends the frame of r to dst.
func AppendRequest(dst []byte, r *Request) []byte {
	dst = append(dst, r.Method...)
	dst = append(dst, ' ')
	dst = append(dst, r.Target...)
	dst = append(dst, '\n')
	dst = appendHeader(dst, r.Header)
	return append(dst, r.Body...)
}

// AppendResponse appends the frame of r to dst.
func AppendResponse(dst []byte, r *Response) []byte {
	dst = strconv.AppendInt(dst, int64(r.Status), 10)
	dst = append(dst, '\n')
	dst = appendFields(dst, r.Header)
	dst = appendRefs(dst, r.Refs)
	dst = append(dst, '\n')
	return append(dst, r.Body...)
}

func appendHeader(dst []byte, h Header) []byte {
	return append(appendFields(dst, h), '\n')
}

func appendFields(dst []byte, h Header) []byte {
	for _, f := range h {
		dst = append(dst, f.Name...)
		dst = append(dst, ": "...)
		dst = append(dst, f.Value...)
		dst = append(dst, '\n')
	}
	return dst
}

// RPC is an rpc frame: a stream-transport message, or the reply to one.
type RPC struct {
	Version string
	Refs    []Ref // output only
	Message []byte
}

// AppendRPC appends the frame of r to dst.
func AppendRPC(dst []byte, r *RPC) []byte {
	dst = append(dst, r.Version...)
	dst = append(dst, '\n')
	dst = appendRefs(dst, r.Refs)
	return append(dst, r.Message...)
}

// ParseRPCInput decodes an rpc input frame (no references). The result aliases frame.
func ParseRPCInput(frame []byte) (RPC, error) {
	line, rest, ok := cutLine(frame)
	if !ok {
		return RPC{}, ErrFrame
	}
	return RPC{Version: line, Message: rest}, nil
}

// ParseRPCOutput decodes an rpc output frame, references included. The result aliases
// frame.
func ParseRPCOutput(frame []byte) (RPC, error) {
	line, rest, ok := cutLine(frame)
	if !ok {
		return RPC{}, ErrFrame
	}
	r := RPC{Version: line}
	for len(rest) > 0 && rest[0] == '@' {
		l, more, ok := cutLine(rest)
		if !ok {
			return RPC{}, ErrFrame
		}
		ref, ok := parseRef(l[1:])
		if !ok {
			return RPC{}, ErrFrame
		}
		r.Refs = append(r.Refs, ref)
		rest = more
	}
	if !checkRefs(r.Refs, len(rest)) {
		return RPC{}, ErrFrame
	}
	r.Message = rest
	return r, nil
}

// ParseRequest decodes a request frame. The result aliases frame.
func ParseRequest(frame []byte) (Request, error) { return ParseRequestInto(frame, nil) }

// ParseRequestInto is ParseRequest appending the header fields to h, whose capacity a
// caller that parses many frames reuses. The result aliases frame and h.
func ParseRequestInto(frame []byte, h Header) (Request, error) {
	line, rest, ok := cutLine(frame)
	if !ok {
		return Request{}, ErrFrame
	}
	method, target, ok := cutSpace(line)
	if !ok || method == "" || target == "" {
		return Request{}, ErrFrame
	}
	h, body, err := parseHeader(h[:0], rest)
	if err != nil {
		return Request{}, err
	}
	return Request{Method: method, Target: target, Header: h, Body: body}, nil
}

// ParseResponse decodes a response frame. The result aliases frame.
func ParseResponse(frame []byte) (Response, error) { return ParseResponseInto(frame, nil, nil) }

// ParseResponseInto is ParseResponse appending the header fields to h and the references
// to refs, whose capacities a caller that parses many frames reuses. The result aliases
// frame, h and refs.
func ParseResponseInto(frame []byte, h Header, refs []Ref) (Response, error) {
	line, rest, ok := cutLine(frame)
	if !ok {
		return Response{}, ErrFrame
	}
	if len(line) != 3 || line[0] < '2' || line[0] > '5' || line[1] < '0' || line[1] > '9' || line[2] < '0' || line[2] > '9' {
		return Response{}, ErrFrame // a final status, 200 to 599
	}
	status := int(line[0]-'0')*100 + int(line[1]-'0')*10 + int(line[2]-'0')
	h, refs = h[:0], refs[:0]
	for {
		line, more, ok := cutLine(rest)
		if !ok {
			return Response{}, ErrFrame
		}
		rest = more
		if line == "" {
			break
		}
		if line[0] == '@' {
			ref, ok := parseRef(line[1:])
			if !ok {
				return Response{}, ErrFrame
			}
			refs = append(refs, ref)
			continue
		}
		name, value, ok := cutField(line)
		if !ok || !token(name) || len(refs) > 0 {
			return Response{}, ErrFrame // header fields come before references
		}
		h = append(h, Field{name, value})
	}
	if !checkRefs(refs, len(rest)) {
		return Response{}, ErrFrame
	}
	if (status == 204 || status == 205 || status == 304) && (len(rest) > 0 || len(refs) > 0) {
		return Response{}, ErrFrame // these statuses have no body (RFC 9110 §15.3.5, §15.3.6, §15.4.5)
	}
	return Response{Status: status, Header: h, Refs: refs, Body: rest}, nil
}

func parseHeader(h Header, b []byte) (Header, []byte, error) {
	for {
		line, rest, ok := cutLine(b)
		if !ok {
			return nil, nil, ErrFrame
		}
		b = rest
		if line == "" {
			return h, b, nil
		}
		name, value, ok := cutField(line)
		if !ok || name == "" {
			return nil, nil, ErrFrame
		}
		h = append(h, Field{name, value})
	}
}

// token reports whether s is an HTTP token (RFC 9110 §5.6.2): a field name.
func token(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// EqualFold reports whether a and b are equal under ASCII case folding. HTTP names are
// ASCII tokens: Unicode folding (strings.EqualFold) would let "Hoſt" (U+017F) stand for
// "Host".
func EqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
