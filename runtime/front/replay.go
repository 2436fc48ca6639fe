package front

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skilledge/skilledge/edge/wire"
)

// replays holds answers the plugin said may be given again for another id (wire.Hint),
// so that the HTTP front answers a request that repeats one but for its id without calling
// an instance: agents ask the same questions (the same SKILL.md, the same list) with ids
// of their own. An entry (wire.ReplayEntry) is the request frame around the id and the
// answer around it. The lookup hashes each known shape (the lengths of head and tail) of
// the frame; clients frame alike, so there are few. Bounds are the contract's
// (wire.ReplayEntryMax, wire.ReplayBudget, wire.ReplayShapesMax) and max entries. An
// entry whose promise expires (an answer to an authenticated caller, whose credential is
// in the frame) answers nothing from then on, by now's clock, and is dropped. Safe for
// concurrent use; a nil *replays keeps nothing.
type replays struct {
	max  int
	seed maphash.Seed
	now  func() time.Time // time.Now; tests move it

	mu      sync.RWMutex
	shapes  []replayShape
	entries map[uint64]*wire.ReplayEntry
	bytes   int

	hits atomic.Int64 // answers given from an entry
}

type replayShape struct{ head, tail int }

func newReplays(max int) *replays {
	if max <= 0 {
		return nil
	}
	return &replays{max: max, seed: maphash.MakeSeed(), now: time.Now, entries: map[uint64]*wire.ReplayEntry{}}
}

func (rs *replays) hash(head, tail []byte) uint64 {
	var h maphash.Hash
	h.SetSeed(rs.seed)
	h.Write(head)
	h.Write(tail)
	return h.Sum64()
}

// lookup returns the entry that answers frame and the id token of frame, or nil. It drops
// an expired entry it finds on the way.
func (rs *replays) lookup(frame []byte) (*wire.ReplayEntry, []byte) {
	if rs == nil {
		return nil, nil
	}
	now := rs.now()
	var (
		stale    *wire.ReplayEntry
		staleKey uint64
	)
	rs.mu.RLock()
	for _, sh := range rs.shapes {
		if len(frame) <= sh.head+sh.tail {
			continue
		}
		key := rs.hash(frame[:sh.head], frame[len(frame)-sh.tail:])
		e := rs.entries[key]
		if e == nil || len(e.Head) != sh.head || len(e.Tail) != sh.tail {
			continue
		}
		if e.Expired(now) {
			stale, staleKey = e, key
			continue
		}
		if id, ok := e.Match(frame, now); ok {
			rs.mu.RUnlock()
			rs.hits.Add(1)
			return e, id
		}
	}
	rs.mu.RUnlock()
	if stale != nil {
		rs.mu.Lock()
		if rs.entries[staleKey] == stale { // not replaced meanwhile
			rs.bytes -= stale.Size()
			delete(rs.entries, staleKey)
		}
		rs.mu.Unlock()
	}
	return nil, nil
}

// keep adds the answer resp (parsed from the response frame out) to frame, as hint says,
// unless the plugin promised nothing it may keep, it holds more than an entry may, or its
// shape is one too many, or the promise has expired by now's clock.
func (rs *replays) keep(frame []byte, hint wire.Hint, out []byte, resp wire.Response, facts wire.Facts) {
	if rs == nil {
		return
	}
	e, ok := wire.NewReplayEntry(frame, hint, out, &resp, rs.now())
	if !ok {
		return // not what the plugin may promise, or expired: answer, but do not keep
	}
	size := e.Size()
	if size > wire.ReplayEntryMax {
		return
	}
	e.Facts = facts
	e.Header = make(wire.Header, len(resp.Header)) // resp's aliases out, which is reused
	for i, f := range resp.Header {
		e.Header[i] = wire.Field{Name: internName(f.Name), Value: internValue(f.Value)}
	}
	shape := replayShape{len(e.Head), len(e.Tail)}
	key := rs.hash(e.Head, e.Tail)

	rs.mu.Lock()
	defer rs.mu.Unlock()
	known := false
	for _, sh := range rs.shapes {
		known = known || sh == shape
	}
	if !known {
		if len(rs.shapes) == wire.ReplayShapesMax {
			return
		}
		rs.shapes = append(rs.shapes, shape)
	}
	if old := rs.entries[key]; old != nil {
		rs.bytes -= old.Size()
		delete(rs.entries, key)
	}
	for k, old := range rs.entries { // any entry makes room: map order is random
		if len(rs.entries) < rs.max && rs.bytes+size <= wire.ReplayBudget {
			break
		}
		rs.bytes -= old.Size()
		delete(rs.entries, k)
	}
	rs.entries[key] = &e
	rs.bytes += size
}
