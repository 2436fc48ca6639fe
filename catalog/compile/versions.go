package compile

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/skilledge/skilledge/catalog"
)

// Versions (PROTOCOL.md#versions). A folder whose policy file asks for history
// (versions: {keep: N}) is compiled with its skills' older published versions beside the
// latest: package catalog/versions reads them from git and fills Catalog.Versions, and
// Encode serves each older version as a skill of its own at its version path
// (catalog.VersionPath), left out of every listing, in an index of its own
// (catalog.TableVersions) that answers only the lookups the latest skills miss. The latest
// skills keep their URIs and bytes; what they gain is the list of their versions in _meta
// (catalog.MetaVersions) and the change feed.

// ManifestDigest is a skill's content digest, the same wherever the skill is served
// (latest or at its version path): "sha256:" and the hex SHA-256 of its files as lines in
// the format of sha256sum, "HEX  PATH\n", PATH relative to the skill's directory, in the
// order of the skill's resources (SKILL.md first, then by path). A client that holds the
// files can recompute it.
func ManifestDigest(s *Skill) string {
	h := sha256.New()
	for _, f := range s.Files {
		h.Write([]byte(hex.EncodeToString(f.Digest[:])))
		h.Write([]byte("  "))
		h.Write([]byte(strings.TrimPrefix(f.Path, s.Path+"/")))
		h.Write([]byte("\n"))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// versionsMeta renders the _meta object member of a latest skill's kept versions:
// `"io.github.skilledge/versions":[{"version","uri","digest","published"?}…]`, or nil
// when the skill has none.
func versionsMeta(s *Skill) []byte {
	if len(s.Kept) == 0 {
		return nil
	}
	b := []byte(`"` + catalog.MetaVersions + `":[`)
	for i, k := range s.Kept {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"version":`...)
		b = append(b, jsonString(k.Version)...)
		b = append(b, `,"uri":`...)
		b = append(b, jsonString(skillURI(k.Skill))...)
		b = append(b, `,"digest":`...)
		b = append(b, jsonString(ManifestDigest(k.Skill))...)
		if !k.Published.IsZero() {
			b = append(b, `,"published":`...)
			b = append(b, jsonString(feedTime(k.Published))...)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// versionURIs renders SkillVersionURIs: "VERSION SP URI LF" per kept version.
func versionURIs(s *Skill) []byte {
	var b []byte
	for _, k := range s.Kept {
		b = append(append(append(append(b, k.Version...), ' '), skillURI(k.Skill)...), '\n')
	}
	return b
}

// versionsDigestLine is what a skill's versions add to the catalog digest
// (catalog.MetaDigest): its versions' _meta and a newline, nothing without history, so
// that a new version, or a version newly committed, is a new catalog (serve --watch swaps
// it in), and a catalog without history keeps its digest.
func versionsDigestLine(s *Skill) []byte {
	m := versionsMeta(s)
	if m == nil {
		return nil
	}
	return append(m, '\n')
}

// MaxChanges and MaxFeedBytes bound the change feed: the newest changes a caller may
// see, at most MaxChanges of them, and no more than fit in MaxFeedBytes of entries in
// each document (the JSON and the Atom feed): a commit of many skills, each with many
// files, cannot make a feed larger than a host serves.
const (
	MaxChanges   = 100
	MaxFeedBytes = 1 << 20
)

// feedChanges are the changes of changes (newest first) a caller may see, as it sees
// them: the newest, at most MaxChanges and no more than fit in MaxFeedBytes of entries
// in each document. A move is what the caller sees of it: a move when it may see both
// paths, the skill's arrival when only the new one, its removal when only the old one,
// each byte for byte what an addition or a deletion would show; so within a commit the
// changes are in the order of the paths shown, as they would be.
func feedChanges(changes []*Change, private bool, visible func(scopes []string, unlisted bool) bool) []*Change {
	var shown []*Change
	jsonBytes, atomBytes := 0, 0
	for _, ch := range changes {
		if len(shown) == MaxChanges {
			break
		}
		switch {
		case !visible(ch.Scopes, ch.Unlisted):
			if ch.Moved == "" || !visible(ch.MovedScopes, ch.MovedUnlisted) {
				continue
			}
			ch = &Change{Path: ch.Moved, Name: ch.MovedName, From: ch.From, Date: ch.Date, Commit: ch.Commit, Subject: ch.Subject,
				Removed: ch.MovedFiles, Scopes: ch.MovedScopes, Unlisted: ch.MovedUnlisted}
		case ch.Moved != "" && !visible(ch.MovedScopes, ch.MovedUnlisted):
			arrived := *ch
			arrived.Moved, arrived.MovedScopes, arrived.From = "", nil, nil
			arrived.MovedName, arrived.MovedFiles = "", nil
			arrived.Added, arrived.Changed, arrived.Removed = ch.Files, nil, nil
			ch = &arrived
		}
		jsonBytes += len(changesJSON([]*Change{ch}, private))
		atomBytes += len(atomEntry(ch, private))
		if jsonBytes > MaxFeedBytes || atomBytes > MaxFeedBytes {
			break
		}
		shown = append(shown, ch)
	}
	// A commit's changes are in the order of their paths (history.Read); a move shown
	// at its old path takes that path's place.
	slices.SortStableFunc(shown, func(a, b *Change) int {
		if a.Commit != b.Commit || !a.Date.Equal(b.Date) {
			return 0
		}
		return strings.Compare(a.Path, b.Path)
	})
	return shown
}

// MergeVersions adds to c's history that of the skills of one of its sources, from:
// what versions.Attach gave a catalog of those skills alone, mounted (Mount) with c's
// policy. Each change of from names the source (Change.Source); the changes stay the
// newest first, at most MaxChanges, and the older versions sorted by path.
func MergeVersions(c *Catalog, from *Versions, source string) {
	if from == nil {
		return
	}
	for _, ch := range from.Changes {
		ch.Source = source
	}
	if c.Versions == nil {
		c.Versions = &Versions{Keep: from.Keep}
	}
	h := c.Versions
	h.Older = append(h.Older, from.Older...)
	slices.SortStableFunc(h.Older, func(a, b *Skill) int { return strings.Compare(a.Path, b.Path) })
	h.Changes = append(h.Changes, from.Changes...)
	slices.SortStableFunc(h.Changes, func(a, b *Change) int { return b.Date.Compare(a.Date) })
	h.Changes = h.Changes[:min(len(h.Changes), MaxChanges)]
	h.Commits += from.Commits
	h.Shallow = h.Shallow || from.Shallow
	h.Cut = h.Cut || from.Cut
}

// Relocate returns copies of skills (a skill and the skills nested in it) moved from the
// path from to the path to: each path under from is under to instead, with the same
// bytes, types and digests. A file of a nested skill is one *File in the copies, as in the
// originals. It serves the latest version of a skill at its version path too, so that a
// pin to today's version outlives the next one.
func Relocate(skills []*Skill, from, to string) []*Skill {
	moved := map[*File]*File{}
	move := func(p string) string { return to + strings.TrimPrefix(p, from) }
	out := make([]*Skill, len(skills))
	for i, s := range skills {
		c := *s
		c.Path, c.Kept = move(s.Path), nil
		c.Files = make([]*File, len(s.Files))
		for k, f := range s.Files {
			m, ok := moved[f]
			if !ok {
				cf := *f
				cf.Path = move(f.Path)
				m = &cf
				moved[f] = m
			}
			c.Files[k] = m
		}
		out[i] = &c
	}
	return out
}
