package compile

import (
	"sort"
	"strconv"
	"strings"

	"github.com/skilledge/skilledge/catalog"
	"github.com/tidwall/gjson"
)

// The skills table's fragments (catalog.TableSkills): a skill's entry, the same for
// skills/list, skills/get and the discovery indexes' frontmatter, and the parts of the
// SEP-2076 skills/get {name} result around its instructions.

// skillEntry renders the skills extension v1 entry {"uri","frontmatter","resources"}, with
// every file of the skill (nested skills' files included), and with the SEP-2076 fields
// name, description and, where the frontmatter has them with the right types, title,
// version and tags (version also, in a catalog that keeps history, the version's name
// when the frontmatter declares none), and arguments and dependencies as declared: a superset that both
// generations of clients read. The SEP-2076 name, by which skills/get {name} finds the
// skill, is its index name, name (catalog.IndexNames): its own unless another skill
// shares it; the frontmatter's is the author's.
func skillEntry(s *Skill, name string) []byte {
	var b []byte
	b = append(b, `{"uri":`...)
	b = append(b, jsonString(skillURI(s))...)
	b = append(b, `,"name":`...)
	b = append(b, jsonString(name)...)
	b = append(b, `,"description":`...)
	b = append(b, jsonString(s.Description)...)
	fm := gjson.ParseBytes(s.Frontmatter)
	for _, k := range []string{"title", "version"} {
		if v := fm.Get(k); v.Type == gjson.String {
			b = append(b, `,"`+k+`":`...)
			b = append(b, v.Raw...)
		} else if k == "version" && s.Version != "" {
			// A catalog that keeps history names every version, one without a
			// frontmatter version too ("2026-11-02.091500.1a2b3c4d"): the entry says which.
			b = append(b, `,"version":`...)
			b = append(b, jsonString(s.Version)...)
		}
	}
	if tags := fm.Get("tags"); tags.IsArray() && allStrings(tags) {
		b = append(b, `,"tags":`...)
		b = append(b, tags.Raw...)
	}
	b = appendArgumentsDependencies(b, s)
	b = append(b, `,"frontmatter":`...)
	b = append(b, s.Frontmatter...)
	b = append(b, `,"resources":[`...)
	for i, f := range s.Files {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"uri":`...)
		b = append(b, jsonString(fileURI(f))...)
		b = append(b, `,"digest":`...)
		b = append(b, jsonString(digestString(f))...)
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, f.Size, 10)
		b = append(b, '}')
	}
	b = append(b, ']')
	if m := sourceMeta(s); m != nil {
		b = append(append(append(b, `,"_meta":{`...), m...), '}')
	}
	return append(b, '}')
}

// sourceMeta renders the _meta object member of a mounted skill's provenance:
// `"io.github.skilledge/source":{"source","repository","commit"?,"path"}` for a git
// source's, `{"source","catalog","digest"?,"path"}` for a remote catalog's (commit and
// digest left out where sealProvenance says); nil for a skill of the folder.
func sourceMeta(s *Skill) []byte {
	p := s.Source
	if p == nil {
		return nil
	}
	b := []byte(`"` + catalog.MetaSource + `":{"source":`)
	b = append(b, jsonString(p.Source)...)
	if p.Catalog != "" {
		b = append(b, `,"catalog":`...)
		b = append(b, jsonString(p.Catalog)...)
		if p.Digest != "" {
			b = append(b, `,"digest":`...)
			b = append(b, jsonString(p.Digest)...)
		}
	} else {
		b = append(b, `,"repository":`...)
		b = append(b, jsonString(p.Repository)...)
		if p.Commit != "" {
			b = append(b, `,"commit":`...)
			b = append(b, jsonString(p.Commit)...)
		}
	}
	b = append(b, `,"path":`...)
	b = append(b, jsonString(p.Path)...)
	return append(b, '}')
}

// byNameHead and byNameTail render the members of the SEP-2076 skills/get {name} result
// around the instructions (the SKILL.md body, a store object): "description",
// "instructions", "files" (every file of the skill, named by its path in the skill) and,
// where the frontmatter declares them, "arguments" and "dependencies".
func byNameHead(s *Skill) []byte {
	var b []byte
	b = append(b, `"description":`...)
	b = append(b, jsonString(s.Description)...)
	return append(b, `,"instructions":`...)
}

func byNameTail(s *Skill) []byte {
	b := []byte(`,"files":[`)
	for i, f := range s.Files {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = append(b, jsonString(strings.TrimPrefix(f.Path, s.Path+"/"))...)
		b = append(b, `,"uri":`...)
		b = append(b, jsonString(fileURI(f))...)
		b = append(b, `,"mimeType":`...)
		b = append(b, jsonString(f.MIME)...)
		b = append(b, '}')
	}
	b = append(b, ']')
	return appendArgumentsDependencies(b, s)
}

// appendArgumentsDependencies appends the SEP-2076 members "arguments" and "dependencies"
// of s, when its frontmatter declares them in SEP-2076's shape.
func appendArgumentsDependencies(b []byte, s *Skill) []byte {
	if s.Arguments != nil {
		b = append(append(b, `,"arguments":`...), s.Arguments...)
	}
	if s.Dependencies != nil {
		b = append(append(b, `,"dependencies":`...), s.Dependencies...)
	}
	return b
}

// requiredArguments renders the SkillRequired field of s: the name of each required
// SEP-2076 argument followed by "\n" (names have no control characters).
func requiredArguments(s *Skill) []byte {
	var b []byte
	gjson.ParseBytes(s.Arguments).ForEach(func(_, a gjson.Result) bool {
		if a.Get("required").Type == gjson.True {
			b = append(b, a.Get("name").Str...)
			b = append(b, '\n')
		}
		return true
	})
	return b
}

// sortedFiles returns the resource rows of the files of s (nested skills' included),
// sorted by URI.
func sortedFiles(s *Skill, fileIndex map[string]int) []uint32 {
	uris := make([]string, len(s.Files))
	for i, f := range s.Files {
		uris[i] = fileURI(f)
	}
	sort.Strings(uris)
	rows := make([]uint32, len(uris))
	for i, u := range uris {
		rows[i] = uint32(fileIndex[u])
	}
	return rows
}

func allStrings(arr gjson.Result) bool {
	ok := true
	arr.ForEach(func(_, v gjson.Result) bool {
		ok = v.Type == gjson.String
		return ok
	})
	return ok
}
