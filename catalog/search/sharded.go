package search

import (
	"encoding/binary"
	"slices"
	"sync"
	"unsafe"
)

// A sharded search table: the index of a large catalog, whose postings do not travel with
// the root of its index (catalog's shards.go). The root's table keeps the terms, where each
// term's postings end (FieldTermEnds, FieldPostEnds, over the postings of every term one
// after another) and Top, and adds:
//
//   - FieldChunkStarts: u32 list, the first term of each postings chunk, from 0 ascending;
//     chunk k holds the postings of terms [start k, start k+1), one after another, and is
//     read through the function OpenSharded is given, which may not have it at hand;
//   - FieldPublished: a bit per skill, set when the well-known index publishes it (the
//     skill's Entry, which a skill's shard holds, is not empty).
//
// FieldPostings, FieldEntries and FieldEntryEnds are empty. A query that needs a chunk the
// function does not have finds without it, and Missed says which it needs: its caller
// fetches them and asks again.
//
// Why does the root keep every term, and not only the postings' chunks? Choosing what a
// word stands for reads terms all over the dictionary: its stem, the terms it begins (the
// commonest by postings length), the stems of every spelling one edit away (hundreds of
// lookups for a long word). With the terms and the postings' ends in the root, a query
// chooses its terms with no fetch, and then needs only the chunks of those it chose, in one
// round. The cost: the root grows with the vocabulary (about 8 bytes a term and 4 for its
// end), 96 KiB gzipped for the whole root of 10,000 generated skills.
const (
	FieldChunkStarts = NumFields + iota
	FieldPublished
	NumShardedFields
)

// Split splits a whole search table (Build's cells) for a catalog of skills skills into
// the root's table and chunks of postings of about chunkBytes each (a chunk's whole
// postings bytes) with the first term of each, and returns the entries of each skill, for
// the skills' shards (EntriesTable).
func Split(cells [][]byte, skills, chunkBytes int) (root [][]byte, chunks [][]byte, firsts []string, entries [][]byte, err error) {
	ix, err := Open(cells, skills)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	var starts []byte
	from := 0
	for t := 0; t < ix.terms; {
		starts = binary.LittleEndian.AppendUint32(starts, uint32(t))
		firsts = append(firsts, ix.term(t))
		lo := ix.postEnd(t - 1)
		for t < ix.terms && (t == from || ix.postEnd(t)-lo < chunkBytes) {
			t++
		}
		chunks = append(chunks, ix.postings[lo:ix.postEnd(t-1)])
		from = t
	}
	published := make([]byte, (skills+7)/8)
	entries = make([][]byte, skills)
	for k := range skills {
		entries[k] = ix.Entry(k)
		if len(entries[k]) > 0 {
			published[k/8] |= 1 << (k % 8)
		}
	}
	root = make([][]byte, NumShardedFields)
	root[FieldTerms], root[FieldTermEnds], root[FieldPostEnds], root[FieldTop] = ix.text, ix.termEnds, ix.postEnds, cells[FieldTop]
	root[FieldChunkStarts], root[FieldPublished] = starts, published
	return root, chunks, firsts, entries, nil
}

// EntriesTable is the search table of a shard: no terms, only its skills' entries.
func EntriesTable(entries [][]byte) [][]byte {
	var all, ends []byte
	for _, e := range entries {
		all = append(all, e...)
		ends = binary.LittleEndian.AppendUint32(ends, uint32(len(all)))
	}
	cells := make([][]byte, NumFields)
	cells[FieldTop] = []byte("0")
	cells[FieldEntries], cells[FieldEntryEnds] = all, ends
	return cells
}

// chunked is what an Index opened by OpenSharded has beyond a whole one's.
type chunked struct {
	starts    []byte // FieldChunkStarts
	published []byte
	chunk     func(k int) ([]byte, bool)
	entry     func(skill int) []byte
	mu        sync.Mutex
	checked   map[int]uintptr // chunk → the address of the bytes checked for it
}

// OpenSharded opens the root's search table of a sharded index (Split) for a catalog of
// skills skills, checking what it holds as Open does. chunk(k) returns the postings of
// chunk k, or false when they are not at hand; entry(skill) the skill's Entry. Both may
// be called from any goroutine.
func OpenSharded(cells [][]byte, skills int, chunk func(k int) ([]byte, bool), entry func(skill int) []byte) (*Index, error) {
	if len(cells) < NumShardedFields {
		return nil, ErrCorrupt
	}
	ix, err := openTerms(cells, skills, nil, false)
	if err != nil {
		return nil, err
	}
	starts := cells[FieldChunkStarts]
	if len(starts)%4 != 0 || ix.terms > 0 && (len(starts) == 0 || binary.LittleEndian.Uint32(starts) != 0) ||
		len(cells[FieldPublished]) != (skills+7)/8 {
		return nil, ErrCorrupt
	}
	for k := 4; k < len(starts); k += 4 {
		if s := binary.LittleEndian.Uint32(starts[k:]); s <= binary.LittleEndian.Uint32(starts[k-4:]) || int(s) >= ix.terms {
			return nil, ErrCorrupt
		}
	}
	ix.ch = &chunked{starts: starts, published: cells[FieldPublished], chunk: chunk, entry: entry, checked: map[int]uintptr{}}
	return ix, nil
}

// Chunks returns how many postings chunks a sharded index has (0 for a whole one).
func (ix *Index) Chunks() int {
	if ix.ch == nil {
		return 0
	}
	return len(ix.ch.starts) / 4
}

// Published reports whether the well-known index publishes skill (its Entry is not empty).
func (ix *Index) Published(skill int) bool {
	if ix.ch != nil {
		return ix.ch.published[skill/8]&(1<<(skill%8)) != 0
	}
	return len(ix.Entry(skill)) > 0
}

// Missed returns the chunks the last Find with sc needed and did not have, each once, in
// order; none when it had all it needed.
func (ix *Index) Missed(sc *Scratch) []int { return sc.missed }

// postEnd returns where term i's postings end (-1: 0).
func (ix *Index) postEnd(i int) int {
	if i < 0 {
		return 0
	}
	return int(binary.LittleEndian.Uint32(ix.postEnds[4*i:]))
}

// chunkOf returns the chunk of term i.
func (ix *Index) chunkOf(i int) int {
	s := ix.ch.starts
	lo, hi := 0, len(s)/4
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if int(binary.LittleEndian.Uint32(s[4*m:])) <= i {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// chunkPostings returns the postings of term i from its chunk, or nil, noting the chunk in
// sc (when not nil) as missed, when it is not at hand or does not hold what the root says.
func (ix *Index) chunkPostings(i int, sc *Scratch) []byte {
	k := ix.chunkOf(i)
	b, ok := ix.ch.chunk(k)
	if !ok {
		if sc != nil && !slices.Contains(sc.missed, k) {
			sc.missed = append(sc.missed, k)
		}
		return nil
	}
	first := int(binary.LittleEndian.Uint32(ix.ch.starts[4*k:]))
	base := ix.postEnd(first - 1)
	if !ix.checkChunk(k, first, base, b) {
		return nil
	}
	return b[ix.postEnd(i-1)-base : ix.postEnd(i)-base]
}

// checkChunk checks, once for each bytes given, that chunk k (from term first, at offset
// base of the postings) decodes as Open checks a whole table's postings.
func (ix *Index) checkChunk(k, first, base int, b []byte) bool {
	at := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	ix.ch.mu.Lock()
	done := ix.ch.checked[k] == at
	ix.ch.mu.Unlock()
	if done {
		return true
	}
	last := ix.terms
	if k+1 < ix.Chunks() {
		last = int(binary.LittleEndian.Uint32(ix.ch.starts[4*(k+1):]))
	}
	if len(b) != ix.postEnd(last-1)-base {
		return false
	}
	for t := first; t < last; t++ {
		if !postingsValid(b[ix.postEnd(t-1)-base:ix.postEnd(t)-base], ix.skills) {
			return false
		}
	}
	ix.ch.mu.Lock()
	ix.ch.checked[k] = at
	ix.ch.mu.Unlock()
	return true
}

// postingsLen returns the length of term i's postings, which the root knows.
func (ix *Index) postingsLen(i int) int { return ix.postEnd(i) - ix.postEnd(i-1) }
