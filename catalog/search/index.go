package search

import (
	"encoding/binary"
	"errors"
	"strconv"
)

// maxTop bounds an index's Top: a BM25F impact is a few tens at most, and a score of
// MaxQueryWords impacts must print as a plain number.
const maxTop = 1e6

// ErrCorrupt is wrapped by the errors of Open: the cells are not a search table.
var ErrCorrupt = errors.New("search: corrupt index")

// Index is a search table opened: a view over its cells, which it never copies. Safe for
// concurrent reads.
type Index struct {
	text, termEnds, postings, postEnds []byte
	entries, entryEnds                 []byte
	terms                              int
	skills                             int // the skills its postings may name: rows 0..skills-1
	top                                float64
	ch                                 *chunked // a sharded index's (sharded.go), else nil
}

// Open checks cells (the fields of the search table's row) as the index of a catalog of
// skills skills and returns it: the terms sorted and in range, the postings decodable and
// naming rows below skills, so that no later read can go out of bounds. O(size).
func Open(cells [][]byte, skills int) (*Index, error) {
	if len(cells) < NumFields {
		return nil, ErrCorrupt
	}
	ix := &Index{text: cells[FieldTerms], termEnds: cells[FieldTermEnds], postings: cells[FieldPostings], postEnds: cells[FieldPostEnds], skills: skills}
	if len(ix.termEnds)%4 != 0 || len(ix.postEnds) != len(ix.termEnds) {
		return nil, ErrCorrupt
	}
	ix.terms = len(ix.termEnds) / 4
	top, err := strconv.ParseFloat(string(cells[FieldTop]), 64)
	if err != nil || !(top >= 0 && top < maxTop) { // NaN and infinities fail too
		return nil, ErrCorrupt
	}
	ix.top = top
	var prevTerm string
	termStart, postStart := 0, 0
	for i := range ix.terms {
		end := int(binary.LittleEndian.Uint32(ix.termEnds[4*i:]))
		pend := int(binary.LittleEndian.Uint32(ix.postEnds[4*i:]))
		if end <= termStart || end > len(ix.text) || pend <= postStart || pend > len(ix.postings) {
			return nil, ErrCorrupt
		}
		term := string(ix.text[termStart:end])
		if i > 0 && term <= prevTerm {
			return nil, ErrCorrupt
		}
		skill := uint64(0)
		for p, first := ix.postings[postStart:pend], true; len(p) > 0; first = false {
			d, n := binary.Uvarint(p)
			if n <= 0 || len(p) < n+2 || d == 0 && !first { // rows strictly ascending
				return nil, ErrCorrupt
			}
			skill += d
			if skill >= uint64(skills) {
				return nil, ErrCorrupt
			}
			p = p[n+2:]
		}
		prevTerm, termStart, postStart = term, end, pend
	}
	if termStart != len(ix.text) || postStart != len(ix.postings) {
		return nil, ErrCorrupt
	}
	ix.entries, ix.entryEnds = cells[FieldEntries], cells[FieldEntryEnds]
	if len(ix.entryEnds) != 4*skills {
		return nil, ErrCorrupt
	}
	prev := 0
	for k := range skills {
		end := int(binary.LittleEndian.Uint32(ix.entryEnds[4*k:]))
		if end < prev || end > len(ix.entries) {
			return nil, ErrCorrupt
		}
		prev = end
	}
	if prev != len(ix.entries) {
		return nil, ErrCorrupt
	}
	return ix, nil
}

// Entry returns skill's entry in the well-known index (Doc.Entry), empty when it has none.
func (ix *Index) Entry(skill int) []byte {
	if ix.ch != nil {
		return ix.ch.entry(skill)
	}
	start := 0
	if skill > 0 {
		start = int(binary.LittleEndian.Uint32(ix.entryEnds[4*(skill-1):]))
	}
	return ix.entries[start:binary.LittleEndian.Uint32(ix.entryEnds[4*skill:])]
}

// NumTerms returns the number of distinct terms.
func (ix *Index) NumTerms() int { return ix.terms }

// term returns term i.
func (ix *Index) term(i int) string {
	start := 0
	if i > 0 {
		start = int(binary.LittleEndian.Uint32(ix.termEnds[4*(i-1):]))
	}
	return unsafeString(ix.text[start:binary.LittleEndian.Uint32(ix.termEnds[4*i:])])
}

// postingsOf returns the postings of term i. Of a sharded index, nil when its chunk is
// not at hand, noted in sc (when not nil) as missed.
func (ix *Index) postingsOf(i int, sc *Scratch) []byte {
	if ix.ch != nil {
		return ix.chunkPostings(i, sc)
	}
	start := 0
	if i > 0 {
		start = int(binary.LittleEndian.Uint32(ix.postEnds[4*(i-1):]))
	}
	return ix.postings[start:binary.LittleEndian.Uint32(ix.postEnds[4*i:])]
}

// find returns the first term >= key.
func (ix *Index) find(key string) int {
	lo, hi := 0, ix.terms
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ix.term(m) < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// lookup returns the number of term key, and whether the index has it.
func (ix *Index) lookup(key string) (int, bool) {
	i := ix.find(key)
	return i, i < ix.terms && ix.term(i) == key
}
