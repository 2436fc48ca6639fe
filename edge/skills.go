package edge

import (
	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/jsonrpc"
)

// skillsList answers skills/list (Skills extension v1): complete skill entries, never
// split across pages.
func (s *Server) skillsList(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	n := s.pack.NumSkills()
	from, to, err := s.page(c, "s", n)
	if err != nil {
		return nil, err
	}
	b = append(b, `"skills":[`...)
	for i := from; i < to; i++ {
		if i > from {
			b = append(b, ',')
		}
		b = append(b, s.pack.Skill(i, catalog.SkillEntry)...)
	}
	b = append(b, ']')
	return s.appendNextCursor(b, "s", to, n), nil
}

// skillsGet answers skills/get {uri}: the same entry as skills/list for the skill whose
// SKILL.md is uri, for every skill served.
func (s *Server) skillsGet(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	uri, raw, err := s.uriParam(c)
	if err != nil {
		return nil, err
	}
	i, ok := s.pack.SkillByURI(uri)
	if !ok {
		return nil, invalidParams("Skill not found: " + raw + " (skills/get takes the URI of a skill's SKILL.md, as in skills/list)").
			WithData(uriData(raw))
	}
	b = append(b, `"skill":`...)
	return append(b, s.pack.Skill(i, catalog.SkillEntry)...), nil
}
