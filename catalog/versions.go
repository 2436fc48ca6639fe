package catalog

import (
	"bytes"
	"fmt"
)

// Versions (PROTOCOL.md#versions). A catalog that keeps history serves each older kept
// version of a skill as a skill of its own at its version path (VersionPath), from an
// index of its own: a public-format index of the older versions alone, in TableVersions
// (a private catalog's view has one in its own index, with the versions of the skills it
// shows). A server answers from it only the lookups by
// URI that the latest skills miss, so listings, counts and cursors are those of the latest
// skills; a latest skill's row names its versions (SkillVersions, SkillVersionURIs).

// TableVersions has one row (VersionsIndex) when the catalog keeps history.
const TableVersions uint32 = 16

// Fields of TableVersions.
const (
	VersionsIndex  = iota // the index of the older versions: a public-format pack
	VersionsFields        // the number of fields
)

// openVersions opens the index of TableVersions, if p has one.
func (p *Pack) openVersions() error {
	t := p.tables[TableVersions]
	if t.rows == 0 {
		return nil
	}
	if t.rows != 1 || t.fields < VersionsFields {
		return fmt.Errorf("%w: the history table is short or long", ErrCorrupt)
	}
	h, err := openPublicIn(p.cell(TableVersions, 0, VersionsIndex), "the history", p, false)
	if err != nil {
		return err
	}
	if err := p.nest(h); err != nil {
		return err
	}
	p.older = h
	return nil
}

// nest makes q, an index nested in p (its older versions, a view), share p's cache of
// shards when q is sharded, which p must then be too.
func (p *Pack) nest(q *Pack) error {
	switch {
	case q.sh == nil:
		return nil
	case p.sh == nil:
		return fmt.Errorf("%w: a sharded index nested in one that is not", ErrCorrupt)
	}
	p.sh.nest(q.sh)
	return nil
}

// openPublicIn opens b, which must be a public-format index without a history of its own
// (what names it in errors), as a shard of root or an index nested in it (openIn) when root
// is not nil, known to be a build's bytes when known is set.
func openPublicIn(b []byte, what string, root *Pack, known bool) (*Pack, error) {
	if len(b) >= 8 && string(b[:8]) == MagicPrivate {
		return nil, fmt.Errorf("%w: %s is a private index", ErrCorrupt, what)
	}
	q, err := openIn(b, root, known)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if q.older != nil {
		return nil, fmt.Errorf("%w: %s has a history of its own", ErrCorrupt, what)
	}
	return q, nil
}

// Versions returns the index of the older versions of p's skills, nil when p keeps no
// history. For a private catalog it is the full view's.
func (p *Pack) Versions() *Pack { return p.older }

// SkillVersionURI returns the URI of the SKILL.md of version of skill i, from its
// SkillVersionURIs, and false when the skill has no such version kept.
func (p *Pack) SkillVersionURI(i int, version string) (string, bool) {
	lines := p.Skill(i, SkillVersionURIs)
	for len(lines) > 0 {
		line := lines
		if k := bytes.IndexByte(lines, '\n'); k >= 0 {
			line, lines = lines[:k], lines[k+1:]
		} else {
			lines = nil
		}
		if v, uri, ok := bytes.Cut(line, []byte{' '}); ok && string(v) == version {
			return string(uri), true
		}
	}
	return "", false
}

// SkillVersionNames returns the names of skill i's kept versions, newest first.
func (p *Pack) SkillVersionNames(i int) []string {
	var out []string
	for _, line := range bytes.Split(p.Skill(i, SkillVersionURIs), []byte{'\n'}) {
		if v, _, ok := bytes.Cut(line, []byte{' '}); ok {
			out = append(out, string(v))
		}
	}
	return out
}
