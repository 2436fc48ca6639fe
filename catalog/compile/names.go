package compile

import (
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"

	"github.com/skilledge/skilledge/catalog"
)

// Directory and file names that are version-control or operating-system clutter. They are
// skipped silently wherever they are: they are never part of a skill.
var (
	clutterDirs  = map[string]bool{".git": true, ".hg": true, ".svn": true, ".bzr": true, "__MACOSX": true}
	clutterFiles = map[string]bool{".DS_Store": true, "Thumbs.db": true, "desktop.ini": true}
)

func isClutterFile(name string) bool {
	return clutterFiles[name] || strings.HasPrefix(name, "._")
}

// Ignored reports whether Load skips a directory (dir) or file named name wherever it is,
// as version-control or operating-system clutter: a watcher of the folder need not look
// into it.
func Ignored(name string, dir bool) bool {
	if dir {
		return clutterDirs[name]
	}
	return isClutterFile(name)
}

// checkSegment returns why a file or directory name inside a skill cannot be served as a
// segment of a skill:// URI, or "". See PROTOCOL.md#uris: paths never hold "..", ".", empty
// segments, backslashes or control characters.
func checkSegment(seg string) string {
	if seg == "" || seg == "." || seg == ".." {
		return "is not a usable name"
	}
	return catalog.NameProblem(seg)
}

// checkPrefixSegment returns why a directory name in a skill's path before the skill's own
// directory cannot serve as a URI path segment, or "". Such segments appear unescaped in
// skill:// URIs and in the well-known HTTP indexes.
func checkPrefixSegment(seg string) string {
	if why := checkSegment(seg); why != "" {
		return why
	}
	if i := strings.IndexAny(seg, "/?#%"); i >= 0 {
		return fmt.Sprintf("contains %q", seg[i])
	}
	if strings.IndexFunc(seg, unicode.IsSpace) >= 0 {
		return "contains whitespace"
	}
	return ""
}

// checkAuthority returns why the first segment of a skill path, which is the authority of
// its skill:// URIs, is not a good RFC 3986 reg-name, or "".
// See https://www.rfc-editor.org/rfc/rfc3986#section-3.2.2.
func checkAuthority(seg string) string {
	for _, r := range seg {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', strings.ContainsRune("-._~!$&'()*+,;=", r):
		case r >= 'A' && r <= 'Z':
			return "has uppercase letters, and URI authorities are case-insensitive: clients may lowercase it"
		default:
			return fmt.Sprintf("is not an RFC 3986 reg-name (it contains %q), and it sits in the authority of skill:// URIs", r)
		}
	}
	return ""
}

// indexName is the name s is known by where c's skills are keyed by name
// (catalog.IndexNames): its own unless another skill of c shares it. A shard's skills are
// named as in the whole catalog; a view's (views.go), from the skills it shows.
func (c *Catalog) indexName(s *Skill) string {
	if c.whole != nil {
		return c.whole.indexName(s)
	}
	if c.names == nil {
		c.names = indexNames(c.Skills)
	}
	return c.names[s]
}

// entryName is the SEP-2076 name of s's entry: its index name, or, for an older version,
// its latest's (olderNames).
func (c *Catalog) entryName(s *Skill) string {
	if c.whole != nil {
		return c.whole.entryName(s)
	}
	if n, ok := c.entryNames[s]; ok {
		return n
	}
	return c.indexName(s)
}

// olderNames names each of c's older versions by its latest's index name in c (its own
// name where the latest is gone): skills/get {name, version} asks for a version by the
// latest's name, and a version's entry says it. Versions are looked up by URI, never by
// these names, which repeat.
func olderNames(c *Catalog) map[*Skill]string {
	latest := make(map[string]*Skill, len(c.Skills))
	for _, s := range c.Skills {
		latest[s.Path] = s
	}
	names := make(map[*Skill]string, len(c.Versions.Older))
	for _, v := range c.Versions.Older {
		names[v] = v.Name
		if at := strings.Index(v.Path, "/"+catalog.VersionMark); at > 0 && latest[v.Path[:at]] != nil {
			names[v] = c.indexName(latest[v.Path[:at]])
		}
	}
	return names
}

// knownAs says, for the warning about a name other skills share, what a skill named name
// is known by where skills are keyed by name: its index name.
func knownAs(name, index string) string {
	const where = "where skills are keyed by name (well-known indexes, skills/get {name}, prompts, pull)"
	if name == index {
		return "it keeps the name " + where + "; the others take qualified names"
	}
	return fmt.Sprintf("it is served as %q %s", index, where)
}

// indexNames is catalog.IndexNames of skills, by skill.
func indexNames(skills []*Skill) map[*Skill]string {
	named := make([]catalog.Named, len(skills))
	for i, s := range skills {
		named[i] = catalog.Named{Path: s.Path, Name: s.Name, Mounted: s.Source != nil, Unlisted: s.Unlisted}
	}
	names := make(map[*Skill]string, len(skills))
	for i, n := range catalog.IndexNames(named) {
		names[skills[i]] = n
	}
	return names
}

// skillURI is the URI of the SKILL.md of s (catalog.SkillURI).
func skillURI(s *Skill) string {
	return catalog.Scheme + catalog.EscapePath(s.Path) + "/" + catalog.SkillMD
}

func fileURI(f *File) string { return catalog.Scheme + catalog.EscapePath(f.Path) }

func digestString(f *File) string { return "sha256:" + hex.EncodeToString(f.Digest[:]) }

// Generator names the writer of an index (TableMeta). It carries no time or machine data
// so that indexes stay reproducible.
const Generator = "skilledge catalog/compile"
