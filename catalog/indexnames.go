package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// Named is what IndexNames reads of a skill: its path in the catalog, its frontmatter name,
// whether it was mounted from a source (PROTOCOL.md#sources) rather than found in the
// catalog's own folder, and whether it is unlisted (PROTOCOL.md#authorization).
type Named struct {
	Path, Name string
	Mounted    bool
	Unlisted   bool
}

// maxName is the longest skill name the Agent Skills format allows.
const maxName = 64

// IndexNames gives each skill the name it is known by wherever skills are keyed by name
// (PROTOCOL.md#index-names): the well-known indexes and their URLs, skills/get {name}, the
// load_skill tool, prompts, and the folder `pull` installs it in. The names are distinct,
// each a valid skill name, and depend only on the skills given, whatever their order (a
// private catalog's view names its skills from the skills it shows):
//
//   - a name no other skill has is the skill's index name;
//   - of the skills sharing a name, the one of the catalog's own folder keeps it when it
//     is the only one there;
//   - every other is qualified by where it sits: its path, lowercased, each run of
//     characters other than a-z and 0-9 made one "-" ("platform/skill-creator" is
//     "platform-skill-creator");
//   - where that is empty, longer than 64 characters, another skill's name or index
//     name, or what another path qualifies to: the name, cut to fit, then "-" and the
//     first 8 hex digits of the SHA-256 of the path (16, 24, … should those be taken).
//
// The listed skills are named among themselves first, and the unlisted ones after them,
// around their names: a listing's names never depend on a skill it does not show, and
// each skill has one index name in every index of a view.
//
// The reasons, and what was rejected, are in RATIONALE.md ("Why are skills whose names
// repeat served under index names qualified by their path?").
func IndexNames(skills []Named) []string {
	var listed, unlisted []int
	for i, s := range skills {
		if s.Unlisted {
			unlisted = append(unlisted, i)
		} else {
			listed = append(listed, i)
		}
	}
	if len(unlisted) == 0 || len(listed) == 0 {
		return indexNames(skills)
	}
	names := make([]string, len(skills))
	taken := make(map[string]bool, len(skills))
	sub := make([]Named, len(listed))
	for k, i := range listed {
		sub[k] = skills[i]
	}
	for k, n := range indexNames(sub) {
		names[listed[k]] = n
		taken[n] = true
	}
	all := indexNames(skills) // as if every skill were listed: the unlisted ones' names
	slices.SortStableFunc(unlisted, func(a, b int) int { return strings.Compare(skills[a].Path, skills[b].Path) })
	for _, i := range unlisted {
		n := all[i]
		if taken[n] {
			n = hashed(skills[i].Name, skills[i].Path, taken)
		}
		names[i] = n
		taken[n] = true
	}
	return names
}

// indexNames is IndexNames of skills all listed alike.
func indexNames(skills []Named) []string {
	count := make(map[string]int, len(skills))
	own := make(map[string]int, len(skills))
	for _, s := range skills {
		count[s.Name]++
		if !s.Mounted {
			own[s.Name]++
		}
	}
	names := make([]string, len(skills))
	taken := make(map[string]bool, len(skills))
	for i, s := range skills {
		if count[s.Name] == 1 || !s.Mounted && own[s.Name] == 1 {
			names[i] = s.Name
			taken[s.Name] = true
		}
	}
	qualified := make(map[string]int, len(skills))
	for i, s := range skills {
		if names[i] == "" {
			qualified[qualify(s.Path)]++
		}
	}
	// In path order, so that a clash resolves the same way whatever the order given.
	order := make([]int, len(skills))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(skills[a].Path, skills[b].Path) })
	for _, i := range order {
		s := skills[i]
		if names[i] != "" {
			continue
		}
		q := qualify(s.Path)
		if q == "" || len(q) > maxName || taken[q] || qualified[q] > 1 || count[q] > 0 && q != s.Name {
			q = hashed(s.Name, s.Path, taken)
		}
		names[i] = q
		taken[q] = true
	}
	return names
}

// MayQualify reports whether index could be the index name IndexNames gives a skill
// named named whose name another skill shares: its path qualified (ending in "-" and the
// name, the path's last segment being the skill's name), or the name cut and hex digits,
// or hex digits alone. A reader of an index holds a name that differs from the SKILL.md's
// to these shapes.
func MayQualify(named, index string) bool {
	if strings.HasSuffix(index, "-"+named) {
		return true
	}
	base, digits := "", index
	if i := strings.LastIndexByte(index, '-'); i >= 0 {
		base, digits = index[:i], index[i+1:]
	}
	if len(digits) == 0 || len(digits)%8 != 0 || strings.Trim(digits, "0123456789abcdef") != "" {
		return false
	}
	return strings.HasPrefix(named, base)
}

// qualify is a path as a skill name: lowercased, each run of characters other than a-z
// and 0-9 one "-", none at either end; "" when nothing is left.
func qualify(path string) string {
	b := make([]byte, 0, len(path))
	dash := false
	for i := 0; i < len(path); i++ {
		c := path[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			if dash && len(b) > 0 {
				b = append(b, '-')
			}
			b, dash = append(b, c), false
			continue
		}
		dash = true
	}
	return string(b)
}

// hashed is name, cut to fit, "-" and hex digits of the SHA-256 of path: 8, or more
// while the result is taken (64 alone, the name left out, at the last).
func hashed(name, path string, taken map[string]bool) string {
	sum := sha256.Sum256([]byte(path))
	h := hex.EncodeToString(sum[:])
	base := qualify(name)
	for n := 8; n < len(h); n += 8 {
		b := base
		if limit := maxName - n - 1; len(b) > limit {
			b = strings.TrimRight(b[:limit], "-")
		}
		q := h[:n]
		if b != "" {
			q = b + "-" + q
		}
		if !taken[q] {
			return q
		}
	}
	return h // the path's own
}
