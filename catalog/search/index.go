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
	ix, err := openTerms(cells, skills, cells[FieldPostings], true)
	if err != nil {
		return nil, err
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

// openTerms checks the terms of a search table's cells and where their postings end, and
// returns the Index of them: the terms sorted and in range, Top a plain number, the ends
// ascending. With whole set, postings are every term's, one after another, each checked as
// postingsValid; else (a sharded table's root) they are in chunks, checked when read.
func openTerms(cells [][]byte, skills int, postings []byte, whole bool) (*Index, error) {
	ix := &Index{text: cells[FieldTerms], termEnds: cells[FieldTermEnds], postings: postings, postEnds: cells[FieldPostEnds], skills: skills}
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
		if end <= termStart || end > len(ix.text) || pend <= postStart || whole && pend > len(postings) {
			return nil, ErrCorrupt
		}
		term := string(ix.text[termStart:end])
		if i > 0 && term <= prevTerm || whole && !postingsValid(postings[postStart:pend], skills) {
			return nil, ErrCorrupt
		}
		prevTerm, termStart, postStart = term, end, pend
	}
	if termStart != len(ix.text) || whole && postStart != len(postings) {
		return nil, ErrCorrupt
	}
	return ix, nil
}

// postingsValid reports whether p is one term's postings: (row gap as a uvarint, impact
// as a u16) pairs, rows strictly ascending and below skills.
func postingsValid(p []byte, skills int) bool {
	skill := uint64(0)
	for first := true; len(p) > 0; first = false {
		d, n := binary.Uvarint(p)
		if n <= 0 || len(p) < n+2 || d == 0 && !first {
			return false
		}
		if skill += d; skill >= uint64(skills) {
			return false
		}
		p = p[n+2:]
	}
	return true
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
