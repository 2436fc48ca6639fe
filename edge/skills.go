package edge

import (
	"bytes"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// skillsList answers skills/list (Skills extension v1): complete skill entries, never
// split across pages.
//
// A catalog whose root is signed says where the root is in the result's _meta, under
// catalog.MetaRoot: its resource URI (PROTOCOL.md#signed-root).
func (s *Server) skillsList(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	if c.p.query.Exists() && c.p.query.Type != gjson.Null {
		return s.skillsSearch(c, b)
	}
	n := s.pack.NumSkills()
	from, to, err := s.page(c, "s", n)
	if err != nil {
		return nil, err
	}
	b = append(b, `"skills":[`...)
	s.pack.Want(from, to) // a sharded index's shards of the page, in one round
	b, to = appendPage(b, from, to, pageBudget, func(i int) []byte { return s.pack.Skill(i, catalog.SkillEntry) })
	b = append(b, ']')
	b = s.appendNextCursor(b, "s", to, n)
	if s.rooted {
		b = append(b, `,"_meta":{"`+catalog.MetaRoot+`":"`+catalog.RootURI+`"}`...)
	}
	return b, nil
}

// skillsGet answers skills/get {uri}: the same entry as skills/list for the skill whose
// SKILL.md is uri, for every skill served. Without a uri, {name} is the SEP-2076 form.
func (s *Server) skillsGet(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	if !c.p.uri.Exists() && c.p.name.Exists() {
		return s.skillsGetByName(c, b)
	}
	uri, raw, err := s.uriParam(c)
	if err != nil {
		return nil, err
	}
	i, ok := s.pack.SkillByURI(uri)
	if !ok {
		c.missed = true
		return nil, invalidParams("Skill not found: " + clip(raw) + " (skills/get takes the URI of a skill's SKILL.md, as in skills/list)").
			WithData(uriData(raw))
	}
	c.aboutSkill(s.pack, i, wire.ReadActivation)
	b = append(b, `"skill":`...)
	b = append(b, s.pack.Skill(i, catalog.SkillEntry)...)
	return appendVersionsMeta(b, s.pack.Skill(i, catalog.SkillVersions)), nil
}

// skillsGetByName answers the SEP-2076 skills/get {name, arguments?}:
// {description, instructions, files}, and the skill's arguments and dependencies when its
// frontmatter declares them. The name is a skill's index name (catalog.IndexNames, as
// skills/list gives it), and arguments must
// hold every argument the skill declares required (-32602 naming the missing ones); their
// values change nothing (a prebuilt catalog has no templated skills).
func (s *Server) skillsGetByName(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	name := c.p.name
	if name.Type != gjson.String {
		return nil, invalidParams("params.name must be a string")
	}
	if a := c.p.arguments; a.Exists() && a.Type != gjson.Null && !a.IsObject() {
		return nil, invalidParams("params.arguments must be an object")
	}
	found := s.pack.SkillsByName(name.Str) // index names: one skill each
	if len(found) == 0 {
		c.missed = true
		return nil, invalidParams("Skill not found: " + strconv.Quote(clip(name.Str)) +
			" (skills/list gives each skill's name; one whose name another shares is asked for by a qualified name)").WithData(nameData(name.Str))
	}
	p, i, err := s.version(found[0], name.Str, c.p.version)
	if err != nil {
		return nil, err
	}
	if err := missingArguments(p.Skill(i, catalog.SkillRequired), c.p.arguments, name); err != nil {
		return nil, err
	}
	c.aboutSkill(p, i, wire.ReadActivation)
	b = append(b, p.Skill(i, catalog.SkillByNameHead)...)
	b = c.splice(b, p, p.Skill(i, catalog.SkillInstructions))
	b = append(b, p.Skill(i, catalog.SkillByNameTail)...)
	return appendVersionsMeta(b, s.pack.Skill(found[0], catalog.SkillVersions)), nil
}

// nameData is the data {name} of a -32602 about the skill name, clipped as error messages
// are.
func nameData(name string) []byte {
	b := jsonrpc.AppendString([]byte(`{"name":`), clip(name))
	return append(b, '}')
}

// missingArguments returns -32602 naming every required argument (SkillRequired: names
// each followed by "\n") that args, the request's arguments object, lacks; nil if none.
func missingArguments(required []byte, args gjson.Result, name gjson.Result) *jsonrpc.Error {
	var missing []string
	for len(required) > 0 {
		i := bytes.IndexByte(required, '\n')
		if i < 0 {
			break
		}
		arg := unsafeString(required[:i])
		required = required[i+1:]
		if !member(args, arg).Exists() {
			missing = append(missing, arg)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	msg := "Skill " + strconv.Quote(clip(name.Str)) + " requires the argument"
	if len(missing) > 1 {
		msg += "s"
	}
	data := jsonrpc.AppendString([]byte(`{"name":`), clip(name.Str))
	data = append(data, `,"missing":[`...)
	for k, m := range missing {
		if k > 0 {
			msg += ","
			data = append(data, ',')
		}
		msg += " " + strconv.Quote(m)
		data = jsonrpc.AppendString(data, m)
	}
	msg += ` in params.arguments (skills/list gives each skill's "arguments")`
	return invalidParams(msg).WithData(append(data, "]}"...))
}
