package pull

import (
	"context"
	"fmt"
	"io"
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
//
// The rows are read from each source's plan (outdatedPlan): what a pull would update
// (changed at the source) or remove (no longer served), and the pins it keeps.
func CheckOutdated(ctx context.Context, dir string, opt Options) ([]Outdated, error) {
	lock, err := ReadLock(dir)
	if err != nil {
		return nil, err
	}
	sources := lock.sources()
	sort.Strings(sources)
	folder := newFolderState(dir)
	var out []Outdated
	for _, src := range sources {
		p, err := outdatedPlan(ctx, checkScope(lock, folder, src), opt)
		if err != nil {
			return nil, &SourceError{Source: src, Err: err}
		}
		out = append(out, p.outdated()...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// outdatedPlan is the plan of a pull of the skills s has from its source, made from its
// listing alone: a skill is downloaded only to read what the listing does not say
// (scope.wantToCompare), and let go. A change is planned as an update without its files.
//
// Why not a dry run of the pull? Because a dry run downloads and verifies every change,
// looks unlisted skills up one by one and reads pinned versions, and outdated is to read
// each source once: the plan is the same, the reads are fewer.
func outdatedPlan(ctx context.Context, s *scope, opt Options) (*Plan, error) {
	r, err := readToCompare(ctx, s, opt)
	if err != nil {
		return nil, err
	}
	return &Plan{Source: s.source, Via: r.via, DryRun: true, Actions: s.plan(r), scope: s}, nil
}

// outdated are the rows of the plan: each locked skill it updates because the source
// changed it, each it removes, and each pin it keeps where the source's latest version is
// another.
func (p *Plan) outdated() []Outdated {
	var out []Outdated
	for _, a := range p.Actions {
		l := a.Locked
		if l == nil || l.Source != p.Source {
			continue
		}
		o := Outdated{Name: l.Name, Source: p.Source, FromVersion: l.Version, FromDigest: fromDigest(l, a.Served)}
		switch {
		case a.Do == DoRemove:
			o.Removed = true
		case a.Do == DoUpdate && a.Why == WhyChanged:
			o.ToVersion, o.ToDigest = a.Latest, a.Served.Digest
		case a.Do == DoKeep && a.Why == WhyPinned && a.Served != nil && a.Latest != "" && a.Latest != l.Version:
			// A version's name always names the same bytes: the pin is current, and said
			// to be behind when the source's latest is another version.
			o.FromDigest, o.ToVersion, o.ToDigest, o.Pinned = l.Manifest, a.Latest, a.Served.Digest, true
		default:
			continue
		}
		out = append(out, o)
	}
	return out
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

// Behind reports whether a row of rows is behind what its skill wants: any row but that of
// a pinned skill, which is shown with the source's latest version and wanted where it is.
func Behind(rows []Outdated) bool {
	for _, o := range rows {
		if !o.Pinned {
			return true
		}
	}
	return false
}

// WriteOutdated prints the rows of CheckOutdated of dir, a line each, or that every skill
// in dir is up to date.
func WriteOutdated(w io.Writer, dir string, rows []Outdated) {
	for _, o := range rows {
		fmt.Fprintln(w, o)
	}
	if len(rows) == 0 {
		fmt.Fprintf(w, "every skill in %s is up to date\n", dir)
	}
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
