package compile

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/skilledge/skilledge/catalog"
	searchpkg "github.com/skilledge/skilledge/catalog/search"
)

// keyChunkBytes is about how large a chunk of a key lookup (names, prompt names) grows.
const keyChunkBytes = 32 << 10

// sharded encodes c as a sharded index (catalog/shards.go): a root, and shards of about
// target bytes each, every one a public-format index of a run of skills put in the store.
// The answers it gives are the whole index's, byte for byte: the root's digest is the
// whole index's, and every row is rendered by index, from the whole catalog's names.
func (en *encoder) sharded(c *Catalog, target int, progress func(int)) []byte {
	whole := newEncoding(c)
	arch := map[*Skill][]*blob{}
	for i, s := range c.Skills {
		if a := en.archives(s, whole.fileIndex); a != nil {
			arch[s] = a
		}
		if progress != nil {
			progress(i + 1)
		}
	}
	page := en.addLarge(pageSkills(c, arch), "the catalog page's skills")
	en.page = page
	var search, chunks [][]byte
	var firsts []string
	var entries [][]byte
	if !en.older { // the older versions are looked up by URI, never searched
		var err error
		search, chunks, firsts, entries, err = searchpkg.Split(searchTable(c, arch)[0], len(c.Skills), target)
		if err != nil {
			panic("compile: the search table does not split: " + err.Error()) // a bug of searchTable
		}
	}
	var shardRows, reads [][][]byte
	var at [5]uint32 // skills, files, unlisted, dirs, published before the next shard
	offsets := func() [][]byte {
		row := make([][]byte, catalog.ShardFields)
		for j, f := range []int{catalog.ShardSkills, catalog.ShardFiles, catalog.ShardUnlisted, catalog.ShardDirs, catalog.ShardPublished} {
			row[f] = catalog.U32s([]uint32{at[j]})
		}
		return row
	}
	for _, run := range shardRuns(c, target) {
		sub := &Catalog{Skills: c.Skills[run[0]:run[1]], TrustRoot: c.TrustRoot, whole: c}
		en.shard, en.entries = true, nil
		if entries != nil {
			en.entries = entries[run[0]:run[1]]
		}
		b := en.index(sub, nil)
		en.shard, en.entries = false, nil
		if en.err != nil {
			return nil
		}
		q, err := catalog.OpenPart(b)
		if err != nil {
			panic("compile: a shard that does not open: " + err.Error()) // a bug of index
		}
		row := offsets()
		row[catalog.ShardObject] = en.addPart(b, fmt.Sprintf("index shard %d (skills %d to %d)", len(shardRows), run[0]+1, run[1])).Cell()
		uri, path := firstKeys(sub.Skills)
		row[catalog.ShardFirstURI], row[catalog.ShardFirstPath] = []byte(uri), []byte(path)
		shardRows = append(shardRows, row)
		reads = appendReads(reads, q)
		files := q.NumListed()
		for j, n := range []int{q.NumSkills(), files, q.NumResources() - files, q.NumDirs(), q.NumHTTPSkills()} {
			at[j] += uint32(n)
		}
	}
	shardRows = append(shardRows, offsets())

	var w catalog.Writer
	w.Table(catalog.TableShards, catalog.ShardFields, shardRows)
	keys := append(en.keyChunks(c), en.readChunks(reads)...)
	for k, chunk := range chunks {
		var cw catalog.Writer
		cw.Table(catalog.TablePostings, 1, [][][]byte{{chunk}})
		keys = append(keys, [][]byte{
			catalog.KeysKind:   []byte(catalog.KeyPostings),
			catalog.KeysFirst:  []byte(firsts[k]),
			catalog.KeysObject: en.addPart(cw.Bytes(), fmt.Sprintf("search postings chunk %d", k)).Cell(),
		})
	}
	w.Table(catalog.TableKeys, catalog.KeysFields, keys)
	resRows := [][][]byte{en.indexRow(c, arch)}
	feed := en.feed(c)
	if feed != nil { // the root's unlisted resources
		resRows = append(resRows, en.blobRow(feed.resource, "changes.json", feedDescription))
	}
	root := en.signedRoot(c, feed)
	if root != nil {
		resRows = append(resRows, en.blobRow(root.resource, "root.json", rootDescription))
	}
	w.Table(catalog.TableResources, catalog.ResFields, resRows)
	w.Table(catalog.TableHTTP, catalog.HTTPFields, en.httpRows(c, arch, feed, root))
	w.Table(catalog.TableFallback, catalog.FallbackFields, nil)
	w.Table(catalog.TableDirs, catalog.DirFields, nil)
	w.Table(catalog.TableSite, catalog.SiteFields, [][][]byte{{
		catalog.SiteTools:      toolsList(c),
		catalog.SitePage:       pageTemplate(c),
		catalog.SitePageSkills: page,
		catalog.SitePageCSP:    []byte(pageCSP()),
	}})
	w.Table(catalog.TableIndex, catalog.IndexFields, [][][]byte{{
		catalog.IndexResByURI:     catalog.U32s(sortedRows(len(resRows), func(i int) string { return string(resRows[i][catalog.ResURI]) })),
		catalog.IndexListed:       catalog.U32s([]uint32{1}),
		catalog.IndexSkillsByPath: nil,
	}})
	if search != nil {
		w.Table(catalog.TableSearch, len(search), [][][]byte{search})
	}
	en.nested(&w, c)
	w.Table(catalog.TableMeta, catalog.MetaPathOrder+1, [][][]byte{{
		catalog.MetaDigest:    []byte(catalogDigest(c)),
		catalog.MetaGenerator: []byte(Generator),
		catalog.MetaTrustRoot: []byte(c.TrustRoot),
		catalog.MetaPathOrder: pathOrder(c),
	}})
	if !en.older && en.depth == 0 {
		en.packTable(&w)
	}
	return w.Bytes()
}

// pathOrder is the catalog.MetaPathOrder of c: "1" when its listing order (by path) is
// the order of its escaped paths, else empty.
func pathOrder(c *Catalog) []byte {
	for i := 1; i < len(c.Skills); i++ {
		if catalog.EscapePath(c.Skills[i-1].Path) >= catalog.EscapePath(c.Skills[i].Path) {
			return nil
		}
	}
	return []byte("1")
}

// firstKeys returns the least URI and the least path of skills: each skill's directory
// URI is a prefix of all its URIs, so the least of them.
func firstKeys(skills []*Skill) (uri, path string) {
	for i, s := range skills {
		p := catalog.EscapePath(s.Path)
		if i == 0 || p < path {
			path = p
		}
	}
	return catalog.Scheme + path, path
}

// shardRuns cuts c's skills, in listing order, into runs [from, to) of about target
// estimated index bytes each. A cut falls only where every URI (of a skill, its files,
// directories and archives) and every path before it sorts below every one after it, so
// that each run is contiguous in the three orders a lookup follows: a nested skill stays
// with its parent, and "pdf" with "pdf-tools" (whose URIs sort between "skill://pdf" and
// "skill://pdf/…"). A run may grow past target while no cut is allowed.
func shardRuns(c *Catalog, target int) [][2]int {
	n := len(c.Skills)
	lo, hi := make([]string, n), make([]string, n) // each skill's least and greatest URI
	paths := make([]string, n)
	for i, s := range c.Skills {
		base := catalog.Scheme + catalog.EscapePath(s.Path)
		lo[i], hi[i] = base, base+catalog.ArchiveZip
		for _, f := range s.Files {
			hi[i] = max(hi[i], fileURI(f))
		}
		hi[i] = max(hi[i], base+catalog.ArchiveTarGz)
		paths[i] = catalog.EscapePath(s.Path)
	}
	// A cut after skill i needs the greatest key up to i below the least after it.
	sufLo, sufPath := make([]string, n+1), make([]string, n+1)
	for i := n - 1; i >= 0; i-- {
		sufLo[i], sufPath[i] = lo[i], paths[i]
		if i+1 < n {
			sufLo[i], sufPath[i] = min(lo[i], sufLo[i+1]), min(paths[i], sufPath[i+1])
		}
	}
	var runs [][2]int
	from, size := 0, 0
	var maxHi, maxPath string
	for i, s := range c.Skills {
		maxHi, maxPath = max(maxHi, hi[i]), max(maxPath, paths[i])
		size += estimate(s)
		if i+1 < n && size >= target && maxHi < sufLo[i+1] && maxPath < sufPath[i+1] {
			runs = append(runs, [2]int{from, i + 1})
			from, size = i+1, 0
		}
	}
	if from < n || n == 0 {
		runs = append(runs, [2]int{from, n})
	}
	return runs
}

// IndexEstimate guesses how many bytes the whole index of c takes, from its skills, their
// older versions and its views (within a factor of about two), without encoding it: a
// private catalog's index holds each view's, each about as large as the skills it shows.
func IndexEstimate(c *Catalog) int {
	n := 0
	skills := withOlder(c)
	for _, s := range skills {
		n += estimate(s)
	}
	if c.Access != nil {
		sets := scopeSets(skills)
		if len(sets) <= catalog.MaxScopeSets {
			n *= len(catalog.ClosedMasks(c.Access.Default, sets, catalog.MaxViews))
		}
	}
	return n
}

// estimate guesses how many bytes of index skill s takes: its entries and descriptors
// repeat its frontmatter and description a few times, and each file and archive has a row.
func estimate(s *Skill) int {
	return 2000 + 4*len(s.Frontmatter) + 4*len(s.Description) + 700*(len(s.Files)+2)
}

// readChunkBytes is about how large a read chunk grows.
const readChunkBytes = 32 << 10

// appendReads appends to rows a TableReads row for each file of shard q. A file listed by
// two skills (a nested skill's, listed by its parent too) is the innermost's, as a read's
// facts say (edge's classify).
func appendReads(rows [][][]byte, q *catalog.Pack) [][][]byte {
	holder := make([]int, q.NumListed())
	for i := range holder {
		holder[i] = -1
	}
	for i := range q.NumSkills() {
		skill := len(q.Skill(i, catalog.SkillURI)) - len(catalog.Scheme) - len("/"+catalog.SkillMD)
		files := q.Skill(i, catalog.SkillFiles)
		for k := 0; k+4 <= len(files); k += 4 {
			r := int(binary.LittleEndian.Uint32(files[k:]))
			holder[r] = max(holder[r], skill)
		}
	}
	for r, skill := range holder {
		uri := q.Resource(r, catalog.ResURI)
		rest, ok := catalog.CutReadHeadURI(q.Resource(r, catalog.ResReadHead), string(uri))
		if !ok || skill < 0 {
			panic("compile: a file of no skill, or whose head does not open with its URI: " + string(uri)) // a bug of the encoder
		}
		rows = append(rows, [][]byte{
			catalog.ReadURI:      uri,
			catalog.ReadHeadRest: rest,
			catalog.ReadValue:    q.Resource(r, catalog.ResReadValue),
			catalog.ReadMeta:     q.Resource(r, catalog.ResReadMeta),
			catalog.ReadSkill:    catalog.U32s([]uint32{uint32(skill)}),
		})
	}
	return rows
}

// readChunks puts rows, the TableReads rows of every file of the shards, in the store in
// chunks of about readChunkBytes, by URI, and returns their TableKeys rows.
func (en *encoder) readChunks(rows [][][]byte) [][][]byte {
	sort.Slice(rows, func(i, j int) bool { return string(rows[i][catalog.ReadURI]) < string(rows[j][catalog.ReadURI]) })
	var keys [][][]byte
	for len(rows) > 0 {
		size, k := 0, 0
		for k < len(rows) && (size < readChunkBytes || k == 0) {
			for _, f := range rows[k] {
				size += len(f) + 8
			}
			k++
		}
		var w catalog.Writer
		w.Table(catalog.TableReads, catalog.ReadFields, rows[:k])
		keys = append(keys, [][]byte{
			catalog.KeysKind:   []byte(catalog.KeyReads),
			catalog.KeysFirst:  rows[0][catalog.ReadURI],
			catalog.KeysObject: en.addPart(w.Bytes(), fmt.Sprintf("an index chunk of file reads from %s", rows[0][catalog.ReadURI])).Cell(),
		})
		rows = rows[k:]
	}
	return keys
}

// keyChunks puts the lookups by name and by prompt name in the store, in chunks of about
// keyChunkBytes, and returns TableKeys' rows.
func (en *encoder) keyChunks(c *Catalog) [][][]byte {
	var rows [][][]byte
	names := map[string][]uint32{} // the prompt name is the index name: one lookup for both
	for i, s := range c.Skills {
		names[c.indexName(s)] = append(names[c.indexName(s)], uint32(i))
	}
	prompts := names
	for _, k := range []struct {
		kind string
		rows map[string][]uint32
	}{{catalog.KeyName, names}, {catalog.KeyPrompt, prompts}} {
		keys := make([]string, 0, len(k.rows))
		for key := range k.rows {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for len(keys) > 0 {
			var chunk [][][]byte
			size := 0
			for len(keys) > 0 && (size < keyChunkBytes || len(chunk) == 0) {
				chunk = append(chunk, [][]byte{catalog.KeyRowKey: []byte(keys[0]), catalog.KeyRowSkills: catalog.U32s(k.rows[keys[0]])})
				size += len(keys[0]) + 4*len(k.rows[keys[0]]) + 16
				keys = keys[1:]
			}
			var w catalog.Writer
			w.Table(catalog.TableKeyRows, catalog.KeyRowFields, chunk)
			ref := en.addPart(w.Bytes(), "an index chunk of skills by "+k.kind)
			rows = append(rows, [][]byte{
				catalog.KeysKind:   []byte(k.kind),
				catalog.KeysFirst:  chunk[0][catalog.KeyRowKey],
				catalog.KeysObject: ref.Cell(),
			})
		}
	}
	return rows
}
