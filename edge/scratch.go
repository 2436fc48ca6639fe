package edge

import (
	"sync"

	"github.com/skilledge/skilledge/edge/wire"
)

// reply is the space a response is built in: the body's bytes and the references to store
// objects the host splices into them. Offsets in refs count from the start of the body,
// which always starts at b[0].
type reply struct {
	b    []byte
	refs []wire.Ref
	// Room for the request being answered and the response, so that answering allocates
	// nothing: handlers are called through a table, which would move a local call to the
	// heap.
	c    call
	resp wire.Response
	hdr  [8]wire.Field
	// replay is how the answer may be replayed (replayOf), set by post.
	replay wire.Replay
	// caller is who the answer is to (gate): when the auth option let them in, the answer
	// depends on them (authz.private), and is kept and replayed no longer than their
	// credential holds.
	caller caller
	// facts are what the answer was (AppendHTTPFacts).
	facts Facts
}

// scratch holds replies for reuse. A reply keeps the capacity its largest answer needed,
// so steady traffic allocates nothing proportional to response size. Inside the
// single-threaded plugin this is one reply per instance; natively, one per concurrent
// request.
//
// Why does edge answer into reused buffers? Inside wasm, Go's collector is slow, and a
// response buffer grown from scratch on every request made allocation the largest cost of
// a big read: reusing one buffer per instance (AppendHTTP, AppendMessage) cut a 1 MiB
// resources/read through the raw ABI to under a third of its time (BENCHMARKS.md, "Why
// edge answers into reused buffers"). The cost is buffers that keep the size of the
// largest answer, which the memory cap already accounts for.
var scratch = sync.Pool{New: func() any { return new(reply) }}

func getScratch() *reply { return scratch.Get().(*reply) }

// keep returns rb to the pool, keeping the larger of its buffers and used (which may be
// rb's own grown by append and is no longer referenced by the caller), and refs. used is
// later written to, so it must be a buffer the answer owned: rb's, grown or not, or one
// allocated for it (an error body), never a slice of the index or of the request.
func (rb *reply) keep(used []byte, refs []wire.Ref) {
	if cap(used) > cap(rb.b) {
		rb.b = used[:0]
	}
	if cap(refs) > cap(rb.refs) {
		rb.refs = refs[:0]
	}
	rb.c, rb.resp, rb.facts = call{}, wire.Response{}, Facts{} // hold on to no request
	scratch.Put(rb)
}
