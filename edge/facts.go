package edge

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
)

// Facts are what an answer was (wire.Facts), as AppendHTTPFacts gathered them while it
// answered. The skill a read concerned is worked out only when the facts are asked for
// (Wire, Append), from the view that answered, so a host that asks for none pays for
// none. A Facts refers to the request it was gathered from and to the server's index: it
// is valid while both are.
type Facts struct {
	route, method, version, read string
	code                         int64
	readOf
	// caller and client are who asked, when the auth option let them in.
	caller, client string
}

// readOf is what a read concerned: a resource or directory by canonical URI (uri,
// classified when asked), or a skill by its row (skill >= 0), in pack; or a file of a
// skill that the read said itself (aboutFile): then nothing is classified.
type readOf struct {
	pack   *catalog.Pack
	uri    string
	dir    bool
	skill  int
	file   bool   // the read said what it was: a file (or activation) of skill fileOf
	fileOf string // the escaped path of the skill the file at uri is of
}

// about records that c read the resource (or, dir, the directory) of pack at the
// canonical uri: what of a skill it was is worked out when the facts are asked for.
func (c *call) about(p *catalog.Pack, uri string, dir bool) {
	c.facts = Facts{read: "?", readOf: readOf{pack: p, uri: uri, dir: dir, skill: -1}}
}

// aboutFile records that c read the file at the canonical uri of the skill at the escaped
// path skill, as a sharded index's read chunks say (catalog.Read): what classify would
// find, without the shards it would read.
func (c *call) aboutFile(uri, skill string) {
	c.facts = Facts{read: wire.ReadFile, readOf: readOf{uri: uri, skill: -1, file: true, fileOf: skill}}
	if uri[len(catalog.Scheme)+len(skill):] == "/"+catalog.SkillMD {
		c.facts.read = wire.ReadActivation
	}
}

// aboutSkill records that c read skill i of pack as read says.
func (c *call) aboutSkill(p *catalog.Pack, i int, read string) {
	c.facts = Facts{read: read, readOf: readOf{pack: p, skill: i}}
}

// listing records that c read a listing of the catalog.
func (c *call) listing() { c.facts = Facts{read: wire.ReadListing, readOf: readOf{skill: -1}} }

// Wire returns the facts in the contract's terms. Its strings may alias the request and
// the index.
func (f *Facts) Wire() wire.Facts {
	w := wire.Facts{Route: f.route, Method: f.method, Version: f.version, Read: f.read, Code: f.code, Caller: f.caller, Client: f.client}
	switch {
	case f.file:
		w.Skill, w.URI = f.fileOf, f.uri
	case f.pack == nil:
	case f.skill >= 0:
		w.Skill = unsafeString(f.pack.SkillPath(f.skill))
	case f.uri != "":
		w.Read, w.Skill = classify(f.pack, f.uri, f.dir)
		w.URI = f.uri
	}
	if w.Read == "?" {
		w.Read = ""
	}
	return w
}

// Append appends the encoding of the facts (wire.AppendFacts) to dst.
func (f *Facts) Append(dst []byte) []byte {
	w := f.Wire()
	return wire.AppendFacts(dst, &w)
}

// classify says what a read of the resource (or directory) of p at the canonical uri was,
// and of which skill: a skill's SKILL.md is its activation, its archives an archive, any
// other file of a skill a file, of the innermost skill holding it; a directory a directory
// read of the innermost skill holding it (or none, above every skill); anything else (the
// index, the change feed) a listing.
func classify(p *catalog.Pack, uri string, dir bool) (read, skill string) {
	path, ok := strings.CutPrefix(uri, catalog.Scheme)
	if !ok {
		return wire.ReadListing, ""
	}
	if dir {
		if _, ok := p.SkillByPath(path); ok {
			return wire.ReadDirectory, path
		}
		return wire.ReadDirectory, holder(p, path)
	}
	if rest, ok := strings.CutSuffix(path, "/"+catalog.SkillMD); ok {
		if _, ok := p.SkillByURI(uri); ok { // one search, where SkillByPath makes two
			return wire.ReadActivation, rest
		}
	}
	for _, ext := range [...]string{catalog.ArchiveTarGz, catalog.ArchiveZip} {
		if rest, ok := strings.CutSuffix(path, ext); ok {
			if _, ok := p.SkillByPath(rest); ok {
				return wire.ReadArchive, rest
			}
		}
	}
	if s := holder(p, path); s != "" {
		return wire.ReadFile, s
	}
	return wire.ReadListing, ""
}

// holder is the path of the innermost skill of p that path (a URI's path) lies under, or "".
func holder(p *catalog.Pack, path string) string {
	for i := strings.LastIndexByte(path, '/'); i > 0; i = strings.LastIndexByte(path[:i], '/') {
		if _, ok := p.SkillByPath(path[:i]); ok {
			return path[:i]
		}
	}
	return ""
}

// knownMethod is name when the server knows the method (or the notification), else
// wire.MethodOther: the facts never carry a name a client made up.
func knownMethod(name string) string {
	if _, ok := lookup(name); ok {
		return name
	}
	switch name {
	case "notifications/initialized":
		return name
	}
	return wire.MethodOther
}

// knownVersion is v when it is a revision the server speaks, else "".
func knownVersion(v string) string {
	if isLegacy(v) || isModern(v) {
		return v
	}
	return ""
}

// requestFacts records, on rb, the facts of a single request to the MCP endpoint once c
// is answered with code: what it read, unless it is an error, which read nothing and
// names no skill.
func (rb *reply) requestFacts(c *call, code int64) {
	f := &rb.facts
	f.code = code
	if code != 0 {
		return
	}
	f.read, f.readOf = c.facts.read, c.facts.readOf
	if f.read == "" {
		switch c.msg.Method {
		case "skills/list", "resources/list", "resources/templates/list", "tools/list", "prompts/list":
			f.read = wire.ReadListing
		case "tools/call":
			if f.pack == nil && c.p.name.Str == catalog.ToolListSkills {
				f.read = wire.ReadListing
			}
		}
	}
}

// routeOf is the route (wire.Facts.Route) of a request for target.
func (s *Server) routeOf(target string) string {
	path, _, _ := strings.Cut(target, "?")
	switch {
	case path == s.opt.Endpoint:
		return wire.RouteMCP
	case path == prmPath || path == prmPath+s.opt.Endpoint:
		return wire.RouteMetadata
	case strings.HasPrefix(path, "/.well-known/"):
		return wire.RouteWellKnown
	case path == catalog.ChangesJSON || path == catalog.ChangesAtom:
		return wire.RouteChanges
	case path == "/" || path == catalog.SitemapPath:
		return wire.RoutePage
	}
	return wire.RouteOther
}

// errorCode is the JSON-RPC error code of b, the body of an answer the server refused
// with an HTTP error, 0 when it holds none.
func errorCode(b []byte) int64 {
	return gjson.GetBytes(b, "error.code").Int()
}
