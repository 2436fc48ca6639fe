package jsonrpc

import (
	"strconv"

	"github.com/tidwall/gjson"
)

// IsBatch reports whether b, after leading JSON whitespace, starts a JSON
// array, that is, whether it should go to [SplitBatch] rather than [Parse].
// It does not validate b.
func IsBatch(b []byte) bool {
	i := skipSpace(b)
	return i < len(b) && b[i] == '['
}

// SplitBatch validates b once and returns the raw elements of the top-level
// array, in order, each a sub-slice of b with its capacity clipped. It does not
// parse the elements: pass each to [Parse], which reports the invalid ones
// (such as numbers or strings) as -32600 individually.
//
// Invalid JSON (invalid UTF-8 included) gives code -32700. Valid JSON that is
// not an array, an empty array, or an array of more than max elements (when
// max > 0) gives code -32600; the count stops at max+1, so a hostile batch of
// millions of elements costs no more than one of max+1. See
// https://www.jsonrpc.org/specification#batch
//
// It allocates the returned slice of elements (at most max+1 long) and
// nothing else, except the data of a too-large error.
func SplitBatch(b []byte, max int) ([][]byte, *Error) {
	if err := checkJSON(b); err != nil {
		return nil, err
	}
	if b[skipSpace(b)] != '[' {
		return nil, invalidRequest(reasonNotArray)
	}
	var out [][]byte
	root := gjson.Result{Type: gjson.JSON, Raw: aliasString(b)}
	root.ForEach(func(_, v gjson.Result) bool {
		out = append(out, rawOf(b, v))
		return max <= 0 || len(out) <= max
	})
	switch {
	case len(out) == 0:
		return nil, invalidRequest(reasonEmptyBatch)
	case max > 0 && len(out) > max:
		return nil, invalidRequest(strconv.AppendQuote(nil, "batch holds more than "+strconv.Itoa(max)+" messages, the most this server answers in one request"))
	}
	return out, nil
}
