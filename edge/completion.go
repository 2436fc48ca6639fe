package edge

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/search"
	"github.com/skilledge/skilledge/jsonrpc"
)

// The resource templates (PROTOCOL.md#templates, from the pre-submission skills SEP:
// optional, and user-facing through the completion API). Every resource is also listed
// concretely; the templates are there so that a person can pick a skill, then a file of it,
// with completion/complete suggesting each part.
//
// Why two resource templates, with completion values in URI form? The reference server
// offers one catch-all, skill://{+skillFilePath}, completing over every file of every
// skill: on a catalog of hundreds of files its suggestions are noise. The pre-submission
// SEP frames templates as user-facing, so there is one to pick a skill and one to pick a
// file of it (filePath completes once context.arguments.skillPath names a skill). Values
// are the path segments as they stand in the canonical URI, so a client can expand the
// template with them unchanged (+ expansion keeps percent-encodings); the skill path a
// client passes back is canonicalised as any URI is. Completing a path is two binary
// searches in tables built at build time, never a scan of the catalog, and completing words
// is a search, bounded as any query is (PROTOCOL.md#search); both stop at the 100 values
// MCP allows, which need not begin with the value: the specification asks for suggestions
// ranked by relevance. The 2026-07-28 schema gives CompleteResult no ttlMs, so completion is not a
// cacheable method. Prompt references are -32602: no prompt of this server completes
// arguments.
const (
	skillTemplate = catalog.Scheme + "{+skillPath}/" + catalog.SkillMD
	fileTemplate  = catalog.Scheme + "{+skillPath}/{+filePath}"
)

// templatesJSON is the resources/templates/list result's array.
const templatesJSON = `[{"uriTemplate":"` + skillTemplate + `","name":"skill","title":"Skill",` +
	`"description":"The SKILL.md of a skill, by the skill's path (for example acme/billing/refunds). completion/complete suggests skill paths.",` +
	`"mimeType":"` + catalog.SkillMDType + `"},` +
	`{"uriTemplate":"` + fileTemplate + `","name":"skill-file","title":"File of a skill",` +
	`"description":"A file of a skill, by the skill's path and the file's path in the skill (for example templates/refund-email.md). completion/complete suggests skill paths, then, given skillPath, the skill's file paths."}]`

// maxCompletions is the most values a completion result may carry (MCP, completion).
const maxCompletions = 100

// complete answers completion/complete for the arguments of the resource templates:
// skillPath by prefix over the paths of every skill, then by search (completeSkillPath),
// filePath by prefix over the paths of
// the files of the skill that context.arguments.skillPath names (none when it names no
// skill). Values are in the form they take in the URI (percent-encoded where needed),
// sorted; at most 100, with total and hasMore. Each is two binary searches in a sorted
// table of the index. See
// https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion
func (s *Server) complete(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	ref, arg := c.p.ref, c.p.argument
	if !ref.IsObject() {
		return nil, invalidParams(`params.ref must be an object: {"type":"ref/resource","uri":<template>}`)
	}
	if !arg.IsObject() {
		return nil, invalidParams("params.argument must be an object {name, value}")
	}
	name, value := member(arg, "name"), member(arg, "value")
	if name.Type != gjson.String || value.Type != gjson.String {
		return nil, invalidParams("params.argument.name and params.argument.value must be strings")
	}
	switch typ := member(ref, "type"); {
	case typ.Type == gjson.String && typ.Str == "ref/prompt":
		return nil, invalidParams("No prompt of this server completes arguments; the resource templates do (ref/resource)")
	case typ.Type != gjson.String || typ.Str != "ref/resource":
		return nil, invalidParams(`params.ref.type must be "ref/resource" or "ref/prompt"`)
	}
	uri := member(ref, "uri")
	if uri.Type != gjson.String {
		return nil, invalidParams("params.ref.uri must be a string")
	}
	if uri.Str != skillTemplate && uri.Str != fileTemplate {
		return nil, invalidParams("Unknown resource template: " + clip(uri.Str) + " (resources/templates/list lists " +
			skillTemplate + " and " + fileTemplate + ")").WithData(uriData(uri.Str))
	}
	switch {
	case name.Str == "skillPath":
		return s.completeSkillPath(b, value.Str), nil
	case name.Str == "filePath" && uri.Str == fileTemplate:
		return s.completeFilePath(c, b, value.Str)
	}
	return nil, invalidParams("The resource template " + clip(uri.Str) + " has no argument " + strconv.Quote(clip(name.Str)))
}

// completeSkillPath completes a skillPath: the paths that begin with value, in path order,
// then, when value holds a space, or is a word of three letters or more with no "/", the
// paths of the skills a search for value finds (Search), best first, that do not begin with
// it: typing "pdf forms" offers the skills about PDF forms, wherever they lie.
// At most maxCompletions values; total counts both, each skill once.
func (s *Server) completeSkillPath(b []byte, value string) []byte {
	p := s.completing(value)
	lo, hi := p.SkillPathsWithPrefix(value)
	b = append(b, `"completion":{"values":[`...)
	n := 0
	p.WantRanks(lo, min(hi, lo+maxCompletions))
	for k := lo; k < min(hi, lo+maxCompletions); k++ {
		if n > 0 {
			b = append(b, ',')
		}
		b = jsonrpc.AppendString(b, unsafeString(p.SkillPath(p.SkillByPathRank(k))))
		n++
	}
	total := hi - lo
	var ix *search.Index
	if p == s.pack {
		ix = s.searchIndex()
	}
	if words := strings.ContainsAny(value, " \t"); ix == nil || !words && (strings.Contains(value, "/") || len(value) < 3) {
		return appendCompletionEnd(b, total) // a path being typed, or its first letters: the prefix is what it asks
	}
	q, err := search.ParseQuery(value)
	if err != nil {
		return appendCompletionEnd(b, total)
	}
	room := searchScratch.Get().(*searchRoom)
	defer searchScratch.Put(room)
	room.hits = s.find(ix, q, &room.sc, room.hits[:0])
	// In order, as many as can be offered, past those the prefix offered already; the rest
	// are only counted.
	best := maxCompletions + (hi - lo)
	search.Best(room.hits, best)
	// A sharded index reads only the hits it may offer, their shards asked for in one
	// round: in path order, a hit's path begins with value when its row is in [lo, hi), and
	// only the first maxCompletions others are read; out of it, the first 2×maxCompletions
	// hits are read, and a hit past them is counted unread (and may be counted twice, if
	// the prefix offered it too). A whole index reads every hit, to count it.
	sharded, ranked := p.Sharded(), p.InPathOrder()
	read := len(room.hits)
	if sharded {
		if ranked {
			var offer []search.Hit
			for i, h := range room.hits {
				if len(offer) == maxCompletions || i >= best {
					break
				}
				if h.Skill < lo || h.Skill >= hi {
					offer = append(offer, h)
				}
			}
			s.wantHits(offer)
		} else {
			read = min(len(room.hits), 2*maxCompletions)
			s.wantHits(room.hits[:read])
		}
	}
	for i, h := range room.hits {
		var offered bool
		switch {
		case sharded && ranked:
			offered = h.Skill >= lo && h.Skill < hi
		case i >= read: // a sharded index's, counted unread
		default:
			offered = strings.HasPrefix(unsafeString(p.SkillPath(h.Skill)), value)
		}
		if offered {
			continue // offered already, in path order
		}
		if total++; n < maxCompletions && i < best && i < read {
			if n > 0 {
				b = append(b, ',')
			}
			b = jsonrpc.AppendString(b, unsafeString(p.SkillPath(h.Skill)))
			n++
		}
	}
	return appendCompletionEnd(b, total)
}

// completeFilePath completes the filePath of a file of the skill named by
// context.arguments.skillPath.
func (s *Server) completeFilePath(c *call, b []byte, value string) ([]byte, *jsonrpc.Error) {
	args := c.p.context
	if args.Exists() && args.Type != gjson.Null {
		if !args.IsObject() {
			return nil, invalidParams("params.context must be an object")
		}
		args = member(args, "arguments")
	}
	if args.Exists() && args.Type != gjson.Null && !args.IsObject() {
		return nil, invalidParams("params.context.arguments must be an object")
	}
	b = append(b, `"completion":{"values":[`...)
	sp := member(args, "skillPath")
	if !sp.Exists() {
		return appendCompletionEnd(b, 0), nil // no skill chosen yet: nothing to suggest
	}
	if sp.Type != gjson.String {
		return nil, invalidParams("params.context.arguments.skillPath must be a string")
	}
	uri, err := catalog.ParseURI(catalog.Scheme + sp.Str)
	if err != nil {
		return appendCompletionEnd(b, 0), nil
	}
	p := s.completing(sp.Str)
	i, ok := p.SkillByPath(uri[len(catalog.Scheme):])
	if !ok {
		return appendCompletionEnd(b, 0), nil
	}
	dir := len(uri) + 1 // the file path starts after "skill://<skill path>/"
	lo, hi := p.SkillFilesWithPrefix(i, uri+"/"+value)
	for k := lo; k < min(hi, lo+maxCompletions); k++ {
		if k > lo {
			b = append(b, ',')
		}
		b = jsonrpc.AppendString(b, unsafeString(p.Resource(p.SkillFileAt(i, k), catalog.ResURI)[dir:]))
	}
	return appendCompletionEnd(b, hi-lo), nil
}

// appendCompletionEnd closes the values of a completion with total matches in all.
func appendCompletionEnd(b []byte, total int) []byte {
	b = append(b, `],"total":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	if total > maxCompletions {
		return append(b, `,"hasMore":true}`...)
	}
	return append(b, `,"hasMore":false}`...)
}

// member returns the member key of the JSON object obj (first occurrence), or the zero
// Result when obj is not an object or has no such member.
func member(obj gjson.Result, key string) gjson.Result {
	if !obj.IsObject() {
		return gjson.Result{}
	}
	for m := jsonrpc.NewMembers(unsafeBytes(obj.Raw)); m.Next(); {
		if m.Key == key {
			return jsonrpc.Value(m.Value)
		}
	}
	return gjson.Result{}
}

// completing returns the index whose skill paths complete the skill path value: the older
// versions' when value goes on from a listed skill's path into its versions
// ("acme/x/@", catalog.VersionPath), the latest skills' otherwise. Versions of a skill
// left out of listings are completed no more than it is.
func (s *Server) completing(value string) *catalog.Pack {
	i := strings.Index(value, "/"+catalog.VersionMark)
	if i < 0 || s.history == nil {
		return s.pack
	}
	if uri, err := catalog.ParseURI(catalog.Scheme + value[:i]); err == nil {
		if _, ok := s.pack.SkillByPath(uri[len(catalog.Scheme):]); ok {
			return s.history.pack
		}
	}
	return s.pack
}
