package compile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/internal/dirfs"
	"github.com/skilledge/skilledge/catalog/internal/yamljson"
)

// LoadDir loads the skills folder dir, opened with os.OpenRoot so that nothing, symbolic
// links included, resolves outside it, and read so that nothing blocks (a file replaced by
// a named pipe is reported, not waited on). Problems name files with dir as given.
func LoadDir(dir string, opt Options) (*Catalog, []Problem, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	// Files not kept in memory are read again after this returns, through a root of their
	// own (the file stays open when its root closes).
	reopen := func(name string) (fs.File, error) {
		r, err := os.OpenRoot(dir)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		return dirfs.New(r, testHookOpen).Open(name)
	}
	return load(dirfs.New(root, testHookOpen), dir, opt, reopen)
}

// testHookOpen, when set, is called with each name before LoadDir opens it.
var testHookOpen func(name string)

// Load reads the skills folder fsys: every directory holding a file named exactly
// SKILL.md, at any depth, is a skill (PROTOCOL.md#skill-format); files under no skill are ignored. label
// is how the folder is named in problems ("skills", "./my skills").
//
// Load returns the catalog of the valid skills, every problem found in every skill sorted
// by Path and Line, and an error only when the folder itself cannot be listed. A problem
// of Error severity makes its skill invalid, and the catalog must not be served unless
// opt.SkipInvalid is set; then each invalid skill also gets a warning saying it was
// skipped and why.
//
// Load is deterministic: the same relative paths and bytes give an equal Catalog,
// whatever the directory order, modification times, modes or location of the folder.
// A symbolic link is served as the regular file it leads to only when that file is in the
// link's own skill (its innermost), resolved link by link, which needs fsys to implement
// fs.ReadLinkFS (on other file systems links are not served). A link leading anywhere
// else, another skill or the folder's outside, is an error naming both paths; one to a
// directory, or to nothing, is a warning. An os.Root file system (LoadDir) also keeps
// every link inside the folder itself.
//
// Files of more than KeepBytes (other than SKILL.md) are not kept in memory: File.Open
// reads them again from fsys, which must stay readable until the catalog is encoded.
func Load(fsys fs.FS, label string, opt Options) (*Catalog, []Problem, error) {
	return load(fsys, label, opt, fsys.Open)
}

// LoadReopen is Load with reopen, which opens a file of fsys again after Load returns,
// for the bytes of a file it did not keep (over KeepBytes): a file system that is let go
// once loaded (catalog/versions's versions, whose bytes come from git) gives the way to
// read them again, so that the catalog holds no large file in memory.
func LoadReopen(fsys fs.FS, label string, opt Options, reopen func(name string) (fs.File, error)) (*Catalog, []Problem, error) {
	return load(fsys, label, opt, reopen)
}

// load is Load with reopen, which opens a file of fsys again after Load returns.
func load(fsys fs.FS, label string, opt Options, reopen func(name string) (fs.File, error)) (*Catalog, []Problem, error) {
	l := &loader{fsys: fsys, reopen: reopen, label: label, opt: opt,
		skills: map[string]bool{}, files: map[string]*File{},
		errs: map[string][]string{}, reported: map[string]bool{}}
	if err := l.walk("."); err != nil {
		return nil, nil, err
	}
	if testHookListed != nil {
		testHookListed()
	}
	c := l.build()
	sortProblems(l.problems)
	return c, l.problems, nil
}

// testHookListed, when set, is called between listing the folder and reading its files.
var testHookListed func()

func (l *loader) build() *Catalog {
	sort.Slice(l.entries, func(i, j int) bool { return l.entries[i].path < l.entries[j].path })
	for _, e := range l.entries {
		if path.Base(e.path) == catalog.SkillMD && (e.typ.IsRegular() || e.typ&fs.ModeSymlink != 0) {
			l.skills[path.Dir(e.path)] = true
		}
	}
	if l.skills["."] {
		delete(l.skills, ".")
		l.report(Error, catalog.SkillMD, 0, "", "a SKILL.md at the root of the folder is not served: a skill is a directory named after the skill, holding its SKILL.md")
	}
	for s := range l.skills {
		l.skillList = append(l.skillList, s)
	}
	sort.Strings(l.skillList)
	if l.readPolicy(); len(l.skillList) == 0 && len(l.sources) == 0 {
		l.report(Warning, ".", 0, "", "no skills found: a skill is a directory holding a file named SKILL.md")
	}

	for _, e := range l.entries {
		encl := l.enclosing(e.path)
		if base := path.Base(e.path); base != catalog.SkillMD && strings.EqualFold(base, catalog.SkillMD) && !l.skills[path.Dir(e.path)] {
			l.report(Warning, e.path, 0, innermost(encl), fmt.Sprintf("%q is not SKILL.md: the file that makes a directory a skill must be named exactly SKILL.md", base))
		}
		if len(encl) == 0 || l.badName(e.path, encl[len(encl)-1]) {
			continue
		}
		l.readFile(e, encl)
	}
	for _, d := range l.unreadable {
		if a := l.affected(d.path); len(a) > 0 {
			l.report(Error, d.path, 0, innermost(l.enclosing(d.path+"/x")), "cannot list directory: "+errText(d.err), a...)
		} else {
			l.report(Warning, d.path, 0, "", "cannot list directory ("+errText(d.err)+"); any skills in it are not served")
		}
	}
	for p := range l.files {
		l.paths = append(l.paths, p)
	}
	sort.Strings(l.paths)
	l.checkPortability()
	if _, _, err := l.readPolicy(); err == nil && l.keep > 0 || l.opt.VersionMarks {
		l.checkVersionMarks()
	}

	type loaded struct {
		*Skill
		nameLine int
	}
	var ok []loaded
	for _, s := range l.skillList {
		sk, nameLine := l.loadSkill(s)
		if sk != nil && len(l.errs[s]) == 0 {
			ok = append(ok, loaded{sk, nameLine})
		}
	}

	// Names must be unique for the name-keyed surfaces (PROTOCOL.md#sep-2076,
	// PROTOCOL.md#well-known).
	byName := map[string][]string{}
	var all []*Skill
	for _, sk := range ok {
		byName[sk.Name] = append(byName[sk.Name], sk.Path)
		all = append(all, sk.Skill)
	}
	names := indexNames(all)
	c := &Catalog{Access: l.loadAccess(), Keep: l.keep, Declassify: l.declassify, Sources: l.sources}
	for _, sk := range ok {
		if c.Access != nil && !c.Access.Broken {
			var listed bool
			sk.Scopes, listed = c.Access.Scopes(sk.Path)
			sk.Unlisted = !listed
		}
		if same := byName[sk.Name]; len(same) > 1 {
			var others []string
			for _, p := range same {
				if p != sk.Path {
					others = append(others, fmt.Sprintf("%q", p))
				}
			}
			l.report(Warning, sk.Path+"/"+catalog.SkillMD, sk.nameLine, sk.Path, fmt.Sprintf("name %q is also the name of %s: %s",
				sk.Name, strings.Join(others, ", "), knownAs(sk.Name, names[sk.Skill])))
		}
		c.Skills = append(c.Skills, sk.Skill)
	}
	if c.Access != nil && !c.Access.Broken {
		if p := viewsProblem(c.Access.Default, scopeSets(c.Skills)); p != "" {
			l.report(Error, PolicyFile, 0, "", p)
			c.Access.Broken = true
		}
	}
	if l.opt.SkipInvalid {
		for _, s := range l.skillList {
			if errs := l.errs[s]; len(errs) > 0 {
				msg := "skipped, not served: " + errs[0]
				switch n := len(errs) - 1; {
				case n == 1:
					msg += " (and 1 more error)"
				case n > 1:
					msg += fmt.Sprintf(" (and %d more errors)", n)
				}
				l.report(Warning, s+"/"+catalog.SkillMD, 0, s, msg)
				l.problems[len(l.problems)-1].Skipped = true
			}
		}
	}
	return c
}

// skillFiles returns the files under the skill directory s, SKILL.md first.
func (l *loader) skillFiles(s string) []*File {
	prefix := s + "/"
	i := sort.SearchStrings(l.paths, prefix)
	var files []*File
	if md := l.files[prefix+catalog.SkillMD]; md != nil {
		files = append(files, md)
	}
	for ; i < len(l.paths) && strings.HasPrefix(l.paths[i], prefix); i++ {
		if l.paths[i] != prefix+catalog.SkillMD {
			files = append(files, l.files[l.paths[i]])
		}
	}
	return files
}

// loadSkill validates the skill in directory s and returns it, with the line of its name
// field, or nil if it cannot be built. Errors are reported and recorded in l.errs.
func (l *loader) loadSkill(s string) (*Skill, int) {
	md := s + "/" + catalog.SkillMD
	errorAt := func(line int, msg string) { l.report(Error, md, line, s, msg, s) }
	segs := strings.Split(s, "/")
	for _, seg := range segs[:len(segs)-1] {
		if why := checkPrefixSegment(seg); why != "" {
			errorAt(0, fmt.Sprintf("skill path segment %q %s, so it cannot be part of the skill's URI", seg, why))
		}
	}
	if len(segs) > 1 && checkPrefixSegment(segs[0]) == "" {
		if why := checkAuthority(segs[0]); why != "" {
			l.report(Warning, md, 0, s, fmt.Sprintf("first skill path segment %q %s", segs[0], why))
		}
	}

	f := l.files[md]
	if f == nil {
		if len(l.errs[s]) == 0 {
			errorAt(0, "SKILL.md is not served, so the skill cannot be")
		}
		return nil, 0
	}
	files := l.skillFiles(s)
	var size int64
	for _, f := range files {
		size += f.Size
	}
	sev, also := Error, ""
	if l.opt.AllowOversize {
		sev, also = Warning, "; served anyway, as oversize skills are allowed"
	}
	if len(files) > MaxSkillFiles {
		l.report(sev, md, 0, s, fmt.Sprintf("the skill has %d files, over the limit of %d%s", len(files), MaxSkillFiles, also), s)
	}
	if size > MaxSkillBytes {
		l.report(sev, md, 0, s, fmt.Sprintf("the skill has %d bytes in its files, over the limit of %d (16 MiB)%s", size, MaxSkillBytes, also), s)
	}

	if !f.Text {
		errorAt(0, "SKILL.md must be UTF-8 text without NUL or other control characters")
		return nil, 0
	}
	sp, serr := splitFrontmatter(f.Data)
	if serr != nil {
		errorAt(serr.line, serr.msg)
		return nil, 0
	}
	top, errs := parseFrontmatter(f.Data[sp.yamlStart:sp.yamlEnd], yamlLineOffset)
	for _, e := range errs {
		errorAt(e.Line, e.Msg)
	}
	if top == nil || top.Kind != yamljson.Map {
		return nil, 0
	}
	fm := validateFields(top, segs[len(segs)-1], l.opt.Strict, func(sev Severity, line int, msg string) {
		l.report(sev, md, line, s, msg, s)
	})
	nameLine := 0
	if k, ok := top.Lookup("name"); ok {
		nameLine = k.Line
	}
	if len(errs) > 0 {
		return nil, 0
	}
	return &Skill{
		Path:         s,
		Name:         fm.name,
		Description:  fm.description,
		Frontmatter:  fm.entry.frontmatterJSON(top),
		Arguments:    sep2076Member(top, "arguments", fm.arguments),
		Dependencies: sep2076Member(top, "dependencies", fm.dependencies),
		Body:         f.Data[sp.bodyStart:],
		Files:        files,
	}, nameLine
}

// loadAccess reads the policy file, if the folder has one, and checks it against the
// skills found (every skill, valid or not, so that a rule is never said to match nothing
// because its skill has an error elsewhere). Problems go to l's report, as errors of the
// whole catalog: a policy that cannot be enforced as written is never served in part.
func (l *loader) loadAccess() *Access {
	a, problems, err := l.readPolicy()
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		l.report(Error, PolicyFile, 0, "", "cannot read the policy file: "+errText(err))
		return &Access{Broken: true}
	}
	for _, p := range problems {
		l.report(Error, PolicyFile, p.line, "", p.msg)
	}
	if a == nil {
		if len(problems) > 0 {
			return &Access{Broken: true}
		}
		return nil
	}
	before := len(l.problems)
	for _, r := range a.Rules {
		if !slices.ContainsFunc(l.skillList, r.Matches) && !l.mounted(r) {
			l.report(Error, PolicyFile, r.Line, "", fmt.Sprintf("rule for path %q matches no skill: no SKILL.md is at %s or under it", r.Path+"/", r.Path))
		}
	}
	l.checkNesting(a)
	a.Broken = len(l.problems) > before
	return a
}

// readPolicy reads and parses the policy file once: its access section and its
// versions.keep (l.keep), and its problems.
func (l *loader) readPolicy() (*Access, []policyProblem, error) {
	if !l.policyRead {
		l.policyRead = true
		if l.opt.NoPolicy {
			l.policyErr = fs.ErrNotExist
			return nil, nil, l.policyErr
		}
		var b []byte
		if b, l.policyErr = readPolicy(l.fsys); l.policyErr == nil {
			d := parsePolicy(b)
			l.policy, l.policyProblems, l.sources = d.access, d.problems, d.sources
			l.keep, l.declassify = d.versions.keep, d.versions.declassify
		}
	}
	return l.policy, l.policyProblems, l.policyErr
}

// checkNesting refuses a policy that a nested skill would betray: a skill's files include
// those of the skills nested in it (PROTOCOL.md#skill-format), so whoever may see the
// enclosing skill reads every nested one in its file list and archives. A nested skill may
// therefore need no scope its enclosing skill does not, and may not be unlisted inside a
// listed one.
func (l *loader) checkNesting(a *Access) {
	for _, s := range l.skillList {
		encl := l.enclosing(s)
		if len(encl) == 0 {
			continue
		}
		inner, innerListed := a.Scopes(s)
		outer, outerListed := a.Scopes(encl[0]) // the innermost skill holding s
		for _, msg := range nestingProblems(s, encl[0], inner, outer, innerListed, outerListed) {
			l.report(Error, PolicyFile, 0, "", msg)
		}
	}
}

// nestingProblems says what is wrong with the skill at path s, nested in the skill at
// path outer, given each one's scopes and whether it is listed: a scope s needs that outer
// does not, s unlisted inside a listed outer. None, one or two messages.
func nestingProblems(s, outer string, inner, outerScopes []string, innerListed, outerListed bool) []string {
	var msgs, more []string
	for _, sc := range inner {
		if !slices.Contains(outerScopes, sc) {
			more = append(more, sc)
		}
	}
	if len(more) > 0 {
		msgs = append(msgs, fmt.Sprintf(
			"skill %s needs scope %s that skill %s, which holds it, does not: anyone who may see %s reads %s's files through it; give %s the same rule, or move %s out of it",
			s, strings.Join(more, ", "), outer, outer, s, outer, s))
	}
	if outerListed && !innerListed {
		msgs = append(msgs, fmt.Sprintf(
			"skill %s is unlisted but skill %s, which holds it, is listed: its SKILL.md is listed among %s's files; unlist %s too, or move %s out of it",
			s, outer, outer, outer, s))
	}
	return msgs
}
