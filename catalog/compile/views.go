package compile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skilledge/skilledge/catalog"
)

// The views of a private catalog (catalog/views.go): one public-format index per
// combination of scope lists a caller can hold, each encoded from the skills it shows as
// if the folder held nothing else. What each view shows is worked out here; the encoder
// writes them (encoder.views, in encode.go).

// withOlder returns c's skills and, when it keeps history, their older versions: an older
// version may need more scopes than its latest skill (it was published where fewer callers
// could see it), so its list is a scope set of its own.
func withOlder(c *Catalog) []*Skill {
	if c.Versions == nil {
		return c.Skills
	}
	return append(slices.Clone(c.Skills), c.Versions.Older...)
}

// scopeSets returns the distinct scope lists of skills, sorted, each as its scopes.
func scopeSets(skills []*Skill) [][]string {
	var joined []string
	for _, s := range skills {
		joined = append(joined, strings.Join(s.Scopes, " "))
	}
	slices.Sort(joined)
	joined = slices.Compact(joined)
	sets := make([][]string, len(joined))
	for j, l := range joined {
		sets[j] = strings.Fields(l)
	}
	return sets
}

// viewsProblem says why a policy with the default scopes base has more views than a
// catalog may compile, or "".
func viewsProblem(base []string, sets [][]string) string {
	if len(sets) > catalog.MaxScopeSets {
		return fmt.Sprintf("the rules give skills %d different lists of scopes; a catalog may have at most %d: merge rules that guard the same readers", len(sets), catalog.MaxScopeSets)
	}
	if n := len(catalog.ClosedMasks(base, sets, catalog.MaxViews)); n > catalog.MaxViews {
		return fmt.Sprintf("callers can hold more than %d different combinations of the rules' scopes, and each is a view the build compiles ahead (%d lists of scopes); "+
			"at most %d are allowed: give rules that guard the same readers the same scopes", catalog.MaxViews, len(sets), catalog.MaxViews)
	}
	return ""
}

// keptFor is s as a view that sees a skill when sees says so shows it: s itself, or a
// copy whose kept versions (its _meta) leave out those the view may not see.
func keptFor(s *Skill, sees func(*Skill) bool) *Skill {
	var kept []Kept
	for i, k := range s.Kept {
		if k.Skill == s || k.Skill == nil || sees(k.Skill) {
			if kept != nil {
				kept = append(kept, k)
			}
			continue
		}
		if kept == nil {
			kept = append(make([]Kept, 0, len(s.Kept)), s.Kept[:i]...)
		}
	}
	if kept == nil {
		return s
	}
	v := *s
	v.Kept = kept
	return &v
}

// viewVersions is the history the view of mask m shows, nil when c keeps none: the older
// versions of the skills the view shows, listed or not, and the changes it may see (a
// change's scope list is seen when the scopes every caller of the view holds, the
// default ones and those of the mask's lists, include it).
func viewVersions(c *Catalog, m uint32, sets [][]string, setOf map[string]int) *Versions {
	if c.Versions == nil {
		return nil
	}
	held := map[string]bool{}
	for _, sc := range c.Access.Default {
		held[sc] = true
	}
	for j, set := range sets {
		if m&(1<<j) != 0 {
			for _, sc := range set {
				held[sc] = true
			}
		}
	}
	h := &Versions{Keep: c.Versions.Keep, Changes: c.Versions.Changes, private: true,
		visible: func(scopes []string, unlisted bool) bool {
			if unlisted {
				return false
			}
			for _, sc := range scopes {
				if !held[sc] {
					return false
				}
			}
			return true
		}}
	for _, v := range c.Versions.Older {
		if m&(1<<setOf[strings.Join(v.Scopes, " ")]) != 0 {
			h.Older = append(h.Older, v)
		}
	}
	return h
}
