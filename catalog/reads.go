package catalog

import (
	"fmt"
	"sort"
)

// Read chunks: what resources/read of a file needs, apart from the shards.
//
// A sharded index's root names, in TableKeys rows of kind KeyReads, chunks of one
// TableReads each: a row per file of every shard (the listed resources but the root's
// own), sorted by URI across all chunks, with the few bytes a read of that file answers
// from. A read of a file looks its URI up in the one chunk whose first key is the greatest
// not above it, and never reads the file's shard; a URI no chunk holds (an archive, a
// directory, a URI of nothing) is looked up in the shards as before.
//
// Why a table of reads apart from the shards, rather than smaller shards? A file's read
// needs its URI, its head and its value's reference: about 150 bytes of the 5 KB a skill of
// one file takes in its shard, where its entry, descriptors, fallbacks and search rows are.
// A Worker keeps 16 MiB of parts; at 50,000 such skills the shards are 270 MB, so reads
// spread over the catalog almost always fetched a shard first (a second call into the
// plugin, a fetch from the store and a SHA-256 before the read itself), and smaller shards
// did not help: the misses stay as many, and the root grows a row a shard. The read chunks
// of 10,000 such skills are 1.5 MB (59 chunks; the root grows 8 KB), of 50,000 about
// 7.7 MB: they stay in the budget, and a cache-cold read after the first fetches only its
// file, as from a whole index. The cache-cold benchmark went from 0.65× and 0.39× the
// 1,000-skill Worker's (one client, sixteen) at 10,000 skills to 0.81× and 0.82×, and
// from 0.62× and 0.31× to 0.83× and 0.84× at 50,000. Real skills have more files: the
// 1,029 of seven public repositories have 3,551, whose read chunks are 0.7 MB beside
// 10.8 MB of shards, so at 50,000 of them the chunks pass the budget, but a Worker still
// holds fifteen times the files it held. Archives are left in the shards: two more rows a
// skill, for reads far rarer than the files'.

// KeyReads is the TableKeys kind of a read chunk (a pack of one TableReads); its first key
// is the chunk's first URI.
const KeyReads = "reads"

// TableReads is the one table of a read chunk: one row per file, by URI ascending.
const TableReads uint32 = 23

// Fields of TableReads. A file's ResReadHead is ReadHeadURIKey, its URI as a JSON string,
// then ReadHeadRest; the other fields are its TableResources fields of the same name.
const (
	ReadURI      = iota // ResURI
	ReadHeadRest        // what of ResReadHead follows the URI member (CutReadHeadURI)
	ReadValue           // ResReadValue
	ReadMeta            // ResReadMeta
	ReadSkill           // u32: the length of the path of the skill holding the file: its URI's path begins with it
	ReadFields
)

// A Read is what resources/read of one file answers from (ReadByURI). Its slices alias
// the index.
type Read struct {
	HeadRest []byte // ResReadHead after the URI member: `,"mimeType":…,"text":` or `…"blob":`
	Value    []byte // ResReadValue: the reference of the content as a JSON string or base64
	Meta     []byte // ResReadMeta
	// Skill is the escaped path of the skill the file is of (a prefix of the URI's path,
	// ending at a segment); the read is that skill's activation when the URI is its
	// SKILL.md's.
	Skill string
}

// ReadByURI returns what resources/read of the file at the canonical uri answers from,
// read from a sharded index's read chunks without reading a shard; ok is false when the
// index has none (it is whole, or written before them) or they do not hold uri (an
// archive, a directory, no resource): the caller then looks uri up with ResourceByURI.
// Without a Loader, a chunk not at hand panics with a *Missing, as a shard does.
func (p *Pack) ReadByURI(uri string) (r Read, ok bool) {
	sh := p.sh
	if sh == nil || len(sh.reads) == 0 {
		return Read{}, false
	}
	if _, own := p.search(p.cell(TableIndex, 0, IndexResByURI), uri, TableResources, ResURI); own {
		return Read{}, false // the root's own (skill://index.json, the feed, the root): no chunk to read
	}
	c := sh.chunkFor(sh.reads, uri)
	if c < 0 {
		return Read{}, false
	}
	q := sh.get(sh.reads[c])
	rows := int(q.tables[TableReads].rows)
	k := sort.Search(rows, func(k int) bool { return string(q.cell(TableReads, uint32(k), ReadURI)) >= uri })
	if k == rows || string(q.cell(TableReads, uint32(k), ReadURI)) != uri {
		return Read{}, false
	}
	row := uint32(k)
	n := q.cell(TableReads, row, ReadSkill)
	if len(n) != 4 || len(Scheme)+int(u32(n, 0)) > len(uri) {
		panic(fmt.Errorf("%w: a read chunk's skill of %s", ErrCorrupt, uri))
	}
	return Read{
		HeadRest: q.cell(TableReads, row, ReadHeadRest),
		Value:    q.cell(TableReads, row, ReadValue),
		Meta:     q.cell(TableReads, row, ReadMeta),
		Skill:    uri[len(Scheme) : len(Scheme)+int(u32(n, 0))],
	}, true
}

// openReads opens b as a read chunk: one TableReads, URIs strictly ascending, the first
// its first key.
func openReads(b []byte, first []byte) (*Pack, error) {
	q, present, err := parse(b)
	if err != nil {
		return nil, err
	}
	t := q.tables[TableReads]
	if !present[TableReads] || t.fields < ReadFields || t.rows == 0 {
		return nil, fmt.Errorf("%w: a read chunk without its table", ErrCorrupt)
	}
	if string(q.cell(TableReads, 0, ReadURI)) != string(first) {
		return nil, fmt.Errorf("%w: a read chunk that does not begin at its first key", ErrCorrupt)
	}
	for r := uint32(1); r < t.rows; r++ {
		if string(q.cell(TableReads, r, ReadURI)) <= string(q.cell(TableReads, r-1, ReadURI)) {
			return nil, fmt.Errorf("%w: a read chunk out of order", ErrCorrupt)
		}
	}
	return q, nil
}
