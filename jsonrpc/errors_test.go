package jsonrpc

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorSentinels(t *testing.T) {
	for _, tc := range []struct {
		err  *Error
		code int64
		msg  string
	}{
		{ErrParse, CodeParseError, "Parse error"},
		{ErrInvalidRequest, CodeInvalidRequest, "Invalid Request"},
		{ErrMethodNotFound, CodeMethodNotFound, "Method not found"},
		{ErrInvalidParams, CodeInvalidParams, "Invalid params"},
		{ErrInternal, CodeInternalError, "Internal error"},
	} {
		requireEqual(t, tc.code, tc.err.Code, "Code")
		requireEqual(t, tc.msg, tc.err.Message, "Message")
		requireBytes(t, nil, tc.err.Data, "Data")
	}
	requireEqual(t, int64(-32700), CodeParseError, "CodeParseError")
	requireEqual(t, int64(-32600), CodeInvalidRequest, "CodeInvalidRequest")
	requireEqual(t, int64(-32601), CodeMethodNotFound, "CodeMethodNotFound")
	requireEqual(t, int64(-32602), CodeInvalidParams, "CodeInvalidParams")
	requireEqual(t, int64(-32603), CodeInternalError, "CodeInternalError")
}

func TestErrorIs(t *testing.T) {
	custom := NewError(CodeMethodNotFound, "no such method: x").WithData([]byte(`"x"`))
	requireEqual(t, true, errors.Is(custom, ErrMethodNotFound), "same code")
	requireEqual(t, false, errors.Is(custom, ErrInvalidParams), "other code")
	requireEqual(t, true, errors.Is(fmt.Errorf("wrapped: %w", custom), ErrMethodNotFound), "wrapped")
	requireEqual(t, false, errors.Is(custom, errors.New("Method not found")), "not an *Error")
	requireEqual(t, false, custom.Is((*Error)(nil)), "nil target")

	var got *Error
	requireEqual(t, true, errors.As(fmt.Errorf("w: %w", custom), &got), "errors.As")
	requireEqual(t, custom, got, "errors.As target")
}

func TestErrorWithData(t *testing.T) {
	base := NewError(-32022, "Unsupported protocol version")
	withData := base.WithData([]byte(`{"supported":["2026-07-28"],"requested":"1999"}`))
	requireBytes(t, nil, base.Data, "base data unchanged")
	requireEqual(t, base.Code, withData.Code, "Code")
	requireEqual(t, base.Message, withData.Message, "Message")
	requireBytes(t, []byte(`{"supported":["2026-07-28"],"requested":"1999"}`), withData.Data, "Data")
	if withData == base {
		t.Fatal("WithData returned its receiver")
	}
	requireBytes(t, nil, withData.WithData(nil).Data, "WithData(nil)")
	requireBytes(t, nil, ErrInternal.Data, "sentinel unchanged")
}

func TestErrorError(t *testing.T) {
	requireEqual(t, "jsonrpc: Method not found (-32601)", ErrMethodNotFound.Error(), "Error()")
	requireEqual(t, "jsonrpc: x (0)", NewError(0, "x").Error(), "Error()")
	requireEqual(t, "jsonrpc: <nil>", (*Error)(nil).Error(), "nil Error()")
	var err error = NewError(7, "seven").WithData([]byte(`1`))
	requireEqual(t, "jsonrpc: seven (7)", err.Error(), "data not included")
}
