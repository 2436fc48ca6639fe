package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// A sharded index: the catalog's index split so that a reader holds only what its requests
// need. A catalog of 50,000 skills has an index of hundreds of megabytes; a Worker's script
// is limited to a few, and an isolate's memory to 128 MiB.
//
// The root is the index a reader loads; it holds what does not grow with the skills (the
// meta row, the well-known documents, the site, skill://index.json, the search table) and
// two tables that name everything else:
//
//   - TableShards has one row per shard, in listing order, and then one end row. A shard is
//     a public-format index of a run of skills (ShardObject names it in the content store):
//     their entries, files, archives, directories and fallback rows, with rows and lists
//     numbered inside the shard. A run is contiguous in listing order, in URI order (every
//     URI of its skills, files and directories) and in path order, so that the first URI
//     and the first path of each shard locate a lookup by URI or path in one shard, and the
//     ranks of one order are the shard's first rank plus the rank inside it. Each row holds,
//     as u32, the global number of the shard's first skill, file, unlisted resource,
//     directory and published skill; the end row holds the totals, and nothing else.
//   - TableKeys has one row per chunk of a lookup by a key that does not follow listing
//     order (a skill's name, its prompt name): its kind, its first key and the chunk's
//     object, a KeyRows pack whose rows are (key, u32 list of global skill rows), sorted by
//     key. A key's rows are never split across chunks. Its rows of kind KeyPostings name
//     the search table's postings, and those of kind KeyReads the read chunks (reads.go).
//
// Global numbers. Skills are numbered in listing order across shards, directories shard
// after shard. Resources keep the order resources/list gives them: every shard's files,
// shard after shard, then the root's listed rows (skill://index.json), then every shard's
// unlisted rows (archives), then the root's unlisted rows (changes.json).
//
// A root has no TableSkills, so that a reader that does not know shards refuses it ("table
// 2 missing") instead of serving an empty catalog.
//
// Loading. A Pack opened from a root reads a shard the first time a request needs it,
// through the Loader given to OpenWith, and keeps it while it holds at most Budget bytes of
// shards. Without a Loader (inside the plugin, whose host must fetch what it needs), a read
// of a shard not yet given panics with a *Missing naming it, which the plugin recovers from
// and turns into a NEED answer; the host gives the object (Give) and asks again. Every
// object given is checked against its name, the SHA-256 of its bytes, before it is read.
//
// Why shards of whole skills, cut where the listing, URI and path orders agree, rather than
// fixed pages of one index file? A lookup in a paged index is a binary search whose every
// probe may land on another page, each a round trip to the host's store before the next
// probe can start: twenty for a resource among 350,000. A shard holds whole skills with
// their own lookup tables, and the root's first keys name the one shard a URI or path can
// be in, so a lookup costs one round however large the catalog; a page of a listing is a
// run of skills, one or two shards, asked for in one round (Want). The cost is the cut:
// a run may not end between skills whose URIs interleave ("pdf" and "pdf-tools"), and a
// catalog whose listing and URI orders disagree everywhere (paths that URIs escape) is one
// shard.
//
// Why does a read of a shard not held panic with a *Missing, rather than return an error?
// Every accessor would return one, and every handler of the server check it: hundreds of
// call sites for a condition that is not a failure and has one answer (stop, fetch, ask
// again). The server only reads the index, so a request stopped midway leaves nothing
// half done; the panic goes no further than the plugin's export, which recovers it alone.

// Table kinds of a sharded index.
const (
	TableShards   uint32 = 18
	TableKeys     uint32 = 19
	TableKeyRows  uint32 = 20 // the one table of a key chunk
	TablePostings uint32 = 21 // the one table, of one row and one field, of a postings chunk
)

// Fields of TableShards.
const (
	ShardObject    = iota // ref: the shard's index; empty in the end row
	ShardSkills           // u32: the global row of the shard's first skill; the end row: the number of skills
	ShardFiles            // u32: the global number of its first file (listed resource)
	ShardUnlisted         // u32: how many unlisted resources the shards before it hold
	ShardDirs             // u32: the global number of its first directory
	ShardPublished        // u32: how many published skills (well-known HTTP) the shards before it hold
	ShardFirstURI         // the least URI of the shard's skills, files and directories; empty in the end row
	ShardFirstPath        // the least escaped path (SkillPath) of its skills; empty in the end row
	ShardFields
)

// Fields of TableKeys.
const (
	KeysKind   = iota // KeyName or KeyPrompt
	KeysFirst         // the chunk's first key
	KeysObject        // ref: the chunk, a pack of one TableKeyRows
	KeysFields
)

// Kinds of TableKeys rows.
const (
	KeyName     = "name"     // a skill's name: SkillsByName
	KeyPrompt   = "prompt"   // a skill's prompt name: SkillByPrompt
	KeyPostings = "postings" // a chunk of the search table's postings (package search), in order; its first key is its first term
)

// Fields of TableKeyRows.
const (
	KeyRowKey    = iota // the key
	KeyRowSkills        // u32 list: the global skill rows with that key, ascending
	KeyRowFields
)

// Loader returns the bytes of the store object r. OpenWith's Pack calls it from any
// goroutine, and may call it concurrently (Objects reads shards as requests do).
type Loader func(r Ref) ([]byte, error)

// Missing is what a Pack without a Loader panics with when a request reads a shard it has
// not been given: the objects to Give before the request is asked again.
type Missing struct{ Refs []Ref }

// add adds refs to m, each object once.
func (m *Missing) add(refs ...Ref) {
	for _, r := range refs {
		if !slices.ContainsFunc(m.Refs, func(o Ref) bool { return o.Name == r.Name }) {
			m.Refs = append(m.Refs, r)
		}
	}
}

func (m *Missing) Error() string {
	return fmt.Sprintf("catalog: %d index shard(s) not loaded", len(m.Refs))
}

// ErrMissing is what a Loader returns for an object it does not have: the read panics
// with a *Missing naming it, as without a Loader.
var ErrMissing = errors.New("catalog: index shard not at hand")

// ErrNotWanted is returned by Give for bytes that are no part of the index it was asked
// for: their SHA-256 names no shard or chunk.
var ErrNotWanted = errors.New("catalog: the object given is no shard of this index")

// sharded is the part of a Pack opened from a root: its offsets, first keys and the parts
// it has loaded.
type sharded struct {
	n                                   int // shards
	skills, files, unlisted, dirs, pubs []uint32
	firstURI, firstPath                 [][]byte
	rootListed, rootRes                 int   // the root's own resources: listed, all
	names, prompts                      []int // the parts of each key chunk, in key order
	postings                            []int // the parts of each postings chunk, in order
	reads                               []int // the parts of each read chunk, in URI order (reads.go)
	parts                               []*part
	byName                              map[string][]int // object name → the parts it is
	root                                *Pack            // whose packs the shards' packed references name
	*cache                                               // shared with the roots nested in the same index
}

// cache is what the sharded roots of one index share: a private catalog's views and the
// older versions are public-format indexes of their own, each a root when the index is
// sharded, nested in the index that names them (views.go, versions.go). They read their
// shards through one Loader, within one budget, by one clock, and the index's Give hands
// each object to the root it is a part of.
//
// Why one budget for every nested root, rather than one each? A private catalog may have
// 64 views, each with its older versions: a budget each would let an instance hold 128
// times what the host allowed it. With one, what a budget bounds is the instance.
type cache struct {
	mu           sync.Mutex
	load         Loader
	budget, held int64
	clock        uint64
	roots        []*sharded
}

// nest makes the roots of o's cache (a root nested in sh's index, and those nested in it)
// share sh's cache. It is called as an index opens, before any shard is read.
func (sh *sharded) nest(o *sharded) {
	if o.cache == sh.cache {
		return // a view that is the index itself (Self)
	}
	for _, r := range o.roots {
		r.cache = sh.cache
		sh.roots = append(sh.roots, r)
	}
}

// part is one object of a sharded index: a shard (a Pack of skills) or a key chunk (a Pack
// of one TableKeyRows).
type part struct {
	ref   Ref
	first []byte // the chunk's first key (key chunks only)
	pack  *Pack
	used  uint64 // the clock when last read
	keep  uint64 // never evicted while the clock is at most this (touch, open)
	shard int    // the shard number; -1 for a chunk of names, -2 of prompts, -3 of postings, -4 of reads
}

// OpenWith is Open with a Loader for the shards of a sharded index, which keeps at most
// budget bytes of shards (0: no bound) beyond those the current request reads, as requests
// are marked by Tick (evict). For an index that is not sharded it is Open.
func OpenWith(b []byte, load Loader, budget int64) (*Pack, error) {
	p, err := Open(b)
	if err != nil || p.sh == nil {
		return p, err
	}
	p.sh.load, p.sh.budget = load, budget
	return p, nil
}

// Sharded reports whether the index is a root whose skills are in shards.
func (p *Pack) Sharded() bool { return p.sh != nil }

// Tick marks the start of a request: the shards read by this request and the one before are
// kept however full the budget is, so that a request that needs several shards, asked
// again as each arrives, never evicts one it has just been given.
func (p *Pack) Tick() {
	if p.sh != nil {
		p.sh.mu.Lock()
		p.sh.clock++
		p.sh.mu.Unlock()
	}
}

// Give hands a sharded index the bytes b of the object name it asked for (Missing), which
// the host has checked against name (their SHA-256): they are kept if name is a shard or
// chunk of the index and they are of its size; otherwise Give returns an error and keeps
// nothing. A shard's cells are not checked again (the build checked them, and name is their
// digest): Give costs a shard's tables, where checking its digest and every cell in the
// plugin was most of the time a cache-cold read took on a Worker.
//
// Why do hosts check the shards' digests, rather than the plugin? In the plugin, SHA-256 runs
// as WebAssembly, at about 100 MB/s in V8: 2.4 ms for a shard of 230 KB, and checking its
// cells another millisecond, on every read of a shard not held, which at 50,000 skills is
// nearly every cache-cold read. A host hashes natively (crypto.subtle on the JavaScript
// hosts, crypto/sha256 in the harness), ten times faster or more, and it is trusted already:
// it loads the root and splices every answer. A shard whose digest the host checked is the
// build's, which the build opened and checked (compile's OpenPart), so the plugin reads its
// tables and trusts its cells. An Extism host puts shards as objects, which the plugin
// names by their digest itself (put), as before.
func (p *Pack) Give(name string, b []byte) error {
	if p.sh == nil {
		return ErrNotWanted
	}
	p.sh.mu.Lock()
	defer p.sh.mu.Unlock()
	wanted, err := p.giveView(name, b)
	if err != nil {
		return err
	}
	for _, r := range p.sh.roots {
		for _, k := range r.byName[name] {
			wanted = true
			if err := r.open(k, b, true, true); err != nil {
				return err
			}
		}
	}
	if !wanted {
		return ErrNotWanted
	}
	return nil
}

// Parts returns the objects a sharded index consists of beyond its root: each shard, then
// each key chunk, of the root and then of each root nested in it (views, older versions);
// nil for an index that is not sharded.
func (p *Pack) Parts() []Ref {
	if p.sh == nil {
		return nil
	}
	var out []Ref
	for _, r := range p.sh.roots {
		for _, pt := range r.parts {
			out = append(out, pt.ref)
		}
	}
	return out
}

// openSharded decodes a root's TableShards and TableKeys into p.sh and checks them: the
// offsets ascending and ending at the totals, the first keys ascending, every object
// reference well formed.
func (p *Pack) openSharded() error {
	t, keys := p.tables[TableShards], p.tables[TableKeys]
	if t.fields < ShardFields || t.rows < 2 || keys.rows > 0 && keys.fields < KeysFields {
		return fmt.Errorf("%w: the shard tables are missing or short", ErrCorrupt)
	}
	n := int(t.rows) - 1
	sh := &sharded{n: n, byName: map[string][]int{}, root: p, cache: &cache{}}
	sh.roots = []*sharded{sh}
	cols := []*[]uint32{&sh.skills, &sh.files, &sh.unlisted, &sh.dirs, &sh.pubs}
	for c := range cols {
		*cols[c] = make([]uint32, n+1)
	}
	for r := 0; r <= n; r++ {
		for c, f := range []int{ShardSkills, ShardFiles, ShardUnlisted, ShardDirs, ShardPublished} {
			v := p.cell(TableShards, uint32(r), f)
			if len(v) != 4 {
				return fmt.Errorf("%w: shard %d offsets", ErrCorrupt, r)
			}
			(*cols[c])[r] = u32(v, 0)
			if r > 0 && (*cols[c])[r] < (*cols[c])[r-1] || (*cols[c])[r] >= 1<<30 {
				return fmt.Errorf("%w: shard %d offsets out of order", ErrCorrupt, r)
			}
		}
		if r == n {
			break
		}
		uri, path := p.cell(TableShards, uint32(r), ShardFirstURI), p.cell(TableShards, uint32(r), ShardFirstPath)
		if r > 0 && (string(uri) <= string(sh.firstURI[r-1]) || string(path) <= string(sh.firstPath[r-1])) {
			return fmt.Errorf("%w: shard %d first keys out of order", ErrCorrupt, r)
		}
		sh.firstURI, sh.firstPath = append(sh.firstURI, uri), append(sh.firstPath, path)
		ref, err := partRef(p.cell(TableShards, uint32(r), ShardObject), "shard")
		if err != nil {
			return fmt.Errorf("%w (shard %d)", err, r)
		}
		sh.add(&part{ref: ref, shard: r})
	}
	for r := 0; r < n; r++ {
		if sh.skills[r] == sh.skills[r+1] {
			return fmt.Errorf("%w: shard %d holds no skill", ErrCorrupt, r)
		}
	}
	var last [4]string
	kinds := map[string]int{KeyName: 0, KeyPrompt: 1, KeyPostings: 2, KeyReads: 3}
	for r := uint32(0); r < keys.rows; r++ {
		kind, first := string(p.cell(TableKeys, r, KeysKind)), p.cell(TableKeys, r, KeysFirst)
		ref, err := partRef(p.cell(TableKeys, r, KeysObject), "chunk")
		if err != nil {
			return fmt.Errorf("%w (key chunk %d)", err, r)
		}
		i, ok := kinds[kind]
		if !ok {
			continue // a kind of a later format
		}
		list := [4]*[]int{&sh.names, &sh.prompts, &sh.postings, &sh.reads}[i]
		if len(*list) > 0 && string(first) <= last[i] {
			return fmt.Errorf("%w: key chunks out of order", ErrCorrupt)
		}
		last[i] = string(first)
		*list = append(*list, len(sh.parts))
		sh.add(&part{ref: ref, first: first, shard: -1 - i})
	}
	res := p.tables[TableResources].rows
	sh.rootListed, sh.rootRes = int(u32(p.cell(TableIndex, 0, IndexListed), 0)), int(res)
	if int(sh.files[n])+int(sh.unlisted[n])+sh.rootRes >= 1<<30 {
		return fmt.Errorf("%w: too many resources", ErrCorrupt)
	}
	p.sh = sh
	return nil
}

// partRef parses the reference of a part of the index (a shard, a chunk, a view's index),
// which is never packed: a host reads it whole, by name.
func partRef(cell []byte, what string) (Ref, error) {
	r, err := ParseRef(cell)
	if err == nil && r.Packed {
		err = fmt.Errorf("%w: a packed %s", ErrCorrupt, what)
	}
	return r, err
}

func (sh *sharded) add(pt *part) {
	sh.byName[pt.ref.Name] = append(sh.byName[pt.ref.Name], len(sh.parts))
	sh.parts = append(sh.parts, pt)
}

// open checks b as part k (its digest already matched) and keeps it, evicting the least
// recently read parts beyond the budget; a part given (Give) is kept for freshTicks
// requests. Called with mu held.
func (sh *sharded) open(k int, b []byte, given, known bool) error {
	pt := sh.parts[k]
	if pt.pack != nil {
		sh.touch(pt)
		return nil
	}
	if int64(len(b)) != pt.ref.Size {
		return fmt.Errorf("%w: shard %s is %d bytes, not %d", ErrCorrupt, pt.ref.Name, len(b), pt.ref.Size)
	}
	var q *Pack
	var err error
	switch {
	case pt.shard == -4:
		q, err = openReads(b, pt.first)
	case pt.shard == -3:
		q, err = openPostings(b)
	case pt.shard < 0:
		q, err = openKeyRows(b, int(sh.skills[sh.n]))
	default:
		q, err = sh.openShard(pt.shard, b, known)
	}
	if err != nil {
		return fmt.Errorf("shard %s: %w", pt.ref.Name, err)
	}
	// Parts that share an object (two equal chunks) are loaded together.
	for _, o := range sh.parts {
		if o.ref.Name == pt.ref.Name && o.pack == nil && o.shard == pt.shard {
			o.pack, o.used, o.keep = q, sh.clock, sh.clock+1
			if given {
				o.keep = sh.clock + freshTicks
			}
		}
	}
	sh.held += pt.ref.Size
	sh.evict()
	return nil
}

// openShard opens b as shard k: a public-format index, not sharded, with the counts the
// root gives it; known to be the build's bytes when known is set (openIn).
func (sh *sharded) openShard(k int, b []byte, known bool) (*Pack, error) {
	q, err := openPublicIn(b, "a shard", sh.root, known)
	if err != nil {
		return nil, err
	}
	nf := int(sh.files[k+1] - sh.files[k])
	switch {
	case q.sh != nil:
		return nil, fmt.Errorf("%w: a shard that is itself sharded", ErrCorrupt)
	case q.NumSkills() != int(sh.skills[k+1]-sh.skills[k]),
		q.NumListed() != nf,
		q.NumResources()-nf != int(sh.unlisted[k+1]-sh.unlisted[k]),
		q.NumDirs() != int(sh.dirs[k+1]-sh.dirs[k]),
		q.NumHTTPSkills() != int(sh.pubs[k+1]-sh.pubs[k]):
		return nil, fmt.Errorf("%w: the shard's counts are not the root's", ErrCorrupt)
	}
	return q, nil
}

// freshTicks is how many requests a part just given is kept for however full the budget
// is: the request that asked for it is asked again once its host has fetched every part
// it named, and meanwhile the same instance may serve other requests (a Worker's isolate
// serves many at once), which must not evict what it was given.
const freshTicks = 64

// touch marks pt read by the request under way: it is kept until the next one has started.
func (sh *sharded) touch(pt *part) {
	pt.used = sh.clock
	pt.keep = max(pt.keep, sh.clock+1)
}

// evict drops the least recently read parts, of every root of the cache, until the budget
// holds, keeping those read by this request or the one before, and those given within the
// last freshTicks requests. Eviction happens only as the clock moves (Tick): a caller that
// never ticks keeps every part it reads. Called with mu held.
func (sh *sharded) evict() {
	for sh.budget > 0 && sh.held > sh.budget {
		var v *part
		var in *sharded
		for _, r := range sh.roots {
			for _, pt := range r.parts {
				if pt.pack != nil && pt.keep < sh.clock && (v == nil || pt.used < v.used) {
					v, in = pt, r
				}
			}
		}
		if v == nil {
			return
		}
		for _, o := range in.parts {
			if o.ref.Name == v.ref.Name && o.shard == v.shard { // loaded together (open)
				o.pack = nil
			}
		}
		sh.held -= v.ref.Size
	}
}

// get returns part k, loading it through the Loader, or panics with a *Missing naming it.
func (sh *sharded) get(k int) *Pack {
	sh.mu.Lock()
	pt := sh.parts[k]
	if pt.pack != nil {
		sh.touch(pt)
		sh.mu.Unlock()
		return pt.pack
	}
	if sh.load == nil {
		sh.mu.Unlock()
		panic(&Missing{Refs: []Ref{pt.ref}})
	}
	defer sh.mu.Unlock()
	b, err := sh.read(pt.ref)
	if errors.Is(err, ErrMissing) {
		panic(&Missing{Refs: []Ref{pt.ref}})
	}
	if err == nil {
		err = sh.open(k, b, false, true) // its digest checked just now
	}
	if err != nil {
		// The catalog is broken (a store without the object, or other bytes under its
		// name): no answer can be made from it.
		panic(fmt.Errorf("%w: loading index shard %s: %w", ErrCorrupt, pt.ref.Name, err))
	}
	return pt.pack
}

// read returns the bytes of r through the Loader, checked against r's name: an error
// wrapping ErrMissing when the Loader has not got it, ErrCorrupt when they are other bytes.
// Called with mu held, as get and View call it.
func (c *cache) read(r Ref) ([]byte, error) {
	b, err := c.load(r)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != r.Name {
		return nil, fmt.Errorf("%w: object %s does not match its digest", ErrCorrupt, r.Name)
	}
	return b, nil
}

// Want makes sure the shards of skills [lo, hi) are loaded: without a Loader, it panics
// with a *Missing naming every one that is not, so that a listing's page costs its host
// one round, not one a shard.
func (p *Pack) Want(lo, hi int) {
	if p.sh == nil || lo >= hi {
		return
	}
	sh := p.sh
	a, b := sh.shardOf(sh.skills, lo), sh.shardOf(sh.skills, hi-1)
	sh.want(func(yield func(int)) {
		for k := a; k <= b; k++ {
			yield(k)
		}
	})
}

// WantRanks is Want for the skills of ranks [lo, hi) of URI or path order (SkillsUnder,
// SkillPathsWithPrefix): a shard holds a run of ranks as it holds a run of rows.
func (p *Pack) WantRanks(lo, hi int) { p.Want(lo, hi) }

// WantResources is Want for the resources [lo, hi) (a page of resources/list).
func (p *Pack) WantResources(lo, hi int) {
	if p.sh == nil || lo >= hi {
		return
	}
	sh := p.sh
	sh.want(func(yield func(int)) {
		for _, r := range [][2]int{{lo, hi}, {lo - int(sh.files[sh.n]) - sh.rootListed, hi - int(sh.files[sh.n]) - sh.rootListed}} {
			col, total := sh.files, int(sh.files[sh.n])
			if r != [2]int{lo, hi} {
				col, total = sh.unlisted, int(sh.unlisted[sh.n])
			}
			a, b := max(r[0], 0), min(r[1], total)
			for k := sh.shardOf(col, a); a < b && k < sh.n && int(col[k]) < b; k++ {
				if col[k+1] > col[k] {
					yield(k)
				}
			}
		}
	})
}

// WantPublished is Want for the published skills [lo, hi) (HTTPSkill).
func (p *Pack) WantPublished(lo, hi int) {
	if p.sh == nil || lo >= hi {
		return
	}
	sh := p.sh
	sh.want(func(yield func(int)) {
		for k := sh.shardOf(sh.pubs, lo); k < sh.n && int(sh.pubs[k]) < hi; k++ {
			if sh.pubs[k+1] > sh.pubs[k] {
				yield(k)
			}
		}
	})
}

// WantSkills is Want for scattered skills (a page of search hits).
func (p *Pack) WantSkills(rows []int) {
	if p.sh == nil {
		return
	}
	sh := p.sh
	sh.want(func(yield func(int)) {
		for _, i := range rows {
			yield(sh.shardOf(sh.skills, i))
		}
	})
}

func (sh *sharded) want(each func(yield func(int))) {
	if sh.load != nil {
		var m *Missing
		each(func(k int) {
			defer func() {
				if r := recover(); r != nil {
					mk, ok := r.(*Missing)
					if !ok {
						panic(r)
					}
					if m == nil {
						m = &Missing{}
					}
					m.add(mk.Refs...)
				}
			}()
			sh.get(k)
		})
		if m != nil {
			panic(m)
		}
		return
	}
	var m *Missing
	sh.mu.Lock()
	each(func(k int) {
		pt := sh.parts[k]
		if pt.pack != nil {
			sh.touch(pt)
			return
		}
		if m == nil {
			m = &Missing{}
		}
		m.add(pt.ref)
	})
	sh.mu.Unlock()
	if m != nil {
		panic(m)
	}
}

// shardOf returns the shard whose range of col holds global number i: the last k with
// col[k] <= i (col ascending, with empty ranges possible except for skills).
func (sh *sharded) shardOf(col []uint32, i int) int {
	return sort.Search(sh.n, func(k int) bool { return int(col[k+1]) > i })
}

// shardFor returns the last shard whose first key (keys) is at most key, or -1.
func (sh *sharded) shardFor(keys [][]byte, key string) int {
	return sort.Search(sh.n, func(k int) bool { return string(keys[k]) > key }) - 1
}

// resource returns the part holding global resource i and its row there (root: nil).
func (p *Pack) resourceAt(i int) (*Pack, uint32) {
	sh := p.sh
	files, unlisted := int(sh.files[sh.n]), int(sh.unlisted[sh.n])
	switch {
	case i < 0 || i >= files+sh.rootRes+unlisted:
		panic(fmt.Sprintf("catalog: resource %d out of range", i))
	case i < files:
		k := sh.shardOf(sh.files, i)
		return sh.get(k), uint32(i - int(sh.files[k]))
	case i < files+sh.rootListed:
		return p, uint32(i - files)
	case i < files+sh.rootListed+unlisted:
		u := i - files - sh.rootListed
		k := sh.shardOf(sh.unlisted, u)
		nf := sh.files[k+1] - sh.files[k]
		return sh.get(k), nf + uint32(u-int(sh.unlisted[k]))
	default:
		return p, uint32(sh.rootListed + i - files - sh.rootListed - unlisted)
	}
}

// globalRes returns the global number of resource row r of shard k.
func (sh *sharded) globalRes(k int, r int) int {
	nf := int(sh.files[k+1] - sh.files[k])
	if r < nf {
		return int(sh.files[k]) + r
	}
	return int(sh.files[sh.n]) + sh.rootListed + int(sh.unlisted[k]) + r - nf
}

// rootRes returns the global number of the root's own resource row r.
func (sh *sharded) rootResNum(r int) int {
	if r < sh.rootListed {
		return int(sh.files[sh.n]) + r
	}
	return int(sh.files[sh.n]) + int(sh.unlisted[sh.n]) + r
}

// skillAt returns the shard of global skill i and its row there.
func (p *Pack) skillAt(i int) (*Pack, int, int) {
	sh := p.sh
	if i < 0 || i >= int(sh.skills[sh.n]) {
		panic(fmt.Sprintf("catalog: skill %d out of range", i))
	}
	k := sh.shardOf(sh.skills, i)
	return sh.get(k), k, i - int(sh.skills[k])
}

// rankBelow returns how many skills have a key (of the order keys and rank, URI or path)
// below key: the shard that would hold key, and the rank of key inside it.
func (p *Pack) rankBelow(keys [][]byte, key string, below func(q *Pack, key string) int) int {
	sh := p.sh
	k := sh.shardFor(keys, key)
	if k < 0 {
		return 0
	}
	return int(sh.skills[k]) + below(sh.get(k), key)
}

// prefixRanks returns the ranks [lo, hi) of the skills whose key starts with prefix.
func (p *Pack) prefixRanks(keys [][]byte, prefix string, below func(q *Pack, key string) int) (lo, hi int) {
	lo = p.rankBelow(keys, prefix, below)
	if end, ok := successor(prefix); ok {
		return lo, p.rankBelow(keys, end, below)
	}
	return lo, int(p.sh.skills[p.sh.n])
}

// successor returns the least string greater than every string with prefix, and false when
// there is none (prefix is empty or all 0xff).
func successor(prefix string) (string, bool) {
	b := []byte(strings.TrimRight(prefix, "\xff"))
	if len(b) == 0 {
		return "", false
	}
	b[len(b)-1]++
	return string(b), true
}

// uriBelow and pathBelow count the skills of one pack whose SKILL.md URI (path) is below
// key.
func uriBelow(q *Pack, key string) int {
	lo, _ := q.prefixRange(q.cell(TableIndex, 0, IndexSkillsByURI), key, func(r uint32) []byte { return q.cell(TableSkills, r, SkillURI) })
	return lo
}

func pathBelow(q *Pack, key string) int {
	lo, _ := q.prefixRange(q.cell(TableIndex, 0, IndexSkillsByPath), key, func(r uint32) []byte { return q.SkillPath(int(r)) })
	return lo
}

// keyRows returns the global skill rows of key in the key chunks parts, or nil.
func (p *Pack) keyRows(parts []int, key string) []byte {
	sh := p.sh
	c := sh.chunkFor(parts, key)
	if c < 0 {
		return nil
	}
	q := sh.get(parts[c])
	t := q.tables[TableKeyRows]
	r := sort.Search(int(t.rows), func(r int) bool { return string(q.cell(TableKeyRows, uint32(r), KeyRowKey)) >= key })
	if r < int(t.rows) && string(q.cell(TableKeyRows, uint32(r), KeyRowKey)) == key {
		return q.cell(TableKeyRows, uint32(r), KeyRowSkills)
	}
	return nil
}

// chunkFor returns the index in parts (chunks in key order) of the last chunk whose first
// key is at most key, or -1: the one chunk that can hold key.
func (sh *sharded) chunkFor(parts []int, key string) int {
	return sort.Search(len(parts), func(j int) bool { return string(sh.parts[parts[j]].first) > key }) - 1
}

// openKeyRows opens b as a key chunk: one TableKeyRows, keys ascending, each with rows
// ascending below skills.
func openKeyRows(b []byte, skills int) (*Pack, error) {
	q, present, err := parse(b)
	if err != nil {
		return nil, err
	}
	t := q.tables[TableKeyRows]
	if !present[TableKeyRows] || t.fields < KeyRowFields || t.rows == 0 {
		return nil, fmt.Errorf("%w: a key chunk without its table", ErrCorrupt)
	}
	for r := uint32(0); r < t.rows; r++ {
		if r > 0 && string(q.cell(TableKeyRows, r, KeyRowKey)) <= string(q.cell(TableKeyRows, r-1, KeyRowKey)) {
			return nil, fmt.Errorf("%w: a key chunk out of order", ErrCorrupt)
		}
		rows := q.cell(TableKeyRows, r, KeyRowSkills)
		if len(rows) == 0 || len(rows)%4 != 0 {
			return nil, fmt.Errorf("%w: a key chunk's rows", ErrCorrupt)
		}
		for i := 0; i < len(rows); i += 4 {
			if int(u32(rows, i)) >= skills || i > 0 && u32(rows, i) <= u32(rows, i-4) {
				return nil, fmt.Errorf("%w: a key chunk's rows", ErrCorrupt)
			}
		}
	}
	return q, nil
}

// dirAt returns the shard of global directory d, its number, and d's row there.
func (p *Pack) dirAt(d int) (*Pack, int, int) {
	sh := p.sh
	if d < 0 || d >= int(sh.dirs[sh.n]) {
		panic(fmt.Sprintf("catalog: directory %d out of range", d))
	}
	k := sh.shardOf(sh.dirs, d)
	return sh.get(k), k, d - int(sh.dirs[k])
}

// refs calls f with the reference of every shard and chunk, and, when a Loader is set,
// every reference inside them: each read through the Loader and let go, not kept.
func (sh *sharded) refs(f func(cell []byte, what func() string)) {
	for _, pt := range sh.parts {
		f(pt.ref.Cell(), func() string {
			if pt.shard < 0 {
				return "an index chunk of keys"
			}
			return fmt.Sprintf("index shard %d", pt.shard)
		})
		if sh.load == nil || pt.shard < 0 {
			continue
		}
		sh.mu.Lock()
		q := pt.pack
		sh.mu.Unlock()
		if q == nil {
			b, err := sh.load(pt.ref)
			if err != nil {
				continue // the shard's own reference is missing already
			}
			if q, err = sh.openShard(pt.shard, b, false); err != nil {
				continue
			}
		}
		q.refs(f)
	}
}

// openPostings opens b as a postings chunk: one TablePostings of one row (its contents are
// checked by package search when a query first reads them).
func openPostings(b []byte) (*Pack, error) {
	q, present, err := parse(b)
	if err != nil {
		return nil, err
	}
	if t := q.tables[TablePostings]; !present[TablePostings] || t.rows != 1 || t.fields < 1 {
		return nil, fmt.Errorf("%w: a postings chunk without its table", ErrCorrupt)
	}
	return q, nil
}

// SearchChunk returns the postings of chunk k of a sharded index's search table, loading
// them through the Loader; false when it has none at hand (no Loader, or one without it:
// WantSearch asks for it). It never panics for a missing chunk.
func (p *Pack) SearchChunk(k int) ([]byte, bool) {
	sh := p.sh
	if sh == nil || k < 0 || k >= len(sh.postings) {
		return nil, false
	}
	q, ok := sh.peek(sh.postings[k])
	if !ok {
		return nil, false
	}
	return q.cell(TablePostings, 0, 0), true
}

// WantSearch makes sure the postings chunks ks are loaded, or panics with a *Missing
// naming those that are not, as Want does for skills.
func (p *Pack) WantSearch(ks []int) {
	if p.sh == nil {
		return
	}
	sh := p.sh
	sh.want(func(yield func(int)) {
		for _, k := range ks {
			if k >= 0 && k < len(sh.postings) {
				yield(sh.postings[k])
			}
		}
	})
}

// SearchEntry returns skill i's entry in the well-known index, as its shard's search table
// holds it (what search.Index.Entry gives of a whole index).
func (p *Pack) SearchEntry(i int) []byte {
	q, _, l := p.skillAt(i)
	cells := q.Search()
	if len(cells) < searchFields {
		return nil
	}
	entries, ends := cells[searchFields-2], cells[searchFields-1] // search.FieldEntries, FieldEntryEnds
	if len(ends) < 4*(l+1) {
		return nil
	}
	start := 0
	if l > 0 {
		start = int(u32(ends, 4*(l-1)))
	}
	if end := int(u32(ends, 4*l)); start <= end && end <= len(entries) {
		return entries[start:end]
	}
	return nil
}

// peek returns part k, loading it through the Loader; false when it is not at hand,
// without panicking.
func (sh *sharded) peek(k int) (q *Pack, ok bool) {
	ok = !missed(func() { q = sh.get(k) })
	return q, ok
}

// missed calls f and reports whether it stopped with a *Missing (a part not at hand), which
// it recovers; any other panic goes on.
func missed(f func()) (missing bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, missing = r.(*Missing); !missing {
				panic(r)
			}
		}
	}()
	f()
	return false
}
