package catalog

import (
	"fmt"
)

// The index also carries what the server needs for hosts that speak tools or prompts but
// not the skills extension, and for people with a browser (PROTOCOL.md#fallbacks,
// PROTOCOL.md#catalog-page): two tables beside the ones in format.go, rendered at build
// time like everything else.

// Table kinds.
const (
	// TableFallback has one row per skill, in TableSkills order: the skill as the tools
	// and prompts fallbacks show it.
	TableFallback uint32 = 10
	// TableSite has one row: the tools list, the prompt index and the catalog page.
	TableSite uint32 = 11
)

// Fields of TableFallback.
const (
	FallbackToolLine    = iota // the skill's lines in list_skills' text, JSON-escaped, without quotes
	FallbackToolItem           // the skill in list_skills' structuredContent: {"name","description","uri"}
	FallbackPrompt             // the skill's prompt name: its index name (IndexNames)
	FallbackPromptEntry        // the prompts/list entry object
	FallbackFilesText          // load_skill's list of the skill's other files, as a JSON string
	FallbackSkillMD            // one uint32: the TableResources row of the skill's SKILL.md
	FallbackFields             // the number of fields
)

// Fields of TableSite.
const (
	SiteTools         = iota // the tools/list "tools" array
	SitePromptsByName        // uint32 list of TableSkills rows sorted by FallbackPrompt
	SiteHTTPSkills           // uint32 list of the TableSkills rows well-known HTTP publishes (each by its index name), in listing order
	// The catalog page is SitePage with every PageMarker pair replaced by the MCP URL
	// (PageURLHTML: escaped for HTML text; PageURLJSON: a JSON string, escaped for HTML),
	// PageQueryHTML by the words of the request's search (?q=, escaped for an attribute;
	// nothing without one), and PageSkillsMarker by the store object SitePageSkills names,
	// or by the skills that search finds.
	SitePage
	SitePageSkills // ref: the HTML of the skills section
	SitePageCSP    // the Content-Security-Policy the page is served with
	SiteFields     // the number of fields
)

// Markers in SitePage. Each is a NUL byte and a letter; NUL never occurs in the page
// otherwise: the template holds only text the build writes itself, counts and the trust
// root (a checked URL), and every control character of skill text is replaced where the
// page is rendered.
const (
	PageMarker       = 0
	PageURLHTML      = 'U'
	PageURLJSON      = 'J'
	PageSkillsMarker = 'S'
	PageQueryHTML    = 'Q'
)

// checkSite verifies the row numbers the site tables hold (see Open).
func (p *Pack) checkSite() error {
	nskills, nres := p.tables[TableSkills].rows, p.tables[TableResources].rows
	if p.tables[TableFallback].rows != nskills {
		return fmt.Errorf("%w: fallback table has %d rows for %d skills", ErrCorrupt, p.tables[TableFallback].rows, nskills)
	}
	for r := uint32(0); r < nskills; r++ {
		if md := p.cell(TableFallback, r, FallbackSkillMD); len(md) != 4 || u32(md, 0) >= nres {
			return fmt.Errorf("%w: skill %d SKILL.md row", ErrCorrupt, r)
		}
	}
	list := p.cell(TableSite, 0, SitePromptsByName)
	if len(list) != int(nskills)*4 {
		return fmt.Errorf("%w: prompt index size", ErrCorrupt)
	}
	for _, l := range [][]byte{list, p.cell(TableSite, 0, SiteHTTPSkills)} {
		if len(l)%4 != 0 {
			return fmt.Errorf("%w: site list length", ErrCorrupt)
		}
		for i := 0; i < len(l); i += 4 {
			if u32(l, i) >= nskills {
				return fmt.Errorf("%w: site list row out of range", ErrCorrupt)
			}
		}
	}
	return nil
}

// NumHTTPSkills returns how many skills well-known HTTP publishes, each by its index name
// (IndexNames).
func (p *Pack) NumHTTPSkills() int {
	if p.sh != nil {
		return int(p.sh.pubs[p.sh.n])
	}
	return len(p.Site(SiteHTTPSkills)) / 4
}

// HTTPSkill returns the k-th skill well-known HTTP publishes, in listing order.
func (p *Pack) HTTPSkill(k int) int {
	if p.sh != nil {
		s := p.sh.shardOf(p.sh.pubs, k)
		return p.sh.get(s).HTTPSkill(k-int(p.sh.pubs[s])) + int(p.sh.skills[s])
	}
	return int(u32(p.Site(SiteHTTPSkills), k*4))
}

// Fallback returns field f (a Fallback* constant) of skill i. It panics if i is out of
// range.
func (p *Pack) Fallback(i int, f int) []byte {
	if p.sh != nil {
		q, _, l := p.skillAt(i)
		return q.Fallback(l, f)
	}
	return p.cell(TableFallback, p.row(TableFallback, i), f)
}

// SkillMD returns the resource row of skill i's SKILL.md.
func (p *Pack) SkillMD(i int) int {
	if p.sh != nil {
		q, s, l := p.skillAt(i)
		return p.sh.globalRes(s, q.SkillMD(l))
	}
	return int(u32(p.Fallback(i, FallbackSkillMD), 0))
}

// Site returns field f (a Site* constant) of the site table.
func (p *Pack) Site(f int) []byte { return p.cell(TableSite, 0, f) }

// SkillByPrompt returns the skill whose prompt name is exactly name. ok is false when none
// is.
func (p *Pack) SkillByPrompt(name string) (i int, ok bool) {
	if p.sh != nil {
		if rows := p.keyRows(p.sh.prompts, name); len(rows) == 4 {
			return int(u32(rows, 0)), true
		}
		return 0, false
	}
	return p.search(p.Site(SitePromptsByName), name, TableFallback, FallbackPrompt)
}
