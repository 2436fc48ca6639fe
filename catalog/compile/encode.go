package compile

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
)

// Generator names the writer of an index (TableMeta). It carries no time or machine data
// so that indexes stay reproducible.
const Generator = "skilledge catalog/compile"

// Encoded is a catalog encoded for serving: the index every plugin instance loads
// (catalog.Pack's format) and the content store its references name.
type Encoded struct {
	Index []byte
	Store *Store
}

// Encode renders c as an index and a content store held in memory. It is deterministic:
// equal catalogs give equal bytes. Every JSON fragment a response splices (skill entries,
// resource descriptors, the heads of read contents, directory descriptors) is rendered
// into the index; every content (file bytes, their resources/read form, SKILL.md bodies as
// JSON, archives, generated documents) goes into the store once, however many files share
// it. See catalog.Table* for the layout. It fails only when a file not held in memory
// cannot be read again, or is no longer what Load read (ErrChanged).
func Encode(c *Catalog) (*Encoded, error) { return EncodeWith(c, EncodeOptions{}) }

// EncodeOptions configure EncodeWith.
type EncodeOptions struct {
	// Dir, if set, is where the store's objects are written as they are made, as the
	// files Dir/sha256/NAME (catalog.StoreDir), instead of being held in memory: the
	// memory an encoding needs is then a small multiple of its largest file, not of the
	// catalog. Objects already there with the same bytes are kept.
	Dir string
	// Progress, if not nil, is called with the number of skills whose archives are done
	// after each one: archiving is most of the work on a large catalog.
	Progress func(done int)
}

// EncodeWith is Encode with options. The index and the objects are the same bytes
// whichever the options.
func EncodeWith(c *Catalog, opt EncodeOptions) (*Encoded, error) {
	if c.Access != nil && c.Access.Broken {
		return nil, ErrPolicy
	}
	en := &encoder{st: newStore(), archived: map[*Skill][]*blob{}}
	if opt.Dir != "" {
		st, err := newDirStore(opt.Dir)
		if err != nil {
			return nil, err
		}
		en.st = st
	}
	index := en.index(c, opt.Progress)
	if en.err != nil {
		return nil, en.err
	}
	return &Encoded{Index: index, Store: en.st}, nil
}

// index encodes c's index, putting the objects it names in the store; progress, if not
// nil, is told of each skill whose archives are done. A private catalog's index holds its
// views, each encoded by index too (sharing the objects and archives already made).
func (en *encoder) index(c *Catalog, progress func(int)) []byte {
	e := newEncoding(c)
	var w catalog.Writer

	// Resources: the files (listed), skill://index.json (listed), the archives (not listed).
	resRows := make([][][]byte, 0, len(e.files)+1+2*len(c.Skills))
	for _, f := range e.files {
		raw, read := en.file(f)
		row := make([][]byte, catalog.ResFields)
		row[catalog.ResURI] = []byte(fileURI(f))
		row[catalog.ResList] = e.descriptor(f)
		row[catalog.ResReadHead] = readHead(fileURI(f), f.MIME, f.Text)
		row[catalog.ResReadValue] = read.Cell()
		row[catalog.ResMIME] = []byte(f.MIME)
		row[catalog.ResDigest] = []byte(digestString(f))
		row[catalog.ResSize] = strconv.AppendInt(nil, f.Size, 10)
		row[catalog.ResObject] = raw.Cell()
		if s := e.owner[f]; f == s.Files[0] && len(s.Kept) > 0 {
			row[catalog.ResReadMeta] = append(append([]byte(`,"_meta":{`), versionsMeta(s)...), '}')
		}
		resRows = append(resRows, row)
	}
	arch := map[*Skill][]*blob{}
	for i, s := range c.Skills {
		if a := en.archives(s, e.fileIndex); a != nil {
			arch[s] = a
		}
		if progress != nil {
			progress(i + 1)
		}
	}
	index := en.doc(IndexURI, "application/json", juneIndex(c, arch))
	resRows = append(resRows, en.blobRow(index, "index.json", "The skills index (June 2026 draft of SEP-2640): every skill with its SKILL.md digest, frontmatter and archives."))
	listed := len(resRows)
	archiveRows := map[*Skill][]uint32{}
	for _, s := range c.Skills {
		for _, a := range arch[s] {
			archiveRows[s] = append(archiveRows[s], uint32(len(resRows)))
			resRows = append(resRows, en.blobRow(a, s.Name+a.uri[strings.LastIndexByte(a.uri, '.'):], ""))
		}
	}
	feed := en.feed(c)
	if feed != nil {
		resRows = append(resRows, en.blobRow(feed.resource, "changes.json", "The change feed: the latest changes to the skills, newest first."))
	}
	w.Table(catalog.TableResources, catalog.ResFields, resRows)

	skillRows := make([][][]byte, len(c.Skills))
	var digestIn bytes.Buffer
	for i, s := range c.Skills {
		entry := skillEntry(s)
		digestIn.Write(entry)
		digestIn.WriteByte('\n')
		digestIn.Write(versionsDigestLine(s))
		row := make([][]byte, catalog.SkillFields)
		row[catalog.SkillPath] = []byte(s.Path)
		row[catalog.SkillName] = []byte(s.Name)
		row[catalog.SkillURI] = []byte(skillURI(s))
		row[catalog.SkillEntry] = entry
		row[catalog.SkillFrontmatter] = s.Frontmatter
		row[catalog.SkillDescription] = jsonString(s.Description)
		row[catalog.SkillByNameHead] = byNameHead(s)
		row[catalog.SkillInstructions] = en.add(jsonString(string(s.Body)), s.Path+"/SKILL.md body as a JSON string").Cell()
		row[catalog.SkillByNameTail] = byNameTail(s)
		row[catalog.SkillArchives] = catalog.U32s(archiveRows[s])
		row[catalog.SkillListed] = resRows[e.fileIndex[skillURI(s)]][catalog.ResList]
		row[catalog.SkillRequired] = requiredArguments(s)
		row[catalog.SkillFiles] = catalog.U32s(sortedFiles(s, e.fileIndex))
		row[catalog.SkillVersions] = versionsMeta(s)
		row[catalog.SkillVersionURIs] = versionURIs(s)
		skillRows[i] = row
	}
	w.Table(catalog.TableSkills, catalog.SkillFields, skillRows)

	var httpRows [][][]byte
	docs := []*blob{
		en.doc(catalog.AgentSkillsIndex, "application/json", agentSkillsIndex(c, arch)),
		en.doc(catalog.SkillsIndex, "application/json", skillsIndex(c)),
	}
	if feed != nil {
		docs = append(docs, feed.json, feed.atom)
	}
	for _, doc := range docs {
		httpRows = append(httpRows, [][]byte{
			catalog.HTTPPath:        []byte(doc.uri),
			catalog.HTTPContentType: []byte(doc.mime),
			catalog.HTTPDigest:      []byte(doc.digest),
			catalog.HTTPObject:      doc.ref.Cell(),
		})
	}
	w.Table(catalog.TableHTTP, catalog.HTTPFields, httpRows)

	skillMD := func(s *Skill) int { return e.fileIndex[skillURI(s)] }
	w.Table(catalog.TableFallback, catalog.FallbackFields, fallbackRows(c, skillMD))
	prompts := promptNames(c)
	var published []uint32
	rowOf := map[*Skill]uint32{}
	for i, s := range c.Skills {
		rowOf[s] = uint32(i)
	}
	for _, s := range httpSkills(c) {
		published = append(published, rowOf[s])
	}
	w.Table(catalog.TableSite, catalog.SiteFields, [][][]byte{{
		catalog.SiteTools:         toolsList(c),
		catalog.SitePromptsByName: catalog.U32s(sortedRows(len(c.Skills), func(i int) string { return prompts[i] })),
		catalog.SiteHTTPSkills:    catalog.U32s(published),
		catalog.SitePage:          pageTemplate(c),
		catalog.SitePageSkills:    en.add(pageSkills(c, arch), "the catalog page's skills").Cell(),
		catalog.SitePageCSP:       []byte(pageCSP()),
	}})

	dirRows := make([][][]byte, len(e.dirs))
	for i, d := range e.dirs {
		children := make([]uint32, 0, len(e.children[d]))
		for _, ch := range e.children[d] {
			if ch.dir {
				children = append(children, catalog.DirBit|uint32(e.dirIndex[ch.uri]))
			} else {
				children = append(children, uint32(e.fileIndex[ch.uri]))
			}
		}
		dirRows[i] = [][]byte{
			catalog.DirURI:      []byte(d),
			catalog.DirList:     dirDescriptor(d, e.dirName[d]),
			catalog.DirChildren: catalog.U32s(children),
		}
	}
	w.Table(catalog.TableDirs, catalog.DirFields, dirRows)

	resByURI := sortedRows(len(resRows), func(i int) string { return string(resRows[i][catalog.ResURI]) })
	skillsByURI := sortedRows(len(c.Skills), func(i int) string { return skillURI(c.Skills[i]) })
	skillsByName := sortedRows(len(c.Skills), func(i int) string { return c.Skills[i].Name })
	skillsByPath := sortedRows(len(c.Skills), func(i int) string { return catalog.EscapePath(c.Skills[i].Path) })
	w.Table(catalog.TableIndex, catalog.IndexFields, [][][]byte{{
		catalog.IndexResByURI:     catalog.U32s(resByURI),
		catalog.IndexSkillsByURI:  catalog.U32s(skillsByURI),
		catalog.IndexSkillsByName: catalog.U32s(skillsByName),
		catalog.IndexListed:       catalog.U32s([]uint32{uint32(listed)}),
		catalog.IndexSkillsByPath: catalog.U32s(skillsByPath),
	}})

	if c.History != nil && len(c.History.Versions) > 0 {
		objects, size := en.st.Len(), en.st.Size()
		w.Table(catalog.TableHistory, catalog.HistoryFields, [][][]byte{{
			catalog.HistoryIndex: en.index(&Catalog{Skills: c.History.Versions, TrustRoot: c.TrustRoot}, nil),
		}})
		c.History.Objects, c.History.Bytes = en.st.Len()-objects, int(en.st.Size()-size)
	}
	if c.Access != nil {
		encodeAccess(&w, c)
		en.views(&w, c)
		digestIn.WriteString("access\n")
		for _, s := range c.Skills {
			fmt.Fprintf(&digestIn, "%q %t\n", s.Scopes, s.Unlisted)
		}
	}
	sum := sha256.Sum256(digestIn.Bytes())
	w.Table(catalog.TableMeta, catalog.MetaFields, [][][]byte{{
		catalog.MetaDigest:    []byte(hex.EncodeToString(sum[:])),
		catalog.MetaGenerator: []byte(Generator),
		catalog.MetaTrustRoot: []byte(c.TrustRoot),
	}})
	return w.Bytes()
}

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
		if m := versionsMeta(s); m != nil {
			b = append(append(append(b, `,"_meta":{`...), m...), '}')
		}
		b = append(b, '}')
	} else {
		b = append(b, `,"annotations":{"audience":["assistant"],"priority":0.3}}`...)
	}
	return b
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

// skillEntry renders the skills extension v1 entry {"uri","frontmatter","resources"}, with
// every file of the skill (nested skills' files included), and with the SEP-2076 fields
// name, description and, where the frontmatter has them with the right types, title,
// version and tags (version also, in a catalog that keeps history, the version's name
// when the frontmatter declares none), and arguments and dependencies as declared: a superset that both
// generations of clients read.
func skillEntry(s *Skill) []byte {
	var b []byte
	b = append(b, `{"uri":`...)
	b = append(b, jsonString(skillURI(s))...)
	b = append(b, `,"name":`...)
	b = append(b, jsonString(s.Name)...)
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
	return append(b, "]}"...)
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

func dirDescriptor(uri, name string) []byte {
	var b []byte
	b = append(b, `{"uri":`...)
	b = append(b, jsonString(uri)...)
	b = append(b, `,"name":`...)
	b = append(b, jsonString(name)...)
	return append(b, `,"mimeType":"inode/directory"}`...)
}

// skillURI is the URI of the SKILL.md of s (catalog.SkillURI).
func skillURI(s *Skill) string {
	return catalog.Scheme + catalog.EscapePath(s.Path) + "/" + catalog.SkillMD
}

func fileURI(f *File) string { return catalog.Scheme + catalog.EscapePath(f.Path) }

func digestString(f *File) string { return "sha256:" + hex.EncodeToString(f.Digest[:]) }

// jsonString renders s as a JSON string. HTML characters are left as they are; s is valid
// UTF-8 (the loader guarantees it for names, paths and text files).
func jsonString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err) // strings always encode
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// sortedRows returns 0..n-1 ordered by key.
func sortedRows(n int, key func(int) string) []uint32 {
	rows := make([]uint32, n)
	for i := range rows {
		rows[i] = uint32(i)
	}
	sort.Slice(rows, func(i, j int) bool { return key(int(rows[i])) < key(int(rows[j])) })
	return rows
}
