package edge

import (
	"hash/fnv"
	"strconv"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/search"
	"github.com/skilledge/skilledge/jsonrpc"
)

// Search (PROTOCOL.md#search): skills/list {query, limit?, cursor?} answers the skills of
// the caller's view that the query finds, best first, as complete entries, paginated. The
// index is the view's own (catalog.TableSearch, built from the skills it lists), so a
// caller's results, their order and their count are those of a catalog that never held
// what the caller may not see.

// DefaultSearchLimit is how many results a page of a search holds when the request does
// not say (params.limit); a request may ask for 1 to the page size (wire.Options.PageSize).
const DefaultSearchLimit = 20

// searchIndex returns the view's search index, opened (and checked) on first use; nil
// when the index has none (built by a skilledge before search) or it does not open.
func (s *Server) searchIndex() *search.Index {
	s.searchOnce.Do(func() {
		if cells := s.pack.Search(); cells != nil {
			s.search, _ = search.Open(cells, s.pack.NumSkills())
		}
	})
	return s.search
}

// searchScratch holds the rooms searches count in, one per concurrent search.
var searchScratch = sync.Pool{New: func() any { return new(searchRoom) }}

type searchRoom struct {
	sc   search.Scratch
	hits []search.Hit
}

// skillsSearch answers skills/list {query}: each hit's entry, as skills/list gives it, in
// rank order; limit per page; the cursor names the query, so one query's cursor is refused
// by another.
func (s *Server) skillsSearch(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	if c.p.query.Type != gjson.String {
		return nil, invalidParams("params.query must be a string: the words to search the skills for")
	}
	ix := s.searchIndex()
	if ix == nil {
		return nil, invalidParams("this catalog has no search index: it was built by a skilledge before search; build it again")
	}
	q, err := search.ParseQuery(c.p.query.Str)
	if err != nil {
		return nil, invalidParams("params.query: " + err.Error())
	}
	limit := DefaultSearchLimit
	if l := c.p.limit; l.Exists() && l.Type != gjson.Null {
		n, err := strconv.Atoi(l.Raw) // a JSON number with no fraction or exponent
		if l.Type != gjson.Number || err != nil || n < 1 || n > s.opt.PageSize {
			return nil, invalidParams("params.limit must be a whole number from 1 to " + strconv.Itoa(s.opt.PageSize))
		}
		limit = n
	}
	room := searchScratch.Get().(*searchRoom)
	defer searchScratch.Put(room)
	room.hits = ix.Search(q, &room.sc, room.hits[:0])
	hits := room.hits
	kind := queryKind(q)
	from, to, perr := s.pageAt(c.p.cursor, kind, len(hits))
	if perr != nil {
		return nil, perr
	}
	to = min(from+limit, len(hits))
	c.listing()
	b = append(b, `"skills":[`...)
	b, to = appendPage(b, from, to, pageBudget, func(i int) []byte { return s.pack.Skill(hits[i].Skill, catalog.SkillEntry) })
	b = append(b, ']')
	return s.appendNextCursor(b, kind, to, len(hits)), nil
}

// queryKind is the kind of a search's cursors (appendCursor): "q" and a hash of the query's
// words, so that a cursor goes on only with the query it came from.
func queryKind(q search.Query) string {
	h := fnv.New64a()
	for _, w := range q.Words() {
		h.Write([]byte(w))
		h.Write([]byte{0})
	}
	return "q" + strconv.FormatUint(h.Sum64(), 36)
}
