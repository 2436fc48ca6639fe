package runtime

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/skilledge/skilledge/edge"
	"github.com/skilledge/skilledge/edge/wire"
)

// DefaultReplays is the default of Options.Replays.
const DefaultReplays = 1024

// Bounds of a pool's replays beside Options.Replays: the bytes one entry may hold, all of
// them together, and how many distinct framings (shapes) are kept.
const (
	maxReplayEntry  = 256 << 10
	maxReplayBytes  = 32 << 20
	maxReplayShapes = 16
)

// replayHint is what skilledge_replay says of the last answer: the request's id token lies
// at idAt (idLen bytes) of the request frame and is echoed at answerAt of the response
// frame, and the promise holds for request frames up to maxFrame bytes (edge.Replay).
type replayHint struct {
	idAt, idLen, answerAt, maxFrame int
}

// replays holds answers the plugin said may be given again for another id (edge.Replay),
// so that the HTTP front answers a request that repeats one but for its id without calling
// an instance: agents ask the same questions (the same SKILL.md, the same list) with ids
// of their own. An entry is the request frame around the id (head and tail) and the
// answer around it; a frame matches an entry when it starts with the head, ends with the
// tail, and what lies between is an id of the same kind. The lookup hashes each known
// shape (the lengths of head and tail) of the frame; clients frame alike, so there are
// few. Safe for concurrent use; a nil *replays keeps nothing.
type replays struct {
	max  int
	seed maphash.Seed

	mu      sync.RWMutex
	shapes  []replayShape
	entries map[uint64]*replayEntry
	bytes   int

	hits atomic.Int64 // answers given from an entry
}

type replayShape struct{ head, tail int }

// replayEntry is one answer to replay. Its fields never change once it is kept.
type replayEntry struct {
	head, tail    []byte // the request frame before and after the id token
	kind          byte   // edge.ReplayableID of the token
	maxFrame      int
	status        int
	header        wire.Header // interned (internName, internValue)
	before, after []byte      // the response body before and after the echoed id
	refs          []wire.Ref  // At counted from the start of after
	size          int
}

func newReplays(max int) *replays {
	if max <= 0 {
		return nil
	}
	return &replays{max: max, seed: maphash.MakeSeed(), entries: map[uint64]*replayEntry{}}
}

func (rs *replays) hash(head, tail []byte) uint64 {
	var h maphash.Hash
	h.SetSeed(rs.seed)
	h.Write(head)
	h.Write(tail)
	return h.Sum64()
}

// lookup returns the entry that answers frame and the id token of frame, or nil.
func (rs *replays) lookup(frame []byte) (*replayEntry, []byte) {
	if rs == nil {
		return nil, nil
	}
	rs.mu.RLock()
	defer rs.mu.RUnlock()
	for _, sh := range rs.shapes {
		n := len(frame) - sh.head - sh.tail
		if n <= 0 {
			continue
		}
		head, id, tail := frame[:sh.head], frame[sh.head:sh.head+n], frame[sh.head+n:]
		e := rs.entries[rs.hash(head, tail)]
		if e == nil || len(e.head) != sh.head || len(e.tail) != sh.tail || len(frame) > e.maxFrame ||
			!bytes.Equal(e.head, head) || !bytes.Equal(e.tail, tail) || edge.ReplayableID(id) != e.kind {
			continue
		}
		rs.hits.Add(1)
		return e, id
	}
	return nil, nil
}

// keep adds the answer resp (parsed from the response frame out) to frame, as hint says,
// unless it holds more than an entry may or its shape is one too many.
func (rs *replays) keep(frame []byte, hint replayHint, out []byte, resp wire.Response) {
	if rs == nil {
		return
	}
	bodyAt := len(out) - len(resp.Body) // the body ends the frame
	at := hint.answerAt - bodyAt
	end := hint.idAt + hint.idLen
	if hint.idLen <= 0 || hint.idAt < 0 || end > len(frame) || len(frame) > hint.maxFrame ||
		at < 0 || at+hint.idLen > len(resp.Body) || !bytes.Equal(frame[hint.idAt:end], resp.Body[at:at+hint.idLen]) {
		return // not what the plugin promised: answer, but do not keep
	}
	kind := edge.ReplayableID(frame[hint.idAt:end])
	size := len(frame) - hint.idLen + len(resp.Body) - hint.idLen + 64*len(resp.Refs)
	for _, f := range resp.Header {
		size += len(f.Name) + len(f.Value)
	}
	if kind == 0 || size > maxReplayEntry {
		return
	}
	e := &replayEntry{
		head: bytes.Clone(frame[:hint.idAt]), tail: bytes.Clone(frame[end:]),
		kind: kind, maxFrame: hint.maxFrame, status: resp.Status,
		before: bytes.Clone(resp.Body[:at]), after: bytes.Clone(resp.Body[at+hint.idLen:]),
		header: make(wire.Header, len(resp.Header)),
		size:   size,
	}
	for i, f := range resp.Header {
		e.header[i] = wire.Field{Name: internName(f.Name), Value: internValue(f.Value)}
	}
	for _, r := range resp.Refs {
		if r.At < at+hint.idLen {
			return // the echo would move a reference before it
		}
		r.At -= at + hint.idLen
		r.Name = strings.Clone(r.Name) // it aliases out, which is reused
		e.refs = append(e.refs, r)
	}
	shape := replayShape{len(e.head), len(e.tail)}
	key := rs.hash(e.head, e.tail)

	rs.mu.Lock()
	defer rs.mu.Unlock()
	known := false
	for _, sh := range rs.shapes {
		known = known || sh == shape
	}
	if !known {
		if len(rs.shapes) == maxReplayShapes {
			return
		}
		rs.shapes = append(rs.shapes, shape)
	}
	if old := rs.entries[key]; old != nil {
		rs.bytes -= old.size
		delete(rs.entries, key)
	}
	for k, old := range rs.entries { // any entry makes room: map order is random
		if len(rs.entries) < rs.max && rs.bytes+size <= maxReplayBytes {
			break
		}
		rs.bytes -= old.size
		delete(rs.entries, k)
	}
	rs.entries[key] = e
	rs.bytes += size
}

// answer appends e's body with id in place to dst and e's references, moved after it, to
// refs, and returns the response they make.
func (e *replayEntry) answer(dst, id []byte, refs []wire.Ref) wire.Response {
	dst = append(append(append(dst, e.before...), id...), e.after...)
	shift := len(e.before) + len(id)
	for _, r := range e.refs {
		r.At += shift
		refs = append(refs, r)
	}
	return wire.Response{Status: e.status, Header: e.header, Refs: refs, Body: dst}
}

// replayHint asks the instance how its last skilledge_http answer may be replayed; false
// when it may not, or when the plugin does not say (a plugin older than skilledge_replay).
// An error wraps ErrInstance.
func (in *instance) replayHint(ctx context.Context) (replayHint, bool, error) {
	if in.replay == nil {
		return replayHint{}, false, nil
	}
	if err := in.replay.CallWithStack(ctx, in.stack[:]); err != nil {
		return replayHint{}, false, instanceError(err)
	}
	if in.stack[0] == 0 {
		return replayHint{}, false, nil
	}
	b, ok := in.packed()
	if !ok || len(b) != 16 {
		return replayHint{}, false, fmt.Errorf("%w: %s gave %d bytes, not 16", ErrInstance, rawReplay, len(b))
	}
	u := func(i int) int { return int(binary.LittleEndian.Uint32(b[4*i:])) }
	return replayHint{idAt: u(0), idLen: u(1), answerAt: u(2), maxFrame: u(3)}, true, nil
}
