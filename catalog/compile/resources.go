package compile

import (
	"encoding/base64"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/skilledge/skilledge/catalog"
)

// The resources table's fragments (catalog.TableResources, catalog.TableDirs): the tree
// of served files and directories, each file's resources/list descriptor, and the head
// and value of its resources/read contents.

// encoding holds the derived structure of a catalog: the served files in listing order
// (each once, under its innermost skill) and the directory tree.
type encoding struct {
	files     []*File
	fileIndex map[string]int // file URI -> row
	owner     map[*File]*Skill
	dirs      []string          // directory URIs, sorted
	dirName   map[string]string // directory URI -> its last path segment, unescaped
	dirIndex  map[string]int
	children  map[string][]child // by directory URI, sorted by URI
}

type child struct {
	uri string
	dir bool
}

func newEncoding(c *Catalog) *encoding {
	e := &encoding{fileIndex: map[string]int{}, owner: map[*File]*Skill{}, dirName: map[string]string{}, dirIndex: map[string]int{}, children: map[string][]child{}}
	// Innermost owner: skills are sorted by path, so a nested skill comes after its parent
	// and overwrites the parent's claim.
	for _, s := range c.Skills {
		for _, f := range s.Files {
			e.owner[f] = s
		}
	}
	seenDir := map[string]bool{}
	addDir := func(rel string) {
		uri := catalog.Scheme + catalog.EscapePath(rel)
		if !seenDir[uri] {
			seenDir[uri] = true
			e.dirs = append(e.dirs, uri)
			e.dirName[uri] = path.Base(rel)
		}
	}
	for _, s := range c.Skills {
		addDir(s.Path)
		for _, f := range s.Files {
			if e.owner[f] == s {
				e.fileIndex[fileURI(f)] = len(e.files)
				e.files = append(e.files, f)
			}
			// Every directory between the skill root and the file is a directory resource.
			for dir := path.Dir(f.Path); len(dir) > len(s.Path); dir = path.Dir(dir) {
				addDir(dir)
			}
		}
	}
	sort.Strings(e.dirs)
	for i, d := range e.dirs {
		e.dirIndex[d] = i
	}
	// Children: each file under its directory, each directory under its parent, when the
	// parent is itself a directory resource (skill roots under a prefix have none).
	seenChild := map[string]bool{}
	for _, f := range e.files {
		uri := fileURI(f)
		e.addChild(uri[:strings.LastIndexByte(uri, '/')], child{uri: uri}, seenChild)
	}
	for _, d := range e.dirs {
		if parent := d[:strings.LastIndexByte(d, '/')]; seenDir[parent] {
			e.addChild(parent, child{uri: d, dir: true}, seenChild)
		}
	}
	for _, d := range e.dirs {
		cs := e.children[d]
		sort.Slice(cs, func(i, j int) bool { return cs[i].uri < cs[j].uri })
	}
	return e
}

func (e *encoding) addChild(dir string, c child, seen map[string]bool) {
	if !seen[c.uri] {
		seen[c.uri] = true
		e.children[dir] = append(e.children[dir], c)
	}
}

// descriptor renders the resources/list entry of f (MCP Resource).
func (e *encoding) descriptor(f *File) []byte {
	s := e.owner[f]
	isSkillMD := f.Path == s.Path+"/"+catalog.SkillMD
	var b []byte
	b = append(b, `{"uri":`...)
	b = append(b, jsonString(fileURI(f))...)
	b = append(b, `,"name":`...)
	if isSkillMD {
		b = append(b, jsonString(s.Name)...)
		b = append(b, `,"description":`...)
		b = append(b, jsonString(s.Description)...)
	} else {
		b = append(b, jsonString(strings.TrimPrefix(f.Path, s.Path+"/"))...)
	}
	b = append(b, `,"mimeType":`...)
	b = append(b, jsonString(f.MIME)...)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, f.Size, 10)
	if isSkillMD {
		b = append(b, `,"annotations":{"audience":["assistant"],"priority":0.8}`...)
		if m := joinMembers(versionsMeta(s), sourceMeta(s)); m != nil {
			b = append(append(append(b, `,"_meta":{`...), m...), '}')
		}
		b = append(b, '}')
	} else {
		b = append(b, `,"annotations":{"audience":["assistant"],"priority":0.3}}`...)
	}
	return b
}

// joinMembers joins the object members given, leaving out the nil ones; nil for none.
func joinMembers(members ...[]byte) []byte {
	var b []byte
	for _, m := range members {
		if m == nil {
			continue
		}
		if b != nil {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	return b
}

func dirDescriptor(uri, name string) []byte {
	var b []byte
	b = append(b, `{"uri":`...)
	b = append(b, jsonString(uri)...)
	b = append(b, `,"name":`...)
	b = append(b, jsonString(name)...)
	return append(b, `,"mimeType":"inode/directory"}`...)
}

// readHead renders the resources/read content object of the resource uri up to its value
// (catalog.ResReadHead, whose shape is catalog.AppendReadHead's): "text" for UTF-8 text,
// "blob" otherwise. The value (readValue, a store object) and the closing brace follow.
func readHead(uri, mime string, text bool) []byte {
	return catalog.AppendReadHead(nil, jsonString(uri), jsonString(mime), text)
}

// readForm describes the resources/read form of a content, for messages.
func readForm(text bool) string {
	if text {
		return " as a JSON string (resources/read)"
	}
	return " in base64 (resources/read)"
}

// readValue renders the value of a resources/read content: the text as a JSON string, or
// the bytes as a base64 JSON string. The bytes are exactly the file's: no newline or BOM
// rewriting.
func readValue(data []byte, text bool) []byte {
	if text {
		return jsonString(string(data))
	}
	b := make([]byte, 0, base64.StdEncoding.EncodedLen(len(data))+2)
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, data)
	return append(b, '"')
}
