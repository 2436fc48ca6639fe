package jsonrpc

import "strconv"

// Standard error codes. See https://www.jsonrpc.org/specification#error_object
const (
	// CodeParseError means the input was not valid JSON.
	CodeParseError int64 = -32700
	// CodeInvalidRequest means the JSON is not a valid JSON-RPC 2.0 message.
	CodeInvalidRequest int64 = -32600
	// CodeMethodNotFound means the method does not exist or is not available.
	CodeMethodNotFound int64 = -32601
	// CodeInvalidParams means the method parameters are invalid.
	CodeInvalidParams int64 = -32602
	// CodeInternalError means an internal JSON-RPC error.
	CodeInternalError int64 = -32603
)

// The standard errors, with the messages the specification gives them. They
// are sentinels for errors.Is, which compares by code only; do not modify
// them, derive from them with [Error.WithData] or [NewError] instead.
var (
	ErrParse          = NewError(CodeParseError, "Parse error")
	ErrInvalidRequest = NewError(CodeInvalidRequest, "Invalid Request")
	ErrMethodNotFound = NewError(CodeMethodNotFound, "Method not found")
	ErrInvalidParams  = NewError(CodeInvalidParams, "Invalid params")
	ErrInternal       = NewError(CodeInternalError, "Internal error")
)

// Error is a JSON-RPC error object and a Go error.
//
// Functions in this package return *Error rather than error; convert to error
// only after checking for nil, or the interface will hold a typed nil.
type Error struct {
	// Code is the JSON-RPC error code.
	Code int64
	// Message is a short description, written as a JSON string.
	Message string
	// Data is a raw JSON value written as the "data" member, or nil to omit it.
	Data []byte
}

// NewError returns a new error with code and message and no data.
func NewError(code int64, msg string) *Error {
	return &Error{Code: code, Message: msg}
}

// WithData returns a copy of e carrying raw as its data. raw must be a valid
// JSON value (or nil to carry none); it is retained, not copied. e is not
// modified.
func (e *Error) WithData(raw []byte) *Error {
	c := *e
	c.Data = raw
	return &c
}

// Error returns "jsonrpc: <message> (<code>)". It does not include Data.
func (e *Error) Error() string {
	if e == nil {
		return "jsonrpc: <nil>"
	}
	buf := make([]byte, 0, len("jsonrpc:  (-32700)")+len(e.Message))
	buf = append(buf, "jsonrpc: "...)
	buf = append(buf, e.Message...)
	buf = append(buf, " ("...)
	buf = strconv.AppendInt(buf, e.Code, 10)
	buf = append(buf, ')')
	return string(buf)
}

// Is reports whether target is an *Error with the same code as e, so that
// errors.Is(err, ErrInvalidParams) matches any invalid-params error.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && e != nil && t.Code == e.Code
}

// Reasons carried as Data by the -32600 errors of Parse and SplitBatch (and by the
// -32700 of invalid UTF-8), as raw JSON strings. They are shared: callers must not modify an error's Data.
var (
	reasonNotObject      = []byte(`"message is not a JSON object"`)
	reasonVersion        = []byte(`"jsonrpc must be \"2.0\""`)
	reasonID             = []byte(`"id must be a number, a string or null"`)
	reasonMethod         = []byte(`"method must be a string"`)
	reasonParams         = []byte(`"params must be an object or an array"`)
	reasonRequestResult  = []byte(`"a request must not carry result or error"`)
	reasonResponseID     = []byte(`"a response must carry an id"`)
	reasonResultAndError = []byte(`"a response must not carry both result and error"`)
	reasonErrorObject    = []byte(`"error must be an object with an integer code and a string message"`)
	reasonNoMethod       = []byte(`"message has neither method nor result nor error"`)
	reasonNotArray       = []byte(`"batch is not a JSON array"`)
	reasonTooDeep        = []byte(`"nested more than 128 levels deep"`)
	reasonEmptyBatch     = []byte(`"batch is empty"`)
	reasonUTF8           = []byte(`"not valid UTF-8"`)
)

// parseError returns a fresh -32700 error.
func parseError() *Error {
	return &Error{Code: CodeParseError, Message: ErrParse.Message}
}

// invalidRequest returns a fresh -32600 error whose data is reason.
func invalidRequest(reason []byte) *Error {
	return &Error{Code: CodeInvalidRequest, Message: ErrInvalidRequest.Message, Data: reason}
}
