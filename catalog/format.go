// Package catalog reads skilledge catalog indexes: the prebuilt form of a skills catalog
// that the server answers from, and names the store objects that hold file contents.
//
// A catalog is written once, at build time, by catalog/compile, as two parts:
//
//   - the index (this package's format, OUT/catalog.pack): metadata, every JSON fragment a
//     response needs (each skill entry, each resource descriptor, the head of each
//     resources/read content object), digests and directory tables. It holds no file
//     contents and no archive bytes, so it stays small whatever the files weigh, and every
//     plugin instance loads its own copy.
//   - the content store (OUT/assets/sha256/): one object per distinct content, named by
//     the lowercase hex SHA-256 of its own bytes: each file's raw bytes, each file's
//     resources/read value (a JSON string literal: the text escaped, or the bytes in
//     base64), each SKILL.md body as a JSON string, each skill's .tar.gz and .zip (raw and
//     base64), and the generated documents. Hosts hold it once per process, not per
//     instance, and splice objects into responses (edge/wire.Ref).
//
// The server only looks index bytes up and concatenates them, naming store objects where a
// response carries contents. This package is linked into the wasm plugin: it imports only
// the standard library and decodes nothing at request time.
//
// Beside the layout, this package holds what else the builder and the server must agree
// on: the names both write or route by (names.go), and the shape of the resources/read
// content object, which the builder renders and the server takes apart (content.go).
//
// # Layout of the index
//
// All integers are little-endian uint32.
//
//	offset  size       field
//	0       8          magic "SKLPACK\x02"
//	8       4          table count T
//	12      16*T       table headers: kind, rows, fields, cells offset
//	...                cell arrays: rows*fields cells of (offset, length), row-major,
//	                   each naming a byte range of the index
//	...                data: the bytes the cells name
//
// A table is a grid of byte strings. Tables and fields are identified by the constants
// below; a reader requires at least the fields it knows and ignores extra ones, so later
// formats can add fields without breaking older readers of the same magic. Lists of row
// numbers (for example a directory's children) are stored as a field holding consecutive
// uint32 values. A reference to a store object (a "ref" field) is the ASCII text
// "SIZE NAME": the object's length in decimal, one space, and its name (64 lowercase hex
// digits); see ParseRef.
package catalog

// Magic opens every index. The last byte is the format version: 1 was the self-contained
// pack of skilledge before the content store (file contents inside), 2 is the index.
const Magic = "SKLPACK\x02"

// magicV1 opens a format-1 pack, which this reader refuses with a message saying so.
const magicV1 = "SKLPACK\x01"

// StoreDir is the directory of the content store inside a build's assets: object NAME is
// the file assets/StoreDir/NAME, and a Worker fetches it from its assets at
// /StoreDir/NAME.
const StoreDir = "sha256"

// Table kinds.
const (
	// TableMeta has one row describing the whole catalog.
	TableMeta uint32 = 1
	// TableSkills has one row per skill, in listing order (by skill path).
	TableSkills uint32 = 2
	// TableResources has one row per served file, in resources/list order.
	TableResources uint32 = 3
	// TableDirs has one row per directory resource, sorted by URI.
	TableDirs uint32 = 4
	// TableIndex has one row of lookup indexes.
	TableIndex uint32 = 5
	// TableHTTP has one row per document served as is over well-known HTTP discovery.
	TableHTTP uint32 = 6
)

// Fields of TableMeta.
const (
	MetaDigest    = iota // hex SHA-256 identifying the catalog content
	MetaGenerator        // the tool and version that wrote the index, informational
	MetaTrustRoot        // the deployment's DVS trust root ("https://…/"), or empty
	MetaFields           // the number of fields this reader needs
	// MetaPathOrder (a later field, which an index may lack) is "1" when the listing order
	// is the path order (SkillByPathRank(k) is k): every skill's path sorts as its URI
	// escapes it.
	MetaPathOrder = MetaFields
)

// Fields of TableSkills.
const (
	SkillPath        = iota // "acme/billing/refunds"
	SkillName               // index name (IndexNames): the frontmatter name unless another skill shares it
	SkillURI                // "skill://acme/billing/refunds/SKILL.md"
	SkillEntry              // the skill entry JSON object: v1 {"uri","frontmatter","resources"} plus the SEP-2076 fields
	SkillFrontmatter        // the frontmatter as a verbatim JSON object
	SkillDescription        // the description as a JSON string, quotes included
	// The SEP-2076 skills/get {name} result members are SkillByNameHead, then the object
	// SkillInstructions names, then SkillByNameTail.
	SkillByNameHead   // `"description":…,"instructions":`
	SkillInstructions // ref: the SKILL.md body (after the frontmatter) as a JSON string
	SkillByNameTail   // `,"files":[…]`
	SkillArchives     // uint32 list: the TableResources rows of the skill's .tar.gz and .zip
	SkillListed       // the resources/list descriptor of the skill's SKILL.md (scoped resources/list)
	SkillRequired     // the names of the skill's required SEP-2076 arguments, each followed by "\n"
	SkillFiles        // uint32 list: the TableResources rows of the skill's files, sorted by ResURI
	// SkillVersions is empty, or the member `"<MetaVersions>":[…]` that the _meta of the
	// skill's skills/get results carries (versions.go); SkillVersionURIs the same
	// versions as lines "VERSION SP URI LF", newest first, for skills/get {name, version}.
	SkillVersions
	SkillVersionURIs
	SkillFields // the number of fields
)

// Fields of TableResources. The first IndexListed rows are listed by resources/list (every
// file, then skill://index.json); the rest (the archives) are readable but not listed.
const (
	ResURI  = iota // "skill://acme/billing/refunds/SKILL.md"
	ResList        // descriptor JSON object for resources/list and directory listings
	// The resources/read content object is ResReadHead, then the object ResReadValue
	// names, then "}" (content.go).
	ResReadHead  // `{"uri":…,"mimeType":…,"text":` or `…,"blob":` (AppendReadHead)
	ResReadValue // ref: the content as a JSON string (text escaped, or base64 for a blob)
	ResMIME      // the MIME type, e.g. "text/markdown"
	ResDigest    // "sha256:<64 lowercase hex>" of the raw bytes
	ResSize      // the raw byte count, decimal ASCII
	ResObject    // ref: the raw bytes (its name is the hex of ResDigest)
	// ResReadMeta is empty, or `,"_meta":{…}` that follows the contents array of the
	// resource's resources/read result: a SKILL.md's kept versions (versions.go).
	ResReadMeta
	ResFields // the number of fields
)

// Fields of TableDirs.
const (
	DirURI      = iota // "skill://acme/billing/refunds/examples", never a trailing slash
	DirList            // descriptor JSON object {"uri","name","mimeType":"inode/directory"}
	DirChildren        // uint32 list, sorted by URI; DirBit set means a TableDirs row, else TableResources
	DirFields          // the number of fields
)

// DirBit marks a child in DirChildren that is a directory.
const DirBit = 1 << 31

// Fields of TableIndex.
const (
	IndexResByURI     = iota // uint32 list of TableResources rows sorted by ResURI
	IndexSkillsByURI         // uint32 list of TableSkills rows sorted by SkillURI
	IndexSkillsByName        // uint32 list of TableSkills rows sorted by SkillName, then listing order
	IndexListed              // one uint32: how many TableResources rows resources/list lists
	IndexSkillsByPath        // uint32 list of TableSkills rows sorted by skill path as in SkillURI (escaped)
	IndexFields              // the number of fields
)

// Fields of TableHTTP.
const (
	HTTPPath        = iota // "/.well-known/agent-skills/index.json"
	HTTPContentType        // "application/json"
	HTTPDigest             // "sha256:<hex>" of the document
	HTTPObject             // ref: the document
	HTTPFields             // the number of fields
)
