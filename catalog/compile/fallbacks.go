package compile

import (
	"strconv"
	"strings"

	"github.com/skilledge/skilledge/catalog"
)

// For hosts that speak tools or prompts but not the skills extension
// (PROTOCOL.md#fallbacks): the four tools and one prompt per skill, rendered here so that
// the plugin only concatenates. The server offers them only when its options switch them
// on. The tool names are catalog.Tool*, on which the server dispatches tools/call.

// toolsSkillsBudget bounds the list of skills load_skill's description carries: about two
// thousand tokens, which a host sends with every request to the model.
const toolsSkillsBudget = 8 << 10

// toolsList renders the tools/list "tools" array. load_skill's description names the
// skills (index name and description, up to toolsSkillsBudget bytes), so that a model
// knows when to call it without listing first.
func toolsList(c *Catalog) []byte {
	ro := `,"annotations":{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`
	var avail strings.Builder
	for i, s := range c.Skills {
		line := "\n- " + c.indexName(s) + ": " + oneLine(s.Description)
		if avail.Len()+len(line) > toolsSkillsBudget {
			avail.WriteString("\n… and " + strconv.Itoa(len(c.Skills)-i) + " more: call " + catalog.ToolListSkills + " to see every skill.")
			break
		}
		avail.WriteString(line)
	}
	b := []byte(`[{"name":"` + catalog.ToolListSkills + `","title":"List skills","description":`)
	b = append(b, jsonString("List the Agent Skills this server publishes: each skill's name, description and the skill:// URI of its SKILL.md. "+
		"Call "+catalog.ToolLoadSkill+" with a name to read a skill's instructions before doing a task it covers. "+
		"Long lists come in pages: pass the cursor a page ends with to get the next.")...)
	b = append(b, `,"inputSchema":{"type":"object","properties":{"cursor":{"type":"string","description":"The cursor the previous page ended with; omit it for the first page."}},"additionalProperties":false}`...)
	b = append(b, `,"outputSchema":{"type":"object","properties":{"skills":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"description":{"type":"string"},"uri":{"type":"string"}},"required":["name","description","uri"]}},"nextCursor":{"type":"string"}},"required":["skills"]}`...)
	b = append(b, ro...)
	b = append(b, `},{"name":"`+catalog.ToolLoadSkill+`","title":"Load a skill","description":`...)
	b = append(b, jsonString("Load an Agent Skill: its instructions (the body of its SKILL.md), then the skill:// URIs and sizes of its other files, which "+
		catalog.ToolReadSkillFile+" reads when the instructions call for them. Give the skill's name as listed, or the URI of its SKILL.md. "+
		"Load a skill before a task it describes. Skills available:"+avail.String())...)
	b = append(b, `,"inputSchema":{"type":"object","properties":{"name":{"type":"string","description":"The skill's name, as listed."},"uri":{"type":"string","description":"The skill:// URI of the skill's SKILL.md, instead of the name."}},"additionalProperties":false}`...)
	b = append(b, ro...)
	b = append(b, `},{"name":"`+catalog.ToolReadSkillFile+`","title":"Read a skill file","description":`...)
	b = append(b, jsonString("Read one file of an Agent Skill by its skill:// URI, as "+catalog.ToolLoadSkill+" lists them: text files as text, other files as an embedded resource in base64. "+
		"The bytes are exactly those whose SHA-256 the skill's manifest gives.")...)
	b = append(b, `,"inputSchema":{"type":"object","properties":{"uri":{"type":"string","description":"The skill:// URI of the file."}},"required":["uri"],"additionalProperties":false}`...)
	b = append(b, ro...)
	b = append(b, `},{"name":"`+catalog.ToolSearchSkills+`","title":"Search skills","description":`...)
	b = append(b, jsonString("Search the Agent Skills this server publishes for the ones that fit a task, best first: give a few words of what the task is about. "+
		"Each hit has the skill's name, description and the skill:// URI of its SKILL.md; call "+catalog.ToolLoadSkill+" with the name of the one that fits. "+
		"More hits come in pages: pass the cursor a page ends with to get the next.")...)
	b = append(b, `,"inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"Words of what the task is about, such as \"fill in a PDF form\"."},"limit":{"type":"integer","minimum":1,"description":"The most hits a page holds (default 20)."},"cursor":{"type":"string","description":"The cursor the previous page ended with; omit it for the first page."}},"required":["query"],"additionalProperties":false}`...)
	b = append(b, `,"outputSchema":{"type":"object","properties":{"skills":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"description":{"type":"string"},"uri":{"type":"string"}},"required":["name","description","uri"]}},"total":{"type":"integer"},"nextCursor":{"type":"string"}},"required":["skills","total"]}`...)
	b = append(b, ro...)
	return append(b, "}]"...)
}

// oneLine folds a description onto one line for a bulleted list.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// toolLine renders skill s's entry in list_skills' text under its index name, JSON-escaped
// without the quotes, so that the plugin can put several into one JSON string.
func toolLine(s *Skill, name string) []byte {
	q := jsonString("- " + name + ": " + oneLine(s.Description) + "\n  " + skillURI(s) + "\n")
	return q[1 : len(q)-1]
}

// toolItem renders skill s in list_skills' structuredContent under its index name.
func toolItem(s *Skill, name string) []byte {
	b := []byte(`{"name":`)
	b = append(b, jsonString(name)...)
	b = append(b, `,"description":`...)
	b = append(b, jsonString(s.Description)...)
	b = append(b, `,"uri":`...)
	b = append(b, jsonString(skillURI(s))...)
	return append(b, '}')
}

// filesText renders load_skill's second text: the skill's files besides SKILL.md, each
// with its URI and size.
func filesText(s *Skill) []byte {
	if len(s.Files) == 1 {
		return jsonString("The skill " + s.Name + " has no files besides SKILL.md.")
	}
	var b strings.Builder
	b.WriteString("Files of the skill " + s.Name + " besides SKILL.md (read them with " + catalog.ToolReadSkillFile + "):")
	for _, f := range s.Files[1:] {
		b.WriteString("\n- " + fileURI(f) + " (" + sizeText(f.Size) + ")")
	}
	return jsonString(b.String())
}

// sizeText writes a byte count for people: "962 bytes", "1 byte".
func sizeText(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// promptEntry renders skill s's prompts/list entry under the prompt name name.
func promptEntry(s *Skill, name string) []byte {
	b := []byte(`{"name":`)
	b = append(b, jsonString(name)...)
	b = append(b, `,"title":`...)
	b = append(b, jsonString(title(s))...)
	b = append(b, `,"description":`...)
	b = append(b, jsonString(s.Description)...)
	return append(b, '}')
}

// title names a skill for people: its name, and where it sits when it has a prefix.
func title(s *Skill) string {
	if prefix, ok := strings.CutSuffix(s.Path, "/"+s.Name); ok {
		return s.Name + " (" + prefix + ")"
	}
	return s.Name
}

// fallbackRows renders TableFallback: one row per skill. skillMD maps each skill to the
// resource row of its SKILL.md.
func fallbackRows(c *Catalog, skillMD func(*Skill) int) [][][]byte {
	rows := make([][][]byte, len(c.Skills))
	for i, s := range c.Skills {
		name := c.indexName(s)
		rows[i] = [][]byte{
			catalog.FallbackToolLine:    toolLine(s, name),
			catalog.FallbackToolItem:    toolItem(s, name),
			catalog.FallbackPrompt:      []byte(name),
			catalog.FallbackPromptEntry: promptEntry(s, name),
			catalog.FallbackFilesText:   filesText(s),
			catalog.FallbackSkillMD:     catalog.U32s([]uint32{uint32(skillMD(s))}),
		}
	}
	return rows
}
