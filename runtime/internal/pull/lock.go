package pull

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// LockName is the lock file's name in the skills folder.
const LockName = "skills.lock"

// LockVersion is the format version a lock file carries in its "lockVersion" member: 2
// for a lock with selections, which a skilledge that knows only 1 would ignore; 1
// otherwise, so that a lock without one is read by every version. Both are read.
const LockVersion = 2

// Lock is skills.lock: what pull installed in a folder, and from where. It never holds a
// credential.
type Lock struct {
	LockVersion int           `json:"lockVersion"`
	Skills      []LockedSkill `json:"skills"`
	// Selections are, by source, the skills a pull was asked for (--skill, --path): a
	// later pull of the source without a selection keeps to it.
	Selections []Selection `json:"selections,omitempty"`
	// Roots are, by source, the signed root each source's last pull accepted (root.go).
	Roots []LockedRoot `json:"roots,omitempty"`
}

// Selection is what pulls of one source were asked for: the skills named and the catalog
// paths, each sorted and given once; with neither, the whole catalog. Removed are the
// skills removed from the folder (skilledge remove), which a pull does not bring back
// until one is named again.
//
// Why does `skills.lock` remember what a pull was asked for? `pull URL DIR --skill pdf
// --skill docx`, then the update step `pull URL DIR`, installed every other skill of the
// catalog: the second pull had nothing to say what the first one chose. So the lock
// records, by source, the skills and paths a pull was asked for; a pull that names none
// keeps to them (newScope) and names the catalog's other skills as new (WhyNew), installing
// none. A source first pulled whole stays whole (it has no selection: Lock.pulledWhole),
// and --frozen keeps to the lock's skills alone. The lock says lockVersion 2 only when it
// holds a selection (LockVersion), so that a lock without one is read by every skilledge,
// and an older one refuses a lock whose selection it would ignore. Rejected: inferring the
// selection from the skills locked (a skill withdrawn and published again would fall out
// of it), and installing new skills with a note (what an agent loads is the team's choice,
// not the catalog's).
type Selection struct {
	Source  string   `json:"source"`
	Skills  []string `json:"skills,omitempty"`
	Paths   []string `json:"paths,omitempty"`
	Removed []string `json:"removed,omitempty"`
}

// whole reports whether the selection is the whole catalog (but what was removed).
func (s *Selection) whole() bool { return len(s.Skills)+len(s.Paths) == 0 }

// LockedSkill is one installed skill.
//
// Why does `skills.lock` keep the artifact's digest beside the manifest digest? The
// manifest digest (PROTOCOL.md#versions) names a skill's files wherever it is served, so it
// is what a reviewer compares; but the well-known index gives the digest of the artifact,
// and comparing that one is what lets a pull or outdated decide without downloading
// anything (lockMatches). Rejected: the manifest digest alone, which needs a download or
// the MCP _meta to compare. A skill read from a v0.1.0 index, which publishes no digest, has
// an empty Artifact and Unverified set. The lock holds no token: the token is a flag or
// $SKILLEDGE_TOKEN, and the lock is meant to be committed.
type LockedSkill struct {
	// Name is the skill's name and its folder in the skills folder.
	Name string `json:"name"`
	// Source is the deployment URL it was pulled from, as given to pull.
	Source string `json:"source"`
	// Path is the skill's path in the catalog. A well-known index names skills by name
	// only, so it is the name there.
	Path string `json:"path"`
	// Named is the skill's own name, its SKILL.md's, where the catalog names it otherwise:
	// other skills of the source share that name, so it is installed in a folder of its
	// index name (catalog.IndexNames, PROTOCOL.md#index-names). Named, with Path (the
	// skill's path where it was read over MCP or from a folder; over well-known HTTP its
	// index name, which the signed root, when served, binds to the path) and URL, says
	// which skill the folder holds. "" when the folder is the skill's own name.
	Named string `json:"named,omitempty"`
	// Version is the version pinned (Pinned), else the frontmatter version of its
	// SKILL.md, "" when it declares none.
	Version string `json:"version,omitempty"`
	// Pinned is set for a skill pulled as NAME@VERSION: a pull leaves it at Version
	// until it is named again.
	Pinned bool `json:"pinned,omitempty"`
	// URL and Artifact are the artifact it was read from and the index's digest of it,
	// which a later pull compares to download nothing when it is unchanged.
	// Artifact is "" when Unverified.
	URL      string `json:"url"`
	Artifact string `json:"artifact"`
	// Commit is, for a skill pulled from a git repository, the commit it was read at.
	Commit string `json:"commit,omitempty"`
	// Unverified is set for a skill read from a source that publishes no digest (the
	// well-known v0.1.0 index): Manifest and Files are the SHA-256 of what was
	// downloaded and installed, which nothing checked against the publisher's.
	//
	// Why does a pull from a v0.1.0 index lock what it downloaded, marked unverified?
	// Discovery v0.1.0 (/.well-known/skills/index.json, the cloudflare RFC, which other
	// servers publish too) lists each skill's files and no digest. pull reads it when a
	// deployment has no v0.2.0 index, before MCP (fetchCatalog): a server that publishes
	// only v0.1.0 is more likely to speak no MCP at all than to speak it better. With
	// nothing to verify the bytes against, pull says so rather than pretend: Result.Via is
	// well-known-v0.1, the skills it writes are listed as unverified (Result.Unverified, in
	// --json and the summary), and their entry has "unverified": true and an empty
	// Artifact, the field that elsewhere holds the digest the publisher gave (lockedOf).
	// Manifest and each file's Digest are still the SHA-256 of what was downloaded and
	// installed, so outdated, --frozen and the local-edit check work as on the other
	// paths, comparing what is there with what was installed. Every other rule is the same
	// code as on the other paths: verify.FetchV01 shares verify's reading of v0.1.0 (safe
	// relative paths, no encoded separators, the trust root, a bound on a skill's files and
	// bytes, a SKILL.md named as its folder), then pull's collision checks, staging and
	// folder swap, nothing swapped into place until every selected skill is read. With no
	// digest to compare, a later pull learns from the server that a skill is unchanged:
	// each file's ETag is kept as served (LockedFile.ETag; skilledge serve and most static
	// hosts send one), a pull asks for each file with If-None-Match, and a skill whose
	// every file is answered 304 is unchanged, with nothing downloaded. A server that sends
	// no ETag costs a download of each selected skill at every pull, to compare
	// (Result.Compared); one that answers 304 falsely only keeps the files already
	// installed. ETags are asked for only when the folder holds what the lock says
	// (scope.etags), and kept only when they are quoted printable ASCII, as they go back
	// into a header. Rejected: recording the downloaded SHA-256 as Artifact, which would
	// later read as the publisher's; refusing v0.1.0 outright, which leaves those servers
	// to hand copying, with no lock at all; and Last-Modified dates, which name a second,
	// not the bytes.
	Unverified bool `json:"unverified,omitempty"`
	// Manifest is the manifest digest of its files (PROTOCOL.md#versions).
	Manifest string `json:"manifest"`
	// Files are its files, SKILL.md first, then by path.
	Files []LockedFile `json:"files"`
}

// LockedFile is one file of an installed skill.
type LockedFile struct {
	Path   string `json:"path"` // relative to the skill's folder, "/"-separated
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
	// Exec is set for a file installed executable (mode 0755): the source's archive
	// marked it so (a script).
	Exec bool `json:"exec,omitempty"`
	// ETag is, for a file read from a v0.1.0 index, the ETag it was served with: a later
	// pull asks with If-None-Match and downloads nothing when the server answers 304.
	ETag string `json:"etag,omitempty"`
}

// maxLockBytes bounds the lock file read.
const maxLockBytes = 64 << 20

// ReadLock reads DIR/skills.lock; a folder without one has the empty Lock.
func ReadLock(dir string) (*Lock, error) {
	p := filepath.Join(dir, LockName)
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return &Lock{LockVersion: 1}, nil
	}
	if err != nil {
		return nil, err
	}
	l, err := ParseLock(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return l, nil
}

// ParseLock parses a lock file and checks it: the known lockVersion, unknown members
// refused, each skill a valid name given once, each file a safe relative path given once,
// every digest "sha256:" and 64 lowercase hex digits (but the artifact's of an unverified
// skill, which is "").
func ParseLock(b []byte) (*Lock, error) {
	if len(b) > maxLockBytes {
		return nil, fmt.Errorf("the lock file is over %d bytes", maxLockBytes)
	}
	var l Lock
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&l); err != nil {
		return nil, fmt.Errorf("not a skills.lock: %v", err)
	}
	if d.More() {
		return nil, errors.New("not a skills.lock: data after the JSON object")
	}
	if l.LockVersion != 1 && l.LockVersion != LockVersion {
		return nil, fmt.Errorf("lockVersion %d is not 1 or %d: written by another version of skilledge", l.LockVersion, LockVersion)
	}
	if l.LockVersion == 1 && len(l.Selections) > 0 {
		return nil, errors.New("lockVersion 1 has no selections")
	}
	if err := checkSelections(l.Selections); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, s := range l.Skills {
		if !validName(s.Name) {
			return nil, fmt.Errorf("skills[%d]: name %q is not a valid skill name", i, s.Name)
		}
		if s.Named != "" && (!validName(s.Named) || s.Named == s.Name) {
			return nil, fmt.Errorf("skills[%d]: named %q is not a valid skill name other than %q", i, s.Named, s.Name)
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("skills[%d]: %s is locked twice", i, s.Name)
		}
		seen[s.Name] = true
		if err := checkLocked(&s); err != nil {
			return nil, err
		}
	}
	return &l, nil
}

// checkSelections checks a lock's selections: each of a source given once, selecting
// something, by valid names and safe paths.
func checkSelections(sels []Selection) error {
	sources := map[string]bool{}
	for i, sel := range sels {
		if sel.Source == "" || sources[sel.Source] {
			return fmt.Errorf("selections[%d]: no source, or a source given twice", i)
		}
		sources[sel.Source] = true
		if len(sel.Skills)+len(sel.Paths)+len(sel.Removed) == 0 {
			return fmt.Errorf("selections[%d]: selects nothing", i)
		}
		for _, n := range slices.Concat(sel.Skills, sel.Removed) {
			if !validName(n) {
				return fmt.Errorf("selections[%d]: %q is not a valid skill name", i, n)
			}
		}
		for _, p := range sel.Paths {
			if why := pathProblem(p); why != "" {
				return fmt.Errorf("selections[%d]: path %q: %s", i, p, why)
			}
		}
	}
	return nil
}

// checkLocked checks a locked skill but its name: a source, a commit id, a pin's version,
// the digests, and its files, each a safe path given once.
func checkLocked(s *LockedSkill) error {
	switch {
	case s.Source == "":
		return fmt.Errorf("%s: no source", s.Name)
	case s.Commit != "" && !catalog.IsCommitName(s.Commit):
		return fmt.Errorf("%s: commit %q is no git commit id", s.Name, s.Commit)
	case s.Pinned && s.Version == "":
		return fmt.Errorf("%s: pinned, with no version", s.Name)
	case !(validDigest(s.Artifact) || s.Unverified && s.Artifact == "") || !validDigest(s.Manifest):
		return fmt.Errorf("%s: a digest is not \"sha256:\" and 64 lowercase hex digits", s.Name)
	case len(s.Files) == 0:
		return fmt.Errorf("%s: no files", s.Name)
	}
	files := map[string]bool{}
	for _, f := range s.Files {
		if why := pathProblem(f.Path); why != "" {
			return fmt.Errorf("%s: file %q: %s", s.Name, f.Path, why)
		}
		if files[f.Path] {
			return fmt.Errorf("%s: file %q is listed twice", s.Name, f.Path)
		}
		files[f.Path] = true
		if !validDigest(f.Digest) || f.Size < 0 {
			return fmt.Errorf("%s: file %q: bad digest or size", s.Name, f.Path)
		}
		if f.ETag != "" && !verify.ValidETag(f.ETag) {
			return fmt.Errorf("%s: file %q: etag %q is not a quoted entity tag of printable ASCII", s.Name, f.Path, f.ETag)
		}
	}
	return nil
}

// Marshal renders the lock in its stable form: skills by name, files SKILL.md first then
// by path, two-space indent, a final newline. The same lock always renders the same bytes.
func (l *Lock) Marshal() []byte {
	c := Lock{LockVersion: 1, Skills: append([]LockedSkill{}, l.Skills...), Selections: append([]Selection{}, l.Selections...),
		Roots: append([]LockedRoot{}, l.Roots...)}
	sort.Slice(c.Roots, func(i, j int) bool { return c.Roots[i].Source < c.Roots[j].Source })
	if len(c.Roots) == 0 {
		c.Roots = nil
	}
	if len(c.Selections) > 0 {
		c.LockVersion = LockVersion
	}
	sort.Slice(c.Selections, func(i, j int) bool { return c.Selections[i].Source < c.Selections[j].Source })
	if c.Skills == nil {
		c.Skills = []LockedSkill{}
	}
	sort.Slice(c.Skills, func(i, j int) bool { return c.Skills[i].Name < c.Skills[j].Name })
	for i := range c.Skills {
		c.Skills[i].Files = sortedFiles(c.Skills[i].Files)
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		panic(err) // plain strings and numbers always marshal
	}
	return append(b, '\n')
}

// sortedFiles returns a copy of fs, SKILL.md first, then by path.
func sortedFiles(fs []LockedFile) []LockedFile {
	c := append([]LockedFile{}, fs...)
	sort.Slice(c, func(i, j int) bool { return fileLess(c[i].Path, c[j].Path) })
	return c
}

// fileLess orders paths SKILL.md first, then bytewise.
func fileLess(a, b string) bool {
	if (a == "SKILL.md") != (b == "SKILL.md") {
		return a == "SKILL.md"
	}
	return a < b
}

// selection returns the selection of source, or nil.
func (l *Lock) selection(source string) *Selection {
	for i := range l.Selections {
		if l.Selections[i].Source == source {
			return &l.Selections[i]
		}
	}
	return nil
}

// pulledWhole reports whether source was pulled whole: skills of it are locked, and no
// selection. A source pulled whole keeps being pulled whole.
func (l *Lock) pulledWhole(source string) bool {
	if sel := l.selection(source); sel != nil && !sel.whole() {
		return false
	}
	for _, s := range l.Skills {
		if s.Source == source {
			return true
		}
	}
	return false
}

// selectMore records that a pull of source asked for names and paths: added to the
// source's selection, made if it has none. It reports whether the selection changed.
func (l *Lock) selectMore(source string, names, paths []string) bool {
	if len(names)+len(paths) == 0 {
		return false
	}
	sel := l.selection(source)
	if sel == nil {
		l.Selections = append(l.Selections, Selection{Source: source})
		sel = &l.Selections[len(l.Selections)-1]
	}
	skills, ps := sortedUnion(sel.Skills, names), sortedUnion(sel.Paths, paths)
	changed := !slices.Equal(skills, sel.Skills) || !slices.Equal(ps, sel.Paths)
	sel.Skills, sel.Paths = skills, ps
	return changed
}

// sortedUnion is a and b, sorted, each once (nil when both are empty).
func sortedUnion(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// removed returns the skills of source removed from the folder.
func (l *Lock) removed(source string) []string {
	if sel := l.selection(source); sel != nil {
		return sel.Removed
	}
	return nil
}

// markRemoved records that the skill name of source was removed from the folder. The
// names the selection asks for stay as they are (a selection left with none would read as
// the whole catalog): Removed wins over them until the skill is named again.
func (l *Lock) markRemoved(source, name string) {
	sel := l.selection(source)
	if sel == nil {
		l.Selections = append(l.Selections, Selection{Source: source})
		sel = &l.Selections[len(l.Selections)-1]
	}
	sel.Removed = sortedUnion(sel.Removed, []string{name})
}

// unremove forgets that the skills names of source were removed: they are named again.
// It reports whether anything changed.
func (l *Lock) unremove(source string, names []string) bool {
	sel := l.selection(source)
	if sel == nil {
		return false
	}
	n := len(sel.Removed)
	sel.Removed = slices.DeleteFunc(sel.Removed, func(s string) bool { return slices.Contains(names, s) })
	if len(sel.Removed) == 0 {
		sel.Removed = nil
		if sel.whole() { // nothing left to say of the source
			l.Selections = slices.DeleteFunc(l.Selections, func(s Selection) bool { return s.Source == source })
		}
	}
	return len(sel.Removed) != n
}

// sources returns the sources of the locked skills, each once, in the lock's order.
func (l *Lock) sources() []string {
	var out []string
	for _, s := range l.Skills {
		if !slices.Contains(out, s.Source) {
			out = append(out, s.Source)
		}
	}
	return out
}

// Sources returns the sources a pull into dir reads: source, when given; else those the
// lock of dir names, each once, in order (pull --frozen DIR pulls from each), and an error
// when it names none.
func Sources(source, dir string) ([]string, error) {
	if source != "" {
		return []string{source}, nil
	}
	lock, err := ReadLock(dir)
	if err != nil {
		return nil, err
	}
	out := lock.sources()
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no %s naming a source: give the URL (pull URL %s)", dir, LockName, dir)
	}
	return out, nil
}

// find returns the locked skill called name, or nil.
func (l *Lock) find(name string) *LockedSkill {
	for i := range l.Skills {
		if l.Skills[i].Name == name {
			return &l.Skills[i]
		}
	}
	return nil
}

// put replaces or adds s.
func (l *Lock) put(s LockedSkill) {
	if p := l.find(s.Name); p != nil {
		*p = s
		return
	}
	l.Skills = append(l.Skills, s)
}

// remove drops the skill called name.
func (l *Lock) remove(name string) {
	for i := range l.Skills {
		if l.Skills[i].Name == name {
			l.Skills = append(l.Skills[:i], l.Skills[i+1:]...)
			return
		}
	}
}
