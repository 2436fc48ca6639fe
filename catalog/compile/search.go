package compile

import (
	"encoding/json"
	"strings"

	"github.com/skilledge/skilledge/catalog/search"
)

// searchTable is the search table (catalog.TableSearch) of an index of c's skills: each
// listed skill's fields as package search reads them (searchDoc), and each skill's entry in
// the well-known index, which the HTTP search answers with.
func searchTable(c *Catalog, arch map[*Skill][]*blob) [][][]byte {
	docs := SearchDocs(c)
	for i, s := range c.Skills {
		docs[i].Entry = searchEntry(s, c.indexName(s), arch)
	}
	return [][][]byte{search.Build(docs)}
}

// SearchDocs is what the search index reads of each of c's skills, in order (searchDoc),
// without the well-known entries: for the relevance benchmark, which ranks them otherwise
// (search.BuildRanked).
func SearchDocs(c *Catalog) []search.Doc {
	docs := make([]search.Doc, len(c.Skills))
	for i, s := range c.Skills {
		docs[i] = searchDoc(s)
	}
	return docs
}

// searchEntry is s's hit over HTTP but for its score: its entry in the v0.2.0 index
// (agentSkillsEntry, under the index name name) with its path in the catalog, which names
// it where the index's url names it only by name, as its MCP uri does.
func searchEntry(s *Skill, name string, arch map[*Skill][]*blob) []byte {
	e := agentSkillsEntry(s, name, arch)
	if e == nil {
		return nil
	}
	e = append(e[:len(e)-1], `,"path":`...)
	return append(append(e, jsonString(s.Path)...), '}')
}

// searchDoc is what search reads of s: its name, description and path; its frontmatter's
// tags and keywords, at the top or under metadata (a string or a list of strings each);
// the headings of its SKILL.md, and the rest of its body. Lines of fenced code blocks are
// body, never headings.
func searchDoc(s *Skill) search.Doc {
	d := search.Doc{Name: s.Name, Description: s.Description, Path: s.Path, Skip: s.Unlisted}
	var fm struct {
		Tags, Keywords any
		Metadata       struct{ Tags, Keywords any }
	}
	if json.Unmarshal(s.Frontmatter, &fm) == nil {
		var kw []string
		for _, v := range []any{fm.Tags, fm.Keywords, fm.Metadata.Tags, fm.Metadata.Keywords} {
			kw = appendStrings(kw, v)
		}
		d.Keywords = strings.Join(kw, "\n")
	}
	var headings, body strings.Builder
	fence := ""
	for line := range strings.Lines(string(s.Body)) {
		t := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			body.WriteString(line)
		case strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"):
			fence = t[:3]
			body.WriteString(line)
		case len(line)-len(t) <= 3 && strings.HasPrefix(t, "#"):
			headings.WriteString(strings.TrimLeft(t, "#"))
		default:
			body.WriteString(line)
		}
	}
	d.Headings, d.Body = headings.String(), body.String()
	return d
}

// appendStrings appends v's strings to dst: v itself when it is one, its elements that
// are when it is a list.
func appendStrings(dst []string, v any) []string {
	switch v := v.(type) {
	case string:
		return append(dst, v)
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				dst = append(dst, s)
			}
		}
	}
	return dst
}
