package catalog

import (
	"fmt"
	"sort"
	"strings"
)

// The views of a private catalog. What a caller may see depends only on which of the
// catalog's distinct skill scope lists its scopes hold: a skill is visible when the
// caller holds every scope of its list (TableAccess). The build enumerates every
// combination a caller can hold and compiles, for each, the catalog of the skills it
// shows as a public-format index of its own, with every listing, index, page and digest
// rendered from those skills alone. A server answers a caller from its view, so a skill
// the caller may not see is absent from every answer exactly as if it had never been in
// the folder: there is no per-surface filter to forget.
//
//   - TableScopeSets has one row per distinct skill scope list, sorted: bit j of a view's
//     mask is set when the caller holds every scope of row j.
//   - TableViews has one row per mask a caller can have, sorted by mask, the full mask
//     (every skill, for a local process) last: the view's index (ViewListed), whose
//     listings name only the listed skills, and, when the view shows unlisted skills, a
//     second index with them (ViewAll) that answers what the first does not find.
//
// A mask is one a caller can have when it is closed: the policy's default scopes (which
// every caller the server answers holds) and the scopes of its rows together hold no other
// row's list. MaxScopeSets and MaxViews bound the work and the index.
//
// The full view (every skill) is the catalog itself: a view's index that is the whole
// catalog is the cell Self followed by the digest a public index of it would have (the
// private one's also covers the policy), and reads this index's own tables as a public
// index with that digest.

// In a sharded index (shards.go) each view's index is a sharded root of its own, with its
// older versions' nested in it, an object of the store read when a caller of the view is
// first answered (viewparts.go); the full view is the root itself. Their shards go to the
// store with the others', and one cache holds what any of them reads.

// Table kinds of a private catalog's views.
const (
	TableScopeSets uint32 = 14
	TableViews     uint32 = 15
)

// Fields of TableScopeSets.
const (
	SetScopes = iota // a skill scope list, space-separated (possibly empty)
	SetFields
)

// Fields of TableViews.
const (
	ViewMask   = iota // the mask, 4 bytes little-endian
	ViewListed        // the view's index: a public-format pack of its listed skills, Self, or a ref to it in the store (viewparts.go)
	ViewAll           // empty, or the index of every skill of the view, unlisted ones too, as ViewListed
	ViewFields
)

// Self, followed by a digest (64 lowercase hex digits), as a view's index, is the private
// index's own tables with that digest: the view of every skill.
const Self = "="

// MaxScopeSets bounds the distinct skill scope lists of a private catalog (the bits of a
// mask), and MaxViews the views they give.
//
// Why at most 16 scope lists and 64 views? Each view is an index, so the index grows with
// their number, and every combination of independent rules is a view: six teams each with
// its own scope give 64. The limits keep the Worker script in its plan (a whole index ships
// in it; a sharded one keeps its views in the store, each view's shards among the assets)
// and the build quick; a policy over them is refused by validate and build at
// skilledge.yaml, saying to merge rules that guard the same readers. A catalog that needs
// more is better split into Workers by audience.
const (
	MaxScopeSets = 16
	MaxViews     = 64
)

// View is what one caller sees: Listed answers every request, and All, when not nil,
// answers a lookup (a read, a get) that Listed does not find: a skill that is served but
// left out of listings.
type View struct {
	Mask     uint32
	Listed   *Pack
	All      *Pack
	Versions *Pack // the older versions of the view's skills, listed or not: its Listed's Versions
}

// ClosedMasks returns every mask over the scope lists sets (each a set of scopes) that a
// caller holding the scopes base can have, ascending: those whose lists, with base, hold
// no other list. It stops counting past limit, returning limit+1 masks, so that a caller
// can refuse a policy without enumerating all of it.
func ClosedMasks(base []string, sets [][]string, limit int) []uint32 {
	var out []uint32
	for m := uint32(0); m < 1<<len(sets) && len(out) <= limit; m++ {
		have := map[string]bool{}
		for _, s := range base {
			have[s] = true
		}
		for j, set := range sets {
			if m&(1<<j) != 0 {
				for _, s := range set {
					have[s] = true
				}
			}
		}
		closed := true
		for j, set := range sets {
			if m&(1<<j) != 0 {
				continue
			}
			holds := true
			for _, s := range set {
				holds = holds && have[s]
			}
			if holds {
				closed = false
				break
			}
		}
		if closed {
			out = append(out, m)
		}
	}
	return out
}

// openViews checks and opens a private catalog's views: the scope lists in form and
// within bounds, the masks ascending and within the lists' bits with the full mask last,
// and every view's index a valid public-format index.
func (p *Pack) openViews() error {
	sets, views := p.tables[TableScopeSets], p.tables[TableViews]
	if sets.fields < SetFields || views.fields < ViewFields || sets.rows > MaxScopeSets || views.rows == 0 || views.rows > MaxViews {
		return fmt.Errorf("%w: a private catalog's view tables are missing, short or too long", ErrCorrupt)
	}
	p.sets = make([][]byte, sets.rows)
	for j := range p.sets {
		p.sets[j] = p.cell(TableScopeSets, uint32(j), SetScopes)
		if !scopeList(p.sets[j]) {
			return fmt.Errorf("%w: scope list %q", ErrCorrupt, p.sets[j])
		}
	}
	full := uint32(1)<<sets.rows - 1
	p.views = make([]View, views.rows)
	for r := range p.views {
		m := p.cell(TableViews, uint32(r), ViewMask)
		if len(m) != 4 {
			return fmt.Errorf("%w: view %d mask", ErrCorrupt, r)
		}
		v := View{Mask: u32(m, 0)}
		if v.Mask > full || r > 0 && v.Mask <= p.views[r-1].Mask {
			return fmt.Errorf("%w: view masks out of order or range", ErrCorrupt)
		}
		// Each of the view's indexes is inline, Self, or in the store (viewparts.go).
		var vp viewPart
		for k, cell := range [][]byte{p.cell(TableViews, uint32(r), ViewListed), p.cell(TableViews, uint32(r), ViewAll)} {
			ref, stored, err := viewRef(cell)
			switch {
			case err == nil && stored && p.sh == nil:
				err = fmt.Errorf("%w: a view in the store of an index that is not sharded", ErrCorrupt)
			case err == nil && stored:
				*[]*Ref{&vp.listed, &vp.all}[k] = ref
				p.viewRoots = append(p.viewRoots, ref)
			case err == nil && (k == 0 || len(cell) > 0):
				*[]**Pack{&v.Listed, &v.All}[k], err = p.openView(cell)
			}
			if err != nil {
				return fmt.Errorf("view %d: %w", r, err)
			}
		}
		if len(vp.refs()) > 0 {
			if p.viewParts == nil {
				p.viewParts = make([]*viewPart, views.rows)
			}
			p.viewParts[r] = &vp
		}
		if v.Listed != nil {
			v.Versions = v.Listed.older // the view's index holds its own (versions.go)
		}
		for _, q := range []*Pack{v.Listed, v.All} {
			if q == nil {
				continue
			}
			if err := p.nest(q); err != nil {
				return fmt.Errorf("view %d: %w", r, err)
			}
		}
		p.views[r] = v
	}
	if p.views[len(p.views)-1].Mask != full {
		return fmt.Errorf("%w: the full view is missing", ErrCorrupt)
	}
	return nil
}

// openView opens the index of one view, which must be in the public format (a view is the
// catalog one caller sees, never a policy of its own), or Self: p's own tables, read as a
// public index.
func (p *Pack) openView(b []byte) (*Pack, error) {
	if digest, ok := strings.CutPrefix(string(b), Self); ok {
		if !hexDigest(digest) {
			return nil, fmt.Errorf("%w: a view of the index itself with digest %q", ErrCorrupt, digest)
		}
		q := *p
		q.private, q.sets, q.views, q.viewParts, q.digest = false, nil, nil, nil, digest
		return &q, nil
	}
	if len(b) >= 8 && string(b[:8]) == MagicPrivate {
		return nil, fmt.Errorf("%w: a view that is itself private", ErrCorrupt)
	}
	return openIn(b, p, false) // its packed references name p's packs
}

// ViewFor returns the view of a caller holding the space-separated scopes granted, and
// false when the catalog is public or has no such view (which a build never omits; a
// server refuses the caller then).
func (p *Pack) ViewFor(granted []byte) (View, bool) {
	i, ok := p.ViewIndex(granted)
	if !ok {
		return View{}, false
	}
	return p.View(i), true
}

// ViewIndex is ViewFor's view as its place in Views().
func (p *Pack) ViewIndex(granted []byte) (int, bool) {
	if !p.private {
		return 0, false
	}
	var m uint32
	for j, set := range p.sets {
		if HasScopes(granted, set) {
			m |= 1 << j
		}
	}
	i := sort.Search(len(p.views), func(i int) bool { return p.views[i].Mask >= m })
	return i, i < len(p.views) && p.views[i].Mask == m
}

// Views returns a private catalog's views, by mask, the full view last, each read (View);
// nil for a public catalog.
func (p *Pack) Views() []View {
	for i := range p.views {
		p.View(i)
	}
	return p.views
}

// hexDigest reports whether s is a SHA-256 in lowercase hex.
func hexDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
