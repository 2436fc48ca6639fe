package search

import (
	"encoding/binary"
	"math"
	"sort"
	"strconv"
)

// Doc is one skill as the index reads it: the text of each field a chooser reads.
type Doc struct {
	// Name, Description and Path are the skill's name, description and path (its
	// segments are words like any other); Keywords its frontmatter's tags and keywords,
	// Headings its SKILL.md's headings, Body the rest of its SKILL.md.
	Name, Description, Path, Keywords, Headings, Body string
	// Skip leaves the skill out of the index (an unlisted skill: no listing names it).
	Skip bool
	// Entry is the skill's entry in the well-known index (a JSON object), which the HTTP
	// search answers with; nil when that index does not publish it.
	Entry []byte
}

// Fields of a Doc, in the order of weights.
const (
	fieldName = iota
	fieldPath
	fieldKeywords
	fieldDescription
	fieldHeadings
	fieldBody
	numFields
)

// The ranking is BM25F: a term's frequency in each field, weighted and normalized by the
// field's length against its average over the index, summed, then saturated by k1 and
// multiplied by the term's inverse document frequency. Computed at build time for every
// (term, skill), it is stored as the posting's impact, so a query only adds impacts.

// Ranking is BM25F's parameters: each field's weight and length normalization (b), and the
// saturation k1.
type Ranking struct {
	Name, Path, Keywords, Description, Headings, Body FieldRanking
	K1                                                float64
}

// FieldRanking is one field's weight in BM25F, and how much its length normalizes a
// term's frequency in it (b, from 0: not at all, to 1: wholly).
type FieldRanking struct{ Weight, B float64 }

// DefaultRanking is the ranking Build uses: the weights the relevance benchmark chose
// (BENCHMARKS.md, "Search relevance"; RATIONALE.md, "Why these search weights").
var DefaultRanking = Ranking{
	Name:        FieldRanking{Weight: 3, B: 0.5},
	Path:        FieldRanking{Weight: 2, B: 0.5},
	Keywords:    FieldRanking{Weight: 2, B: 0.5},
	Description: FieldRanking{Weight: 1.5, B: 0.75},
	Headings:    FieldRanking{Weight: 0.1, B: 0.75},
	Body:        FieldRanking{Weight: 0.1, B: 0.75},
	K1:          1.2,
}

// fields is r's fields in the order of the field constants.
func (r Ranking) fields() [numFields]FieldRanking {
	return [numFields]FieldRanking{r.Name, r.Path, r.Keywords, r.Description, r.Headings, r.Body}
}

// MaxBodyWords bounds the words of a SKILL.md body the index reads: its opening, where a
// skill says what it is for.
const MaxBodyWords = 2000

// Build returns the cells of the search table (catalog.TableSearch) for docs, doc i being
// the skill of row i, ranked by DefaultRanking. The same docs give the same bytes.
func Build(docs []Doc) [][]byte { return BuildRanked(docs, DefaultRanking) }

// BuildRanked is Build with the ranking r (the relevance benchmark measures others).
func BuildRanked(docs []Doc, r Ranking) [][]byte {
	rank := r.fields()
	type posting struct {
		skill uint32
		tf    [numFields]uint16
	}
	postings := map[string][]posting{}
	var lengths [][numFields]float64
	var sums [numFields]float64
	indexed := 0
	stemmed := stems{}
	var words []string
	for i, d := range docs {
		var lens [numFields]float64
		if !d.Skip {
			indexed++
			for f, text := range [numFields]string{d.Name, d.Path, d.Keywords, d.Description, d.Headings, d.Body} {
				words = stemmed.appendTerms(words[:0], text)
				terms := words
				if f == fieldBody && len(terms) > MaxBodyWords {
					terms = terms[:MaxBodyWords]
				}
				lens[f] = float64(len(terms))
				sums[f] += lens[f]
				for _, t := range terms {
					ps := postings[t]
					if len(ps) == 0 || ps[len(ps)-1].skill != uint32(i) {
						ps = append(ps, posting{skill: uint32(i)})
					}
					if p := &ps[len(ps)-1]; p.tf[f] < math.MaxUint16 {
						p.tf[f]++
					}
					postings[t] = ps
				}
			}
		}
		lengths = append(lengths, lens)
	}
	terms := make([]string, 0, len(postings))
	for t := range postings {
		terms = append(terms, t)
	}
	sort.Strings(terms)

	n := float64(indexed)
	impact := func(ps []posting, p posting) float64 {
		var tf float64
		for f := range numFields {
			if p.tf[f] == 0 || sums[f] == 0 {
				continue
			}
			// Each product rounded on its own (float64), so that no architecture fuses it
			// into the next addition and the index comes out the same bytes everywhere.
			b := rank[f].B
			norm := 1 - b + float64(b*float64(lengths[p.skill][f]/(sums[f]/n)))
			tf += float64(rank[f].Weight*float64(p.tf[f])) / norm
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		return float64(float64(idf*tf)*(r.K1+1)) / (r.K1 + tf)
	}
	var top float64
	for _, t := range terms {
		for _, p := range postings[t] {
			top = max(top, impact(postings[t], p))
		}
	}
	var text, termEnds, data, postEnds []byte
	for _, t := range terms {
		text = append(text, t...)
		termEnds = binary.LittleEndian.AppendUint32(termEnds, uint32(len(text)))
		prev := uint32(0)
		for _, p := range postings[t] {
			data = binary.AppendUvarint(data, uint64(p.skill-prev))
			prev = p.skill
			q := uint16(1)
			if top > 0 {
				q = uint16(max(1, math.Round(impact(postings[t], p)/top*math.MaxUint16)))
			}
			data = binary.LittleEndian.AppendUint16(data, q)
		}
		postEnds = binary.LittleEndian.AppendUint32(postEnds, uint32(len(data)))
	}
	var entries, entryEnds []byte
	for _, d := range docs {
		if !d.Skip {
			entries = append(entries, d.Entry...)
		}
		entryEnds = binary.LittleEndian.AppendUint32(entryEnds, uint32(len(entries)))
	}
	return [][]byte{
		FieldTerms:     text,
		FieldTermEnds:  termEnds,
		FieldPostings:  data,
		FieldPostEnds:  postEnds,
		FieldTop:       strconv.AppendFloat(nil, top, 'g', 6, 64),
		FieldEntries:   entries,
		FieldEntryEnds: entryEnds,
	}
}

// Fields of the search table's one row (catalog.TableSearch).
const (
	FieldTerms     = iota // every term, sorted byte-wise, one after another
	FieldTermEnds         // where each term ends in FieldTerms: u32 each
	FieldPostings         // each term's postings: (skill row, as a uvarint delta from the previous; impact, u16)
	FieldPostEnds         // where each term's postings end in FieldPostings: u32 each
	FieldTop              // the impact 65535 stands for, in decimal: scores × Top / 65535 are BM25F
	FieldEntries          // each skill's well-known index entry (Doc.Entry), one after another
	FieldEntryEnds        // where each skill's entry ends in FieldEntries: u32 each, one a skill
	NumFields
)
