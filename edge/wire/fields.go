package wire

// RequestFields are the names, in lowercase, of the request header fields the server
// reads; no answer depends on any other field. The raw ABI's skilledge_fields gives them,
// and a host frames only these (AppendRequestHead), in this order: reading every field of
// a request costs some runtimes (workerd) a sorted, lowercased copy of them all, and every
// other line would be framed for the plugin to skip. edge's TestRequestFields holds the
// list to the one function that reads request fields.
var RequestFields = []string{"host", "origin", "accept", "content-type", "mcp-protocol-version", "mcp-method", "mcp-name", "if-none-match", "x-forwarded-proto"}

// AppendRequestHead appends the head of a request frame to dst: the request line, a line
// for each of fields (lowercase names, in their order) that value gives, and the blank
// line; the body follows it. value returns a field's value as the request carries it, a
// repeated field's values joined by ", " (as RFC 9110 §5.3 combines them, and the Fetch
// API gives them), and false for a field the request lacks. So every host frames one
// request as the same bytes, which replays need.
func AppendRequestHead(dst []byte, method, target string, fields []string, value func(field string) (string, bool)) []byte {
	dst = append(dst, method...)
	dst = append(dst, ' ')
	dst = append(dst, target...)
	dst = append(dst, '\n')
	for _, f := range fields {
		if v, ok := value(f); ok {
			dst = append(dst, f...)
			dst = append(dst, ": "...)
			dst = append(dst, v...)
			dst = append(dst, '\n')
		}
	}
	return append(dst, '\n')
}
