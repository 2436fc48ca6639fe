package versions

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
)

// Attach reads the history of the skills folder that c was loaded from (compile.Load, with
// c.Keep > 0) from src and gives c what it keeps: c.Versions (the older kept versions, each
// loaded as a skill at its version path, and the changes), and each latest skill's
// Version and Kept. label names the folder in problems, as Load's label does.
//
// The latest skills are the folder as it is, committed or not. A latest skill whose files
// are those of a version its history published is that version; one whose files are not
// committed yet is named by its frontmatter version when no version has it, else as not
// committed (uncommittedName), without a publication date. The latest is served at its
// version path too, so that a pin to it outlives the next version. Each older version is
// loaded by the rules Load applies to the folder: one that does not load (a SKILL.md that
// the rules of today refuse, a link out of its skill) is not kept, with a warning. A
// version published twice with different content is a warning, an error under strict.
//
// Why is every version loaded by today's rules? Each kept version is loaded from git's
// blobs by the loader that loads the folder (compile.Load over the version's files at its
// version path), so a version is served with the same checks, types, links and archives as
// the latest, and one that today's rules refuse is not kept, with a warning naming it,
// rather than served unchecked. Its digest is taken the same way, so that what Load leaves
// out (clutter, links) is out of the digest too.
func Attach(ctx context.Context, c *compile.Catalog, src Source, label string, strict bool) ([]compile.Problem, error) {
	h, err := Read(ctx, src, Options{Keep: c.Keep, VersionOf: compile.FrontmatterVersion})
	if err != nil {
		return nil, err
	}
	a := &attacher{ctx: ctx, src: src, label: label, maxBytes: compile.MaxSkillBytes, maxFiles: compile.MaxSkillFiles,
		digests: map[string]string{}, names: map[string]string{}}
	for _, s := range c.Skills {
		var n int64
		for _, f := range s.Files {
			n += f.Size
		}
		a.maxBytes, a.maxFiles = max(a.maxBytes, n), max(a.maxFiles, len(s.Files))
	}
	var problems []compile.Problem
	sev := compile.Warning
	if strict {
		sev = compile.Error
	}
	for _, p := range h.Problems {
		if p.Path == "" { // a commit skipped: the folder's history, no skill's
			problems = append(problems, compile.Problem{Path: label, Severity: compile.Warning, Msg: p.Message})
			continue
		}
		problems = append(problems, compile.Problem{Path: path.Join(label, p.Path), Severity: sev, Skill: path.Dir(p.Path), Msg: p.Message})
	}

	// The older versions of every latest skill, each loaded at its version path on its
	// own: its files are read from git for it, and let go but for those the catalog keeps
	// in memory (compile.KeepBytes); the others are read from git again when needed.
	type older struct {
		latest *compile.Skill
		v      Version
		at     string // the version path
	}
	var olders []older
	// refused are the versions that were to be kept and are not served (they do not
	// load): the feed does not name them either.
	refused := map[string]bool{}
	for _, s := range c.Skills {
		hs := h.Skill(s.Path)
		var vs []Version
		if hs != nil {
			vs = hs.Versions
		}
		mine := compile.ManifestDigest(s)
		var self *Version
		for i := range vs {
			if a.oversize(vs[i]) != "" {
				continue // not the latest, which is within the bounds
			}
			d, err := a.digest(vs[i])
			if err != nil {
				return nil, err
			}
			if d == mine {
				self = &vs[i]
				break
			}
		}
		s.Kept = []compile.Kept{{}}
		if self != nil {
			s.Version, s.Kept[0].Version, s.Kept[0].Published = self.Name, self.Name, self.Commit.Date
		} else {
			s.Version = uncommittedName(s, mine, vs)
			s.Kept[0].Version = s.Version
		}
		kept := 1 // the latest
		for _, v := range vs {
			if self != nil && v.Content == self.Content {
				continue
			}
			if kept >= c.Keep {
				break
			}
			if why := a.oversize(v); why != "" {
				refused[refusedKey(v)] = true
				problems = append(problems, compile.Problem{Path: path.Join(label, s.Path, catalog.SkillMD), Severity: compile.Warning, Skill: s.Path,
					Msg: fmt.Sprintf("version %s (%s) is not kept: %s", v.Name, v.Commit.Short(), why)})
				continue
			}
			name, err := a.name(v)
			if err != nil {
				return nil, err
			}
			if name == "" || catalog.NameProblem(name) != "" {
				refused[refusedKey(v)] = true
				problems = append(problems, compile.Problem{Path: path.Join(label, s.Path, catalog.SkillMD), Severity: compile.Warning, Skill: s.Path,
					Msg: fmt.Sprintf("version %s (%s) is not kept: its SKILL.md has no valid name", v.Name, v.Commit.Short())})
				continue
			}
			olders = append(olders, older{s, v, catalog.VersionPath(s.Path, v.Name, name)})
			kept++
		}
	}
	var loaded []*compile.Skill
	var lp []compile.Problem
	// Versions share most of their files with each other and with the latest: one copy
	// of the bytes of each.
	shared := bytesByDigest{}
	for _, s := range c.Skills {
		shared.intern(s)
	}
	for _, o := range olders {
		folder := fstest.MapFS{}
		if err := a.place(folder, o.at, o.v); err != nil {
			return nil, err
		}
		c, p, err := compile.LoadReopen(folder, label, compile.Options{SkipInvalid: true, AllowOversize: true}, a.reopener(o.at, o.v))
		if err != nil {
			return nil, err
		}
		for _, s := range c.Skills {
			shared.intern(s)
		}
		loaded, lp = append(loaded, c.Skills...), append(lp, p...)
	}
	byPath := map[string]*compile.Skill{}
	for _, s := range loaded {
		byPath[s.Path] = s
	}
	// A version that did not load is not kept: say why, once, in the words of its
	// latest skill.
	for _, o := range olders {
		if byPath[o.at] == nil {
			refused[refusedKey(o.v)] = true
			why := ""
			for _, p := range lp {
				if p.Skill == o.at && p.Severity == compile.Error {
					why = ": " + p.Msg
					break
				}
			}
			problems = append(problems, compile.Problem{Path: path.Join(label, o.latest.Path, catalog.SkillMD), Severity: compile.Warning, Skill: o.latest.Path,
				Msg: fmt.Sprintf("version %s (%s) is not kept: it does not load by today's rules%s", o.v.Name, o.v.Commit.Short(), why)})
		}
	}
	hist := &compile.Versions{Keep: c.Keep, Commits: h.Commits, Shallow: h.Shallow, Cut: h.Cut}
	for _, o := range olders {
		vs := byPath[o.at]
		if vs == nil {
			continue
		}
		o.latest.Kept = append(o.latest.Kept, compile.Kept{Version: o.v.Name, Skill: vs, Published: o.v.Commit.Date})
	}
	// Every loaded skill at or under a version path (a version's nested skills too) is
	// served with the access of the latest skill it is a version of, and, unless the
	// policy declassifies it, only to callers who could see it where the skill had it
	// (published).
	olderAt := map[string]older{}
	for _, o := range olders {
		olderAt[o.at] = o
	}
	narrowed := map[*compile.Skill][]string{} // latest -> the versions served to fewer callers
	for _, s := range loaded {
		at := s.Path
		for _, ok := olderAt[at]; !ok && strings.Contains(at, "/"); _, ok = olderAt[at] {
			at = at[:strings.LastIndexByte(at, '/')]
		}
		o, ok := olderAt[at]
		if !ok {
			continue // cannot be: every skill of the folder is under a version path
		}
		l := o.latest
		s.Scopes, s.Unlisted = l.Scopes, l.Unlisted
		if scopes, narrower := published(c, l, o.v); narrower {
			s.Scopes = scopes
			if at == s.Path {
				narrowed[l] = append(narrowed[l], o.v.Name)
			}
		}
		s.Version = versionIn(s.Path)
		s.Source = versionSource(l, o.v, strings.TrimPrefix(s.Path, at))
		hist.Older = append(hist.Older, s)
	}
	for _, l := range c.Skills {
		if vs := narrowed[l]; len(vs) > 0 {
			problems = append(problems, compile.Problem{Path: path.Join(label, l.Path, catalog.SkillMD), Severity: compile.Warning, Skill: l.Path,
				Msg: narrowedMessage(h, c.Access, l.Path, vs)})
		}
	}
	// The latest version is served at its version path too (with the skills nested in
	// it), so that a pin to it outlives the next version.
	for _, s := range c.Skills {
		var tree []*compile.Skill
		for _, n := range c.Skills {
			if n == s || strings.HasPrefix(n.Path, s.Path+"/") {
				tree = append(tree, n)
			}
		}
		moved := compile.Relocate(tree, s.Path, catalog.VersionPath(s.Path, s.Version, s.Name))
		for _, m := range moved {
			m.Scopes, m.Unlisted, m.Version = s.Scopes, s.Unlisted, s.Version
		}
		s.Kept[0].Skill = moved[0]
		hist.Older = append(hist.Older, moved...)
	}
	slices.SortFunc(hist.Older, func(x, y *compile.Skill) int { return strings.Compare(x.Path, y.Path) })

	notServed := func(v *Version) bool { return refused[refusedKey(*v)] || a.oversize(*v) != "" }
	for _, ch := range h.Changes {
		if ch.To != nil && notServed(ch.To) {
			continue // a version not served is not announced
		}
		if ch.From != nil && notServed(ch.From) {
			if ch.To == nil {
				continue // nothing served left
			}
			// What came from a version not served arrived, as far as a caller knows.
			ch.Moved, ch.From = "", nil
			ch.Added, ch.Changed, ch.Removed = names(ch.To.Files), nil, nil
		}
		cc := &compile.Change{Path: ch.Path, Moved: ch.Moved, Date: ch.Commit.Date, Commit: ch.Commit.Hash, Subject: ch.Commit.Subject,
			Added: ch.Added, Changed: ch.Changed, Removed: ch.Removed}
		if ch.To != nil {
			cc.Files = names(ch.To.Files)
		}
		for _, side := range []struct {
			v   *Version
			out **compile.ChangeVersion
		}{{ch.From, &cc.From}, {ch.To, &cc.To}} {
			if side.v == nil {
				continue
			}
			d, err := a.digest(*side.v)
			if err != nil {
				return nil, err
			}
			*side.out = &compile.ChangeVersion{Version: side.v.Name, Digest: d}
		}
		last := ch.To
		if last == nil {
			last = ch.From
		}
		if cc.Name, err = a.name(*last); err != nil {
			return nil, err
		}
		if cc.Name == "" {
			cc.Name = path.Base(ch.Path)
		}
		if ch.Moved != "" {
			// What a caller who sees only the old path is shown: the removal a deletion
			// of the skill there would be.
			if cc.MovedName, err = a.name(*ch.From); err != nil {
				return nil, err
			}
			if cc.MovedName == "" {
				cc.MovedName = path.Base(ch.Moved)
			}
			cc.MovedFiles = names(ch.From.Files)
		}
		if c.Access != nil {
			var listed bool
			cc.Scopes, listed = c.Access.Scopes(cc.Path)
			cc.Unlisted = !listed
			if cc.Moved != "" {
				cc.MovedScopes, listed = c.Access.Scopes(cc.Moved)
				cc.MovedUnlisted = !listed
			}
		}
		hist.Changes = append(hist.Changes, cc)
	}
	c.Versions = hist
	return problems, nil
}

// versionSource is the provenance of version v of l, a skill mounted from a source (nil
// for one of the folder's own): the same source, at the commit that published v, and the
// folder v had there, followed by nested (the path of a skill nested in the version, under
// it, "" for the version itself).
func versionSource(l *compile.Skill, v Version, nested string) *compile.Provenance {
	if l.Source == nil {
		return nil
	}
	p := *l.Source
	p.Commit = v.Commit.Hash
	if len(v.Paths) > 0 {
		mount := l.Source.Source + "/"
		dir := strings.TrimSuffix(p.Path, strings.TrimPrefix(l.Path, mount)) // the source's folder, and "/"
		p.Path = dir + strings.TrimPrefix(v.Paths[0], mount)
	}
	p.Path += nested
	return &p
}

// published returns the scopes a caller needs to see version v of the latest skill l:
// l's, and, when no path v was at (v.Paths) took as few, those of the last of them
// (narrower is then true). A history that crosses from a narrower audience to a wider one
// (a private skill made public) stops at the move for the wider audience: the publisher
// declassified the files the skill had then, not every file it ever held; the version
// current at the move was at the wider path, and is the wider audience's. A catalog
// without an access policy, and a skill under a path of versions.declassify, keep l's
// scopes.
func published(c *compile.Catalog, l *compile.Skill, v Version) ([]string, bool) {
	if c.Access == nil || len(v.Paths) == 0 || declassified(c, l.Path) {
		return l.Scopes, false
	}
	for _, p := range v.Paths {
		if then, _ := c.Access.Scopes(p); p == l.Path || subset(then, l.Scopes) {
			return l.Scopes, false
		}
	}
	then, _ := c.Access.Scopes(v.Paths[len(v.Paths)-1])
	union := slices.Concat(l.Scopes, then)
	slices.Sort(union)
	return slices.Compact(union), true
}

// declassified reports whether versions.declassify names the skill path p or a folder
// of it, as an access rule's path names the skills it applies to.
func declassified(c *compile.Catalog, p string) bool {
	return slices.ContainsFunc(c.Declassify, func(x string) bool { return compile.AccessRule{Path: x}.Matches(p) })
}

// narrowedMessage is the warning for the latest skill at p whose versions vs are served
// only to callers who could see them where they were published: it names the move that
// widened its audience and how to publish them on purpose.
func narrowedMessage(h *Versions, access *compile.Access, p string, vs []string) string {
	moved := ""
	cur := p
	for _, ch := range h.Changes { // newest first: follow the skill back through its moves
		if ch.Path != cur || ch.Moved == "" {
			continue
		}
		from, _ := access.Scopes(ch.Moved)
		to, _ := access.Scopes(ch.Path)
		if !subset(from, to) {
			moved = fmt.Sprintf(" before commit %s moved it from %s (which takes %s) to %s", ch.Commit.Short(), ch.Moved, strings.Join(from, " "), ch.Path)
			break
		}
		cur = ch.Moved
	}
	noun, verb, it := "version", "was", "it"
	if len(vs) > 1 {
		noun, verb, it = "versions", "were", "them"
	}
	return fmt.Sprintf("%s %s %s published where fewer callers could see %s%s: served only to callers who may see both; "+
		"to publish the earlier versions to everyone who may see %s, add it to versions.declassify in %s",
		noun, strings.Join(vs, ", "), verb, it, moved, p, compile.PolicyFile)
}

// subset reports whether every scope of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// refusedKey names the version v of one skill for the set of versions not served.
func refusedKey(v Version) string { return v.Name + "\x00" + v.Content }

// versionIn returns the version a path under a version path names: the segment after the
// first one starting with catalog.VersionMark.
func versionIn(p string) string {
	for _, seg := range strings.Split(p, "/") {
		if v, ok := strings.CutPrefix(seg, catalog.VersionMark); ok {
			return v
		}
	}
	return ""
}

// uncommittedName names a latest skill whose files no version of vs has: its frontmatter
// version when no version has it (the name a commit will give it), else a name that says
// the content is not committed: "uncommitted." and the first eight hex digits of its
// manifest digest, after the frontmatter version and a "+" when it has one
// ("1.2.0+uncommitted.3f2a9c1e"), or that name alone when the two are not a version
// name (catalog.ValidVersion). A commit names such content otherwise (by its date, or
// the digest of its git objects), so no name of this kind is ever published.
//
// Why is a latest skill that is not committed named `uncommitted.…`? serve DIR --watch
// serves a work tree mid-edit, whose latest skills may differ from every committed
// version. A commit's name for such content carries a digest of git's objects, or the
// commit's date, neither known before the commit: a name that looked like a published one
// would name other bytes once published. It has no published date. Rejected: the latest
// committed version's name (it would name bytes it is not).
func uncommittedName(s *compile.Skill, digest string, vs []Version) string {
	short := "uncommitted." + strings.TrimPrefix(digest, "sha256:")[:8]
	v := compile.FrontmatterVersion(s.Files[0].Data)
	if v == "" || !catalog.ValidVersion(v) {
		return short
	}
	for _, o := range vs {
		if o.Name == v {
			if n := withBuild(v, short); catalog.ValidVersion(n) {
				return n
			}
			return short
		}
	}
	return v
}

// attacher reads blobs once and digests versions once.
type attacher struct {
	ctx   context.Context
	src   Source
	label string
	// maxBytes and maxFiles bound a version: the per-skill limits, or the largest latest
	// skill's size where --allow-oversize served one over them. A version over them is
	// never read.
	maxBytes int64
	maxFiles int
	digests  map[string]string // Version.Content -> manifest digest
	names    map[string]string // a SKILL.md's blob -> its frontmatter name
}

// oversize says why version v is over the bounds, or "": its sizes come from the objects'
// headers, so nothing of it is read to know.
func (a *attacher) oversize(v Version) string {
	var n int64
	for _, f := range v.Files {
		n += f.Size
	}
	switch {
	case len(v.Files) > a.maxFiles:
		return fmt.Sprintf("it has %d files, over the limit of %d", len(v.Files), a.maxFiles)
	case n > a.maxBytes:
		return fmt.Sprintf("its files hold %d bytes, over the per-skill limit of %d", n, a.maxBytes)
	}
	return ""
}

// blob reads a blob: nothing is kept, so that the memory of a build is bounded by what it
// keeps, not by the history it reads.
func (a *attacher) blob(id string) ([]byte, error) { return a.src.Read(a.ctx, id) }

// name returns the frontmatter name of version v's SKILL.md ("" if none), read once per
// blob.
func (a *attacher) name(v Version) (string, error) {
	for _, f := range v.Files {
		if f.Path != catalog.SkillMD {
			continue
		}
		if n, ok := a.names[f.Blob]; ok {
			return n, nil
		}
		md, err := a.blob(f.Blob)
		if err != nil {
			return "", err
		}
		a.names[f.Blob] = compile.FrontmatterName(md)
		return a.names[f.Blob], nil
	}
	return "", nil
}

// bytesByDigest holds one copy of the bytes of each file the catalog keeps in memory.
type bytesByDigest map[[32]byte][]byte

// intern makes each file of s that holds its bytes share them with every other file of
// the same digest.
func (m bytesByDigest) intern(s *compile.Skill) {
	for _, f := range s.Files {
		if f.Data == nil {
			continue
		}
		if d, ok := m[f.Digest]; ok {
			f.Data = d
		} else {
			m[f.Digest] = f.Data
		}
	}
}

// reopener opens a file of version v, loaded at the directory at, again: from git, by
// the blob its path names (compile.LoadReopen).
func (a *attacher) reopener(at string, v Version) func(name string) (fs.File, error) {
	blobs := make(map[string]string, len(v.Files))
	for _, f := range v.Files {
		if !f.Link {
			blobs[at+"/"+f.Path] = f.Blob
		}
	}
	return func(name string) (fs.File, error) {
		blob, ok := blobs[name]
		if !ok {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		b, err := a.blob(blob)
		if err != nil {
			return nil, err
		}
		return fstest.MapFS{name: &fstest.MapFile{Data: b, Mode: 0o644}}.Open(name)
	}
}

// place writes v's files into folder under the directory at.
func (a *attacher) place(folder fstest.MapFS, at string, v Version) error {
	for _, f := range v.Files {
		b, err := a.blob(f.Blob)
		if err != nil {
			return err
		}
		mf := &fstest.MapFile{Data: b, Mode: 0o644}
		if f.Exec {
			mf.Mode = 0o755
		}
		if f.Link {
			mf.Mode = fs.ModeSymlink | 0o777
		}
		folder[at+"/"+f.Path] = mf
	}
	return nil
}

// digest returns v's manifest digest (compile.ManifestDigest) as the version is served:
// v loaded alone by Load's rules, so that what Load leaves out (clutter, links it does not
// follow) is left out of the digest too. A version that does not load is digested as its
// files are. Its files are read for it and let go: only the digest is kept.
func (a *attacher) digest(v Version) (string, error) {
	if d, ok := a.digests[v.Content]; ok {
		return d, nil
	}
	name, err := a.name(v)
	if err != nil {
		return "", err
	}
	if name == "" || catalog.NameProblem(name) != "" {
		name = "x"
	}
	folder := fstest.MapFS{}
	if err := a.place(folder, name, v); err != nil {
		return "", err
	}
	cat, _, err := compile.Load(folder, a.label, compile.Options{SkipInvalid: true, AllowOversize: true})
	if err != nil {
		return "", err
	}
	var d string
	for _, s := range cat.Skills {
		if s.Path == name {
			d = compile.ManifestDigest(s)
		}
	}
	if d == "" {
		d = compile.ManifestDigest(rawSkill(folder, v, name))
	}
	a.digests[v.Content] = d
	return d, nil
}

// rawSkill is v, placed in folder at name, as a skill of its files as they are, for the
// digest of a version that does not load.
func rawSkill(folder fstest.MapFS, v Version, name string) *compile.Skill {
	s := &compile.Skill{Path: name}
	var md *compile.File
	for _, f := range v.Files {
		file := compile.NewFile(name+"/"+f.Path, folder[name+"/"+f.Path].Data)
		if f.Path == catalog.SkillMD {
			md = file
			continue
		}
		s.Files = append(s.Files, file)
	}
	if md != nil {
		s.Files = append([]*compile.File{md}, s.Files...)
	}
	return s
}
