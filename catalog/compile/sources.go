package compile

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/skilledge/skilledge/catalog"
)

// Sources: the policy file's sources section, the catalog's skills from other places
// mounted at path prefixes, and the checks a catalog composed of them is held to. Package
// catalog/sources resolves each source, loads it (Load over its tree) and mounts it
// (Mount); what is here needs no git and no network.
//
//	sources:
//	  - path: platform
//	    git: https://git.example.com/platform/skills.git
//	    ref: v2.1.0
//	    dir: skills
//	  - path: public
//	    catalog: https://skills.example.org
//	    skills: [pdf]

// Source is one entry of the policy file's sources section: a git repository (Git), or a
// remote catalog (Catalog), whose skills are served under Path.
type Source struct {
	// Path is where the source's skills are mounted: a skill path prefix, whole segments,
	// without a trailing "/". It names the source (sources.lock, sources update).
	Path string
	// Git is the repository's URL as written: https, http, ssh, git or file, or the scp
	// form (user@host:path). It never holds a password or token.
	Git string
	// Ref is the tag, branch or commit to serve; "" for the repository's default branch.
	Ref string
	// Dir is the folder inside the repository that holds the skills, "" for its root.
	Dir string
	// Catalog is, for a remote catalog, its URL: a skilledge deployment or any server of
	// the skills extension or the well-known index (https, or http to a loopback host);
	// Skills are the names of its skills served, all of them when empty.
	Catalog string
	Skills  []string
	// Line is where the entry starts in the policy file.
	Line int
}

// Holds reports whether the source is mounted at path p or above it: p is the source's
// path or lies under it (whole segments).
func (s Source) Holds(p string) bool { return p == s.Path || strings.HasPrefix(p, s.Path+"/") }

// Provenance is where a mounted skill came from: served in its entries' _meta
// (catalog.MetaSource), never in the skill's own fields.
type Provenance struct {
	Source     string // the source's Path
	Repository string // the source's Git URL
	Commit     string // the commit served, in full
	// Catalog and Digest are, for a remote catalog, its URL and the digest of the skills
	// read from it (catalog/sources); Repository and Commit are then "".
	Catalog, Digest string
	Path            string // the skill's folder inside the repository, or its path in the catalog
}

// sources reads the sources section: a list of {path, git, ref, dir} and {path, catalog,
// skills}.
func (p *policyParser) sources(n *yaml.Node) []Source {
	if n.Kind != yaml.SequenceNode {
		p.add(n.Line, "sources must be a list of sources (- path: platform\n    git: https://…)")
		return nil
	}
	var out []Source
	for i, e := range n.Content {
		if s, ok := p.source(e, i); ok {
			out = append(out, s)
		}
	}
	// Two sources on one path, or one inside another: the skills of one would land where
	// the other's are.
	for i, a := range out {
		for _, b := range out[:i] {
			switch {
			case a.Path == b.Path:
				p.add(a.Line, fmt.Sprintf("a second source at path %q (the first is on line %d): two sources cannot share a path", a.Path, b.Line))
			case b.Holds(a.Path) || a.Holds(b.Path):
				outer, inner := b, a
				if a.Holds(b.Path) {
					outer, inner = a, b
				}
				p.add(a.Line, fmt.Sprintf("the source at %q (line %d) lies inside the source at %q (line %d): the skills of one would land on paths the other holds; mount them side by side", inner.Path, inner.Line, outer.Path, outer.Line))
			}
		}
	}
	return out
}

// source reads the i-th source.
func (p *policyParser) source(n *yaml.Node, i int) (Source, bool) {
	what := fmt.Sprintf("sources[%d]", i)
	s := Source{Line: n.Line}
	if n.Kind != yaml.MappingNode {
		p.add(n.Line, what+" must be a mapping (path, git, ref, dir)")
		return s, false
	}
	before := len(p.problems)
	str := func(v *yaml.Node, key string) (string, bool) {
		if v.Kind != yaml.ScalarNode || v.Tag != "!!str" || v.Value == "" {
			p.add(v.Line, fmt.Sprintf("%s.%s must be a string", what, key))
			return "", false
		}
		return v.Value, true
	}
	hasPath, hasGit, hasCatalog := false, false, false
	p.mapping(n, what, func(key string, k, v *yaml.Node) {
		switch key {
		case "path":
			hasPath = true
			if v, ok := str(v, key); ok {
				path, msg := rulePath(v)
				if path == "" && msg != "" && strings.TrimSuffix(v, "/") == "" {
					msg = "empty: the catalog's root is the folder itself; mount a source under a path of its own"
				}
				if msg != "" {
					p.add(k.Line, what+".path "+strconv.Quote(v)+": "+msg)
				}
				s.Path = path
			}
		case "git":
			hasGit = true
			if v, ok := str(v, key); ok {
				if msg := gitURLProblem(v); msg != "" {
					// Not quoted: it may hold the credential it is refused for.
					p.add(k.Line, what+".git: "+msg)
				}
				s.Git = v
			}
		case "ref":
			if v, ok := str(v, key); ok {
				if msg := refProblem(v); msg != "" {
					p.add(k.Line, what+".ref "+strconv.Quote(v)+": "+msg)
				}
				s.Ref = v
			}
		case "dir":
			if v, ok := str(v, key); ok {
				dir, msg := rulePath(v)
				if msg != "" {
					p.add(k.Line, what+".dir "+strconv.Quote(v)+": a folder inside the repository, written as a relative path (skills, tools/skills)")
				}
				s.Dir = dir
			}
		case "catalog":
			hasCatalog = true
			if v, ok := str(v, key); ok {
				if msg := catalogURLProblem(v); msg != "" {
					p.add(k.Line, what+".catalog: "+msg)
				}
				s.Catalog = v
			}
		case "skills":
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				p.add(v.Line, what+".skills must be a list of skill names ([pdf, docx]); leave it out for every skill")
				return
			}
			for _, e := range v.Content {
				if e.Kind != yaml.ScalarNode || e.Tag != "!!str" || e.Value == "" || strings.Contains(e.Value, "/") || catalog.NameProblem(e.Value) != "" {
					p.add(e.Line, what+".skills: each entry must be a skill's name (pdf)")
					continue
				}
				if !slices.Contains(s.Skills, e.Value) {
					s.Skills = append(s.Skills, e.Value)
				}
			}
			slices.Sort(s.Skills)
		default:
			p.add(k.Line, fmt.Sprintf("unknown key %q in %s: a source has path, git, ref and dir", key, what))
		}
	})
	if !hasPath {
		p.add(n.Line, what+" has no path: where its skills are mounted in the catalog (platform)")
	}
	switch {
	case hasGit && hasCatalog:
		p.add(n.Line, what+" has both git and catalog: a source is a repository or a catalog; make them two sources")
	case hasCatalog && (s.Ref != "" || s.Dir != ""):
		p.add(n.Line, what+": ref and dir are a git source's; a catalog source has path, catalog and skills")
	case hasGit && s.Skills != nil:
		p.add(n.Line, what+": skills is a catalog source's; a git source serves every skill of its dir")
	case !hasGit && !hasCatalog && len(p.problems) == before:
		p.add(n.Line, what+" has no git or catalog: the URL of the repository, or of the catalog, to mount")
	}
	return s, len(p.problems) == before
}

// gitURLProblem says what is wrong with a source's repository URL, "" for nothing. Its
// message never quotes the URL: a URL refused for holding a credential must not print it.
//
// Why is a credential in the URL refused, and not taken? The URL is written to
// sources.lock, shown in every entry's provenance (catalog.MetaSource) and in the build's
// lines: a token in it would be published with the catalog. git's own configuration (a
// credential helper, an SSH key) keeps it out of all of them.
func gitURLProblem(s string) string {
	if strings.HasPrefix(s, "-") {
		return "a URL cannot start with \"-\" (git would read it as an option)"
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == ' ' {
			return "a URL holds no spaces or control characters"
		}
	}
	if strings.ContainsAny(s, "?#") {
		return "a URL with a query or a fragment: credentials travel that way; write the repository's URL alone"
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		if host, path, _ := strings.Cut(s, ":"); strings.Contains(path, "@") && !strings.Contains(host, "@") {
			// user:password@host:path, which the scp form would read as host "user".
			return "the URL holds a user name or password: keep credentials in git's configuration (a credential helper, an SSH key), never in " + PolicyFile + ", which sources.lock and every skill's provenance repeat"
		}
		if scpLike.MatchString(s) {
			return ""
		}
		return "not a repository URL: write https://host/path.git, ssh://host/path, git@host:path or file:///path"
	}
	switch strings.ToLower(scheme) {
	case "https", "http", "ssh", "git", "file":
	default:
		return "scheme " + strconv.Quote(scheme) + " is not one of https, http, ssh, git and file"
	}
	u, err := url.Parse(s)
	if err != nil {
		return "not a URL git can fetch"
	}
	if _, hasPassword := u.User.Password(); hasPassword || u.User != nil && scheme != "ssh" {
		return "the URL holds a user name or password: keep credentials in git's configuration (a credential helper, an SSH key), never in " + PolicyFile + ", which sources.lock and every skill's provenance repeat"
	}
	if scheme != "file" && u.Host == "" || rest == "" {
		return "the URL names no host"
	}
	return ""
}

// catalogURLProblem says what is wrong with a remote catalog's URL, "" for nothing: an
// https URL, or an http one to a loopback host (a catalog served on the same machine),
// without credentials (the CLI's --token binds those to an origin).
func catalogURLProblem(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Host == "" || u.Scheme != "https" && u.Scheme != "http":
		return "not a catalog URL: write https://host (a deployment) or https://host/mcp (its MCP endpoint)"
	case u.User != nil:
		return "the URL holds a user name or password: a catalog's credentials are never written in " + PolicyFile
	case u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(s, "?#"):
		return "a URL with a query or a fragment: credentials travel that way; write the catalog's URL alone (--source-token binds a token to its origin)"
	case u.Scheme == "http" && !loopbackHost(u.Hostname()):
		return "http is read from a loopback host only (127.0.0.1, ::1, localhost): use https"
	}
	return ""
}

// loopbackHost reports whether host names the machine itself.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// scpLike is git's scp-like form of an SSH URL: [user@]host:path, host without a slash.
var scpLike = regexp.MustCompile(`^([A-Za-z0-9._~-]+@)?[A-Za-z0-9.-]+:[^/].*$|^([A-Za-z0-9._~-]+@)?[A-Za-z0-9.-]+:/.+$`)

// refProblem says what is wrong with a source's ref, "" for nothing: a tag, branch or
// commit name as git check-ref-format reads one, never an option or a revision
// expression.
func refProblem(s string) string {
	switch {
	case strings.HasPrefix(s, "-"):
		return "a ref cannot start with \"-\""
	case strings.Contains(s, "..") || strings.Contains(s, "@{") || strings.Contains(s, "//") ||
		strings.HasSuffix(s, ".lock") || strings.HasSuffix(s, "/") || strings.HasSuffix(s, ".") || s == "@":
		return "not a ref name git accepts (git check-ref-format)"
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return "a ref is a tag, a branch or a commit: no spaces, control characters or any of ~^:?*[\\"
		}
	}
	return ""
}

// sealProvenance leaves the commit (or a remote catalog's digest) out of the provenance of
// every skill of a source whose skills are not all seen by the same callers (the same
// scopes, all listed or all not), older versions included.
//
// Why is the commit left out of the provenance of a source whose skills differ in who may
// see them? A commit's name is a digest of the whole tree, so it covers the source's hidden
// skills too: a caller who sees one skill of the source would see its commit change when
// only a hidden skill changed, which is learning something of a skill it may not see (the
// change feed leaves commits out of a private catalog's for the same reason). Where every
// skill of a source is seen by the same callers, whoever sees the commit sees all it covers,
// and it stays. Rejected: leaving the commit out of every private catalog's provenance
// (the common case, a rule per source path, loses it for nothing).
func sealProvenance(c *Catalog) {
	type seen struct {
		scopes   string
		unlisted bool
	}
	first := map[string]seen{}
	mixed := map[string]bool{}
	for _, s := range c.Skills {
		if s.Source == nil {
			continue
		}
		v := seen{strings.Join(s.Scopes, " "), s.Unlisted}
		if f, ok := first[s.Source.Source]; !ok {
			first[s.Source.Source] = v
		} else if f != v {
			mixed[s.Source.Source] = true
		}
	}
	if len(mixed) == 0 {
		return
	}
	seal := func(s *Skill) {
		if s.Source != nil && mixed[s.Source.Source] {
			p := *s.Source
			p.Commit, p.Digest = "", ""
			s.Source = &p
		}
	}
	for _, s := range c.Skills {
		seal(s)
	}
	if c.Versions != nil {
		for _, s := range c.Versions.Older {
			seal(s)
		}
	}
}

// mounted reports whether the rule r concerns a source's skills: it lies at or under a
// source's path, or a source's path lies under it. Such a rule is checked against the
// skills once the sources are mounted (CheckComposed), not against the folder's alone.
func (l *loader) mounted(r AccessRule) bool {
	return slices.ContainsFunc(l.sources, func(s Source) bool { return s.Holds(r.Path) || r.Matches(s.Path) })
}

// Mount puts the skills of src, the catalog loaded from one of c's sources (Load over its
// tree, placed at the source's path, so that its skills are at their paths in c), into c:
// each told where it came from (prov, given its path) and given the scopes c's policy gives
// it. c.Skills stays sorted. It returns the skills mounted, for their history
// (MergeVersions). Once every source is mounted, CheckComposed checks the whole.
func Mount(c *Catalog, src *Catalog, prov func(skillPath string) *Provenance) []*Skill {
	moved := src.Skills
	for _, s := range moved {
		s.Source = prov(s.Path)
		if c.Access != nil && !c.Access.Broken {
			var listed bool
			s.Scopes, listed = c.Access.Scopes(s.Path)
			s.Unlisted = !listed
		}
	}
	c.Skills = append(c.Skills, moved...)
	slices.SortFunc(c.Skills, func(a, b *Skill) int { return strings.Compare(a.Path, b.Path) })
	return moved
}

// CheckComposed checks a catalog whose sources are mounted as the folder alone was
// checked when loaded. A skill of the folder where a source is mounted, or a source
// mounted inside a skill of the folder, is an error: the source's skills would land on
// the folder's paths. Every rule of the access policy matches a served skill, a skill
// nested in another needs no scope the outer one does not and is not unlisted inside a
// listed one, and the views are few enough. An error among the problems means the
// catalog must not be served, whatever --skip-invalid says (it also makes the policy
// broken, Access.Broken, so that it is never encoded). Skills that share a name across
// sources are warnings, as within a folder. The problems name the policy file and the
// skills, with dir as the folder's label.
func CheckComposed(c *Catalog, dir string) []Problem {
	var problems []Problem
	report := func(sev Severity, rel string, line int, skill, msg string) {
		problems = append(problems, Problem{Path: join(dir, rel), Line: line, Severity: sev, Skill: skill, Msg: msg})
	}
	clash := false
	for _, src := range c.Sources {
		for _, s := range c.Skills {
			if s.Source != nil {
				continue
			}
			switch {
			case src.Holds(s.Path):
				report(Error, PolicyFile, src.Line, "", fmt.Sprintf("the source at %q is mounted where the folder has skill %s: move the skill, or mount the source at another path", src.Path, s.Path))
				clash = true
			case strings.HasPrefix(src.Path, s.Path+"/"):
				report(Error, PolicyFile, src.Line, "", fmt.Sprintf("the source at %q is mounted inside skill %s of the folder, whose files would hold the source's: mount it beside the skill", src.Path, s.Path))
				clash = true
			}
		}
	}
	if clash {
		// The sources section is the policy file's: a catalog whose policy cannot be
		// served as written is never encoded, public or not (ErrPolicy).
		if c.Access == nil {
			c.Access = &Access{Default: []string{}}
		}
		c.Access.Broken = true
	}
	byName := map[string][]*Skill{}
	for _, s := range c.Skills {
		byName[s.Name] = append(byName[s.Name], s)
	}
	names := indexNames(c.Skills)
	for _, s := range c.Skills {
		same := byName[s.Name]
		if len(same) < 2 || !slices.ContainsFunc(same, func(o *Skill) bool {
			return o.Source != s.Source && (o.Source == nil || s.Source == nil || o.Source.Source != s.Source.Source)
		}) {
			continue // none, or only within its own source, which its load reported
		}
		var others []string
		for _, o := range same {
			if o != s {
				others = append(others, strconv.Quote(o.Path))
			}
		}
		report(Warning, s.Path+"/"+catalog.SkillMD, 0, s.Path, fmt.Sprintf("name %q is also the name of %s (another source): %s",
			s.Name, strings.Join(others, ", "), knownAs(s.Name, names[s])))
	}
	a := c.Access
	if a == nil || a.Broken {
		return problems
	}
	sealProvenance(c)
	before := len(problems)
	for _, r := range a.Rules {
		if !slices.ContainsFunc(c.Skills, func(s *Skill) bool { return r.Matches(s.Path) }) {
			report(Error, PolicyFile, r.Line, "", fmt.Sprintf("rule for path %q matches no skill: no skill is served at %s or under it, from the folder or a source", r.Path+"/", r.Path))
		}
	}
	for i, s := range c.Skills {
		// The innermost skill holding s: the nearest before it in path order whose path
		// is a prefix of s's.
		for j := i - 1; j >= 0; j-- {
			outer := c.Skills[j]
			if !strings.HasPrefix(s.Path, outer.Path+"/") {
				continue
			}
			for _, msg := range nestingProblems(s.Path, outer.Path, s.Scopes, outer.Scopes, !s.Unlisted, !outer.Unlisted) {
				report(Error, PolicyFile, 0, "", msg)
			}
			break
		}
	}
	if p := viewsProblem(a.Default, scopeSets(c.Skills)); p != "" {
		report(Error, PolicyFile, 0, "", p)
	}
	if len(problems) > before {
		a.Broken = true
	}
	return problems
}
