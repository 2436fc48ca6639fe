package wire

// AppendRequestHead appends the head of a request frame to dst: the request line, a line
// for each of fields (lowercase names, in their order) that value gives, and the blank
// line; the body follows it. fields are the names the plugin lists (the raw ABI's
// skilledge_fields): the request header fields the server reads, of which no answer
// depends on any other. A host frames only these, in this order: reading every field of a
// request costs some runtimes (workerd) a sorted, lowercased copy of them all, and every
// other line would be framed for the plugin to skip. value returns a field's value as the request carries it, a
// repeated field's values joined by ", " (as RFC 9110 §5.3 combines them, and the Fetch
// API gives them), and false for a field the request lacks. host is framed always, empty
// when the request has none (some runtimes cannot tell an empty Host from a missing one;
// the server refuses both alike unless it answers every Host). So every host frames one
// request as the same bytes, which replays need.
//
// Why do hosts join a repeated field's values with ", ", not frame a line per value? A
// Worker cannot do otherwise: the Fetch API's Headers.get gives a repeated field's values
// joined, and iterating the headers costs a sorted, lowercased copy of every field. serve
// used to frame a line per value, so the two hosts could answer the same request
// differently (edge takes the first of repeated fields, so two Content-Type lines were
// accepted by serve and refused by the Worker). Edge already treats a comma in Host or
// Origin as several values (RFC 9110 §5.3), so nothing it refuses became acceptable.
// serve looks keys up in their canonical form, as http.Header.Get does: a key set
// in-process in another case is not framed.
func AppendRequestHead(dst []byte, method, target string, fields []string, value func(field string) (string, bool)) []byte {
	dst = append(dst, method...)
	dst = append(dst, ' ')
	dst = append(dst, target...)
	dst = append(dst, '\n')
	for _, f := range fields {
		if v, ok := value(f); ok || f == "host" {
			dst = append(dst, f...)
			dst = append(dst, ": "...)
			dst = append(dst, v...)
			dst = append(dst, '\n')
		}
	}
	return append(dst, '\n')
}
