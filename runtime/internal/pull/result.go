package pull

import (
	"slices"
	"sort"
	"strings"
)

// Result is what Pull did. Each list holds skill names, sorted.
type Result struct {
	Source string `json:"source"`
	// Root is the source's signed root the pull was held to and locked, nil when it
	// serves none; FirstUse says its key was trusted on first use.
	Root     *LockedRoot `json:"root,omitempty"`
	FirstUse bool        `json:"firstUse,omitempty"`
	// Unsigned are skills asked for by name that the root names not at all (Plan.Unsigned).
	Unsigned  []string `json:"unsigned,omitempty"`
	Installed []string `json:"installed"`
	Updated   []string `json:"updated"`
	Unchanged []string `json:"unchanged"`
	Removed   []string `json:"removed"`
	// Elsewhere are skills the source serves that the lock has from another source:
	// left alone (the lock says where each skill comes from).
	Elsewhere []string `json:"elsewhere"`
	Bytes     int64    `json:"bytes"` // bytes of the files written
	// Via is how the catalog was read: ViaWellKnown (the v0.2.0 index and archives),
	// ViaWellKnownV01 (the v0.1.0 index and files) or ViaMCP (skills/list and
	// resources/read).
	Via string `json:"via"`
	// Unverified are the skills written (installed or updated) from a source that
	// published no digest (the v0.1.0 index): nothing checked their bytes against the
	// publisher's; the lock records them as downloaded (LockedSkill.Unverified).
	Unverified []string `json:"unverified"`
	// Compared are the unchanged skills downloaded only to be compared: read from a
	// v0.1.0 index, which gives no digest, from a server that did not answer 304 to the
	// ETags the lock keeps (or gave none).
	Compared []string `json:"compared"`
	// New are the skills the source serves outside the selection earlier pulls of it
	// were asked for (Lock.Selections), which a pull that names none keeps to: not
	// installed; pull --skill NAME adds one.
	New []string `json:"new"`
	// Qualified are the skills written under a name not their own, each folder's name to
	// its SKILL.md's name (LockedSkill.Named): skills of the source share that name.
	Qualified map[string]string `json:"qualified,omitempty"`
	// Skipped are, for a folder or git source, the loader's reasons for each skill of it
	// left out (one line a skill, "path: warning: skipped, not served: …").
	Skipped []string `json:"skipped,omitempty"`
	// Edited are the installed skills changed locally since they were pulled that this
	// pull would have replaced or removed: without Force, each is left as it is (and its
	// lock entry too) while the others are updated; the caller is to say so and fail.
	Edited []Edited `json:"edited"`
}

// Edited is a skill left alone because it was changed locally: its name and the changed
// files, relative to its folder ("." when the folder is gone).
type Edited struct {
	Name  string   `json:"name"`
	Files []string `json:"files"`
}

// sort gives every list of r, sorted, and [] for none.
func (r *Result) sort() {
	if r.Edited == nil {
		r.Edited = []Edited{}
	}
	slices.SortFunc(r.Edited, func(a, b Edited) int { return strings.Compare(a.Name, b.Name) })
	for _, l := range []*[]string{&r.Installed, &r.Updated, &r.Unchanged, &r.Removed, &r.Elsewhere, &r.Unverified, &r.Compared, &r.New} {
		if *l == nil {
			*l = []string{}
		}
		sort.Strings(*l)
	}
}
