// Package pull installs a catalog's skills into a folder an agent reads (skilledge pull)
// and reports which installed skills differ from their source (skilledge outdated).
//
// It reads a deployment's well-known v0.2.0 index through verify.Fetch: the index, then
// one request per skill that changed (its archive or SKILL.md), every artifact checked
// against the index's SHA-256 under the deployment's trust root and unpacked in memory by
// catalog/archive. Without one it reads the v0.1.0 index (verify.FetchV01), which
// publishes no digests: those skills are installed unverified, and locked as downloaded;
// without either, MCP (verify.FetchMCP). Each skill is written to a temporary folder in
// DIR as it verifies (verify.Options.Take: one skill's files in memory at a time, their
// total bounded by Options.MaxTotal), and the folders are renamed into place only once
// every selected skill has verified; DIR/skills.lock records what was installed. pull
// manages only the skills its lock names.
package pull

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// ErrUsage is wrapped by errors that are the caller's (a bad URL, a bad selection).
var ErrUsage = verify.ErrUsage

// Options configure Pull.
type Options struct {
	// Verify are the options of the reads: trust root, loopback, token, limits.
	Verify verify.Options
	// Skills, when not empty, selects the skills of these names only.
	Skills []string
	// Frozen installs exactly what the lock says: only locked skills, only at their
	// locked artifact digest; a source that no longer serves it is an error, and DIR is
	// not touched.
	Frozen bool
	// Force overwrites a locally edited installed skill instead of stopping.
	Force bool
	// Paths, when not empty, selects the skills whose catalog path is one of these or
	// under one, segment by segment ("acme/billing" holds "acme/billing/refunds"); the
	// catalog is then read over MCP, which gives skills' paths.
	Paths []string
	// Era, when set, reads the catalog over MCP in that era (verify.EraModern or
	// verify.EraLegacy) at source, the MCP endpoint, rather than from its well-known index.
	Era string
	// Index, when set, reads only that well-known index: IndexV02 or IndexV01 (by
	// default the v0.2.0 index, else the v0.1.0 one, else MCP).
	Index string
	// Progress, when not nil, gets one line per skill as it is downloaded and verified,
	// and one as it is written.
	Progress io.Writer
	// MaxTotal bounds the bytes of files a pull downloads and writes, its skills
	// together (0: DefaultMaxTotal). A pull over it fails with ErrTooLarge, having
	// swapped nothing into place.
	MaxTotal int64
	// LoadFolder reads a source that is a skills folder or a git repository as
	// `skilledge build` does (FolderLoader); without it such a source is an error.
	LoadFolder FolderLoader
	// commit is, for a frozen pull of a git repository, the commit the lock records:
	// the repository is read at it, not at its head.
	commit string
}

// Result is what Pull did. Each list holds skill names, sorted.
type Result struct {
	Source    string   `json:"source"`
	Installed []string `json:"installed"`
	Updated   []string `json:"updated"`
	Unchanged []string `json:"unchanged"`
	Removed   []string `json:"removed"`
	// Elsewhere are skills the source serves that the lock has from another source:
	// left alone (the lock says where each skill comes from).
	Elsewhere []string `json:"elsewhere"`
	Bytes     int64    `json:"bytes"` // bytes of the files written
	// Via is how the catalog was read: ViaWellKnown (the v0.2.0 index and archives),
	// ViaWellKnownV01 (the v0.1.0 index and files) or ViaMCP (skills/list and
	// resources/read).
	Via string `json:"via"`
	// Unverified are the skills written (installed or updated) from a source that
	// published no digest (the v0.1.0 index): nothing checked their bytes against the
	// publisher's; the lock records them as downloaded (LockedSkill.Unverified).
	Unverified []string `json:"unverified"`
	// Compared are the unchanged skills downloaded only to be compared: read from a
	// v0.1.0 index, which gives no digest, from a server that did not answer 304 to the
	// ETags the lock keeps (or gave none).
	Compared []string `json:"compared"`
	// New are the skills the source serves outside the selection earlier pulls of it
	// were asked for (Lock.Selections), which a pull that names none keeps to: not
	// installed; pull --skill NAME adds one.
	New []string `json:"new"`
	// Skipped are, for a folder or git source, the loader's reasons for each skill of it
	// left out (one line a skill, "path: warning: skipped, not served: …").
	Skipped []string `json:"skipped,omitempty"`
	// Edited are the installed skills changed locally since they were pulled that this
	// pull would have replaced or removed: without Force, each is left as it is (and its
	// lock entry too) while the others are updated; the caller is to say so and fail.
	Edited []Edited `json:"edited"`
}

// Edited is a skill left alone because it was changed locally: its name and the changed
// files, relative to its folder ("." when the folder is gone).
type Edited struct {
	Name  string   `json:"name"`
	Files []string `json:"files"`
}

// Pull installs the skills of the deployment at source into dir (created if missing).
// It fails, writing nothing, when the deployment does not verify (the report's problems
// are in the error), when a selected skill is not served, or when a skill's folder exists
// in dir but the lock does not name it. An installed skill changed locally since it was
// pulled, which the pull would replace or remove, is left as it is without Force, and
// named in Result.Edited, while the others are updated.
func Pull(ctx context.Context, source, dir string, opt Options) (*Result, error) {
	if sourceKind(source) == ViaFolder {
		abs, err := filepath.Abs(source) // the lock is read from other folders too
		if err != nil {
			return nil, err
		}
		source = abs
	}
	lock, err := ReadLock(dir)
	if err != nil {
		return nil, err
	}
	names, pins, err := parseSelection(opt.Skills)
	if err != nil {
		return nil, err
	}
	if kind := sourceKind(source); kind != "" {
		if len(pins) > 0 {
			return nil, usageErrorf("%s keeps no versions to pin: a git repository is read at a branch or tag (%s#REF), a folder as it is", source, source)
		}
		if opt.Frozen && kind == ViaGit {
			for _, l := range lock.Skills {
				if l.Source == source && l.Commit != "" {
					opt.commit = l.Commit // every skill of the source was read at one commit
				}
			}
		}
	}
	paths, err := cleanPaths(opt.Paths)
	if err != nil {
		return nil, err
	}
	// A pull that names no skill and no path keeps to what earlier pulls of the source
	// were asked for (the lock's selection): a skill of the catalog outside it is new,
	// reported, and never installed unasked.
	explicit := len(names) > 0 || len(paths) > 0
	whole := lock.pulledWhole(source)
	var sel *Selection
	if s := lock.selection(source); !explicit && !opt.Frozen && s != nil && !s.whole() { // frozen: what the lock locks, and no more
		sel = s
	}
	opt.Paths = paths
	if sel != nil {
		opt.Paths = sel.Paths // a path is read over MCP
	}
	removed := lock.removed(source) // skilledge remove: not brought back unless named
	inSelection := func(name, path string) bool {
		if contains(removed, name) && !contains(names, name) {
			return false
		}
		if sel != nil {
			return contains(sel.Skills, name) || len(sel.Paths) > 0 && underPaths(path, sel.Paths)
		}
		return (len(names) == 0 || contains(names, name)) && underPaths(path, paths)
	}
	// A skill pinned to a version is left alone unless named again.
	pinnedHere := func(name string) bool {
		if pins[name] != "" {
			return true
		}
		l := lock.find(name)
		return l != nil && l.Pinned && l.Source == source && !contains(names, name)
	}
	// inScope says whether the skill called name at path is one this pull is about:
	// selected (inSelection), not left pinned.
	inScope := func(name, path string) bool {
		return inSelection(name, path) && !pinnedHere(name)
	}
	// installedElsewhere is the error for a skill named in this pull that the lock has
	// from another source.
	installedElsewhere := func(name string, old *LockedSkill) error {
		return fmt.Errorf("%s: already installed from %s; remove it from %s to pull it from %s", name, old.Source, LockName, source)
	}
	selected := func(f verify.Fetched) bool {
		if !inScope(f.Name, f.Path) {
			return false
		}
		if opt.Frozen {
			l := lock.find(f.Name)
			return l != nil && l.Source == source
		}
		return true
	}
	// want downloads a selected skill unless the lock has it at this digest and the
	// folder holds exactly what the lock says.
	want := func(f verify.Fetched) bool {
		if !selected(f) {
			return false
		}
		if f.Kind == verify.DigestUnpublished {
			return true // no digest to compare: only the files say whether it changed
		}
		l := lock.find(f.Name)
		if l == nil || l.Source != source {
			return !opt.Frozen // frozen: reported below, nothing fetched
		}
		if !lockMatches(l, f) {
			// Frozen compares files, not how they were packed: an archive whose digest
			// is not the lock's (a skill locked from a read over MCP, which gives the
			// manifest digest only) is downloaded to compare its manifest digest; a
			// mismatch of that is reported below.
			return !opt.Frozen || f.Kind == verify.DigestArtifact
		}
		// Unchanged at the source: a skill folder deleted is restored, a local edit is
		// kept unless Force.
		ch := localChanges(dir, l)
		return len(ch) > 0 && (opt.Force || missing(ch))
	}
	if opt.Progress != nil && opt.Verify.Fetched == nil {
		opt.Verify.Fetched = func(name string, files int, bytes int64) {
			fmt.Fprintf(opt.Progress, "verified %s (%d files, %d bytes)\n", name, files, bytes)
		}
	}
	// Each skill is written to a temporary folder as it verifies (one skill's files in
	// memory at a time), and swapped into place once all have.
	stage := newStager(dir, source, opt.MaxTotal)
	defer stage.cleanup()
	opt.Verify.Take = stage.take
	var skipped []string
	got, via, err := fetchCatalog(ctx, source, opt, want, lockETags(lock, source, dir), &skipped)
	if err != nil {
		return nil, err
	}
	res := &Result{Source: source, Via: via, Skipped: skipped}
	served := map[string]verify.Fetched{}
	for _, f := range got {
		served[f.Name] = f
	}
	// An unlisted skill is served by name though no listing names it: a skill named in
	// this pull, or locked from this source, that the read did not find is looked up by
	// name over MCP before it is said not to be served.
	var unlisted []string
	for _, n := range names {
		if _, ok := served[n]; !ok {
			unlisted = append(unlisted, n)
		}
	}
	for _, l := range lock.Skills {
		if _, ok := served[l.Name]; !ok && l.Source == source && !contains(unlisted, l.Name) && inScope(l.Name, l.Path) {
			unlisted = append(unlisted, l.Name)
		}
	}
	if len(unlisted) > 0 && sourceKind(source) == "" {
		found, err := fetchUnlisted(ctx, source, opt, unlisted, want)
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			served[f.Name] = f
			got = append(got, f)
		}
	}
	for _, n := range names {
		if _, ok := served[n]; !ok {
			for _, s := range skipped { // a folder's or repository's skill left out: say why
				if p, _, _ := strings.Cut(s, ": "); path.Base(strings.TrimSuffix(p, "/SKILL.md")) == n {
					return nil, fmt.Errorf("%s serves no skill %q: %s", source, n, s)
				}
			}
			return nil, fmt.Errorf("%s serves no skill %q", source, n)
		}
	}
	if sel != nil {
		for _, f := range got {
			if lock.find(f.Name) == nil && !inSelection(f.Name, f.Path) && !contains(removed, f.Name) {
				res.New = append(res.New, f.Name)
			}
		}
	}
	// Plan every change before writing anything.
	type write struct {
		f    verify.Fetched
		lock LockedSkill
		old  *LockedSkill
		st   *staged
	}
	var writes []write
	var removes, relocks []LockedSkill
	for _, l := range lock.Skills {
		if l.Source != source || !inScope(l.Name, l.Path) {
			continue
		}
		f, ok := served[l.Name]
		switch {
		case opt.Frozen && !ok:
			return nil, fmt.Errorf("--frozen: %s no longer serves %s, which %s locks", source, l.Name, LockName)
		case opt.Frozen && !lockMatches(&l, f) && !sameFiles(&l, stage.skills[l.Name]):
			// The catalog moved on; a catalog that keeps versions still publishes the
			// locked one at its version path (PROTOCOL.md#versions): that is installed.
			if err := stageLockedVersion(ctx, source, opt, stage, &l); err != nil {
				return nil, fmt.Errorf("--frozen: %s serves %s at %s, not what %s locks, %w", source, l.Name, f.Digest, LockName, err)
			}
		case !ok && len(names) == 0:
			removes = append(removes, l)
		}
	}
	for _, f := range got {
		old := lock.find(f.Name)
		if old != nil && old.Source != source {
			if contains(names, f.Name) {
				return nil, installedElsewhere(f.Name, old)
			}
			res.Elsewhere = append(res.Elsewhere, f.Name) // another source's: not ours to touch
			continue
		}
		if pinnedHere(f.Name) {
			if pins[f.Name] == "" {
				res.Unchanged = append(res.Unchanged, f.Name)
			}
			continue
		}
		st := stage.skills[f.Name]
		if st == nil { // not downloaded
			if old != nil && lockMatches(old, f) {
				res.Unchanged = append(res.Unchanged, f.Name)
			}
			continue
		}
		ls := st.lock
		if old != nil && !old.Pinned && ls.Manifest == old.Manifest && sameModes(old, &ls) && unchangedHere(dir, old, f, opt.Force) {
			// The same files under another digest (the lock was made by a read over
			// MCP, which gives the manifest digest only), or read again from a v0.1.0
			// index: nothing to write but the lock, which a frozen pull leaves as it is.
			if !opt.Frozen {
				relocks = append(relocks, ls)
			}
			res.Unchanged = append(res.Unchanged, f.Name)
			if f.Kind == verify.DigestUnpublished {
				res.Compared = append(res.Compared, f.Name)
			}
			continue
		}
		if opt.Frozen && old != nil {
			ls = *old // the same files (checked above): restored, the lock as it was
		}
		writes = append(writes, write{f: f, lock: ls, old: old, st: st})
	}
	for _, name := range sortedKeys(pins) {
		ver, old := pins[name], lock.find(name)
		if old != nil && old.Source != source {
			return nil, installedElsewhere(name, old)
		}
		if opt.Frozen && (old == nil || !old.Pinned || old.Version != ver) {
			return nil, fmt.Errorf("--frozen: %s locks no %s@%s", LockName, name, ver)
		}
		if old != nil && old.Pinned && old.Version == ver {
			// A version's name always names the same bytes: nothing to download,
			// unless the folder is gone (or --force restores an edit).
			if ch := localChanges(dir, old); len(ch) == 0 || !missing(ch) && !opt.Force {
				res.Unchanged = append(res.Unchanged, name)
				continue
			}
		}
		f, path, err := verify.FetchVersion(ctx, source, opt.Verify, name, ver)
		if err != nil {
			return nil, err
		}
		if err := stage.take(f); err != nil {
			return nil, err
		}
		f.Files = nil
		st := stage.skills[name]
		ls := st.lock
		ls.Path, ls.Version, ls.Pinned = path, ver, true
		writes = append(writes, write{f: f, lock: ls, old: old, st: st})
	}
	// Respect the folder: an unmanaged folder is never touched, an edited one not
	// without Force.
	for _, w := range writes {
		if w.old == nil {
			if _, err := os.Lstat(filepath.Join(dir, w.f.Name)); err == nil {
				return nil, fmt.Errorf("%s exists and %s does not name it: pull manages only the skills it installed; move it away to install %s from %s",
					filepath.Join(dir, w.f.Name), LockName, w.f.Name, source)
			}
			continue
		}
	}
	edited := func(l *LockedSkill) bool {
		ch := localChanges(dir, l)
		if len(ch) == 0 || missing(ch) || opt.Force {
			return false
		}
		res.Edited = append(res.Edited, Edited{Name: l.Name, Files: ch})
		return true
	}
	writes = slices.DeleteFunc(writes, func(w write) bool { return w.old != nil && edited(w.old) })
	removes = slices.DeleteFunc(removes, func(l LockedSkill) bool { return edited(&l) })
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, w := range writes {
		if err := stage.swap(w.f.Name); err != nil {
			return res, err
		}
		res.Bytes += w.st.bytes
		lock.put(w.lock)
		if err := writeLock(dir, lock); err != nil {
			return res, err
		}
		verb := "installed"
		if w.old != nil {
			verb = "updated"
			res.Updated = append(res.Updated, w.f.Name)
		} else {
			res.Installed = append(res.Installed, w.f.Name)
		}
		if w.lock.Unverified {
			res.Unverified = append(res.Unverified, w.f.Name)
		}
		if opt.Progress != nil {
			unverified := ""
			if w.lock.Unverified {
				unverified = ", unverified"
			}
			fmt.Fprintf(opt.Progress, "%s %s (%d files, %d bytes%s)\n", verb, w.f.Name, w.st.files, w.st.bytes, unverified)
		}
	}
	for _, l := range removes {
		if err := removeSkill(dir, l.Name); err != nil {
			return res, err
		}
		lock.remove(l.Name)
		if err := writeLock(dir, lock); err != nil {
			return res, err
		}
		res.Removed = append(res.Removed, l.Name)
		if opt.Progress != nil {
			fmt.Fprintf(opt.Progress, "removed %s (no longer served)\n", l.Name)
		}
	}
	for _, l := range relocks {
		lock.put(l)
	}
	reselected := lock.unremove(source, names)
	if !opt.Frozen && !whole {
		if len(names) > 0 {
			reselected = lock.selectMore(source, names, nil) || reselected // names and paths together: the names, the narrower
		} else {
			reselected = lock.selectMore(source, nil, paths) || reselected
		}
	}
	if _, err := os.Stat(filepath.Join(dir, LockName)); errors.Is(err, os.ErrNotExist) || len(relocks) > 0 || reselected {
		if err := writeLock(dir, lock); err != nil {
			return res, err
		}
	}
	if res.Edited == nil {
		res.Edited = []Edited{}
	}
	slices.SortFunc(res.Edited, func(a, b Edited) int { return strings.Compare(a.Name, b.Name) })
	for _, l := range []*[]string{&res.Installed, &res.Updated, &res.Unchanged, &res.Removed, &res.Elsewhere, &res.Unverified, &res.Compared, &res.New} {
		if *l == nil {
			*l = []string{}
		}
		sort.Strings(*l)
	}
	return res, nil
}

// sameModes reports whether a and b give their files the same execute bits: the manifest
// digest covers names and bytes only, and a script that became one is an update.
func sameModes(a, b *LockedSkill) bool {
	exec := map[string]bool{}
	for _, f := range a.Files {
		exec[f.Path] = f.Exec
	}
	for _, f := range b.Files {
		if exec[f.Path] != f.Exec {
			return false
		}
	}
	return true
}

// stageLockedVersion stages, for a frozen pull, the version l locks of a skill whose
// source serves other bytes now: read from its version path, verified as a pinned
// version is, and only if its files are exactly those the lock names.
func stageLockedVersion(ctx context.Context, source string, opt Options, stage *stager, l *LockedSkill) error {
	if l.Version == "" {
		return errors.New("and it names no version to read instead (the skill declares none)")
	}
	f, _, err := verify.FetchVersion(ctx, source, opt.Verify, l.Name, l.Version)
	if err != nil {
		return fmt.Errorf("and its version %s cannot be read: %v", l.Version, err)
	}
	if err := stage.take(f); err != nil {
		return err
	}
	if !sameFiles(l, stage.skills[l.Name]) {
		return fmt.Errorf("and its version %s holds other files", l.Version)
	}
	return nil
}

// unchangedHere reports whether the installed skill old, whose files the source serves
// unchanged as f, is to be left as it is: when the folder holds what the lock says, or,
// for a skill read from a v0.1.0 index (downloaded at every pull, having no digest to
// compare first), when it was edited locally and force is not set: the edit is kept, as
// it is when an index's digest says the source has not changed.
func unchangedHere(dir string, old *LockedSkill, f verify.Fetched, force bool) bool {
	ch := localChanges(dir, old)
	return len(ch) == 0 || f.Kind == verify.DigestUnpublished && !force && !missing(ch)
}

// missing reports whether changes say the skill's folder is gone.
func missing(changes []string) bool { return len(changes) == 1 && changes[0] == "." }

// parseSelection splits --skill values, NAME or NAME@VERSION, into the names and the
// pinned versions by name.
func parseSelection(skills []string) ([]string, map[string]string, error) {
	var names []string
	pins := map[string]string{}
	for _, s := range skills {
		name, ver, pinned := strings.Cut(s, "@")
		if !validName(name) {
			return nil, nil, usageErrorf("--skill %q: %q is not a skill name (1-64 of a-z, 0-9, \"-\")", s, name)
		}
		if pinned && (ver == "" || strings.ContainsAny(ver, "/\\@") || strings.ContainsFunc(ver, func(r rune) bool { return r <= ' ' || r == 0x7f })) {
			return nil, nil, usageErrorf("--skill %q: %q is not a version name", s, ver)
		}
		if contains(names, name) {
			return nil, nil, usageErrorf("--skill %s is given twice", name)
		}
		names = append(names, name)
		if pinned {
			pins[name] = ver
		}
	}
	return names, pins, nil
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// reportError renders the problems of a report that did not verify.
func reportError(source string, rep *verify.Report) error {
	var lines []string
	lines = append(lines, rep.Problems...)
	for _, s := range rep.Skills {
		lines = append(lines, s.Problems...)
	}
	return fmt.Errorf("%s did not verify; nothing was written:\n  %s", source, strings.Join(lines, "\n  "))
}

// lockedOf checks the files of a fetched skill as paths of the local file system and
// makes its lock entry.
func lockedOf(source string, f verify.Fetched) (LockedSkill, error) {
	var paths []string
	ls := LockedSkill{Name: f.Name, Source: source, Path: f.Path, URL: f.URL, Artifact: f.Digest, Commit: f.Commit}
	if f.Kind == verify.DigestUnpublished {
		// The source published no digest: claim none (Manifest and Files are what was
		// downloaded).
		ls.Artifact, ls.Unverified = "", true
	}
	for _, file := range f.Files {
		if why := pathProblem(file.Name); why != "" {
			return ls, fmt.Errorf("%s: %s: file %q refused: %s", f.Name, f.URL, file.Name, why)
		}
		paths = append(paths, file.Name)
		ls.Files = append(ls.Files, LockedFile{Path: file.Name, Digest: digestOf(file.Data), Size: int64(len(file.Data)), Exec: file.Exec, ETag: f.ETags[file.Name]})
		if file.Name == "SKILL.md" {
			ls.Version = frontmatterVersion(file.Data)
		}
	}
	if a, b := foldCollision(paths); a != "" {
		return ls, fmt.Errorf("%s: %s: files %q and %q are one file where case is folded or Unicode normalized (Windows, macOS): refused", f.Name, f.URL, a, b)
	}
	// A file that is also a directory's prefix ("a" and "a/b") cannot be written.
	sort.Strings(paths)
	for i := 1; i < len(paths); i++ {
		if strings.HasPrefix(paths[i], paths[i-1]+"/") {
			return ls, fmt.Errorf("%s: %s: %q is both a file and a folder: refused", f.Name, f.URL, paths[i-1])
		}
	}
	ls.Files = sortedFiles(ls.Files)
	ls.Manifest = verify.ManifestDigest(f.Files)
	return ls, nil
}

// frontmatterVersion is the "version" (or "metadata.version") of a SKILL.md's
// frontmatter, verify.Printable (it is shown, and it is the server's), or "".
func frontmatterVersion(b []byte) string {
	s := strings.TrimPrefix(string(b), "\ufeff")
	rest, ok := strings.CutPrefix(s, "---")
	if !ok {
		return ""
	}
	fm, _, ok := strings.Cut(rest, "\n---")
	if !ok {
		return ""
	}
	var v struct {
		Version  any `yaml:"version"`
		Metadata struct {
			Version any `yaml:"version"`
		} `yaml:"metadata"`
	}
	if yaml.Unmarshal([]byte(fm), &v) != nil {
		return ""
	}
	for _, x := range []any{v.Version, v.Metadata.Version} {
		if x != nil {
			return verify.Printable(fmt.Sprint(x))
		}
	}
	return ""
}
