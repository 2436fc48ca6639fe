package wire

// Limits every host and the plugin share. They are decided here so that no host sizes
// anything on its own, and the JavaScript host holds the same numbers (the vectors in
// testdata/limits.json check both).
//
// Bounds on the work of one request. A request names store objects rather than carrying
// them, and answers are made of the index's fragments, so without bounds a 2025-03-26
// batch of a few KB could have the plugin build gigabytes (10,000 skills/list) or the host
// send them (200 reads of a large file). So: a batch holds at most MaxBatch messages, else
// it is refused whole (-32600) before any is answered; after its first answer, which
// always goes whole, a batch's answers may add at most BatchMaxBytes bytes, counting the
// bytes the plugin builds and those of the objects the host splices alike; an answer that
// would go past it is replaced by a -32603 error saying to send that request on its own.
// An answer names at most one store object, so a batch names at most MaxBatch, and the host
// fetches no more. Every error message quotes at most MaxEcho bytes of what the request
// said (a URI, a method, a cursor), so an error's size does not grow with the request.
const (
	// DefaultMaxBody is Options.MaxBody when unset: 1 MiB. Hosts that cap the body they
	// read before the options reach the plugin use it too.
	DefaultMaxBody = 1 << 20
	// MaxBatch is the most messages a JSON-RPC batch may hold.
	MaxBatch = 64
	// BatchMaxBytes bounds what a batch's answers after the first may add.
	BatchMaxBytes = 8 << 20
	// MaxEcho bounds what an error message quotes of the request.
	MaxEcho = 256
	// MaxErrorBytes bounds one error response without its id: a fixed message and at
	// most three echoes of MaxEcho bytes, each of which strconv.Quote and JSON escaping
	// can make five times longer (a control byte becomes \\x01).
	MaxErrorBytes = 8 << 10
	// AnswerEnvelope bounds what one answer adds to the index's fragments and the
	// instructions: the JSON-RPC envelope, the fixed members, the results of the small
	// methods, one error.
	AnswerEnvelope = 64 << 10
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
// stops it, BatchMaxBytes of others, an error for every other element, and the ids and
// URIs its elements echo: parts of the body, at most twice as long once escaped again.
func MaxReply(indexSize, maxBody, instructions int) int64 {
	one := int64(indexSize) + 6*int64(instructions) + AnswerEnvelope
	return 2*one + BatchMaxBytes + MaxBatch*MaxErrorBytes + 2*int64(maxBody)
}

// Bounds of a host's replays (replay.go): the answers it keeps by default, the bytes one
// may hold (ReplayEntry.Size), the bytes all may hold, and how many framings (the lengths
// around the id) it keeps answers of. Clients frame alike, so there are few; a host makes
// room for a new answer by dropping others.
//
// Why one set of host limits, with 256 KiB answers and 16 MiB for replays? The replay
// bounds were 256 KiB an answer and 32 MiB in all in serve, 64 KiB and 4 MiB in a Worker.
// They are one set here, held to the JavaScript host by the vectors and by
// build/entries_test.go. The Worker's isolate has 128 MB, of which the plugin instance
// (sized by the index) and the object cache (8 MiB) take part; 16 MiB of replays fits
// beside them. serve gives up half of a budget the load benchmark never came near (its
// answers are a few KiB each).
const (
	ReplayEntries   = 1024
	ReplayEntryMax  = 256 << 10
	ReplayBudget    = 16 << 20
	ReplayShapesMax = 16
)
