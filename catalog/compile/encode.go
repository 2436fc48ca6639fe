package compile

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/search"
)

// Encoded is a catalog encoded for serving: the index every plugin instance loads
// (catalog.Pack's format) and the content store its references name.
type Encoded struct {
	Index []byte
	Store *Store
	// Roots are the roots signed (EncodeOptions.Sign), one per index a caller may be
	// answered from: the publisher keeps them for the next build's Signer.Previous.
	Roots []RootInfo
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
	// ShardBytes, if above 0, makes the index a sharded root (catalog/shards.go) whose
	// shards hold about ShardBytes bytes of index each, put in the store with the
	// objects. The answers are the same; a reader holds only the shards it reads.
	ShardBytes int
	// MaxPart, if above 0, is the largest part of a document (catalog.MaxPart when 0):
	// tests make it small to have every document in parts.
	MaxPart int
	// PackBytes, if above 0, packs the store's objects (catalog/packs.go) in packs of
	// about PackBytes bytes (at most PackMax), each an object of the store; the index's
	// parts stay objects of their own. A host reads a packed object by range.
	PackBytes int64
	// Sign, if not nil, signs a root for each index a caller may be answered from
	// (root.go), served as catalog.RootURI and at catalog.RootJSON.
	Sign *Signer
}

// EncodeWith is Encode with options. The answers are the same whichever the options; the
// index and the objects are the same bytes whichever Dir and Progress.
func EncodeWith(c *Catalog, opt EncodeOptions) (*Encoded, error) {
	if c.Access != nil && c.Access.Broken {
		return nil, ErrPolicy
	}
	c.names = nil // named afresh: the skills may have changed since an earlier encoding
	en := &encoder{st: newStore(), archived: map[*Skill][]*blob{}, maxPart: catalog.MaxPart, sign: opt.Sign}
	if opt.MaxPart > 0 {
		en.maxPart = opt.MaxPart
	}
	if opt.Dir != "" {
		st, err := newDirStore(opt.Dir)
		if err != nil {
			return nil, err
		}
		en.st = st
	}
	if opt.PackBytes > 0 {
		en.st.packMax = min(opt.PackBytes, PackMax)
	}
	var index []byte
	if opt.ShardBytes > 0 {
		en.shardBytes = opt.ShardBytes
		index = en.sharded(c, opt.ShardBytes, opt.Progress)
	} else {
		index = en.index(c, opt.Progress)
	}
	if en.err != nil {
		return nil, en.err
	}
	return &Encoded{Index: index, Store: en.st, Roots: en.roots}, nil
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
	if !en.shard {
		resRows = append(resRows, en.indexRow(c, arch))
	}
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
		resRows = append(resRows, en.blobRow(feed.resource, "changes.json", feedDescription))
	}
	root := en.signedRoot(c, feed)
	if root != nil {
		resRows = append(resRows, en.blobRow(root.resource, "root.json", rootDescription))
	}
	w.Table(catalog.TableResources, catalog.ResFields, resRows)

	skillRows := make([][][]byte, len(c.Skills))
	for i, s := range c.Skills {
		entry := skillEntry(s, c.entryName(s))
		row := make([][]byte, catalog.SkillFields)
		row[catalog.SkillPath] = []byte(s.Path)
		row[catalog.SkillName] = []byte(c.indexName(s))
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

	w.Table(catalog.TableHTTP, catalog.HTTPFields, en.httpRows(c, arch, feed, root))

	skillMD := func(s *Skill) int { return e.fileIndex[skillURI(s)] }
	w.Table(catalog.TableFallback, catalog.FallbackFields, fallbackRows(c, skillMD))
	published := make([]uint32, len(c.Skills)) // every skill, by its index name
	for i := range published {
		published[i] = uint32(i)
	}
	byName := sortedRows(len(c.Skills), func(i int) string { return c.indexName(c.Skills[i]) })
	site := [][]byte{
		catalog.SiteTools:         toolsList(c),
		catalog.SitePromptsByName: catalog.U32s(byName),
		catalog.SiteHTTPSkills:    catalog.U32s(published),
		catalog.SitePage:          pageTemplate(c),
		catalog.SitePageCSP:       []byte(pageCSP()),
	}
	if !en.shard {
		site[catalog.SitePageSkills] = en.addLarge(pageSkills(c, arch), "the catalog page's skills")
	} else { // the root's page (a shard's site is never served: the root's is)
		site[catalog.SiteTools], site[catalog.SitePage], site[catalog.SitePageCSP] = nil, nil, nil
		site[catalog.SitePageSkills] = en.page
	}
	w.Table(catalog.TableSite, catalog.SiteFields, [][][]byte{site})

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
	skillsByName := byName
	skillsByPath := sortedRows(len(c.Skills), func(i int) string { return catalog.EscapePath(c.Skills[i].Path) })
	w.Table(catalog.TableIndex, catalog.IndexFields, [][][]byte{{
		catalog.IndexResByURI:     catalog.U32s(resByURI),
		catalog.IndexSkillsByURI:  catalog.U32s(skillsByURI),
		catalog.IndexSkillsByName: catalog.U32s(skillsByName),
		catalog.IndexListed:       catalog.U32s([]uint32{uint32(listed)}),
		catalog.IndexSkillsByPath: catalog.U32s(skillsByPath),
	}})

	if en.shard && !en.older {
		w.Table(catalog.TableSearch, search.NumFields, [][][]byte{search.EntriesTable(en.entries)})
	} else if !en.older {
		w.Table(catalog.TableSearch, search.NumFields, searchTable(c, arch))
	}
	en.nested(&w, c)
	w.Table(catalog.TableMeta, catalog.MetaPathOrder+1, [][][]byte{{
		catalog.MetaDigest:    []byte(catalogDigest(c)),
		catalog.MetaGenerator: []byte(Generator),
		catalog.MetaTrustRoot: []byte(c.TrustRoot),
		catalog.MetaPathOrder: pathOrder(c),
	}})
	if !en.shard && !en.older && en.depth == 0 {
		en.packTable(&w)
	}
	return w.Bytes()
}

// sortedRows returns 0..n-1 ordered by key, rows of equal keys in row order (the skills
// of a name in listing order, as catalog.Pack.SkillsByName promises).
func sortedRows(n int, key func(int) string) []uint32 {
	rows := make([]uint32, n)
	for i := range rows {
		rows[i] = uint32(i)
	}
	sort.SliceStable(rows, func(i, j int) bool { return key(int(rows[i])) < key(int(rows[j])) })
	return rows
}

// feedDocs are the change feed's documents: the resource ChangesURI, and ChangesJSON and
// ChangesAtom over HTTP.
type feedDocs struct{ resource, json, atom *blob }

// feed renders c's change feed, or nil when c keeps no history: feedChanges of the
// catalog's caller (Versions.visible; every change to a listed skill when it is not one
// caller's view).
func (en *encoder) feed(c *Catalog) *feedDocs {
	h := c.Versions
	if h == nil {
		return nil
	}
	private := h.private || c.Access != nil
	visible := h.visible
	if visible == nil {
		visible = func(_ []string, unlisted bool) bool { return !unlisted }
	}
	shown := feedChanges(h.Changes, private, visible)
	j := changesJSON(shown, private)
	return &feedDocs{
		resource: en.doc(catalog.ChangesURI, "application/json", j),
		json:     en.doc(catalog.ChangesJSON, "application/json", j),
		atom:     en.doc(catalog.ChangesAtom, "application/atom+xml", changesAtom(shown, private, c.TrustRoot)),
	}
}

// encodeAccess writes c's access tables into w and marks the index private
// (catalog.MagicPrivate): the policy's default scopes and every scope it names, and each
// skill's scopes and listing.
func encodeAccess(w *catalog.Writer, c *Catalog) {
	all := slices.Clone(c.Access.Default)
	for _, r := range c.Access.Rules {
		all = append(all, r.Scopes...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	w.Private = true
	w.Table(catalog.TablePolicy, catalog.PolicyFields, [][][]byte{{
		catalog.PolicyDefault: []byte(strings.Join(c.Access.Default, " ")),
		catalog.PolicyScopes:  []byte(strings.Join(all, " ")),
	}})
	rows := make([][][]byte, len(c.Skills))
	for i, s := range c.Skills {
		listed := []byte("1")
		if s.Unlisted {
			listed = nil
		}
		rows[i] = [][]byte{catalog.AccessScopes: []byte(strings.Join(s.Scopes, " ")), catalog.AccessListed: listed}
	}
	w.Table(catalog.TableAccess, catalog.AccessFields, rows)
}

// views writes c's view tables into w: the scope lists and, for every mask a caller can
// have, the index of the skills it shows (and of those with the unlisted ones, when
// there are any).
func (en *encoder) views(w *catalog.Writer, c *Catalog) {
	sets := scopeSets(withOlder(c))
	if p := viewsProblem(c.Access.Default, sets); p != "" {
		en.fail(fmt.Errorf("%w: %s", ErrPolicy, p))
		return
	}
	setOf := map[string]int{}
	setRows := make([][][]byte, len(sets))
	for j, set := range sets {
		l := strings.Join(set, " ")
		setOf[l] = j
		setRows[j] = [][]byte{catalog.SetScopes: []byte(l)}
	}
	w.Table(catalog.TableScopeSets, catalog.SetFields, setRows)
	var rows [][][]byte
	// The whole catalog, as a view, is the index's own tables (catalog.Self), with the
	// digest its own index would have: a caller's cursors carry it, and it must be one the
	// caller could compute from what it sees, not one that also covers the policy.
	// In a sharded index a view's index is a root of its own in the store, read when a
	// caller of the view is first answered (catalog/viewparts.go).
	index := func(skills []*Skill, h *Versions, whole bool) []byte {
		if whole && len(skills) == len(c.Skills) {
			return []byte(catalog.Self + entriesDigest(c))
		}
		b := en.sub(&Catalog{Skills: skills, TrustRoot: c.TrustRoot, Versions: h})
		en.view = ""
		if en.shardBytes == 0 || en.err != nil {
			return b
		}
		if _, err := catalog.OpenPart(b); err != nil {
			panic("compile: a view's root that does not open: " + err.Error()) // a bug of sharded
		}
		return en.addPart(b, fmt.Sprintf("the index of a view (%d skills)", len(skills))).Cell()
	}
	for _, m := range catalog.ClosedMasks(c.Access.Default, sets, catalog.MaxViews) {
		sees := func(s *Skill) bool { return m&(1<<setOf[strings.Join(s.Scopes, " ")]) != 0 }
		var listed, all []*Skill
		whole := true // the view shows every skill as it is: the catalog's own tables
		for _, s := range c.Skills {
			if !sees(s) {
				whole = false
				continue
			}
			if v := keptFor(s, sees); v != s {
				s, whole = v, false
			}
			all = append(all, s)
			if !s.Unlisted {
				listed = append(listed, s)
			}
		}
		row := [][]byte{catalog.ViewMask: binary.LittleEndian.AppendUint32(nil, m)}
		h := viewVersions(c, m, sets, setOf)
		if h != nil && len(h.Older) < len(c.Versions.Older) {
			whole = false
		}
		en.view = viewKey("listed", sets, m)
		row = append(row, index(listed, h, whole), nil)
		if len(all) > len(listed) {
			// The unlisted skills' index answers the lookups the listed one misses: its
			// root would never be read, and would list what the view does not.
			en.view, en.unsigned = "", true
			row[catalog.ViewAll] = index(all, nil, whole)
			en.unsigned = false
		}
		en.view = ""
		rows = append(rows, row)
	}
	w.Table(catalog.TableViews, catalog.ViewFields, rows)
}

// nested writes into w the indexes nested in c's: its older versions (TableVersions) and,
// for a private catalog, its access tables and views. Each is encoded as c's is (sub):
// whole in a whole index, a root of its own in a sharded one.
func (en *encoder) nested(w *catalog.Writer, c *Catalog) {
	if c.Versions != nil && len(c.Versions.Older) > 0 {
		objects, size := en.st.Len(), en.st.Size()
		en.older = true // the older versions are looked up by URI, never searched
		older := en.sub(&Catalog{Skills: c.Versions.Older, TrustRoot: c.TrustRoot, entryNames: olderNames(c)})
		en.older = false
		w.Table(catalog.TableVersions, catalog.VersionsFields, [][][]byte{{catalog.VersionsIndex: older}})
		c.Versions.Objects, c.Versions.Bytes = en.st.Len()-objects, int(en.st.Size()-size)
	}
	if c.Access != nil {
		encodeAccess(w, c)
		en.views(w, c)
	}
}

// sub encodes c, an index nested in the one under way: whole, or, when the index is sharded
// (shardBytes), as a sharded root whose shards go to the store with the others'.
func (en *encoder) sub(c *Catalog) []byte {
	en.depth++
	defer func() { en.depth-- }()
	if en.shardBytes > 0 {
		return en.sharded(c, en.shardBytes, nil)
	}
	return en.index(c, nil)
}

// viewKey names the index of kind ("listed") of the view of mask m over sets
// (RootInfo.View): the scope sets it shows.
func viewKey(kind string, sets [][]string, m uint32) string {
	k := kind
	for j, set := range sets {
		if m&(1<<j) != 0 {
			k += " " + strings.Join(set, "+")
			if len(set) == 0 {
				k += "-"
			}
		}
	}
	return k
}

// catalogDigest is c's catalog.MetaDigest: entriesDigest of its skills and, for a private
// catalog, each skill's scopes and listing, which a change of the policy alone changes.
func catalogDigest(c *Catalog) string {
	if c.Access == nil {
		return entriesDigest(c)
	}
	h := sha256.New()
	writeEntries(h, c)
	h.Write([]byte("access\n"))
	for _, s := range c.Skills {
		fmt.Fprintf(h, "%q %t\n", s.Scopes, s.Unlisted)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// feedDescription describes the change feed's resource (ChangesURI).
const feedDescription = "The change feed: the latest changes to the skills, newest first."

// entriesDigest is the catalog digest (catalog.MetaDigest) of a public index of c's
// skills: the SHA-256 of their skills/list entries, each followed by a newline (and, in a
// catalog that keeps history, by its versions: versionsDigestLine).
func entriesDigest(c *Catalog) string {
	h := sha256.New()
	writeEntries(h, c)
	return hex.EncodeToString(h.Sum(nil))
}

// writeEntries writes what entriesDigest hashes of c's skills to h.
func writeEntries(h io.Writer, c *Catalog) {
	for _, s := range c.Skills {
		h.Write(skillEntry(s, c.entryName(s)))
		h.Write([]byte{'\n'})
		h.Write(versionsDigestLine(s))
	}
}

// indexRow puts skill://index.json (the June 2026 draft's index) in the store and returns
// its resource row.
func (en *encoder) indexRow(c *Catalog, arch map[*Skill][]*blob) [][]byte {
	index := en.doc(IndexURI, "application/json", juneIndex(c, arch))
	return en.blobRow(index, "index.json", "The skills index (June 2026 draft of SEP-2640): every skill with its SKILL.md digest, frontmatter and archives.")
}

// httpRows puts the documents served over well-known HTTP in the store and returns
// TableHTTP's rows: none for a shard.
func (en *encoder) httpRows(c *Catalog, arch map[*Skill][]*blob, feed *feedDocs, root *rootDocs) [][][]byte {
	if en.shard {
		return nil
	}
	docs := []*blob{
		en.doc(catalog.AgentSkillsIndex, "application/json", agentSkillsIndex(c, arch)),
		en.doc(catalog.SkillsIndex, "application/json", skillsIndex(c)),
	}
	if feed != nil {
		docs = append(docs, feed.json, feed.atom)
	}
	if root != nil {
		docs = append(docs, root.http)
	}
	var rows [][][]byte
	for _, doc := range docs {
		rows = append(rows, [][]byte{
			catalog.HTTPPath:        []byte(doc.uri),
			catalog.HTTPContentType: []byte(doc.mime),
			catalog.HTTPDigest:      []byte(doc.digest),
			catalog.HTTPObject:      doc.cellOf(),
		})
	}
	return rows
}
