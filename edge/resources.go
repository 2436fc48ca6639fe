package edge

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/jsonrpc"
)

// resourcesList answers resources/list: every served file, SKILL.md first within each
// skill, then skill://index.json, paginated. Directory resources and archives are not
// listed (PROTOCOL.md#resources); archives are read by the URIs the index gives. With
// params.uri, the listing is scoped (scopedList).
func (s *Server) resourcesList(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	if c.p.uri.Exists() && c.p.uri.Type != gjson.Null {
		return s.scopedList(c, b)
	}
	n := s.pack.NumListed()
	from, to, err := s.page(c, "r", n)
	if err != nil {
		return nil, err
	}
	b = append(b, `"resources":[`...)
	s.pack.WantResources(from, to)
	b, to = appendPage(b, from, to, pageBudget, func(i int) []byte { return s.pack.Resource(i, catalog.ResList) })
	b = append(b, ']')
	return s.appendNextCursor(b, "r", to, n), nil
}

// resourcesRead answers resources/read with the file's bytes exactly as stored: text for
// UTF-8 text, base64 blob otherwise, the value spliced in by the host from the content
// store. A directory or an unknown URI is -32602 with data {uri} (SEP-2164), never an
// empty contents array. A sharded index answers a file's read from its read chunks
// (catalog.ReadByURI), without the file's shard, and the same bytes.
func (s *Server) resourcesRead(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	uri, raw, err := s.uriParam(c)
	if err != nil {
		return nil, err
	}
	if r, ok := s.pack.ReadByURI(uri); ok {
		c.aboutFile(uri, r.Skill)
		return s.appendContents(c, b, uri, raw, r.HeadRest, true, r.Value, r.Meta), nil
	}
	i, ok := s.pack.ResourceByURI(uri)
	if !ok {
		if _, dir := s.pack.DirByURI(uri); dir {
			return nil, invalidParams("Resource is a directory; list it with resources/directory/read: " + clip(raw)).
				WithData(uriData(raw))
		}
		c.missed = true
		return nil, resourceNotFound(raw)
	}
	c.about(s.pack, uri, false)
	head := s.pack.Resource(i, catalog.ResReadHead)
	rest, cut := catalog.CutReadHeadURI(head, uri)
	return s.appendContents(c, b, uri, raw, rest, cut, s.pack.Resource(i, catalog.ResReadValue), s.pack.Resource(i, catalog.ResReadMeta)), nil
}

// appendContents appends the contents array of a read of the resource at the canonical
// uri, asked for as raw: its head, the value the cell value names, and meta after the
// array. When cut, head is what follows the head's URI member (catalog.CutReadHeadURI),
// and the member is written with the URI as the client wrote it (clients match contents
// to requests by string); otherwise head is written as it is.
func (s *Server) appendContents(c *call, b []byte, uri, raw string, head []byte, cut bool, value, meta []byte) []byte {
	b = append(b, `"contents":[`...)
	if cut {
		b = append(b, catalog.ReadHeadURIKey...)
		if raw != uri {
			b = jsonrpc.AppendString(b, raw)
		} else {
			b = append(append(append(b, '"'), uri...), '"') // as the head holds it
		}
	}
	b = append(b, head...)
	b = c.splice(b, s.pack, value)
	b = append(b, "}]"...)
	return append(b, meta...)
}

// scopedList answers resources/list {uri} (PROTOCOL.md#scoped-listing, the pre-submission
// skills SEP via SEP-2093): one entry per skill whose SKILL.md is under uri, that
// SKILL.md's descriptor, and no supporting files. "skill://" lists every skill;
// "skill://acme/" (or "skill://acme") the skills under acme, segment by segment. Entries
// come in SKILL.md URI order, paginated; the range is two binary searches in the index. A
// URI of another scheme has nothing under it; a malformed skill URI is -32602.
//
// Why does a scoped `resources/list` match URI segments, list skills only, and answer
// other schemes with nothing? The pre-submission skills SEP scopes resources/list by
// params.uri and, for a skill scope, lists skills, not their files. A plain string prefix
// would put skill://acmecorp/x under skill://acme. Each entry is the skill's SKILL.md
// descriptor, stored once more per skill in the index (the writer dedups the bytes), and
// the skills under a scope are a contiguous range of the index's skills sorted by SKILL.md
// URI; so entries come in URI order, not listing order. A URI of another scheme has,
// truthfully, nothing of ours under it: an empty list, where -32602 would break a client
// that scopes every server it talks to. Cursors carry the scope's range, so a cursor of
// one scope is refused by another.
func (s *Server) scopedList(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	u := c.p.uri
	if u.Type != gjson.String {
		return nil, invalidParams("params.uri must be a string")
	}
	lo, hi := 0, 0
	switch scope := u.Str; {
	case len(scope) < len(catalog.Scheme) || !strings.EqualFold(scope[:len(catalog.Scheme)], catalog.Scheme):
		// Not a skill URI: none of this server's resources is under it.
	case len(scope) == len(catalog.Scheme):
		lo, hi = s.pack.SkillsUnder(catalog.Scheme)
	default:
		uri, err := catalog.ParseURI(strings.TrimSuffix(scope, "/"))
		if err != nil {
			return nil, invalidParams("Invalid scope: " + clip(scope) + " (" + err.Error() + ")").WithData(uriData(scope))
		}
		lo, hi = s.pack.SkillsUnder(uri + "/")
	}
	n := hi - lo
	kind := "u" + strconv.Itoa(lo) + "." + strconv.Itoa(hi)
	from, to, err := s.page(c, kind, n)
	if err != nil {
		return nil, err
	}
	b = append(b, `"resources":[`...)
	s.pack.WantRanks(lo+from, lo+to)
	b, to = appendPage(b, from, to, pageBudget, func(k int) []byte { return s.pack.Skill(s.pack.SkillByURIRank(lo+k), catalog.SkillListed) })
	b = append(b, ']')
	return s.appendNextCursor(b, kind, to, n), nil
}

// templatesList answers resources/templates/list: a template for skills and one for the
// files of a skill, whose arguments completion/complete suggests (completion.go).
func (s *Server) templatesList(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	return append(b, `"resourceTemplates":`+templatesJSON...), nil
}

// directoryRead answers resources/directory/read: the direct children of a directory
// resource, files with their resource metadata and subdirectories as inode/directory
// entries, paginated.
func (s *Server) directoryRead(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	uri, raw, err := s.uriParam(c)
	if err != nil {
		return nil, err
	}
	d, ok := s.pack.DirByURI(uri)
	if !ok {
		if _, file := s.pack.ResourceByURI(uri); file {
			return nil, invalidParams("Not a directory: " + clip(raw)).WithData(uriData(raw))
		}
		c.missed = true
		return nil, invalidParams("Directory not found: " + clip(raw)).WithData(uriData(raw))
	}
	c.about(s.pack, uri, true)
	n := s.pack.NumChildren(d)
	kind := "d" + strconv.Itoa(d)
	from, to, err := s.page(c, kind, n)
	if err != nil {
		return nil, err
	}
	child := func(k int) []byte {
		if ch := s.pack.ChildAt(d, k); ch.Dir {
			return s.pack.Dir(ch.Index, catalog.DirList)
		} else {
			return s.pack.Resource(ch.Index, catalog.ResList)
		}
	}
	b = append(b, `"resources":[`...)
	b, to = appendPage(b, from, to, pageBudget, child)
	b = append(b, ']')
	return s.appendNextCursor(b, kind, to, n), nil
}

// uriParam reads params.uri and returns it in canonical form (catalog.ParseURI) and as
// sent, or an informative -32602. A URI that does not parse cannot name a resource, so it
// gets the not-found error with the reason appended.
func (s *Server) uriParam(c *call) (canonical, raw string, err *jsonrpc.Error) {
	u := c.p.uri
	if u.Type != gjson.String {
		return "", "", invalidParams("params.uri must be a string")
	}
	uri, perr := catalog.ParseURI(u.Str)
	if perr != nil {
		return "", u.Str, invalidParams("Resource not found: " + clip(u.Str) + " (" + perr.Error() + ")").
			WithData(uriData(u.Str))
	}
	return uri, u.Str, nil
}

func resourceNotFound(uri string) *jsonrpc.Error {
	return invalidParams("Resource not found: " + clip(uri)).WithData(uriData(uri))
}

// uriData is the data {uri} of a -32602 about uri (SEP-2164), the URI clipped as error
// messages are (a URI is rarely longer than a few dozen bytes).
func uriData(uri string) []byte {
	uri = clip(uri)
	b := append(make([]byte, 0, len(uri)+10), `{"uri":`...)
	b = jsonrpc.AppendString(b, uri)
	return append(b, '}')
}
