package catalog

import "strings"

// Names the builder and the server share. catalog/compile writes each of these into the
// index (URIs, paths, rendered JSON and HTML) and edge routes, matches or mentions the same
// name at request time; each is defined here once so that the two cannot drift apart.
// Changing one changes the built catalog and the server's answers together.

// SkillMD is the file that makes a directory a skill. catalog/compile looks for it when it
// walks a folder and serves it as text/markdown (SkillMDType); every SkillURI is
// Scheme+path+"/"+SkillMD (Open checks it), and the server takes SkillMD off a SkillURI to
// find the skill's root. See PROTOCOL.md#skill-format and PROTOCOL.md#uris.
const SkillMD = "SKILL.md"

// SkillMDType is the MIME type every SkillMD is served with (ResMIME), whatever its
// extension would give: catalog/compile assigns it, and the server's resource template for
// skills announces it.
const SkillMDType = "text/markdown"

// Names of the tools fallback (PROTOCOL.md#fallbacks, TableSite). catalog/compile renders
// them into the tools/list array (SiteTools) and into the texts that tell a model which
// tool to call next (FallbackFilesText, the catalog page); the server dispatches tools/call
// on them and names them in its own texts for the model.
const (
	ToolListSkills    = "list_skills"
	ToolLoadSkill     = "load_skill"
	ToolReadSkillFile = "read_skill_file"
	ToolSearchSkills  = "search_skills"
)

// Paths of well-known HTTP discovery (PROTOCOL.md#well-known). catalog/compile renders the
// two index documents (TableHTTP rows whose HTTPPath is AgentSkillsIndex and SkillsIndex)
// and the catalog page's links; the server answers every other path under a prefix from the
// index, by skill name:
//
//	AgentSkillsPrefix+NAME+ArchiveTarGz (or ArchiveZip)  the skill's archive (SkillArchives)
//	AgentSkillsPrefix+NAME+"/"+FILE                       a file of the skill
//	SkillsPrefix+NAME+"/"+FILE                            a file of the skill
//
// where NAME is a skill's index name (IndexNames, SkillName) and FILE a path in the
// skill as its URI has it (SkillMD for its SKILL.md). See
// https://github.com/cloudflare/agent-skills-discovery-rfc
const (
	AgentSkillsPrefix = "/.well-known/agent-skills/" // discovery RFC v0.2.0
	SkillsPrefix      = "/.well-known/skills/"       // discovery RFC v0.1.0, and the DVS index
	AgentSkillsIndex  = AgentSkillsPrefix + "index.json"
	AgentSkillsSearch = AgentSkillsPrefix + "search" // ?q=…&limit=…&cursor=…: the index's entries a search finds
	SkillsIndex       = SkillsPrefix + "index.json"
)

// Extensions of a skill's archives. catalog/compile writes the archives of the skill at
// PATH as the resources Scheme+PATH+ArchiveTarGz and Scheme+PATH+ArchiveZip (SkillArchives
// lists their rows in that order) and points the indexes and the catalog page at them; the
// server serves them over well-known HTTP as AgentSkillsPrefix+NAME+ArchiveTarGz (or
// ArchiveZip).
const (
	ArchiveTarGz = ".tar.gz"
	ArchiveZip   = ".zip"
)

// SitemapPath is where the server answers the sitemap (of the SKILL.md files under
// SkillsPrefix), which the catalog page (SitePage) links to.
const SitemapPath = "/sitemap.xml"

// Versions (PROTOCOL.md#versions). An older kept version of the skill at PATH, named NAME
// in that version, is served as a skill of its own at VersionPath(PATH, VERSION, NAME):
// PATH/@VERSION/NAME, so that the last segment is still the skill's name (SEP-2640) and no
// folder of a catalog that keeps history may have a segment starting with VersionMark.
// A latest skill lists its kept versions in _meta under MetaVersions; the change feed is
// served at ChangesJSON and ChangesAtom, and as the resource ChangesURI.
const (
	VersionMark  = "@"
	MetaVersions = "io.github.skilledge/versions"
	ChangesJSON  = "/changes.json"
	ChangesAtom  = "/changes.atom"
	ChangesURI   = Scheme + "changes.json"
)

// A signed catalog's root (PROTOCOL.md#signed-root) is served as the resource RootURI and
// at RootJSON, and skills/list points to it in its _meta under MetaRoot.
const (
	RootURI  = Scheme + "root.json"
	RootJSON = AgentSkillsPrefix + "root.json"
	MetaRoot = "io.github.skilledge/root"
)

// MetaSource is the _meta member of a skill entry (and of its SKILL.md's resource
// descriptor) that says where a skill mounted from a source came from
// (PROTOCOL.md#sources): {"source","repository","commit","path"}.
const MetaSource = "io.github.skilledge/source"

// IsCommitName reports whether s is a full git object name: 40 (SHA-1) or 64 (SHA-256)
// lowercase hex digits, as git prints a commit's. A commit named otherwise (short, or as an
// expression) is never taken from a lock or a remote.
func IsCommitName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// IsDigest reports whether s is a digest as skilledge writes one: "sha256:" and 64
// lowercase hex digits (an index's, a manifest's, a lock's).
func IsDigest(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	return ok && hexDigest(h)
}

// VersionPath is the path the version named version of the skill at path is served at,
// its last segment name (the skill's name in that version).
func VersionPath(path, version, name string) string {
	return path + "/" + VersionMark + version + "/" + name
}

// ValidVersion reports whether a version name can stand in a URI path segment as it is:
// 1 to 64 of ASCII letters, digits and ".-+_", not "." or "..".
func ValidVersion(s string) bool {
	if s == "" || len(s) > 64 || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == '_') {
			return false
		}
	}
	return true
}
