package jsonrpc

import "github.com/tidwall/gjson"

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
// Invalid JSON gives code -32700. Valid JSON that is not an array, or an empty
// array, gives code -32600. See https://www.jsonrpc.org/specification#batch
//
// It allocates the returned slice of elements and nothing else.
func SplitBatch(b []byte) ([][]byte, *Error) {
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
		return true
	})
	if len(out) == 0 {
		return nil, invalidRequest(reasonEmptyBatch)
	}
	return out, nil
}
