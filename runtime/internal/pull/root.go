package pull

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skilledge/skilledge/catalog/signing"
	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// ErrRoot is a pull refused by the catalog's signed root (PROTOCOL.md#signed-root): its
// message says which check failed and what to do. Nothing is written.
var ErrRoot = errors.New("the signed root")

// LockedRoot is, in skills.lock, the signed root a pull of a source accepted: the key that
// signed it (pinned with --trust-key, or trusted on first use), and its catalog, sequence
// and payload digest, which the next root of the source must follow (no rollback, and the
// chain when it is the next).
type LockedRoot struct {
	Source   string `json:"source"`
	Key      string `json:"key"` // signing.FormatPublic
	Catalog  string `json:"catalog"`
	Sequence uint64 `json:"sequence"`
	Payload  string `json:"payload"`
}

// rootOf returns the lock's root of source, or nil.
func (l *Lock) rootOf(source string) *LockedRoot {
	for i := range l.Roots {
		if l.Roots[i].Source == source {
			return &l.Roots[i]
		}
	}
	return nil
}

// hasSource reports whether the lock holds a skill from source, or a selection of it.
func (l *Lock) hasSource(source string) bool {
	for _, s := range l.Skills {
		if s.Source == source {
			return true
		}
	}
	for _, s := range l.Selections {
		if s.Source == source {
			return true
		}
	}
	return false
}

// putRoot records r as the root of its source.
func (l *Lock) putRoot(r LockedRoot) {
	if p := l.rootOf(r.Source); p != nil {
		*p = r
		return
	}
	l.Roots = append(l.Roots, r)
}

// holdToRoot holds the plan of a pull from a deployment to the deployment's signed root:
// verified with the key opt.TrustKey pins, else the key the lock recorded for the source,
// else (trust on first use, at the source's first pull) the key the root names; not
// expired; following the root the lock recorded; and naming every skill the lock will hold
// from the source with the manifest digest of its files. A deployment that serves no root
// is read as before, unless a key is pinned or recorded for it; a source pulled before
// without a root is not asked for one again (an up-to-date pull reads its index alone)
// until --trust-key pins a key. The root accepted is recorded in the plan, for Apply to
// lock; FirstUse says its key was trusted on first use.
//
// Why does a root name its own key, and pull trust the first one it sees? A consumer that
// pins no key must learn one somewhere, and the envelope carries only a hint (a digest of
// the key). Naming the key in the signed predicate lets the first pull take it, check the
// root against it (a root naming a key that did not sign it is refused), print it, and lock
// it: from then on the lock pins it, as a pin by --trust-key does, and a root signed by
// another key is refused. That is what `ssh` does with a host key, and its weakness is the
// same: a first pull from a server already taken trusts the taker; --trust-key closes it.
// Rejected: a public key served beside the root (a second request, trusted no more), and
// refusing signed catalogs without --trust-key (no one would sign).
//
// Why is a source pulled before without a root not asked for one again? An up-to-date pull
// costs the index alone (fetchCatalog's why); asking every pull for a root that is not there
// would double it. A catalog that starts signing later is held to its root once a pull pins
// the key with --trust-key; a source whose lock records a key is asked every time, and one
// that stops serving a root is refused.
func (p *Plan) holdToRoot(ctx context.Context, opt Options) error {
	s := p.scope
	locked := s.lock.rootOf(s.source)
	key := opt.TrustKey
	if key == nil && locked != nil {
		k, err := signing.ParsePublic(locked.Key)
		if err != nil {
			return fmt.Errorf("%w: %s records the key %q for %s: %v", ErrRoot, LockName, locked.Key, s.source, err)
		}
		key = k
	}
	if key == nil && s.lock.hasSource(s.source) {
		return nil // pulled before without a root: an up-to-date pull reads the index alone
	}
	base := s.source
	if isMCPEndpoint(base) {
		base = strings.TrimSuffix(strings.TrimSuffix(base, "/"), "/mcp")
	}
	env, status, err := verify.FetchRoot(ctx, base, opt.Verify)
	if err == nil && status >= 500 {
		err = fmt.Errorf("the signed root of %s answers HTTP %d", s.source, status)
	}
	if err != nil {
		// A server failing is not a catalog without a root, and a first pull that took it
		// for one would never ask again.
		return err
	}
	if key == nil {
		// Trust on first use, of a root: a refusal (404, or another 4xx of a server that
		// knows no such path), or a path that answers something else (a server that
		// answers every path with a page), is no root.
		k, kerr := signing.RootKey(env)
		if env == nil || kerr != nil {
			return nil
		}
		key, p.FirstUse = k, true
	}
	if env == nil {
		return fmt.Errorf("%w: %s serves no signed root, where %s: a deployment no longer signed, or not the publisher's",
			ErrRoot, s.source, keySource(opt.TrustKey != nil))
	}
	r, err := signing.OpenRoot(env, key)
	if err == nil {
		var seen *signing.Seen
		if locked != nil {
			seen = &signing.Seen{Catalog: locked.Catalog, Sequence: locked.Sequence, Payload: locked.Payload}
		}
		err = r.Check(time.Now(), seen)
	}
	if err != nil {
		return fmt.Errorf("%w of %s: %v: %s", ErrRoot, s.source, err, rootAdvice(err, opt.TrustKey != nil))
	}
	latest := map[string]bool{} // the subjects' URIs: a version's skill is named too
	for _, sub := range r.Subjects {
		latest[sub.Name] = true
	}
	byDigest := map[string][]subjectName{} // the subjects' names and versions, by manifest digest
	names := map[string]bool{}             // every skill name the root names, latest or version
	for _, sub := range r.Subjects {
		n := subjectNameOf(sub.Name, latest)
		n.index = sub.Annotations[signing.AnnotationName]
		byDigest[sub.Digest["sha256"]] = append(byDigest[sub.Digest["sha256"]], n)
		names[cmp.Or(n.index, n.name)] = true
	}
	for _, a := range p.Actions {
		// Every skill this pull writes is held to the root, as served or pinned; a skill kept
		// as installed, when the source serves it as its latest (a pinned one kept is not
		// read again, and its version may have left the catalog's keep).
		l := a.lock
		switch {
		case a.writes():
		case a.Do == DoKeep && a.Served != nil && a.Locked != nil && !a.Locked.Pinned:
			if l.Manifest == "" { // kept as installed: the artifact served is the one locked
				l = *a.Locked
			}
		default:
			continue
		}
		pinned := ""
		if l.Pinned {
			pinned = l.Version
		}
		f := a.Served
		if f == nil { // a pinned version, read from its version path
			f = &verify.Fetched{Name: a.Name, Named: l.Named, Path: a.Name}
		} else if f.Named == "" && l.Named != "" { // kept as installed: not read again
			served := *f
			served.Named = l.Named
			f = &served
		}
		named := namedIn(r, byDigest, f, l.Manifest, pinned)
		if !named && s.frozen && l.Version != "" {
			// A frozen pull installs the version the lock names, read from its version
			// path when the source has moved on: the root names it as that version.
			named = namedIn(r, byDigest, f, l.Manifest, l.Version)
		}
		if !named && !names[a.Name] && slices.Contains(s.names, a.Name) {
			// An unlisted skill, asked for by name: no root names one (a root is a
			// listing), and its files are checked against the digests served only.
			p.Unsigned = append(p.Unsigned, a.Name)
			continue
		}
		if !named {
			return fmt.Errorf("%w of %s does not name %s with the manifest %s of its files as served: a skill the publisher did not sign, or not with these files",
				ErrRoot, s.source, a.Name, l.Manifest)
		}
	}
	p.Root = &LockedRoot{Source: s.source, Key: signing.FormatPublic(key), Catalog: r.Catalog, Sequence: r.Sequence, Payload: r.Payload}
	return nil
}

// namedIn reports whether root r names the skill f with the manifest digest manifest, as
// its latest, or, pinned, as that version of it: by its URI when the read gave its path
// (MCP), else (a well-known index names skills by name only) by a subject of that digest
// (byDigest) that names f as the index does: a subject annotated with an index name
// (signing.AnnotationName: its name is shared, or not its own) by that name alone, any
// other by its last segment, which must be f's name and its SKILL.md's. So a server that
// is not the publisher cannot serve one signed skill under another's name. A latest skill
// served with an older version's files is not named: that is a rollback of one skill.
func namedIn(r *signing.Root, byDigest map[string][]subjectName, f *verify.Fetched, manifest, pinned string) bool {
	want := strings.TrimPrefix(manifest, "sha256:")
	if f.Path != "" && f.Path != f.Name && pinned == "" {
		d, ok := r.Digest("skill://" + f.Path + "/SKILL.md")
		return ok && d == want
	}
	return slices.ContainsFunc(byDigest[want], func(n subjectName) bool {
		if n.version != pinned {
			return false
		}
		if n.index != "" {
			return n.index == f.Name
		}
		return f.Named == "" && n.name == f.Name
	})
}

// subjectName is what a root's subject says of its skill: the name of its folder, the
// version when it is a kept version (skill://PATH/@VERSION/NAME/SKILL.md), else "", and
// the index name it is annotated with (signing.AnnotationName), else "".
type subjectName struct{ name, version, index string }

// subjectNameOf reads a subject's name, a skill's SKILL.md URI: a kept version's,
// skill://PATH/@VERSION/NAME/SKILL.md, when the root also names skill://PATH/SKILL.md (in
// latest); a folder of a catalog without history may begin with "@" too.
func subjectNameOf(uri string, latest map[string]bool) subjectName {
	dir := strings.TrimSuffix(uri, "/SKILL.md")
	n := subjectName{name: dir[strings.LastIndexByte(dir, '/')+1:]}
	if parent := dir[:max(strings.LastIndexByte(dir, '/'), 0)]; strings.Contains(parent, "/@") {
		at := strings.LastIndex(parent, "/@")
		if latest[parent[:at]+"/SKILL.md"] {
			n.version = parent[at+2:]
		}
	}
	return n
}

// keySource says where the key a source is held to came from.
func keySource(pinned bool) string {
	if pinned {
		return "--trust-key pins a key"
	}
	return LockName + " records the key it was signed with"
}

// rootAdvice says what to do about a root that failed check err.
func rootAdvice(err error, pinned bool) string {
	switch {
	case errors.Is(err, signing.ErrSignature) && pinned:
		return "it is not signed by the key --trust-key gives: check the key, or ask the publisher whether it changed"
	case errors.Is(err, signing.ErrSignature):
		return "it is not signed by the key " + LockName + " records: if the publisher changed its key, pull with --trust-key NEWKEY"
	case errors.Is(err, signing.ErrExpired):
		return "the publisher has not signed the catalog since: ask them to build and deploy again"
	case errors.Is(err, signing.ErrRollback):
		return "the deployment serves an older catalog than the one installed: it may have been rolled back or replayed; nothing is written"
	case errors.Is(err, signing.ErrChain):
		return "the root does not follow the one " + LockName + " records: the publisher lost its roots.json, or another signer holds the key"
	case errors.Is(err, signing.ErrOtherCatalog):
		return "the deployment serves another catalog's root"
	}
	return "the deployment's root is not a skilledge catalog root"
}
