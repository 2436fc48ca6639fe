package pull

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// Outdated is an installed skill that differs from its source.
type Outdated struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	// FromVersion and FromDigest are what the lock says, ToVersion and ToDigest what
	// the source serves now ("" when it serves the skill no more): the artifact's digest
	// when the source is read by its well-known index, the manifest digest when over MCP;
	// the version when the source's listing gives one (the v0.2.0 index entry's
	// frontmatter, a skills/list entry's version).
	FromVersion string `json:"fromVersion,omitempty"`
	FromDigest  string `json:"fromDigest"`
	ToVersion   string `json:"toVersion,omitempty"`
	ToDigest    string `json:"toDigest,omitempty"`
	// Removed is set when the source no longer serves the skill.
	Removed bool `json:"removed,omitempty"`
	// Pinned is set for a skill pulled as NAME@VERSION: a pull leaves it where it is (the
	// version wanted is FromVersion) although the source serves ToVersion now.
	Pinned bool `json:"pinned,omitempty"`
}

// CheckOutdated reads each source of DIR's lock once (its index; a skill only when it
// changed and the index names no version, to read the version) and returns the locked
// skills whose artifact digest differs from the one the source serves now, or that it no
// longer serves, and the pinned skills whose source's latest version is another one
// (Outdated.Pinned), by name. opt.Verify is used for every source: each is sent only the
// token bound to its own origin (verify.Credentials), none when it has none. A source
// that cannot be read fails the whole check with a *SourceError naming it.
func CheckOutdated(ctx context.Context, dir string, opt Options) ([]Outdated, error) {
	lock, err := ReadLock(dir)
	if err != nil {
		return nil, err
	}
	bySource := map[string][]LockedSkill{}
	var sources []string
	for _, s := range lock.Skills {
		if _, ok := bySource[s.Source]; !ok {
			sources = append(sources, s.Source)
		}
		bySource[s.Source] = append(bySource[s.Source], s)
	}
	sort.Strings(sources)
	var out []Outdated
	for _, src := range sources {
		// A v0.1.0 index publishes no digest: its skills are downloaded to compare. A
		// v0.2.0 index names no versions: the skills that changed are downloaded (and
		// verified) to read the version their SKILL.md says.
		locked := map[string]*LockedSkill{}
		for i := range bySource[src] {
			locked[bySource[src][i].Name] = &bySource[src][i]
		}
		want := func(f verify.Fetched) bool {
			if f.Kind == verify.DigestUnpublished {
				return true
			}
			l := locked[f.Name]
			return l != nil && f.Version == "" && !lockMatches(l, f) // a pin: to read the latest's version
		}
		// A downloaded skill is read for its version and let go: one skill's files in
		// memory at a time.
		versions := map[string]string{}
		opt.Verify.Take = func(f verify.Fetched) error {
			for _, file := range f.Files {
				if file.Name == "SKILL.md" {
					versions[f.Name] = frontmatterVersion(file.Data)
				}
			}
			return nil
		}
		got, _, err := fetchCatalog(ctx, src, opt, want, lockETags(lock, src, dir), nil)
		if err != nil {
			return nil, &SourceError{Source: src, Err: err}
		}
		now := map[string]verify.Fetched{}
		for _, f := range got {
			now[f.Name] = f
		}
		for _, l := range bySource[src] {
			f, ok := now[l.Name]
			if l.Pinned {
				// A version's name always names the same bytes: the pin is current, and
				// said to be behind when the source's latest is another version.
				latest := f.Version
				if latest == "" {
					latest = versions[f.Name]
				}
				if ok && latest != "" && latest != l.Version {
					out = append(out, Outdated{Name: l.Name, Source: src, FromVersion: l.Version, FromDigest: l.Manifest, ToVersion: latest, ToDigest: f.Digest, Pinned: true})
				}
				continue
			}
			from := l.Artifact
			if l.Unverified || f.Kind == verify.DigestManifest || f.Kind == verify.DigestUnpublished {
				from = l.Manifest // an unverified skill has no artifact digest
			}
			switch {
			case !ok:
				out = append(out, Outdated{Name: l.Name, Source: src, FromVersion: l.Version, FromDigest: from, Removed: true})
			case !lockMatches(&l, f):
				to := f.Version
				if to == "" {
					to = versions[f.Name] // downloaded: a v0.1.0 index has no versions
				}
				out = append(out, Outdated{Name: l.Name, Source: src, FromVersion: l.Version, FromDigest: from, ToVersion: to, ToDigest: f.Digest})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// String renders o as one line: "NAME  VERSION sha256:abc… current -> VERSION
// sha256:def… wanted, latest  (SOURCE)", each version where it is known; a pinned
// skill's "NAME  VERSION … current, wanted (pinned) -> VERSION … latest"; with controls
// escaped (verify.Escape:
// skills.lock is a file anyone can edit; the versions came from servers, and are
// Printable already, so a backslash is left as it is).
func (o Outdated) String() string {
	to := short(o.ToDigest)
	if o.ToVersion != "" {
		to = o.ToVersion + " " + to
	}
	from := short(o.FromDigest)
	if o.FromVersion != "" {
		from = o.FromVersion + " " + from
	}
	// As npm outdated says them: current (what is installed), wanted (what the lock or
	// the pin allows: a pull installs it), latest (what the source serves).
	switch {
	case o.Removed:
		from, to = from+" current", "(no longer served: a pull removes it)"
	case o.Pinned:
		from, to = from+" current, wanted (pinned)", to+" latest"
	default:
		from, to = from+" current", to+" wanted, latest"
	}
	return verify.Escape(fmt.Sprintf("%s  %s -> %s  (%s)", o.Name, from, to, o.Source), `\`)
}

// SourceError is the failure to read one source of a lock.
type SourceError struct {
	Source string // as the lock names it
	Err    error
}

// Error names the source, unless the error's text begins with it already.
func (e *SourceError) Error() string {
	if msg := e.Err.Error(); strings.HasPrefix(msg, e.Source) {
		return msg
	}
	return e.Source + ": " + e.Err.Error()
}
func (e *SourceError) Unwrap() error { return e.Err }

// Origin is the origin of the source, as a --token ORIGIN=TOKEN would name it.
func (e *SourceError) Origin() string {
	u, err := url.Parse(e.Source)
	if err != nil {
		return e.Source
	}
	return verify.Origin(u)
}

func short(d string) string {
	if len(d) > 19 {
		return d[:19]
	}
	return d
}
