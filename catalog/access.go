package catalog

import (
	"bytes"
	"fmt"
)

// A private catalog: one whose skills folder has an access policy (skilledge.yaml's
// access section). Its index opens with MagicPrivate instead of Magic, so that a reader
// that does not know access tables (an older plugin) refuses it rather than serve every
// skill to everyone, and it holds two more tables:
//
//   - TablePolicy, one row: the scopes every caller needs, and every scope the policy
//     names (the resource's scopes_supported);
//   - TableAccess, one row per skill in TableSkills order: the scopes a caller needs to see
//     the skill, and whether listings name it.
//
// Scope lists are the scopes sorted and distinct, joined by single spaces (OAuth's own
// form, RFC 6749 §3.3); scopes never hold a space.

// MagicPrivate opens the index of a private catalog (format 2 with access tables).
const MagicPrivate = "SKLPACK\x82"

// Table kinds of a private catalog.
const (
	// TablePolicy has one row: the policy as a whole.
	TablePolicy uint32 = 12
	// TableAccess has one row per skill, in TableSkills order.
	TableAccess uint32 = 13
)

// Fields of TablePolicy.
const (
	PolicyDefault = iota // the scopes every caller needs, space-separated
	PolicyScopes         // every scope the policy names, space-separated
	PolicyFields         // the number of fields
)

// Fields of TableAccess.
const (
	AccessScopes = iota // the scopes a caller needs to see the skill, space-separated
	AccessListed        // "1" when listings name the skill, "" when it is unlisted
	AccessFields        // the number of fields
)

// Private reports whether the catalog has an access policy.
func (p *Pack) Private() bool { return p.private }

// DefaultScopes returns the scopes every caller of a private catalog needs (space-
// separated, possibly empty); "" for a public catalog.
func (p *Pack) DefaultScopes() []byte {
	if !p.private {
		return nil
	}
	return p.cell(TablePolicy, 0, PolicyDefault)
}

// PolicyScopes returns every scope a private catalog's policy names, space-separated.
func (p *Pack) PolicyScopes() []byte {
	if !p.private {
		return nil
	}
	return p.cell(TablePolicy, 0, PolicyScopes)
}

// SkillScopes returns the scopes a caller needs to see skill i, space-separated; empty in
// a public catalog.
func (p *Pack) SkillScopes(i int) []byte {
	if !p.private {
		return nil
	}
	return p.cell(TableAccess, uint32(i), AccessScopes)
}

// SkillListed reports whether listings name skill i: always in a public catalog.
func (p *Pack) SkillListed(i int) bool {
	return !p.private || len(p.cell(TableAccess, uint32(i), AccessListed)) > 0
}

// checkAccess verifies a private catalog's access tables: present, with a row per skill,
// and scope lists in their form.
func (p *Pack) checkAccess() error {
	pol, acc := p.tables[TablePolicy], p.tables[TableAccess]
	if pol.rows != 1 || pol.fields < PolicyFields || acc.fields < AccessFields || int(acc.rows) != p.NumSkills() {
		return fmt.Errorf("%w: a private catalog's access tables are missing or short", ErrCorrupt)
	}
	lists := [][]byte{p.cell(TablePolicy, 0, PolicyDefault), p.cell(TablePolicy, 0, PolicyScopes)}
	for i := uint32(0); i < acc.rows; i++ {
		lists = append(lists, p.cell(TableAccess, i, AccessScopes))
		if l := p.cell(TableAccess, i, AccessListed); len(l) > 0 && string(l) != "1" {
			return fmt.Errorf("%w: skill %d: listed is %q", ErrCorrupt, i, l)
		}
	}
	for _, l := range lists {
		if !scopeList(l) {
			return fmt.Errorf("%w: scope list %q", ErrCorrupt, l)
		}
	}
	return nil
}

// scopeList reports whether b is scope tokens joined by single spaces, or empty.
func scopeList(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	for _, s := range bytes.Split(b, []byte{' '}) {
		if !ValidScope(string(s)) {
			return false
		}
	}
	return true
}

// ValidScope reports whether s is an OAuth scope token (RFC 6749 §3.3: one or more of
// %x21 / %x23-5B / %x5D-7E, so no space, quote or backslash). The policy, the index and
// the credentials all hold scopes to it.
func ValidScope(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c == '"' || c == '\\' || c > 0x7e {
			return false
		}
	}
	return true
}

// HasScopes reports whether the space-separated scopes granted include every one of the
// space-separated scopes needed.
func HasScopes(granted, needed []byte) bool {
	for len(needed) > 0 {
		var s []byte
		s, needed = cutScope(needed)
		if !hasScope(granted, s) {
			return false
		}
	}
	return true
}

func hasScope(granted, s []byte) bool {
	for len(granted) > 0 {
		var g []byte
		g, granted = cutScope(granted)
		if bytes.Equal(g, s) {
			return true
		}
	}
	return false
}

// cutScope splits the first scope off a space-separated list.
func cutScope(list []byte) (scope, rest []byte) {
	if i := bytes.IndexByte(list, ' '); i >= 0 {
		return list[:i], list[i+1:]
	}
	return list, nil
}
