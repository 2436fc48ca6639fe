package edge

import (
	"strings"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
)

// Well-known HTTP discovery (PROTOCOL.md#well-known), for agents that do not speak MCP: the
// discovery RFC v0.2.0 index at /.well-known/agent-skills/index.json with each skill's
// SKILL.md or .tar.gz (and .zip) beside it, and the v0.1.0 / DVS index at
// /.well-known/skills/index.json with every file under /.well-known/skills/<name>/. The
// indexes are rendered at build time; files and archives are the same resources MCP serves,
// so every digest agrees. Every body here is one object of the content store, which the
// host splices in. The paths are catalog's (catalog.AgentSkillsPrefix,
// catalog.SkillsPrefix, …), under which catalog/compile renders the indexes. See
// https://github.com/cloudflare/agent-skills-discovery-rfc

// wellKnown answers a request under /.well-known/, and records on f what it read.
func (s *Server) wellKnown(r *wire.Request, hd *headers, path string, f *Facts) *wire.Response {
	if r.Method != "GET" && r.Method != "HEAD" {
		resp := s.httpText(405, "skilledge: well-known discovery answers GET and HEAD\n")
		resp.Header = append(resp.Header, wire.Field{Name: "Allow", Value: "GET, HEAD"})
		return resp
	}
	if path == catalog.AgentSkillsSearch {
		return s.httpSearch(r, f)
	}
	if obj, ok := s.pack.HTTPDoc(path, catalog.HTTPObject); ok {
		ct, _ := s.pack.HTTPDoc(path, catalog.HTTPContentType)
		digest, _ := s.pack.HTTPDoc(path, catalog.HTTPDigest)
		f.read = wire.ReadListing
		return artifact(hd, string(ct), string(digest), s.pack, obj, s.cacheControl())
	}
	var rest string
	archives := false
	switch {
	case strings.HasPrefix(path, catalog.AgentSkillsPrefix):
		rest, archives = path[len(catalog.AgentSkillsPrefix):], true
	case strings.HasPrefix(path, catalog.SkillsPrefix):
		rest = path[len(catalog.SkillsPrefix):]
	default:
		return s.notFound()
	}
	name, file, inSkill := strings.Cut(rest, "/")
	var ext string
	if !inSkill && archives {
		for _, e := range [...]string{catalog.ArchiveTarGz, catalog.ArchiveZip} {
			if n, ok := strings.CutSuffix(rest, e); ok {
				name, ext = n, e
			}
		}
	}
	found := s.pack.SkillsByName(name)
	if len(found) != 1 || (!inSkill && ext == "") || (inSkill && file == "") {
		return s.notFound()
	}
	skill := found[0]
	pack, res := s.pack, -1
	switch {
	case ext != "":
		if tgz, zip, ok := s.pack.Archives(skill); ok {
			res = tgz
			if ext == catalog.ArchiveZip {
				res = zip
			}
		}
	case strings.HasPrefix(file, catalog.VersionMark):
		if h, i, ok := s.wellKnownVersion(skill, file, archives); ok {
			pack, res = h, i
		}
	default:
		root := strings.TrimSuffix(string(s.pack.Skill(skill, catalog.SkillURI)), catalog.SkillMD)
		if uri, err := catalog.ParseURI(root + file); err == nil {
			if i, ok := s.pack.ResourceByURI(uri); ok {
				res = i
			}
		}
	}
	if res < 0 {
		return s.notFound()
	}
	f.read, f.pack, f.uri, f.dir, f.skill = "?", pack, unsafeString(pack.Resource(res, catalog.ResURI)), false, -1
	ct := string(pack.Resource(res, catalog.ResMIME))
	if text := catalog.IsTextHead(pack.Resource(res, catalog.ResReadHead)); text && strings.HasPrefix(ct, "text/") {
		ct += "; charset=utf-8"
	}
	return artifact(hd, ct, string(pack.Resource(res, catalog.ResDigest)), pack, pack.Resource(res, catalog.ResObject), s.cacheControl())
}

// artifact answers with the store object that the reference field obj of the index p
// names, a strong ETag made from its digest, caching headers, and 304 when If-None-Match
// names the ETag.
func artifact(hd *headers, contentType, digest string, p *catalog.Pack, obj []byte, cacheControl string) *wire.Response {
	etag := `"` + strings.Replace(digest, ":", "-", 1) + `"`
	h := header("Content-Type", contentType, "ETag", etag, "Cache-Control", cacheControl)
	if hd.hasIfNoneMatch && etagMatches(hd.ifNoneMatch, etag) {
		return &wire.Response{Status: 304, Header: h}
	}
	return &wire.Response{Status: 200, Header: h, Refs: appendRef(nil, 0, p, obj)}
}

// etagMatches implements If-None-Match: "*" or a comma-separated list of entity tags,
// compared weakly as RFC 9110 §13.1.2 requires for this header.
func etagMatches(list, etag string) bool {
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

func (s *Server) httpText(status int, body string) *wire.Response {
	return &wire.Response{Status: status, Header: header("Content-Type", "text/plain; charset=utf-8"), Body: []byte(body)}
}
