package compile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/internal/mediatype"
)

// Versions (PROTOCOL.md#versions). A folder whose policy file asks for history
// (versions: {keep: N}) is compiled with its skills' older published versions beside the
// latest: package catalog/history reads them from git and fills Catalog.History, and
// Encode serves each older version as a skill of its own at its version path
// (catalog.VersionPath), left out of every listing, in an index of its own
// (catalog.TableHistory) that answers only the lookups the latest skills miss. The latest
// skills keep their URIs and bytes; what they gain is the list of their versions in _meta
// (catalog.MetaVersions) and the change feed.

// History is what a folder's git history adds to its catalog.
type History struct {
	// Keep is the policy's versions.keep: the versions kept per skill, the latest
	// included.
	Keep int
	// Versions are the older kept versions, each a skill at its version path, sorted by
	// Path. A skill nested in a version is a skill here too, as in the folder.
	Versions []*Skill
	// Changes are the latest changes, newest first, at most MaxChanges.
	Changes []*Change
	// Commits is the number of commits read; Shallow and Cut say the history was cut
	// short (a shallow clone, or more than the commits read).
	Commits        int
	Shallow, Cut   bool
	Objects, Bytes int // the content-store objects and bytes the versions add (Encode)

	// private and visible are set for the catalog of one caller's view (views.go): the
	// feed leaves out what the view may not see, and, under an access policy, commit
	// names and subjects. Without them every listed skill's changes are shown.
	private bool
	visible func(scopes []string, unlisted bool) bool
}

// MaxKeep bounds the policy's versions.keep.
const MaxKeep = 100

// MaxChanges and MaxFeedBytes bound the change feed: the newest changes a caller may
// see, at most MaxChanges of them, and no more than fit in MaxFeedBytes of entries in
// each document (the JSON and the Atom feed): a commit of many skills, each with many
// files, cannot make a feed larger than a host serves.
const (
	MaxChanges   = 100
	MaxFeedBytes = 1 << 20
)

// Change is what one commit did to one skill: the change feed's entry.
type Change struct {
	// Path and Name are the skill's after the commit (before it, for a removal).
	Path, Name string
	// Moved is the skill's path before the commit, when the commit moved it.
	Moved string
	// From is nil for a skill the commit added, To for one it removed.
	From, To *ChangeVersion
	Date     time.Time
	// Commit is the commit's full name, Subject the first line of its message.
	Commit, Subject string
	// Added, Changed and Removed are files, relative to the skill's directory; Files
	// are every file of To (for a caller who sees the skill arrive rather than move).
	Added, Changed, Removed, Files []string
	// MovedName and MovedFiles are, for a move, the skill's name and files before it:
	// for a caller who may see the old path but not the new one, the skill left, and the
	// feed shows the move as the removal a deletion would be.
	MovedName  string
	MovedFiles []string
	// Scopes and Unlisted are what the access policy says of Path (Access.Scopes), and
	// MovedScopes and MovedUnlisted of Moved: a caller sees the change at Path only if it
	// may see the skill there, and its old path only if it may see that too.
	Scopes, MovedScopes     []string
	Unlisted, MovedUnlisted bool
}

// ChangeVersion names one side of a change.
type ChangeVersion struct {
	Version string
	Digest  string // the version's manifest digest (ManifestDigest)
}

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

// Kept is one entry of a latest skill's list of versions (catalog.MetaVersions).
type Kept struct {
	Version string
	// Skill is the version as served: the latest skill itself, or an older version at
	// its version path.
	Skill *Skill
	// Published is when the version was first committed; zero for a latest skill whose
	// content is not committed.
	Published time.Time
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

// checkVersionMarks refuses, in a folder that keeps history, every served path with a
// segment starting with catalog.VersionMark: such a segment names a version
// (catalog.VersionPath), so a folder or file named so would collide with one.
func (l *loader) checkVersionMarks() {
	for _, p := range l.paths {
		encl := l.enclosing(p)
		for dir, seg := range pathSegments(p) {
			if strings.HasPrefix(seg, catalog.VersionMark) && !l.reported[dir] {
				l.reported[dir] = true
				l.report(Error, dir, 0, innermost(encl), fmt.Sprintf(
					"%q starts with %q, which names a skill's versions in a catalog that keeps history (versions: in %s): rename it",
					seg, catalog.VersionMark, PolicyFile), encl...)
			}
		}
	}
}

// pathSegments yields each segment of the slash-separated path p with the path up to and
// including it.
func pathSegments(p string) func(yield func(prefix, seg string) bool) {
	return func(yield func(prefix, seg string) bool) {
		start := 0
		for i := 0; i <= len(p); i++ {
			if i == len(p) || p[i] == '/' {
				if !yield(p[:i], p[start:i]) {
					return
				}
				start = i + 1
			}
		}
	}
}

// NewFile returns the file at path (relative to the catalog root) with bytes data, typed
// and digested as Load does.
func NewFile(path string, data []byte) *File {
	text := mediatype.IsText(data)
	return &File{Path: path, Data: data, Size: int64(len(data)), MIME: mimeType(path, text), Text: text, Digest: sha256.Sum256(data)}
}

// versionURIs renders SkillVersionURIs: "VERSION SP URI LF" per kept version.
func versionURIs(s *Skill) []byte {
	var b []byte
	for _, k := range s.Kept {
		b = append(append(append(append(b, k.Version...), ' '), skillURI(k.Skill)...), '\n')
	}
	return b
}

// feedDocs are the change feed's documents: the resource ChangesURI, and ChangesJSON and
// ChangesAtom over HTTP.
type feedDocs struct{ resource, json, atom *blob }

// feed renders c's change feed, or nil when c keeps no history: feedChanges of the
// catalog's caller (History.visible; every change to a listed skill when it is not one
// caller's view).
func (en *encoder) feed(c *Catalog) *feedDocs {
	h := c.History
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

// fingerprint writes into w everything of h that Encode renders (Catalog.Fingerprint).
func (h *History) fingerprint(w io.Writer) {
	fmt.Fprintf(w, "history %d %d %t %t\n", h.Keep, h.Commits, h.Shallow, h.Cut)
	for _, s := range h.Versions {
		fmt.Fprintf(w, "version %q %q %q\n", s.Path, s.Version, s.Scopes)
		for _, f := range s.Files {
			fmt.Fprintf(w, "file %q %x\n", f.Path, f.Digest)
		}
	}
	for _, ch := range h.Changes {
		fmt.Fprintf(w, "change %q %q %q %q %q %d %q %q %q %q %q %q %q\n", ch.Path, ch.Name, ch.Moved, ch.From, ch.To, ch.Date.Unix(),
			ch.Commit, ch.Subject, ch.Added, ch.Changed, ch.Removed, ch.MovedName, ch.MovedFiles)
	}
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
