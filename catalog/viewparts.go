package catalog

import (
	"errors"
	"fmt"
)

// Views in the store. In a sharded private index each view's indexes (ViewListed, ViewAll,
// each a sharded root with its own older versions nested in it) are objects of the store,
// the cells of TableViews their references, read the first time a caller of that view is
// answered, as shards are: through the Loader, or, inside the plugin, by a *Missing naming
// them that the host answers with Give. The full view is the root itself (Self) and needs
// no read. A view once read is kept while the index is: it is a root, as small as the
// index's own, and not counted in the budget of shards.
//
// Why are a sharded catalog's views in the store, rather than roots inside its root? Each
// view's root holds its own search terms, which must be its own (a hidden skill's words
// are not a caller's to count), and they are most of it: 60 to 160 KiB a view for 1,000
// real skills, and its listed and all indexes each have one. Measured by hand on a private
// catalog of 1,029 real skills from seven public repositories, in four views, with kept
// versions: inside the root, the root was 1.6 MB, and would have passed the free plan's
// script at a few thousand skills; in the store, it is 305 KB (132 KiB gzipped), the
// root's own tables and the access tables, however many views there are. The cost is a
// round to the host for a caller's first request, once per view an instance serves.

// viewPart is a view whose indexes are in the store and not all read yet: the references of
// those still to read (Name empty for one read, or never in the store: none, inline, Self).
type viewPart struct{ listed, all Ref }

// refs returns the objects still to read for the view.
func (v *viewPart) refs() []Ref {
	var out []Ref
	for _, r := range []Ref{v.listed, v.all} {
		if r.Name != "" {
			out = append(out, r)
		}
	}
	return out
}

// viewRef parses a TableViews cell that is a reference, and reports false when b is not one
// (an index inline, or Self): a reference starts with a digit, an index with its magic,
// Self with "=".
func viewRef(b []byte) (Ref, bool, error) {
	if len(b) == 0 || b[0] < '0' || b[0] > '9' {
		return Ref{}, false, nil
	}
	r, err := partRef(b, "view")
	return r, true, err
}

// NumViews returns the number of a private catalog's views (0 for a public one), without
// reading any.
func (p *Pack) NumViews() int { return len(p.views) }

// View returns view i of the order Views gives, reading its indexes from the store the
// first time: through the Loader, or, without one, by panicking with a *Missing naming
// them (shards.go), which Give answers.
func (p *Pack) View(i int) View {
	if p.viewParts == nil {
		return p.views[i]
	}
	sh := p.sh
	sh.mu.Lock()
	defer sh.mu.Unlock()
	vp := p.viewParts[i]
	if vp == nil {
		return p.views[i]
	}
	if sh.load == nil {
		panic(&Missing{Refs: vp.refs()})
	}
	var m *Missing
	for _, r := range vp.refs() {
		b, err := sh.read(r)
		if errors.Is(err, ErrMissing) {
			if m == nil {
				m = &Missing{}
			}
			m.add(r)
			continue
		}
		if err == nil {
			err = p.openViewPart(i, r.Name, b)
		}
		if err != nil {
			panic(fmt.Errorf("%w: loading view %d: %w", ErrCorrupt, i, err)) // as a shard's (get)
		}
	}
	if m != nil {
		panic(m)
	}
	return p.views[i]
}

// giveView opens b, the object name, where a view not read yet names it, and reports
// whether one did. Called with p.sh.mu held.
func (p *Pack) giveView(name string, b []byte) (bool, error) {
	wanted := false
	for i, vp := range p.viewParts {
		if vp != nil && (vp.listed.Name == name || vp.all.Name == name) {
			wanted = true
			if err := p.openViewPart(i, name, b); err != nil {
				return true, err
			}
		}
	}
	return wanted, nil
}

// openViewPart opens b, whose SHA-256 is name (checked), as the index of view i that name
// is, and makes the view read once each of its indexes is. Called with p.sh.mu held.
func (p *Pack) openViewPart(i int, name string, b []byte) error {
	vp := p.viewParts[i]
	for _, r := range vp.refs() {
		if r.Name != name {
			continue
		}
		if int64(len(b)) != r.Size {
			return fmt.Errorf("%w: view %d's index is %d bytes, not %d", ErrCorrupt, i, len(b), r.Size)
		}
		if len(b) >= 8 && string(b[:8]) == MagicPrivate {
			return fmt.Errorf("%w: a view that is itself private", ErrCorrupt)
		}
		// Its digest is checked: bytes the build made and opened (compile's views).
		q, err := openIn(b, p, true)
		if err != nil {
			return fmt.Errorf("view %d: %w", i, err)
		}
		if q.sh != nil {
			p.sh.nest(q.sh)
		}
		if r == vp.listed {
			p.views[i].Listed, p.views[i].Versions, vp.listed = q, q.older, Ref{}
		} else {
			p.views[i].All, vp.all = q, Ref{}
		}
	}
	if len(vp.refs()) == 0 {
		p.viewParts[i] = nil
	}
	return nil
}
