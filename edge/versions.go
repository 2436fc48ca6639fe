package edge

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// Versions (PROTOCOL.md#versions). An older version of a skill is a skill of its own at
// its version path, in the index of the older versions (Server.history): a lookup by URI
// that the latest skills miss is asked of it (answer), so resources/read,
// resources/directory/read and skills/get {uri} serve every kept version with no code of
// their own. Listings never see it. skills/get {name, version} picks a version of the
// skill the name picks (version), well-known discovery serves a version's files and
// archives under its skill's name (wellKnownVersion), and completion completes version
// paths once a value names one (completion.go).

// version returns the index and row of the version named by params.version (v) of the
// skill at row i of s's index, which the name picked: i itself when v is absent, else the
// version's row in the history index (where the latest is at its version path too). A version the skill
// does not have is -32602 naming the versions it has.
func (s *Server) version(i int, name string, v gjson.Result) (*catalog.Pack, int, *jsonrpc.Error) {
	if !v.Exists() || v.Type == gjson.Null {
		return s.pack, i, nil
	}
	if v.Type != gjson.String {
		return nil, 0, invalidParams("params.version must be a string")
	}
	// Every kept version, the latest's too, is at its version path in the history index.
	if uri, ok := s.pack.SkillVersionURI(i, v.Str); ok && s.history != nil {
		if j, ok := s.history.pack.SkillByURI(uri); ok {
			return s.history.pack, j, nil
		}
	}
	kept := s.pack.SkillVersionNames(i)
	if len(kept) == 0 {
		// No history: the one version there is, the frontmatter's.
		if fv := gjson.GetBytes(s.pack.Skill(i, catalog.SkillFrontmatter), "version"); fv.Type == gjson.String && fv.Str == v.Str {
			return s.pack, i, nil
		}
	}
	msg := "Skill " + strconv.Quote(clip(name)) + " has no version " + strconv.Quote(clip(v.Str))
	if len(kept) > 0 {
		msg += "; its kept versions, newest first: " + strings.Join(kept, ", ")
	} else {
		msg += "; this server keeps no history of it"
	}
	data := jsonrpc.AppendString([]byte(`{"name":`), clip(name))
	data = jsonrpc.AppendString(append(data, `,"version":`...), clip(v.Str))
	return nil, 0, invalidParams(msg).WithData(append(data, '}'))
}

// appendVersionsMeta appends to a result's members the _meta of a skill's kept versions,
// member (catalog.SkillVersions), when it has any.
func appendVersionsMeta(b, member []byte) []byte {
	if len(member) == 0 {
		return b
	}
	b = append(b, `,"_meta":{`...)
	b = append(b, member...)
	return append(b, '}')
}

// wellKnownVersion finds, for the well-known path of the skill at row skill under its name
// followed by rest ("@VERSION/NAME/FILE", or "@VERSION/NAME.tar.gz" and ".zip" when
// archives are served there), the older version's resource: its index and row, or false.
func (s *Server) wellKnownVersion(skill int, rest string, archives bool) (*catalog.Pack, int, bool) {
	if s.history == nil {
		return nil, 0, false
	}
	h := s.history.pack
	root := strings.TrimSuffix(string(s.pack.Skill(skill, catalog.SkillURI)), catalog.SkillMD)
	mark, after, ok := strings.Cut(rest, "/")
	if !ok || !strings.HasPrefix(mark, catalog.VersionMark) {
		return nil, 0, false
	}
	if name, file, ok := strings.Cut(after, "/"); ok {
		uri, err := catalog.ParseURI(root + mark + "/" + name + "/" + file)
		if err != nil || file == "" {
			return nil, 0, false
		}
		i, ok := h.ResourceByURI(uri)
		return h, i, ok
	}
	if !archives {
		return nil, 0, false
	}
	for k, ext := range [...]string{catalog.ArchiveTarGz, catalog.ArchiveZip} {
		name, ok := strings.CutSuffix(after, ext)
		if !ok {
			continue
		}
		uri, err := catalog.ParseURI(root + mark + "/" + name + "/" + catalog.SkillMD)
		if err != nil {
			return nil, 0, false
		}
		j, ok := h.SkillByURI(uri)
		if !ok {
			return nil, 0, false
		}
		tgz, zip, ok := h.Archives(j)
		if !ok {
			return nil, 0, false
		}
		if k == 0 {
			return h, tgz, true
		}
		return h, zip, true
	}
	return nil, 0, false
}

// changes answers GET and HEAD of the change feed (catalog.ChangesJSON, ChangesAtom), a
// document of the caller's own index: 404 for a catalog that keeps no history.
func (s *Server) changes(r *wire.Request, hd *headers, path string) *wire.Response {
	obj, ok := s.pack.HTTPDoc(path, catalog.HTTPObject)
	if !ok {
		return s.notFound()
	}
	if r.Method != "GET" && r.Method != "HEAD" {
		resp := s.httpText(405, "skilledge: the change feed answers GET and HEAD\n")
		resp.Header = append(resp.Header, wire.Field{Name: "Allow", Value: "GET, HEAD"})
		return resp
	}
	ct, _ := s.pack.HTTPDoc(path, catalog.HTTPContentType)
	digest, _ := s.pack.HTTPDoc(path, catalog.HTTPDigest)
	if path == catalog.ChangesAtom {
		ct = []byte("application/atom+xml; charset=utf-8")
	}
	return artifact(hd, string(ct), string(digest), s.pack, obj, s.cacheControl())
}
