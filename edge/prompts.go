package edge

import (
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// The prompts fallback (PROTOCOL.md#fallbacks, Options.Prompts): one prompt per skill,
// named by the skill's index name (catalog.IndexNames: its path, with "-" for "/", when
// names repeat; catalog.FallbackPrompt), whose message is the skill's SKILL.md. Hosts show prompts as
// slash commands, so a person can hand a skill to the model by name. See
// https://modelcontextprotocol.io/specification/2025-11-25/server/prompts

// promptsList answers prompts/list: one entry per skill, paginated like skills/list.
func (s *Server) promptsList(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	n := s.pack.NumSkills()
	from, to, err := s.page(c, "p", n)
	if err != nil {
		return nil, err
	}
	b = append(b, `"prompts":[`...)
	s.pack.Want(from, to)
	b, to = appendPage(b, from, to, pageBudget, func(i int) []byte { return s.pack.Fallback(i, catalog.FallbackPromptEntry) })
	b = append(b, ']')
	return s.appendNextCursor(b, "p", to, n), nil
}

// promptsGet answers prompts/get {name}: the skill's description and its SKILL.md as one
// user message, the text spliced from the store. The prompts take no arguments; any
// given are ignored.
func (s *Server) promptsGet(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	name := c.p.name
	if name.Type != gjson.String {
		return nil, invalidParams("params.name must be a string: the name of a prompt")
	}
	i, ok := s.pack.SkillByPrompt(name.Str)
	if !ok {
		c.missed = true
		return nil, invalidParams("Prompt not found: " + strconv.Quote(clip(name.Str)) + " (prompts/list lists them)").
			WithData(nameData(name.Str))
	}
	c.aboutSkill(s.pack, i, wire.ReadActivation)
	b = append(b, `"description":`...)
	b = append(b, s.pack.Skill(i, catalog.SkillDescription)...)
	b = append(b, `,"messages":[{"role":"user","content":`...)
	b = s.appendBlock(c, b, s.pack.SkillMD(i))
	return append(b, "}]"...), nil
}
