// Package jsonrpc reads and writes JSON-RPC 2.0 messages by hand, on top of
// github.com/tidwall/gjson, without reflection.
//
// See https://www.jsonrpc.org/specification
//
// # Reading
//
// [Parse] decodes one message and [SplitBatch] splits a batch into its
// elements; callers use [IsBatch] to choose between them. Both validate the
// input once, in a single pass that also bounds its nesting (the same language
// gjson.ValidBytes accepts), and then walk it without copying: every
// []byte in a [Message] and every element returned by SplitBatch is a
// sub-slice of the input (with its capacity clipped, so appending to it never
// writes into the input), and [Message.Method] usually aliases the input too.
// The input must therefore not be modified while those values are in use; a
// caller that reuses its read buffer must copy what it keeps.
//
// Parsing follows gjson's reading of JSON: when an object repeats a key, the
// first occurrence wins and later ones are ignored. Members other than
// jsonrpc, id, method, params, result and error are ignored.
//
// Invalid JSON is reported as [CodeParseError] (-32700); valid JSON that is
// not a JSON-RPC 2.0 message is reported as [CodeInvalidRequest] (-32600).
//
// # Writing
//
// The Append functions ([AppendResult], [AppendResultStart], [AppendError],
// [AppendString]) append compact JSON to a caller-owned buffer and return it,
// in the style of strconv.AppendInt; they allocate only when the buffer must
// grow. Raw JSON arguments (ids, results, error data) are copied verbatim and
// must already be valid, compact JSON.
//
// # Errors
//
// [Error] is both the JSON-RPC error object and a Go error. Errors compare by
// code under errors.Is, so errors.Is(err, ErrMethodNotFound) holds for any
// *Error with code -32601, whatever its message or data.
//
// The package is compiled natively and for GOOS=wasip1; it uses no
// encoding/json, no fmt and no reflection.
package jsonrpc
