package compile

import (
	"strings"

	"github.com/skilledge/skilledge/catalog"
)

// The distribution surfaces beside the v1 extension (PROTOCOL.md#archives,
// PROTOCOL.md#well-known): each skill's reproducible archives, the June-2026-draft resource
// skill://index.json, and the two well-known HTTP discovery indexes. All are rendered
// once, from the same files and digests as the v1 manifest, at the paths and under the
// names the server routes by (catalog.AgentSkillsPrefix, catalog.SkillsPrefix,
// catalog.ArchiveTarGz, …): the documents here, the archives by the encoder, which writes
// them into the store as their files are read (encoder.archives, in encoder.go).

// DiscoverySchema identifies the discovery RFC v0.2.0 index format.
const DiscoverySchema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

// IndexURI is the June-draft index resource.
const IndexURI = catalog.Scheme + "index.json"

// blob is a generated artifact in the store: an archive or an index document (whose bytes,
// small, it keeps; an archive's are only in the store).
type blob struct {
	uri, mime string
	ref       catalog.Ref // the object; of a document in parts, its Size only
	cell      []byte      // the reference field naming it (in parts: addLarge)
	digest    string
	data      []byte // a document's bytes; nil for an archive
}

// juneIndex renders skill://index.json: the 06-08 draft fields (url and digest of SKILL.md,
// the verbatim frontmatter, archives[]) plus the flat 04-23 fields (name, description,
// type; name being the index name, as the skill entry's), so both generations of index
// readers find what they look for. Archive entries carry the media type under both names
// the drafts used.
func juneIndex(c *Catalog, arch map[*Skill][]*blob) []byte {
	b := []byte(`{"$schema":"` + DiscoverySchema + `","skills":[`)
	for i, s := range c.Skills {
		if i > 0 {
			b = append(b, ',')
		}
		md := s.Files[0] // SKILL.md comes first
		b = append(b, `{"name":`...)
		b = append(b, jsonString(c.indexName(s))...)
		b = append(b, `,"description":`...)
		b = append(b, jsonString(s.Description)...)
		b = append(b, `,"type":"skill-md","url":`...)
		b = append(b, jsonString(skillURI(s))...)
		b = append(b, `,"digest":`...)
		b = append(b, jsonString(digestString(md))...)
		b = append(b, `,"frontmatter":`...)
		b = append(b, s.Frontmatter...)
		b = append(b, `,"archives":[`...)
		for k, a := range arch[s] {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"url":`...)
			b = append(b, jsonString(a.uri)...)
			b = append(b, `,"mimeType":`...)
			b = append(b, jsonString(a.mime)...)
			b = append(b, `,"mediaType":`...)
			b = append(b, jsonString(a.mime)...)
			b = append(b, `,"digest":`...)
			b = append(b, jsonString(a.digest)...)
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	return append(b, "]}"...)
}

// agentSkillsIndex renders /.well-known/agent-skills/index.json (discovery RFC v0.2.0): a
// single-file skill as "skill-md" pointing at its SKILL.md, any other as "archive"
// pointing at its .tar.gz; urls relative to the index; digests of exactly those bytes.
// The indexes are keyed by name: each skill is there under its index name (indexName).
func agentSkillsIndex(c *Catalog, arch map[*Skill][]*blob) []byte {
	b := []byte(`{"$schema":"` + DiscoverySchema + `"`)
	b = appendTrustRoot(b, c.TrustRoot)
	b = append(b, `,"skills":[`...)
	n := 0
	for _, s := range c.Skills {
		entry := agentSkillsEntry(s, c.indexName(s), arch)
		if entry == nil {
			continue
		}
		if n++; n > 1 {
			b = append(b, ',')
		}
		b = append(b, entry...)
	}
	return append(b, "]}"...)
}

// agentSkillsEntry renders s's entry, under the name name, in the v0.2.0 index
// (agentSkillsIndex), or nil when it has none: a skill of several files whose archive
// could not be made.
func agentSkillsEntry(s *Skill, name string, arch map[*Skill][]*blob) []byte {
	kind, url, digest := "skill-md", name+"/"+catalog.SkillMD, digestString(s.Files[0])
	if len(s.Files) > 1 {
		if arch[s] == nil {
			return nil // no archive to point at (see archives)
		}
		kind, url, digest = "archive", name+catalog.ArchiveTarGz, arch[s][0].digest
	}
	b := []byte(`{"name":`)
	b = append(b, jsonString(name)...)
	b = append(b, `,"type":"`+kind+`","description":`...)
	b = append(b, jsonString(s.Description)...)
	b = append(b, `,"url":`...)
	b = append(b, jsonString(url)...)
	return append(b, `,"digest":"`+digest+`"}`...)
}

// skillsIndex renders /.well-known/skills/index.json (discovery RFC v0.1.0, and the DVS
// index): every file of each skill, served under /.well-known/skills/<name>/, by its index
// name; "path" is the DVS field pointing at the skill.
func skillsIndex(c *Catalog) []byte {
	b := []byte(`{`)
	if c.TrustRoot != "" {
		b = appendTrustRoot(b, c.TrustRoot)
		b = append(b, ',')
	}
	b = append(b, `"skills":[`...)
	for i, s := range c.Skills {
		if i > 0 {
			b = append(b, ',')
		}
		name := c.indexName(s)
		b = append(b, `{"name":`...)
		b = append(b, jsonString(name)...)
		b = append(b, `,"description":`...)
		b = append(b, jsonString(s.Description)...)
		b = append(b, `,"path":`...)
		b = append(b, jsonString(catalog.SkillsPrefix+name+"/")...)
		b = append(b, `,"files":[`...)
		for k, f := range s.Files {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, jsonString(strings.TrimPrefix(f.Path, s.Path+"/"))...)
		}
		b = append(b, "]}"...)
	}
	return append(b, "]}"...)
}

func appendTrustRoot(b []byte, root string) []byte {
	if root == "" {
		return b
	}
	if b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, `"trustRoot":`...)
	return append(b, jsonString(root)...)
}
