package compile

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/archive"
	"github.com/skilledge/skilledge/catalog/internal/dirfs"
	"github.com/skilledge/skilledge/catalog/internal/unicodex"
)

// Options for Load.
type Options struct {
	// SkipInvalid leaves invalid skills out of the catalog, reporting each, instead of
	// making the whole catalog unservable.
	SkipInvalid bool
	// AllowOversize serves skills over 512 files or 16 MiB (reported as warnings) instead
	// of refusing them.
	AllowOversize bool
	// Strict reports every field in another shape than the Agent Skills format's (a
	// description over 1024 characters, metadata holding mappings, allowed-tools as a
	// list, …) as an error, as the format words it; without it each is a warning, and the
	// skill is served: SKILL.md as written, its entry as entry.go says
	// (PROTOCOL.md#skill-format).
	Strict bool
	// NoPolicy reads no policy file: the folder is a source of another catalog
	// (sources.go), whose own policy applies to it. VersionMarks refuses what a folder
	// that keeps history refuses: a path segment starting with catalog.VersionMark (the
	// catalog it is a source of keeps history).
	NoPolicy, VersionMarks bool
}

// Per-skill limits fixed by the MCP Skills extension (PROTOCOL.md#skill-format): files and
// bytes summed over the skill's files, nested skills' files included. catalog/versions
// holds every older version to them too.
const (
	MaxSkillFiles = 512
	MaxSkillBytes = 16 << 20
)

// loader is one Load under way: the folder, what was listed and read, the problems
// found, and the policy file, read once. Its methods are in two files: here, those that
// list, read and check the folder's files and report what they find; in load.go, those
// that make the catalog of them (build, loadSkill, the policy's checks), which call these
// and are called by none of them.
//
// Why two files, one above the other, and not a file per feature? A feature's file
// holding loader methods (the policy's, the version marks') calls the reporting here and
// is called from build, so the files call each other round, and none reads as the ground
// of another; one file of all the methods would be over 600 lines.
type loader struct {
	fsys   fs.FS
	reopen func(name string) (fs.File, error)
	label  string
	opt    Options

	entries    []entry         // every file, link and special file, sorted by path
	unreadable []entry         // directories that could not be listed
	skills     map[string]bool // directories holding SKILL.md
	skillList  []string        // the same, sorted
	files      map[string]*File
	paths      []string // keys of files, sorted

	problems []Problem
	errs     map[string][]string // skill path -> messages of the errors affecting it
	reported map[string]bool     // bad names already reported

	// The policy file, read once (readPolicy).
	policyRead     bool
	policy         *Access
	keep           int
	policyProblems []policyProblem
	declassify     []string // versions.declassify
	sources        []Source
	policyErr      error
}

type entry struct {
	path string
	typ  fs.FileMode
	err  error
}

func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// display is how the user sees the path rel: with the label in front.
func (l *loader) display(rel string) string {
	switch {
	case rel == ".":
		if l.label == "" {
			return "."
		}
		return l.label
	case l.label == "":
		return rel
	case strings.HasSuffix(l.label, "/"):
		return l.label + rel
	}
	return l.label + "/" + rel
}

// report records a problem with the file rel. An Error makes every skill in affects
// invalid.
func (l *loader) report(sev Severity, rel string, line int, skill, msg string, affects ...string) {
	l.problems = append(l.problems, Problem{Path: l.display(rel), Line: line, Severity: sev, Skill: skill, Msg: msg})
	if sev == Error {
		for _, s := range affects {
			l.errs[s] = append(l.errs[s], msg)
		}
	}
}

func innermost(skills []string) string {
	if len(skills) == 0 {
		return ""
	}
	return skills[0]
}

// enclosing returns the skills whose directories are strict ancestors of p, innermost
// first.
func (l *loader) enclosing(p string) []string {
	var out []string
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if l.skills[d] {
			out = append(out, d)
		}
	}
	return out
}

// affected returns the skills a problem with the file or directory p makes invalid: those
// enclosing it, and those it is or holds.
func (l *loader) affected(p string) []string {
	var out []string
	for _, s := range l.skillList {
		if s == p || strings.HasPrefix(p, s+"/") || strings.HasPrefix(s, p+"/") {
			out = append(out, s)
		}
	}
	return out
}

// walk lists the tree depth-first. Only a failure to list the root is returned.
func (l *loader) walk(dir string) error {
	ents, err := fs.ReadDir(l.fsys, dir)
	if err != nil {
		if dir == "." {
			return err
		}
		l.unreadable = append(l.unreadable, entry{path: dir, err: err})
	}
	for _, e := range ents {
		name := e.Name()
		if clutterDirs[name] || isClutterFile(name) {
			continue
		}
		p := join(dir, name)
		if e.IsDir() {
			l.walk(p)
			continue
		}
		l.entries = append(l.entries, entry{path: p, typ: e.Type()})
	}
	return nil
}

// badName reports (once) and returns true if a segment of p below the outermost skill
// outer cannot be served.
func (l *loader) badName(p, outer string) bool {
	cur := outer
	segs := strings.Split(p[len(outer)+1:], "/")
	for i, seg := range segs {
		cur += "/" + seg
		why := checkSegment(seg)
		if why == "" {
			continue
		}
		if !l.reported[cur] {
			l.reported[cur] = true
			what := "directory"
			if i == len(segs)-1 {
				what = "file"
			}
			l.report(Error, cur, 0, innermost(l.enclosing(cur)),
				fmt.Sprintf("%s name %q %s, so it cannot be part of a skill:// URI", what, seg, why), l.affected(cur)...)
		}
		return true
	}
	return false
}

// readFile reads the file, link or special file e into l.files, reporting what is not
// served.
func (l *loader) readFile(e entry, encl []string) {
	p, skill := e.path, innermost(encl)
	warn := func(msg string) { l.report(Warning, p, 0, skill, msg) }
	target := p
	switch {
	case e.typ.IsRegular():
	case e.typ&fs.ModeSymlink != 0:
		rl, ok := l.fsys.(fs.ReadLinkFS)
		if !ok {
			warn("symbolic link cannot be followed (the file system does not read links, so where it leads cannot be checked); not served")
			return
		}
		t, inside, err := resolveLink(rl, p)
		switch {
		case !inside:
			l.linkOut(p, t, encl)
			return
		case errors.Is(err, errLinkBackslash):
			l.report(Error, p, 0, skill, "symbolic link not served: "+err.Error()+"; link with \"/\"", encl...)
			return
		case err == nil && clutterIn(t):
			l.report(Error, p, 0, skill, fmt.Sprintf("symbolic link to %s, which is version-control or system clutter the build never serves (a link is served to whoever may see its skill)", l.display(t)), encl...)
			return
		case errors.Is(err, fs.ErrNotExist):
			warn("broken symbolic link; not served")
			return
		case err != nil:
			warn("symbolic link cannot be followed (" + errText(err) + "); not served")
			return
		}
		info, err := fs.Stat(l.fsys, t)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			warn("broken symbolic link; not served")
			return
		case err != nil:
			// An os.Root file system refuses links that leave it (the link changed since).
			warn("symbolic link leads outside the folder or cannot be followed (" + errText(err) + "); not served")
			return
		case info.IsDir():
			warn("symbolic link to a directory; not followed")
			return
		case !info.Mode().IsRegular():
			warn("symbolic link to something other than a regular file; not served")
			return
		case !within(t, skill):
			l.linkOut(p, t, encl)
			return
		}
		target = t
	default:
		warn(fmt.Sprintf("not a regular file (%s); not served", dirfs.TypeName(e.typ)))
		return
	}
	limit := int64(-1)
	if !l.opt.AllowOversize {
		limit = MaxSkillBytes // one file over it makes its skill oversize: read no further
	}
	// SKILL.md is kept (its frontmatter and body are needed), and small files; larger
	// ones are read again when the catalog is encoded.
	keep := func(size int64) bool { return size <= KeepBytes || path.Base(p) == catalog.SkillMD }
	c, err := readFile(l.fsys, target, limit, keep)
	var notRegular *dirfs.NotRegularError
	if errors.As(err, &notRegular) {
		// It was a regular file when listed, or a link to one.
		warn(fmt.Sprintf("not a regular file (%s); not served", dirfs.TypeName(notRegular.Mode)))
		return
	}
	if errors.Is(err, errTooLarge) {
		l.report(Error, p, 0, skill, fmt.Sprintf("the file is over the per-skill limit of %d bytes (16 MiB); not read (--allow-oversize serves it anyway)", MaxSkillBytes), encl...)
		return
	}
	if err != nil {
		l.report(Error, p, 0, skill, "cannot read: "+errText(err), encl...)
		return
	}
	if c.links > 1 {
		warn(fmt.Sprintf("the file has %d hard links: the same file is also elsewhere, perhaps outside the folder, and a change there changes what is served; copy it in if it belongs here", c.links))
	}
	f := &File{Path: p, Data: c.data, Size: c.size, MIME: mimeType(p, c.text), Text: c.text, Digest: c.digest, Exec: c.exec}
	if c.data == nil {
		// The function alone, not the loader, which holds the file system: a file
		// system in memory (catalog/versions's versions) must be let go once loaded.
		reopen := l.reopen
		f.reopen = func() (fs.File, error) { return reopen(target) }
	}
	l.files[p] = f
}

// linkOut reports the symbolic link p, a file of the skills encl (innermost first), whose
// target leaves its skill: to is the path resolveLink gave, in the folder or out of it. A
// link is served as a file of its skill, to whoever may see that skill, so following it
// would serve another skill's file under this one's access rule (or a file of no skill,
// or one outside the folder); skipping it would quietly serve the skill without a file its
// author put there. Like any file in error, it makes every skill holding it invalid.
func (l *loader) linkOut(p, to string, encl []string) {
	skill := innermost(encl)
	shown, where := l.display(to), "outside the folder"
	switch {
	case path.IsAbs(to) || filepath.IsAbs(to) || filepath.VolumeName(to) != "":
		shown = to
	case to == ".." || strings.HasPrefix(to, "../"):
	case len(l.enclosing(to)) > 0:
		where = "a file of skill " + printable(innermost(l.enclosing(to)))
	default:
		where = "which is in no skill"
	}
	l.report(Error, p, 0, skill, fmt.Sprintf(
		"symbolic link to %s, %s: a link is served to whoever may see its skill (%s), so it may lead only to a file of that skill; copy the file in if it belongs there, or remove the link",
		printable(shown), where, printable(skill)), encl...)
}

// checkPortability warns about served names that are one file, or none, on other
// systems: names in one directory that are equal under Unicode normalization or letter
// case (macOS compares names normalized and, by default, ignoring case; Windows ignores
// case), each warning naming the others; and names Windows cannot hold. Every file and
// directory under the folder that holds a served file is checked once.
func (l *loader) checkPortability() {
	type sibling struct{ path, name string }
	groups := map[string][]sibling{} // parent directory + "/" + key -> its names
	var keys []string
	seen := map[string]bool{}
	for _, p := range l.paths {
		segs := strings.Split(p, "/")
		for i, seg := range segs {
			cur := strings.Join(segs[:i+1], "/")
			if seen[cur] {
				continue
			}
			seen[cur] = true
			what := "directory"
			if i == len(segs)-1 {
				what = "file"
			}
			skill := innermost(l.enclosing(cur))
			if why := catalog.WindowsNameProblem(seg); why != "" {
				where := "a checkout of the folder fails there"
				if skill != "" {
					where = "archives of the skill do not unpack there"
				}
				l.report(Warning, cur, 0, skill, fmt.Sprintf("%s name %q %s: %s", what, seg, why, where))
			}
			key := path.Dir(cur) + "/" + archive.FileKey(seg)
			if _, ok := groups[key]; !ok {
				keys = append(keys, key)
			}
			groups[key] = append(groups[key], sibling{cur, seg})
		}
	}
	for _, key := range keys {
		g := groups[key]
		if len(g) < 2 {
			continue
		}
		for _, a := range g {
			what := "file"
			if l.files[a.path] == nil {
				what = "directory"
			}
			for _, b := range g {
				if a.path == b.path {
					continue
				}
				how := "differ only in letter case: Windows and macOS (by default) keep one of them"
				if unicodex.NFD(a.name) == unicodex.NFD(b.name) {
					how = "are one name under Unicode normalization (NFC): macOS keeps one of them"
				} else if unicodex.FoldCase(a.name) != unicodex.FoldCase(b.name) {
					how = "differ only in Unicode normalization and letter case: macOS (by default) keeps one of them"
				}
				where := "in a checkout of the folder"
				if len(l.enclosing(a.path)) > 0 {
					where = "in a checkout and in archives of the skill unpacked there"
				}
				l.report(Warning, a.path, 0, innermost(l.enclosing(a.path)), fmt.Sprintf(
					"%s name %+q and %+q in the same directory %s, %s; rename one", what, a.name, b.name, how, where))
			}
		}
	}
}

// checkVersionMarks refuses, in a folder that keeps history, every served path with a
// segment starting with catalog.VersionMark: such a segment names a version
// (catalog.VersionPath), so a folder or file named so would collide with one.
func (l *loader) checkVersionMarks() {
	for _, p := range l.paths {
		encl := l.enclosing(p)
		for dir, seg := range pathSegments(p) {
			if strings.HasPrefix(seg, catalog.VersionMark) && !l.reported[dir] {
				l.reported[dir] = true
				l.report(Error, dir, 0, innermost(encl), fmt.Sprintf(
					"%q starts with %q, which names a skill's versions in a catalog that keeps history (versions: in %s): rename it",
					seg, catalog.VersionMark, PolicyFile), encl...)
			}
		}
	}
}

// pathSegments yields each segment of the slash-separated path p with the path up to and
// including it.
func pathSegments(p string) func(yield func(prefix, seg string) bool) {
	return func(yield func(prefix, seg string) bool) {
		start := 0
		for i := 0; i <= len(p); i++ {
			if i == len(p) || p[i] == '/' {
				if !yield(p[:i], p[start:i]) {
					return
				}
				start = i + 1
			}
		}
	}
}
