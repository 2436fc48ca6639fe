package search

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The bounds of a query: what ParseQuery accepts, and what Search does at most, whatever
// the catalog's size.
const (
	// MaxQueryBytes bounds a query's text, and MaxQueryWords its words.
	MaxQueryBytes = 256
	MaxQueryWords = 32
	// MaxExpansions bounds the terms one word stands for: itself, its completions (the last
	// word) and its near spellings; MaxScanned bounds the terms read to choose completions.
	MaxExpansions = 32
	MaxScanned    = 1024
	// MaxVisited bounds the postings a query reads: past it, the terms left add nothing.
	MaxVisited = 1 << 20
	// MinFuzzyBytes is the least a word must hold, folded, to find terms one edit away
	// when the index has no term for it, and MaxFuzzyBytes the most; MaxFuzzyWords bounds
	// the words of a query that look so (each tries some 60 edits a letter).
	MinFuzzyBytes = 5
	MaxFuzzyBytes = 20
	MaxFuzzyWords = 2
)

// Errors of ParseQuery: each says what a query may be.
var (
	ErrEmptyQuery    = errors.New("the query has no words: give one or more words, letters or digits")
	ErrQueryTooLong  = errors.New("the query is too long: at most 256 bytes")
	ErrQueryWords    = errors.New("the query has too many words: at most 32")
	ErrQueryControl  = errors.New("the query holds a control character: give plain text")
	ErrQueryEncoding = errors.New("the query is not valid UTF-8")
)

// Query is a query parsed: its words, folded (AppendWords). Every character that is not
// part of a word, regular expression and wildcard syntax included, only separates words.
type Query struct {
	words []string
	// prefix: the last word is matched as the start of a term too (the query was being
	// typed: it does not end with a space or other separator).
	prefix bool
}

// ParseQuery parses q. Errors are the Err* values above.
func ParseQuery(q string) (Query, error) {
	switch {
	case len(q) > MaxQueryBytes:
		return Query{}, ErrQueryTooLong
	case !utf8.ValidString(q):
		return Query{}, ErrQueryEncoding
	case strings.IndexFunc(q, unicode.IsControl) >= 0:
		return Query{}, ErrQueryControl
	}
	words := AppendWords(nil, q)
	switch {
	case len(words) == 0:
		return Query{}, ErrEmptyQuery
	case len(words) > MaxQueryWords:
		return Query{}, ErrQueryWords
	}
	last, _ := utf8.DecodeLastRuneInString(q)
	query := Query{words: words, prefix: endsWord(last)}
	// The words that say nothing of a skill are dropped, unless they are all there is; the
	// last word of a query being typed stays, as the start of another.
	kept := words[:0:0]
	for i, w := range words {
		if !stopWords[w] || query.prefix && i == len(words)-1 {
			kept = append(kept, w)
		}
	}
	if len(kept) > 0 {
		query.words = kept
	}
	return query, nil
}

// stopWords are the English words a query drops (ParseQuery): articles, pronouns,
// prepositions and the verbs of asking, which every skill's text holds.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "of": true, "to": true,
	"in": true, "into": true, "on": true, "at": true, "by": true, "for": true, "from": true,
	"with": true, "about": true, "this": true, "that": true, "these": true, "those": true,
	"my": true, "me": true, "i": true, "we": true, "our": true, "you": true, "your": true,
	"it": true, "its": true, "is": true, "are": true, "be": true, "do": true, "can": true,
	"how": true, "what": true, "some": true, "please": true, "want": true, "need": true,
}

// Words returns the query's words, folded.
func (q Query) Words() []string { return q.words }

// Prefix reports whether the query's last word is matched as the start of a term too.
func (q Query) Prefix() bool { return q.prefix }

// Hit is a skill a query found: its row and its score, in the index's impact units
// (Index.Score converts them).
type Hit struct {
	Skill int
	Score uint32
}

// Scratch is the room Search counts in, reused from one query to the next: a few words
// per skill of the largest index it served. Not safe for concurrent use.
type Scratch struct {
	gen          uint32
	stamp, best  []uint32 // per skill: the word that last touched it, its best impact then
	total        []uint32 // per skill: the score so far
	seen         []uint32 // per skill: the query that last touched it
	query        uint32
	touched, hit []int32
	missed       []int // the chunks of a sharded index the last Find needed and lacked
}

// Search returns every skill of ix that q finds, best first (ties in row order): Find,
// then every hit put in order. A caller that shows a page of them finds and puts in order
// only as many as it shows (Best).
func (ix *Index) Search(q Query, sc *Scratch, dst []Hit) []Hit {
	hits := ix.Find(q, sc, dst)
	Best(hits[len(dst):], len(hits)-len(dst))
	return hits
}

// Find appends to dst every skill of ix that q finds, in no order. A word
// finds the skills whose terms include its stem; the last word of a query being typed also
// those with a term it begins; a word of MinFuzzyBytes or more that no term equals, those
// with a term one edit (a letter deleted, inserted, changed, or two swapped) from its stem.
// A skill scores the sum over words of its best impact for the word, a completion counting
// three quarters and a near spelling half. The work is bounded (the constants above).
func (ix *Index) Find(q Query, sc *Scratch, dst []Hit) []Hit {
	sc.reset(ix.skills)
	sc.missed = sc.missed[:0]
	visited, fuzzy := 0, 0
	type expansion struct {
		term   int
		weight uint32 // in quarters
	}
	var exps []expansion
	for wi, w := range q.words {
		exps = exps[:0]
		stem := Stem(w)
		t, found := ix.lookup(stem)
		if found {
			exps = append(exps, expansion{t, 4})
		} else {
			t = -1
		}
		if q.prefix && wi == len(q.words)-1 {
			for _, c := range ix.completions(w, t, sc) {
				exps = append(exps, expansion{c, 3})
			}
		}
		if !found && len(exps) == 0 && len(w) >= MinFuzzyBytes && len(w) <= MaxFuzzyBytes && fuzzy < MaxFuzzyWords {
			fuzzy++
			for _, c := range ix.nearSpellings(w, stem) {
				exps = append(exps, expansion{c, 2})
			}
		}
		if len(exps) == 1 {
			// One term: each skill it names once, at its impact; no best of several to keep.
			visited = sc.addAll(ix.postingsOf(exps[0].term, sc), exps[0].weight, visited)
			continue
		}
		sc.gen++
		sc.touched = sc.touched[:0]
		for _, e := range exps {
			p := ix.postingsOf(e.term, sc)
			skill := uint64(0)
			for ; len(p) > 0 && visited < MaxVisited; visited++ {
				d, n := uint64(p[0]), 1
				if d >= 0x80 {
					d, n = binary.Uvarint(p)
				}
				skill += d
				imp := uint32(binary.LittleEndian.Uint16(p[n:])) * e.weight / 4
				p = p[n+2:]
				if sc.stamp[skill] != sc.gen {
					sc.stamp[skill], sc.best[skill] = sc.gen, imp
					sc.touched = append(sc.touched, int32(skill))
				} else if imp > sc.best[skill] {
					sc.best[skill] = imp
				}
			}
		}
		for _, s := range sc.touched {
			if sc.seen[s] != sc.query {
				sc.seen[s], sc.total[s] = sc.query, 0
				sc.hit = append(sc.hit, s)
			}
			sc.total[s] += sc.best[s]
		}
	}
	for _, s := range sc.hit {
		dst = append(dst, Hit{Skill: int(s), Score: sc.total[s]})
	}
	return dst
}

// addAll adds to the score of each skill of postings p its impact, weighted (in
// quarters), as long as fewer than MaxVisited postings have been read (visited so far;
// returned updated): the loop of a word with one term, the commonest, which keeps no best
// of several terms per skill. Find keeps its own loop for a word of several terms: one loop
// for both, choosing per posting, made a worst-case query 4.3 ms in the plugin against 3.5
// (Go's wasm code pays for every branch and call in it).
func (sc *Scratch) addAll(p []byte, weight uint32, visited int) int {
	skill := uint64(0)
	for ; len(p) > 0 && visited < MaxVisited; visited++ {
		d, n := uint64(p[0]), 1
		if d >= 0x80 { // a gap of one byte, nearly every gap of a common term, needs no loop
			d, n = binary.Uvarint(p)
		}
		skill += d
		imp := uint32(binary.LittleEndian.Uint16(p[n:])) * weight / 4
		p = p[n+2:]
		if sc.seen[skill] != sc.query {
			sc.seen[skill], sc.total[skill] = sc.query, 0
			sc.hit = append(sc.hit, int32(skill))
		}
		sc.total[skill] += imp
	}
	return visited
}

// better reports whether a ranks before b: a higher score, or the same and an earlier row.
func better(a, b Hit) bool {
	return a.Score > b.Score || a.Score == b.Score && a.Skill < b.Skill
}

// Best puts the k best of hits (all of them when k is more) first, best first, in
// O(n log k): the rest follow in no order. The first k are those Search would put first.
//
// Why not sort every hit? A query of common words finds most of a catalog: sorting 9,500
// hits of a 10,000-skill catalog took five sixths of a query's time natively, to show ten.
func Best(hits []Hit, k int) {
	k = min(k, len(hits))
	if k == 0 {
		return
	}
	if k < len(hits) {
		// hits[:k] is a heap whose root is the worst of the best k seen so far.
		worse := func(i, j int) bool { return better(hits[j], hits[i]) }
		down := func(i int) {
			for {
				l := 2*i + 1
				if l >= k {
					return
				}
				if r := l + 1; r < k && worse(r, l) {
					l = r
				}
				if !worse(l, i) {
					return
				}
				hits[i], hits[l] = hits[l], hits[i]
				i = l
			}
		}
		for i := k/2 - 1; i >= 0; i-- {
			down(i)
		}
		for i := k; i < len(hits); i++ {
			if better(hits[i], hits[0]) {
				hits[0], hits[i] = hits[i], hits[0]
				down(0)
			}
		}
	}
	slices.SortFunc(hits[:k], func(a, b Hit) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
}

func (sc *Scratch) reset(skills int) {
	if len(sc.stamp) < skills || sc.gen > math.MaxUint32-MaxQueryWords || sc.query == math.MaxUint32 {
		// Grown, or the counters would wrap, and an old stamp pass for a new one: start over.
		n := max(skills, len(sc.stamp))
		sc.stamp, sc.best = make([]uint32, n), make([]uint32, n)
		sc.total, sc.seen = make([]uint32, n), make([]uint32, n)
		sc.gen, sc.query = 0, 0
	}
	sc.query++
	sc.hit = sc.hit[:0]
}

// completions returns the terms that begin with w other than term exact (the word's own
// stem, matched already): the most common MaxExpansions of the first MaxScanned.
func (ix *Index) completions(w string, exact int, sc *Scratch) []int {
	var out []int
	first := ix.find(w)
	for i := first; i < ix.terms && i-first < MaxScanned && strings.HasPrefix(ix.term(i), w); i++ {
		if i != exact {
			out = append(out, i)
		}
	}
	if len(out) > MaxExpansions {
		slices.SortStableFunc(out, func(a, b int) int { return ix.postingsLen(b) - ix.postingsLen(a) })
		out = out[:MaxExpansions]
		slices.Sort(out)
	}
	return out
}

// nearSpellings returns the terms that a word one edit from w (a letter deleted,
// inserted, changed, or two swapped; ASCII letters only) stems to, or that are one edit
// from stem, w's own stem: at most MaxExpansions, in term order.
func (ix *Index) nearSpellings(w, stem string) []int {
	if !asciiLetters(w) {
		return nil
	}
	var out []int
	add := func(term string) {
		if i, ok := ix.lookup(term); ok && !slices.Contains(out, i) && len(out) < MaxExpansions {
			out = append(out, i)
		}
	}
	edits(stem, add)
	edits(w, func(v string) { add(Stem(v)) })
	slices.Sort(out)
	return out
}

// edits calls f with every string one edit from w, an ASCII word: w with a letter deleted,
// two neighbours swapped, a letter changed, or one inserted. The string f gets is valid
// only during the call.
func edits(w string, f func(string)) {
	b := make([]byte, 0, len(w)+1)
	for i := range len(w) {
		f(unsafeString(append(append(b[:0], w[:i]...), w[i+1:]...)))
	}
	for i := 0; i+1 < len(w); i++ {
		v := append(b[:0], w...)
		v[i], v[i+1] = v[i+1], v[i]
		f(unsafeString(v))
	}
	for i := range len(w) {
		for c := byte('a'); c <= 'z'; c++ {
			if c != w[i] {
				v := append(b[:0], w...)
				v[i] = c
				f(unsafeString(v))
			}
		}
	}
	for i := 0; i <= len(w); i++ {
		for c := byte('a'); c <= 'z'; c++ {
			f(unsafeString(append(append(append(b[:0], w[:i]...), c), w[i:]...)))
		}
	}
}

// Score converts a Hit's score to BM25F units.
func (ix *Index) Score(s uint32) float64 { return float64(s) * ix.top / 65535 }
