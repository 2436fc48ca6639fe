package edge

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// The tools fallback (PROTOCOL.md#fallbacks, Options.Tools): four tools through which a
// host that speaks MCP tools but not the skills extension lists skills, searches them
// (search_skills, search.go), loads one and reads its files. Their names are catalog.Tool*; their descriptions and schemas are rendered at
// build time (catalog.SiteTools). A tool's own failures (an unknown skill, a bad argument)
// are tool results with isError set, which the model sees and can correct; an unknown tool
// or malformed params are JSON-RPC errors. See
// https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
//
// Why does `read_skill_file` answer text as text and other files as an embedded
// resource? Models read a text content block directly; most hosts render an embedded
// resource as an attachment, or not at all. A text file's text is the very JSON string
// resources/read sends (the same store object is spliced), so the bytes and digest agree.
// A binary file has no text form, and an image block would be wrong for a PDF or a zip:
// the embedded resource is exactly resources/read's content object, blob and mimeType
// included. load_skill sends the SKILL.md body without its frontmatter (the name and
// description are already in the tool's description) and, as a second block, the other
// files with their URIs and sizes, so the model asks for what the instructions point at.
// Failures a model can correct name what would work; an unknown tool is -32602.
// list_skills' text block is the list written for a model to read, not the JSON of its
// structuredContent that the tools spec says a tool SHOULD also send as text: the same
// facts, in the form a model uses best; a client that wants JSON reads structuredContent,
// which the declared outputSchema describes.

// toolTextBudget bounds the text of one list_skills page: about eight thousand tokens.
const toolTextBudget = 32 << 10

// toolsList answers tools/list: the four tools, on one page.
func (s *Server) toolsList(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	if _, _, err := s.page(c, "t", 1); err != nil {
		return nil, err
	}
	b = append(b, `"tools":`...)
	return append(b, s.pack.Site(catalog.SiteTools)...), nil
}

// toolsCall answers tools/call.
func (s *Server) toolsCall(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	name := c.p.name
	if name.Type != gjson.String {
		return nil, invalidParams("params.name must be a string: the name of a tool")
	}
	args := c.p.arguments
	if args.Exists() && args.Type != gjson.Null && !args.IsObject() {
		return nil, invalidParams("params.arguments must be an object")
	}
	switch name.Str {
	case catalog.ToolListSkills:
		return s.listSkillsTool(c, args, b), nil
	case catalog.ToolLoadSkill:
		return s.loadSkillTool(c, args, b), nil
	case catalog.ToolReadSkillFile:
		return s.readSkillFileTool(c, args, b), nil
	case catalog.ToolSearchSkills:
		return s.searchSkillsTool(c, args, b), nil
	}
	return nil, invalidParams("Unknown tool: " + strconv.Quote(clip(name.Str)) + "; the tools are " +
		catalog.ToolListSkills + ", " + catalog.ToolSearchSkills + ", " + catalog.ToolLoadSkill + " and " + catalog.ToolReadSkillFile)
}

// toolArgs reads the string arguments a tool takes from args: each known name's value,
// or a message for the model when an argument is unknown or not a string.
func toolArgs(args gjson.Result, names ...string) (map[string]gjson.Result, string) {
	got := map[string]gjson.Result{}
	msg := ""
	args.ForEach(func(k, v gjson.Result) bool {
		for _, n := range names {
			if k.Str == n {
				if v.Type != gjson.String {
					msg = "The argument " + n + " must be a string."
					return false
				}
				if _, dup := got[n]; !dup {
					got[n] = v
				}
				return true
			}
		}
		msg = "Unknown argument " + strconv.Quote(clip(k.Str)) + ": this tool takes " + strings.Join(names, " and ") + "."
		return false
	})
	return got, msg
}

// listSkillsTool pages through the skills: text for the model, and the same in
// structuredContent ({"skills":[{name,description,uri}], "nextCursor"}).
func (s *Server) listSkillsTool(c *call, args gjson.Result, b []byte) []byte {
	got, msg := toolArgs(args, "cursor")
	if msg != "" {
		return toolError(b, msg)
	}
	n := s.pack.NumSkills()
	from, to, err := s.pageAt(got["cursor"], "l", max(n, 1))
	if err != nil {
		return toolError(b, "The cursor is not one "+catalog.ToolListSkills+" gave: call "+catalog.ToolListSkills+" without it to start again.")
	}
	s.pack.Want(from, min(to, n))
	to = fit(from, min(to, n), toolTextBudget, func(i int) int { return len(s.pack.Fallback(i, catalog.FallbackToolLine)) })
	b = append(b, `"content":[{"type":"text","text":"`...)
	head := "This server publishes " + plural(n, "skill") + "."
	switch {
	case n == 0:
	case from > 0 || to < n:
		head += " Skills " + strconv.Itoa(from+1) + " to " + strconv.Itoa(to) + ":\n"
	default:
		head += "\n"
	}
	b = appendEscaped(b, head)
	for i := from; i < to; i++ {
		b = append(b, s.pack.Fallback(i, catalog.FallbackToolLine)...)
	}
	var cursor []byte
	if to < n {
		cursor = s.appendCursor(nil, "l", to)
		b = appendEscaped(b, "\nMore skills: call "+catalog.ToolListSkills+" with {\"cursor\": "+string(cursor)+"}.")
	}
	b = append(b, `"}],"structuredContent":{"skills":[`...)
	for i := from; i < to; i++ {
		if i > from {
			b = append(b, ',')
		}
		b = append(b, s.pack.Fallback(i, catalog.FallbackToolItem)...)
	}
	b = append(b, ']')
	if cursor != nil {
		b = append(b, `,"nextCursor":`...)
		b = append(b, cursor...)
	}
	return append(b, '}')
}

// loadSkillTool answers with a skill's instructions (its SKILL.md body, spliced from the
// store) and the list of its other files.
func (s *Server) loadSkillTool(c *call, args gjson.Result, b []byte) []byte {
	got, msg := toolArgs(args, "name", "uri")
	if msg != "" {
		return toolError(b, msg)
	}
	name, hasName := got["name"]
	uri, hasURI := got["uri"]
	skill := -1
	switch {
	case hasURI:
		canonical, err := catalog.ParseURI(uri.Str)
		i, ok := s.pack.SkillByURI(canonical)
		if err != nil || !ok {
			c.missed = true
			return toolError(b, "No skill has its SKILL.md at "+strconv.Quote(clip(uri.Str))+". "+s.someSkills())
		}
		skill = i
	case hasName:
		found := s.pack.SkillsByName(name.Str) // index names: one skill each
		if len(found) == 0 {
			c.missed = true
			return toolError(b, "No skill is named "+strconv.Quote(clip(name.Str))+". "+s.someSkills())
		}
		skill = found[0]
	default:
		return toolError(b, "Give the name of a skill (or the uri of its SKILL.md). "+s.someSkills())
	}
	c.aboutSkill(s.pack, skill, wire.ReadActivation)
	b = append(b, `"content":[{"type":"text","text":`...)
	b = c.splice(b, s.pack, s.pack.Skill(skill, catalog.SkillInstructions))
	b = append(b, `},{"type":"text","text":`...)
	b = append(b, s.pack.Fallback(skill, catalog.FallbackFilesText)...)
	return append(b, "}]"...)
}

// readSkillFileTool answers with one file: a text file as text, any other as an embedded
// resource, both exactly as resources/read has them (the value spliced from the store).
func (s *Server) readSkillFileTool(c *call, args gjson.Result, b []byte) []byte {
	got, msg := toolArgs(args, "uri")
	if msg != "" {
		return toolError(b, msg)
	}
	uri, ok := got["uri"]
	if !ok {
		return toolError(b, "Give the uri of a file, as "+catalog.ToolLoadSkill+" lists them.")
	}
	canonical, err := catalog.ParseURI(uri.Str)
	if err != nil {
		return toolError(b, "No file has the uri "+strconv.Quote(clip(uri.Str))+": "+err.Error()+".")
	}
	i, ok := s.pack.ResourceByURI(canonical)
	if !ok {
		if _, dir := s.pack.DirByURI(canonical); dir {
			return toolError(b, strconv.Quote(clip(uri.Str))+" is a directory: "+catalog.ToolLoadSkill+" lists a skill's files.")
		}
		c.missed = true
		return toolError(b, "No file has the uri "+strconv.Quote(clip(uri.Str))+": "+catalog.ToolLoadSkill+" lists a skill's files.")
	}
	c.about(s.pack, canonical, false)
	b = append(b, `"content":[`...)
	return append(s.appendBlock(c, b, i), ']')
}

// appendBlock appends resource i as a content block: text as text, anything else as an
// embedded resource, the value spliced from the store as resources/read has it.
func (s *Server) appendBlock(c *call, b []byte, i int) []byte {
	head := s.pack.Resource(i, catalog.ResReadHead)
	if catalog.IsTextHead(head) {
		b = append(b, `{"type":"text","text":`...)
		b = c.splice(b, s.pack, s.pack.Resource(i, catalog.ResReadValue))
		return append(b, '}')
	}
	b = append(b, `{"type":"resource","resource":`...)
	b = append(b, head...)
	b = c.splice(b, s.pack, s.pack.Resource(i, catalog.ResReadValue))
	return append(b, "}}"...)
}

// someSkills names up to 50 skills, for a model that asked for one that does not exist.
func (s *Server) someSkills() string {
	n := s.pack.NumSkills()
	if n == 0 {
		return "This server publishes no skills."
	}
	var m strings.Builder
	m.WriteString("Skills: ")
	for i := range min(n, 50) {
		if i > 0 {
			m.WriteString(", ")
		}
		m.Write(s.pack.Skill(i, catalog.SkillName))
	}
	if n > 50 {
		m.WriteString(", and " + strconv.Itoa(n-50) + " more (" + catalog.ToolListSkills + " lists them all)")
	}
	m.WriteString(".")
	return m.String()
}

// toolError appends a tool result that failed, with msg for the model.
func toolError(b []byte, msg string) []byte {
	b = append(b, `"content":[{"type":"text","text":`...)
	b = jsonrpc.AppendString(b, msg)
	return append(b, `}],"isError":true`...)
}

// appendEscaped appends s JSON-escaped, without quotes, into a JSON string being written.
func appendEscaped(b []byte, s string) []byte {
	n := len(b)
	b = jsonrpc.AppendString(b, s)
	copy(b[n:], b[n+1:len(b)-1])
	return b[:len(b)-2]
}

// plural writes "1 skill", "3 skills".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
