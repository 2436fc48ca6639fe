package edge

import "sync"

// scratch holds response buffers for reuse. A buffer keeps the capacity its largest answer
// needed, so steady traffic allocates nothing proportional to response size. Inside the
// single-threaded plugin this is one buffer per instance; natively, one per concurrent
// request.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// keep returns a buffer to the pool, keeping the larger of the old buffer and used, which
// may be the old buffer grown by append (and is no longer referenced by the caller).
func keep(sc *[]byte, used []byte) {
	if cap(used) > cap(*sc) {
		*sc = used[:0]
	}
	scratch.Put(sc)
}
