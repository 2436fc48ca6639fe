package edge

import "unicode/utf8"

// Bounds on the work of one request. They are decided here, in the plugin, so every host
// gets them; a host sizes its memory from MaxReply.
//
// A request names store objects rather than carrying them, and answers are made of the
// index's fragments, so without bounds a 2025-03-26 batch of a few KB could have the
// plugin build gigabytes (10,000 skills/list) or the host send them (200 reads of a large
// file). So: a batch holds at most MaxBatch messages, else it is refused whole (-32600)
// before any is answered; after its first answer, which always goes whole (one request of
// any kind works inside a batch as it does alone), a batch's answers may add at most
// batchMaxBytes bytes, counting the bytes the plugin builds and those of the objects the
// host splices alike; an answer that would go past it is replaced by a -32603 error
// saying to send that request on its own. An answer names at most one store object, so a
// batch names at most MaxBatch, and the host fetches no more. Every error message
// quotes at most maxEcho bytes of what the request said (a URI, a method, a cursor), so an
// error's size does not grow with the request.
const (
	// MaxBatch is the most messages a JSON-RPC batch may hold.
	MaxBatch      = 64
	batchMaxBytes = 8 << 20
	maxEcho       = 256
	// maxErrorBytes bounds one error response without its id: a fixed message and at
	// most three echoes of maxEcho bytes, each of which strconv.Quote and JSON escaping
	// can make five times longer (a control byte becomes \\x01).
	maxErrorBytes = 8 << 10
	// answerEnvelope bounds what one answer adds to the index's fragments and the
	// instructions: the JSON-RPC envelope, the fixed members, the results of the small
	// methods, one error.
	answerEnvelope = 64 << 10
)

// MaxReply is the most bytes the server builds in memory to answer one request (the
// response body without the store objects its references name), for an index of
// indexSize bytes, request bodies of at most maxBody bytes and Options.Instructions of
// instructions bytes. A host sizes an instance's memory from it.
//
// One answer is made of the index's fragments, each at most once (a page of skills/list,
// a skill entry, a directory), the instructions (escaped, at most six times as long) and
// a bounded envelope, and may echo what the request said (a resources/read answer repeats
// the URI as sent). A batch holds a first answer, one more built before the byte bound
// stops it, batchMaxBytes of others, an error for every other element, and the ids and
// URIs its elements echo: parts of the body, at most twice as long once escaped again.
func MaxReply(indexSize, maxBody, instructions int) int64 {
	one := int64(indexSize) + 6*int64(instructions) + answerEnvelope
	return 2*one + batchMaxBytes + MaxBatch*maxErrorBytes + 2*int64(maxBody)
}

// clip returns s cut to at most maxEcho bytes, on a UTF-8 boundary, with "…" after it
// when something was cut: what an error message may quote of a request.
func clip(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	n := maxEcho
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
