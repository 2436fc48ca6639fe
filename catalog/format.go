// Package catalog reads skilledge packs: the prebuilt, content-addressed form of a skills
// catalog that the server answers from.
//
// A pack is written once, at build time, by catalog/build. Every JSON fragment a response
// needs (each skill entry, each resource descriptor, each resources/read content object) is
// rendered there, so the server only looks bytes up and concatenates them. This package is
// linked into the wasm plugin: it imports only the standard library and decodes nothing at
// request time.
//
// # Layout
//
// All integers are little-endian uint32.
//
//	offset  size       field
//	0       8          magic "SKLPACK\x01"
//	8       4          table count T
//	12      16*T       table headers: kind, rows, fields, cells offset
//	...                cell arrays: rows*fields cells of (offset, length), row-major,
//	                   each naming a byte range of the pack
//	...                data: the bytes the cells name
//
// A table is a grid of byte strings. Tables and fields are identified by the constants
// below; a reader requires at least the fields it knows and ignores extra ones, so later
// formats can add fields without breaking older readers of the same magic. Lists of row
// numbers (for example a directory's children) are stored as a field holding consecutive
// uint32 values.
package catalog

// Magic opens every pack. The last byte is the format version.
const Magic = "SKLPACK\x01"

// Table kinds.
const (
	// TableMeta has one row describing the whole pack.
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
	MetaGenerator        // the tool and version that wrote the pack, informational
	MetaTrustRoot        // the deployment's DVS trust root ("https://…/"), or empty
	MetaFields           // the number of fields
)

// Fields of TableSkills.
const (
	SkillPath        = iota // "acme/billing/refunds"
	SkillName               // frontmatter name
	SkillURI                // "skill://acme/billing/refunds/SKILL.md"
	SkillEntry              // the skill entry JSON object: v1 {"uri","frontmatter","resources"} plus the SEP-2076 fields
	SkillFrontmatter        // the frontmatter as a verbatim JSON object
	SkillDescription        // the description as a JSON string, quotes included
	SkillBody               // the SKILL.md body (after the frontmatter), raw markdown
	SkillByName             // the SEP-2076 skills/get {name} result members: "description","instructions","files"
	SkillArchives           // uint32 list: the TableResources rows of the skill's .tar.gz and .zip
	SkillFields             // the number of fields
)

// Fields of TableResources. The first IndexListed rows are listed by resources/list (every
// file, then skill://index.json); the rest (the archives) are readable but not listed.
const (
	ResURI  = iota // "skill://acme/billing/refunds/SKILL.md"
	ResList        // descriptor JSON object for resources/list and directory listings
	ResRead        // content JSON object for resources/read: {"uri","mimeType","text"|"blob"}; the
	// file's bytes are stored only here, already JSON-escaped (text) or base64 (blob), so the
	// primary surface is a pure splice; surfaces that need raw bytes decode this field.
	ResMIME   // the MIME type, e.g. "text/markdown"
	ResDigest // "sha256:<64 lowercase hex>" of the raw bytes
	ResSize   // the raw byte count, decimal ASCII
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
	IndexFields              // the number of fields
)

// Fields of TableHTTP.
const (
	HTTPPath        = iota // "/.well-known/agent-skills/index.json"
	HTTPContentType        // "application/json"
	HTTPBody               // the document
	HTTPDigest             // "sha256:<hex>" of HTTPBody
	HTTPFields             // the number of fields
)
