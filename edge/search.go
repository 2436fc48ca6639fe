package edge

import (
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/search"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// Search (PROTOCOL.md#search): skills/list {query, limit?, cursor?} answers the skills of
// the caller's view that the query finds, best first, as complete entries, paginated. The
// index is the view's own (catalog.TableSearch, built from the skills it lists), so a
// caller's results, their order and their count are those of a catalog that never held
// what the caller may not see.

// DefaultSearchLimit is how many results a page of a search holds when the request does
// not say (params.limit), or the page size (wire.Options.PageSize) when that is smaller; a
// request may ask for 1 to the page size.
const DefaultSearchLimit = 20

// searchIndex returns the view's search index, opened (and checked) on first use; nil
// when the index has none (built by a skilledge before search) or it does not open.
func (s *Server) searchIndex() *search.Index {
	s.searchOnce.Do(func() {
		if cells := s.pack.Search(); cells != nil && s.pack.Sharded() {
			s.search, _ = search.OpenSharded(cells, s.pack.NumSkills(), s.pack.SearchChunk, s.pack.SearchEntry)
		} else if cells != nil {
			s.search, _ = search.Open(cells, s.pack.NumSkills())
		}
	})
	return s.search
}

// find is ix.Find. Of a sharded index, whose postings are read in chunks, a query that
// needed chunks the plugin does not hold asks for every one (catalog.Pack.WantSearch),
// which the host gives before it asks again.
func (s *Server) find(ix *search.Index, q search.Query, sc *search.Scratch, dst []search.Hit) []search.Hit {
	dst = ix.Find(q, sc, dst)
	if missed := ix.Missed(sc); len(missed) > 0 {
		s.pack.WantSearch(missed)
	}
	return dst
}

// wantHits has the shards of hits (a page of them) read in one go, for a sharded index:
// each would otherwise be asked for when first read.
func (s *Server) wantHits(hits []search.Hit) {
	if !s.pack.Sharded() || len(hits) == 0 {
		return
	}
	rows := make([]int, len(hits))
	for i, h := range hits {
		rows[i] = h.Skill
	}
	s.pack.WantSkills(rows)
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
	limit := min(DefaultSearchLimit, s.opt.PageSize)
	if l := c.p.limit; l.Exists() && l.Type != gjson.Null {
		n, ok := wholeNumber(l, s.opt.PageSize)
		if !ok {
			return nil, invalidParams("params.limit must be a whole number from 1 to " + strconv.Itoa(s.opt.PageSize))
		}
		limit = n
	}
	r, fail := s.runSearch(c.p.query.Str, c.p.cursor, limit, false)
	switch {
	case fail == nil:
	case fail.query != nil:
		return nil, invalidParams("params.query: " + fail.query.Error())
	case fail.cursor != nil:
		return nil, fail.cursor
	default:
		return nil, invalidParams(fail.index)
	}
	defer r.done()
	c.listing()
	b = append(b, `"skills":[`...)
	b, to := appendPage(b, r.from, r.to, pageBudget, func(i int) []byte { return s.pack.Skill(r.hits[i].Skill, catalog.SkillEntry) })
	b = append(b, ']')
	return s.appendNextCursor(b, r.kind, to, len(r.hits)), nil
}

// wholeNumber reads a limit: a JSON number whose value is a whole number (an integer as
// JSON Schema has it: 20, 20.0 and 2e1 alike), from 1 to most (the page size). Raw, as
// the HTTP search's query string gives it, is held to JSON's number characters (no hex,
// Inf or underscores, which strconv would read).
func wholeNumber(l gjson.Result, most int) (int, bool) {
	f, err := strconv.ParseFloat(l.Raw, 64)
	if l.Type != gjson.Number || err != nil || l.Raw == "" || l.Raw[0] < '0' || l.Raw[0] > '9' ||
		strings.Trim(l.Raw, "0123456789.eE+-") != "" || f != math.Trunc(f) || f < 1 || f > float64(most) {
		return 0, false
	}
	return int(f), true
}

// searchRun is a search done: its hits, best first up to the page's end (the rest, counted
// in len(hits), in no order), and the page of them asked for (from, to), with the kind of
// its cursors. done gives its room back.
type searchRun struct {
	ix       *search.Index
	room     *searchRoom
	hits     []search.Hit
	from, to int
	kind     string
}

func (r *searchRun) done() { searchScratch.Put(r.room) }

// searchFailure is why runSearch could not search: one of a query that does not parse
// (a search.ErrQuery* value), a cursor not of this query (pageAt's error), or an index that
// cannot search (what to say). Each surface words it its own way.
type searchFailure struct {
	query  error
	cursor *jsonrpc.Error
	index  string
}

// runSearch searches the view for query and pages the hits from cursor, limit a page;
// on bad input it says what is wrong. published keeps only the hits the well-known index
// publishes (search.Index.Entry), before they are counted and paged.
func (s *Server) runSearch(query string, cursor gjson.Result, limit int, published bool) (*searchRun, *searchFailure) {
	ix := s.searchIndex()
	switch {
	case ix == nil && s.pack.Search() == nil:
		return nil, &searchFailure{index: "this catalog has no search index: it was built by a skilledge before search; build it again"}
	case ix == nil:
		return nil, &searchFailure{index: "this catalog's search index is corrupt; build it again"}
	}
	q, err := search.ParseQuery(query)
	if err != nil {
		return nil, &searchFailure{query: err}
	}
	r := &searchRun{room: searchScratch.Get().(*searchRoom), kind: queryKind(q, published)}
	r.room.hits = s.find(ix, q, &r.room.sc, r.room.hits[:0])
	if published {
		r.room.hits = slices.DeleteFunc(r.room.hits, func(h search.Hit) bool { return !ix.Published(h.Skill) })
	}
	r.hits, r.ix = r.room.hits, ix
	from, _, perr := s.pageAt(cursor, r.kind, len(r.hits))
	if perr != nil {
		r.done()
		return nil, &searchFailure{cursor: perr}
	}
	r.from, r.to = from, min(from+limit, len(r.hits))
	search.Best(r.hits, r.to) // in order up to the page's end: the hits after it are only counted
	s.wantHits(r.hits[r.from:r.to])
	return r, nil
}

// searchSkillsTool answers the search_skills tool (the tools fallback): the hits of a page
// as text a model reads (each one's name, description and URI), a resource_link to each
// hit's SKILL.md (from 2025-06-18, which has them), and the same as structuredContent, with
// the number of hits and the cursor of the next page.
func (s *Server) searchSkillsTool(c *call, args gjson.Result, b []byte) []byte {
	var query, cursor, limit gjson.Result
	bad := ""
	args.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "query":
			query = v
		case "cursor":
			cursor = v
		case "limit":
			limit = v
		default:
			bad = "Unknown argument " + strconv.Quote(clip(k.Str)) + ": " + catalog.ToolSearchSkills + " takes query, limit and cursor."
			return false
		}
		return true
	})
	n := min(DefaultSearchLimit, s.opt.PageSize)
	switch {
	case bad != "":
	case query.Type != gjson.String:
		bad = "The argument query must be a string: a few words of what the task is about."
	case cursor.Exists() && cursor.Type != gjson.String && cursor.Type != gjson.Null:
		bad = "The argument cursor must be a string, as the previous page gave it."
	case limit.Exists() && limit.Type != gjson.Null:
		var ok bool
		if n, ok = wholeNumber(limit, s.opt.PageSize); !ok {
			bad = "The argument limit must be a whole number from 1 to " + strconv.Itoa(s.opt.PageSize) + "."
		}
	}
	if bad != "" {
		return toolError(b, bad)
	}
	r, fail := s.runSearch(query.Str, cursor, n, false)
	switch {
	case fail == nil:
	case fail.query != nil:
		return toolError(b, sentence(fail.query.Error()))
	case fail.cursor != nil:
		return toolError(b, "The cursor is not one this query's pages gave: call "+catalog.ToolSearchSkills+" without it to start again.")
	default:
		return toolError(b, sentence(fail.index))
	}
	defer r.done()
	c.listing()
	to := fit(r.from, r.to, toolTextBudget, func(i int) int { return len(s.pack.Fallback(r.hits[i].Skill, catalog.FallbackToolLine)) })
	b = append(b, `"content":[{"type":"text","text":"`...)
	head := "No skill matches " + strconv.Quote(query.Str) + ": try other words, or " + catalog.ToolListSkills + " to see every skill."
	switch total := len(r.hits); {
	case total == 0:
	case r.from > 0 || to < total:
		head = matching(total) + ", best first; " + strconv.Itoa(r.from+1) + " to " + strconv.Itoa(to) + ":\n"
	default:
		head = matching(total) + ", best first:\n"
	}
	b = appendEscaped(b, head)
	for i := r.from; i < to; i++ {
		b = append(b, s.pack.Fallback(r.hits[i].Skill, catalog.FallbackToolLine)...)
	}
	var next []byte
	if to < len(r.hits) {
		next = s.appendCursor(nil, r.kind, to)
		b = appendEscaped(b, "\nMore: call "+catalog.ToolSearchSkills+" with the same query and {\"cursor\": "+string(next)+"}.")
	}
	b = append(b, `"}`...)
	if c.version >= V20250618 {
		for i := r.from; i < to; i++ {
			k := r.hits[i].Skill
			b = append(b, `,{"type":"resource_link","uri":`...)
			b = jsonrpc.AppendString(b, unsafeString(s.pack.Skill(k, catalog.SkillURI)))
			b = append(b, `,"name":`...)
			b = jsonrpc.AppendString(b, unsafeString(s.pack.Skill(k, catalog.SkillName)))
			b = append(b, `,"description":`...)
			b = append(b, s.pack.Skill(k, catalog.SkillDescription)...)
			b = append(b, `,"mimeType":"text/markdown"}`...)
		}
	}
	b = append(b, `],"structuredContent":{"skills":[`...)
	for i := r.from; i < to; i++ {
		if i > r.from {
			b = append(b, ',')
		}
		b = append(b, s.pack.Fallback(r.hits[i].Skill, catalog.FallbackToolItem)...)
	}
	b = append(b, `],"total":`...)
	b = strconv.AppendInt(b, int64(len(r.hits)), 10)
	if next != nil {
		b = append(b, `,"nextCursor":`...)
		b = append(b, next...)
	}
	return append(b, '}')
}

// sentence is msg as a sentence for a model: capitalized, with a full stop.
func sentence(msg string) string {
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}

// matching says how many skills match: "1 skill matches", "3 skills match".
func matching(n int) string {
	if n == 1 {
		return "1 skill matches"
	}
	return plural(n, "skill") + " match"
}

// queryKind is the kind of a search's cursors (appendCursor): "q" (or, for the HTTP search,
// whose hits are only those the well-known index publishes, "h") and a hash of the query's
// words and of whether its last word is a prefix, so that a cursor goes on only with the
// query, and the surface, it came from.
func queryKind(q search.Query, published bool) string {
	h := fnv.New64a()
	for _, w := range q.Words() {
		h.Write([]byte(w))
		h.Write([]byte{0})
	}
	if q.Prefix() {
		h.Write([]byte{1})
	}
	kind := "q"
	if published {
		kind = "h"
	}
	return kind + strconv.FormatUint(h.Sum64(), 36)
}

// httpSearch answers GET /.well-known/agent-skills/search?q=…&limit=…&cursor=… (for agents
// and programs that speak only HTTP): the entries of the well-known index (discovery v0.2.0)
// that a search for q finds, best first, each with its score, as one JSON object
// {query, total, skills, nextCursor?}; cacheable as the index is. Bad input is 400, saying
// what is allowed; wellKnown has answered any method but GET and HEAD.
func (s *Server) httpSearch(r *wire.Request, f *Facts) *wire.Response {
	var q, limit, cursor gjson.Result
	unknown := ""
	ok := queryParams(r.Target, func(key, val string) bool {
		value := gjson.Result{Type: gjson.String, Str: val, Raw: val}
		switch key {
		case "q":
			q = value
		case "limit":
			limit = gjson.Result{Type: gjson.Number, Raw: val}
		case "cursor":
			cursor = value
		default:
			unknown = key
			return false
		}
		return true
	})
	switch {
	case !ok:
		return s.httpText(400, "skilledge: search: the query string is malformed (a bad %-escape or not UTF-8)\n")
	case unknown != "":
		return s.httpText(400, "skilledge: search: unknown parameter "+strconv.Quote(clip(unknown))+"; it takes q (the words to search for), limit (1 to "+strconv.Itoa(s.opt.PageSize)+") and cursor\n")
	}
	if !q.Exists() {
		return s.httpText(400, "skilledge: search: give the words to search for as q: "+catalog.AgentSkillsSearch+"?q=fill+a+pdf+form\n")
	}
	n := min(DefaultSearchLimit, s.opt.PageSize)
	if limit.Exists() {
		var ok bool
		if n, ok = wholeNumber(limit, s.opt.PageSize); !ok {
			return s.httpText(400, "skilledge: search: limit must be a whole number from 1 to "+strconv.Itoa(s.opt.PageSize)+"\n")
		}
	}
	run, fail := s.runSearch(q.Str, cursor, n, true)
	switch {
	case fail == nil:
	case fail.query != nil:
		return s.httpText(400, "skilledge: search: q: "+fail.query.Error()+"\n")
	case fail.cursor != nil:
		return s.httpText(400, "skilledge: search: cursor: not one this query's pages gave; search again without it\n")
	default:
		return s.httpText(400, "skilledge: search: "+fail.index+"\n")
	}
	defer run.done()
	f.read = wire.ReadListing
	b := []byte(`{"query":`)
	b = jsonrpc.AppendString(b, q.Str)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(len(run.hits)), 10)
	b = append(b, `,"skills":[`...)
	for i := run.from; i < run.to; i++ {
		h := run.hits[i]
		entry := run.ix.Entry(h.Skill)
		if i > run.from {
			b = append(b, ',')
		}
		b = append(b, entry[:len(entry)-1]...) // the entry without its closing brace
		b = append(b, `,"score":`...)
		b = strconv.AppendFloat(b, run.ix.Score(h.Score), 'f', 3, 64)
		b = append(b, '}')
	}
	b = append(b, ']')
	b = s.appendNextCursor(b, run.kind, run.to, len(run.hits))
	b = append(b, "}\n"...)
	return &wire.Response{Status: 200, Header: header("Content-Type", "application/json", "Cache-Control", s.cacheControl()), Body: b}
}

// queryParams calls each with the name and value of each pair of target's query string,
// decoded (unescapeQuery), in order, until it returns false; empty pairs ("a=1&&b=2") are
// skipped. It is false when a pair is malformed (a bad escape, or not UTF-8).
func queryParams(target string, each func(key, val string) bool) bool {
	_, raw, _ := strings.Cut(target, "?")
	for raw != "" {
		var kv string
		if kv, raw, _ = strings.Cut(raw, "&"); kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		key, ok1 := unescapeQuery(k)
		val, ok2 := unescapeQuery(v)
		if !ok1 || !ok2 {
			return false
		}
		if !each(key, val) {
			return true
		}
	}
	return true
}

// unescapeQuery decodes one name or value of a URL's query: %XX escapes, and + for a
// space; false when an escape is malformed or the result is not UTF-8.
func unescapeQuery(s string) (string, bool) {
	if !strings.ContainsAny(s, "%+") {
		return s, utf8.ValidString(s)
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			b = append(b, ' ')
		case '%':
			if i+2 >= len(s) || s[i+1] == '+' || s[i+1] == '-' {
				return "", false
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", false
			}
			b = append(b, byte(v))
			i += 2
		default:
			b = append(b, c)
		}
	}
	return string(b), utf8.Valid(b)
}
