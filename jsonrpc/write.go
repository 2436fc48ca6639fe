package jsonrpc

import "strconv"

// ResponsePrefix is how every response AppendResult, AppendResultStart and AppendError
// write begins: the raw id follows it.
const ResponsePrefix = `{"jsonrpc":"2.0","id":`

// The fixed parts of a response object.
const (
	headerPrefix = ResponsePrefix
	resultKey    = `,"result":`
	errorKey     = `,"error":{"code":`
	messageKey   = `,"message":`
	dataKey      = `,"data":`
)

// AppendResult appends the success response
// {"jsonrpc":"2.0","id":<id>,"result":<result>} to dst and returns it.
//
// id is the raw id to echo (Message.ID); nil or empty writes null. result is a
// raw JSON value; nil or empty writes null. Both are copied verbatim and must
// be valid, compact JSON. It allocates only when dst must grow.
func AppendResult(dst, id, result []byte) []byte {
	dst = AppendResultStart(dst, id)
	dst = appendRaw(dst, result)
	return append(dst, '}')
}

// AppendResultStart appends the start of a success response,
// {"jsonrpc":"2.0","id":<id>,"result": — so that the caller can append the
// result value directly and then close the object with '}'. id is as for
// [AppendResult].
func AppendResultStart(dst, id []byte) []byte {
	dst = append(dst, headerPrefix...)
	dst = appendRaw(dst, id)
	return append(dst, resultKey...)
}

// AppendError appends the error response
// {"jsonrpc":"2.0","id":<id>,"error":{"code":<code>,"message":<message>,"data":<data>}}
// to dst and returns it. The data member is omitted when e.Data is nil or
// empty; otherwise it is copied verbatim and must be valid, compact JSON. The
// message is escaped with [AppendString].
//
// id is as for [AppendResult]; answer a parse error, or an invalid request
// whose id could not be read, with a nil id. A nil e is written as
// [ErrInternal].
func AppendError(dst, id []byte, e *Error) []byte {
	if e == nil {
		e = ErrInternal
	}
	dst = append(dst, headerPrefix...)
	dst = appendRaw(dst, id)
	dst = append(dst, errorKey...)
	dst = strconv.AppendInt(dst, e.Code, 10)
	dst = append(dst, messageKey...)
	dst = AppendString(dst, e.Message)
	if len(e.Data) > 0 {
		dst = append(dst, dataKey...)
		dst = append(dst, e.Data...)
	}
	return append(dst, "}}"...)
}

// appendRaw appends raw, or null when raw is empty.
func appendRaw(dst, raw []byte) []byte {
	if len(raw) == 0 {
		return append(dst, "null"...)
	}
	return append(dst, raw...)
}
