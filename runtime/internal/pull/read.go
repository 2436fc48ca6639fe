package pull

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// reading is what a plan read of its source: every skill served, as listed, and what was
// downloaded. Nothing in it is written to the folder yet.
type reading struct {
	via     string
	got     []verify.Fetched          // the skills served, in the order read
	served  map[string]verify.Fetched // the same, by name
	skipped []string                  // a folder's or repository's skills left out, and why
	// staged are the skills downloaded and verified for a pull, by name (the stager's).
	staged map[string]*staged
	// pinPaths are the catalog paths of the pinned versions read, by name.
	pinPaths map[string]string
	// versions are, for outdated, the versions read from the SKILL.md of the skills
	// downloaded to compare, by name.
	versions map[string]string
}

func (r *reading) add(fs ...verify.Fetched) {
	if r.served == nil {
		r.served = map[string]verify.Fetched{}
	}
	for _, f := range fs {
		r.served[f.Name] = f
		r.got = append(r.got, f)
	}
}

// latest is the version the source serves of f: as its listing says, else as the
// SKILL.md downloaded says ("" when neither does).
func (r *reading) latest(f verify.Fetched) string {
	switch {
	case f.Version != "":
		return f.Version
	case r.versions[f.Name] != "":
		return r.versions[f.Name]
	case r.staged[f.Name] != nil:
		return r.staged[f.Name].lock.Version
	}
	return ""
}

// readSource reads the catalog at s.source for a pull's plan, each skill s.want accepts
// downloaded into stage: the listing (fetchCatalog); the skills named, or locked, that no
// listing names, looked up by name; for a frozen pull, the locked version of a skill the
// source has moved past; and each version this pull pins. It fails, before anything is
// planned, on what no plan can hold: a named skill not served, or installed from another
// source, or a frozen pull the source cannot give what the lock says.
func readSource(ctx context.Context, s *scope, opt Options, stage *stager) (*reading, error) {
	r := &reading{staged: stage.skills, pinPaths: map[string]string{}}
	got, via, err := fetchCatalog(ctx, s.source, opt, s.want, s.etags, &r.skipped)
	if err != nil {
		return nil, err
	}
	r.via = via
	r.add(got...)
	if err := r.lookUpUnlisted(ctx, s, opt); err != nil {
		return nil, err
	}
	// The order of the errors is the pull's: a named skill not served, then what a frozen
	// pull cannot install, then a named skill the lock has from another source.
	if err := r.checkServed(s); err != nil {
		return nil, err
	}
	if err := r.readLockedVersions(ctx, s, opt, stage); err != nil {
		return nil, err
	}
	if err := r.checkElsewhere(s); err != nil {
		return nil, err
	}
	if err := r.readPins(ctx, s, opt, stage); err != nil {
		return nil, err
	}
	return r, nil
}

// readToCompare reads the catalog at s.source for outdated's plan: the listing, and the
// skills s.wantToCompare accepts downloaded, each let go once its version is read.
func readToCompare(ctx context.Context, s *scope, opt Options) (*reading, error) {
	r := &reading{versions: map[string]string{}}
	opt.Verify.Take = func(f verify.Fetched) error {
		for _, file := range f.Files {
			if file.Name == "SKILL.md" {
				r.versions[f.Name] = frontmatterVersion(file.Data)
			}
		}
		return nil
	}
	got, via, err := fetchCatalog(ctx, s.source, opt, s.wantToCompare, s.etags, nil)
	if err != nil {
		return nil, err
	}
	r.via = via
	r.add(got...)
	return r, nil
}

// lookUpUnlisted looks up by name over MCP the skills named in this pull, or locked from
// the source and in scope, that the listing did not name: an unlisted skill is served by
// name though no listing names it. A folder or git repository has none.
func (r *reading) lookUpUnlisted(ctx context.Context, s *scope, opt Options) error {
	var unlisted []string
	for _, n := range s.names {
		if _, ok := r.served[n]; !ok {
			unlisted = append(unlisted, n)
		}
	}
	for _, l := range s.lock.Skills {
		if _, ok := r.served[l.Name]; !ok && l.Source == s.source && !slices.Contains(unlisted, l.Name) && s.inScope(l.Name, l.Path) {
			unlisted = append(unlisted, l.Name)
		}
	}
	if len(unlisted) == 0 || sourceKind(s.source) != "" {
		return nil
	}
	found, err := fetchUnlisted(ctx, s.source, opt, unlisted, s.want)
	if err != nil {
		return err
	}
	r.add(found...)
	return nil
}

// checkServed fails for a skill named in this pull that the source does not serve (saying
// why when a folder or repository left it out, and naming the index names of skills of
// that name when the catalog qualified them).
func (r *reading) checkServed(s *scope) error {
	for _, n := range s.names {
		if _, ok := r.served[n]; ok {
			continue
		}
		for _, sk := range r.skipped { // a folder's or repository's skill left out: say why
			if p, _, _ := strings.Cut(sk, ": "); path.Base(strings.TrimSuffix(p, "/SKILL.md")) == n {
				return fmt.Errorf("%s serves no skill %q: %s", s.source, n, sk)
			}
		}
		var qualified []string // skills of that name the catalog names otherwise (PROTOCOL.md#index-names)
		for name, f := range r.served {
			if f.Named == n || f.Named == "" && strings.HasSuffix(name, "-"+n) {
				qualified = append(qualified, name)
			}
		}
		if len(qualified) > 0 {
			slices.Sort(qualified)
			return fmt.Errorf("%s serves no skill by the name %q: skills that share a name are served under names of their own; pull --skill one of %s",
				s.source, n, strings.Join(qualified, ", "))
		}
		return fmt.Errorf("%s serves no skill %q", s.source, n)
	}
	return nil
}

// checkElsewhere refuses a skill named in the pull that the lock has from another source.
func (r *reading) checkElsewhere(s *scope) error {
	for _, f := range r.got {
		if old := s.lock.find(f.Name); old != nil && old.Source != s.source && slices.Contains(s.names, f.Name) {
			return installedElsewhere(s.source, f.Name, old)
		}
	}
	return nil
}

// installedElsewhere is the error for a skill named in a pull of source that the lock
// has from another source.
func installedElsewhere(source, name string, old *LockedSkill) error {
	return fmt.Errorf("%s: already installed from %s; remove it from %s to pull it from %s", name, old.Source, LockName, source)
}

// readLockedVersions holds a frozen pull to the lock: each locked skill in scope must be
// served, and one whose files the source has changed since is read at the version the
// lock names, which a catalog that keeps versions still publishes (PROTOCOL.md#versions).
//
// Why does `pull --frozen` compare a skill's files, not the digest its lock names? A lock
// records the digest the read gave: the archive's from a well-known index, the manifest
// digest (of the files) from a read over MCP, and the manifest digest in both. The same
// source can be read either way (--path reads over MCP, a plain pull the index), and a
// frozen pull through the index of a skill locked over MCP once failed for identical
// files: it compared an archive digest to a manifest digest. So a frozen pull that meets an
// archive digest not in the lock downloads that skill (scope.want), verifies it against
// the index as always, and holds it to the lock's manifest digest (sameFiles): the same
// files pass, other files send it to the locked version (stageLockedVersion), and nothing
// is written until every skill has been compared. The lock stays as it was (a plain pull
// records the archive digest, so that later pulls download nothing): a frozen pull is for
// CI, and writes back only a deleted skill's folder (or, with --force, an edited one).
// Rejected: failing whenever the digest kinds differ, which ties a lock to one way of
// reading; and recording both digests at every read, which an MCP read cannot (it sees no
// archive). Cost: a frozen pull downloads such a skill on every run until a plain pull
// relocks it.
func (r *reading) readLockedVersions(ctx context.Context, s *scope, opt Options, stage *stager) error {
	for _, l := range s.lock.Skills {
		if !s.frozen || l.Source != s.source || !s.inScope(l.Name, l.Path) {
			continue
		}
		f, ok := r.served[l.Name]
		switch {
		case !ok:
			return fmt.Errorf("--frozen: %s no longer serves %s, which %s locks", s.source, l.Name, LockName)
		case !lockMatches(&l, f) && !sameFiles(&l, stage.skills[l.Name]):
			if err := stageLockedVersion(ctx, s.source, opt, stage, &l); err != nil {
				return fmt.Errorf("--frozen: %s serves %s at %s, not what %s locks, %w", s.source, l.Name, f.Digest, LockName, err)
			}
		}
	}
	return nil
}

// stageLockedVersion stages, for a frozen pull, the version l locks of a skill whose
// source serves other bytes now: read from its version path, verified as a pinned
// version is, and only if its files are exactly those the lock names.
//
// Why does a frozen pull read the locked version from its version path? pull --frozen in
// CI failed after every upstream commit that touched a locked skill, although a catalog
// that keeps versions still publishes the locked bytes at the version's path
// (NAME/@VERSION/NAME). So when the source now serves other files, a frozen pull reads the
// version the lock names from there (verify.FetchVersion), verifies it as a pinned version
// is (against the manifest digest the MCP listing gives: readPins), and installs it only if
// its files are exactly those the lock records; without that version (not kept, or a skill
// that declares none) it fails as before, naming why. pull --frozen DIR takes its URLs
// from the lock (Sources), as CI knows the folder and not always the URLs. Rejected:
// pinning every locked skill (a plain pull would then never update), and failing (CI
// breaks for a change it did not ask for).
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

// readPins reads each version this pull pins (--skill NAME@VERSION) into stage, unless
// it is what is installed already (scope.pinKept). A frozen pull pins only what the
// lock pins.
//
// Why does `--skill NAME@VERSION` check the manifest digest from `resources/list`? The
// well-known index lists latest skills only, so it has no digest for an older version's
// archive; the digest that names a version wherever it is served is its manifest digest,
// in _meta["io.github.skilledge/versions"] of the latest SKILL.md in resources/list. So
// verify.FetchVersion downloads /.well-known/agent-skills/NAME/@VERSION/NAME.tar.gz,
// unpacks it, and refuses it unless the manifest digest of its files is that one. A pinned
// skill is left at its version by later pulls and by outdated (scope.pinnedHere: a
// version's name always names the same bytes) until it is named again. Rejected: taking
// the archive as served, which no index vouches for. Cost: a pin needs the MCP endpoint
// beside the well-known files, and a version whose name differs from the latest's (a
// renamed skill) is refused, since the folder must carry the skill's name.
func (r *reading) readPins(ctx context.Context, s *scope, opt Options, stage *stager) error {
	for _, name := range slices.Sorted(maps.Keys(s.pins)) {
		ver, old := s.pins[name], s.lock.find(name)
		if old != nil && old.Source != s.source {
			return installedElsewhere(s.source, name, old)
		}
		if s.frozen && (old == nil || !old.Pinned || old.Version != ver) {
			return fmt.Errorf("--frozen: %s locks no %s@%s", LockName, name, ver)
		}
		if s.pinKept(name) {
			continue
		}
		f, path, err := verify.FetchVersion(ctx, s.source, opt.Verify, name, ver)
		if err != nil {
			return err
		}
		if err := stage.take(f); err != nil {
			return err
		}
		r.pinPaths[name] = path
	}
	return nil
}
