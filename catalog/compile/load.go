package compile

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/archive"
	"github.com/skilledge/skilledge/catalog/internal/dirfs"
	"github.com/skilledge/skilledge/catalog/internal/mediatype"
	"github.com/skilledge/skilledge/catalog/internal/unicodex"
	"github.com/skilledge/skilledge/catalog/internal/yamljson"
)

// Per-skill limits fixed by the MCP Skills extension (PROTOCOL.md#skill-format): files and
// bytes summed over the skill's files, nested skills' files included. catalog/history
// holds every older version to them too.
const (
	MaxSkillFiles = 512
	MaxSkillBytes = 16 << 20
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
}

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
// once loaded (catalog/history's versions, whose bytes come from git) gives the way to
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

func innermost(skills []string) string {
	if len(skills) == 0 {
		return ""
	}
	return skills[0]
}

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
	if len(l.skillList) == 0 {
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
	if _, _, err := l.readPolicy(); err == nil && l.keep > 0 {
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
	for _, sk := range ok {
		byName[sk.Name] = append(byName[sk.Name], sk.Path)
	}
	c := &Catalog{Access: l.loadAccess(), Keep: l.keep, Declassify: l.declassify}
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
			l.report(Warning, sk.Path+"/"+catalog.SkillMD, sk.nameLine, sk.Path, fmt.Sprintf(
				"name %q is also the name of %s: name-keyed clients cannot tell them apart: skills/get {name} refuses it as ambiguous and the well-known HTTP indexes leave both out",
				sk.Name, strings.Join(others, ", ")))
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
		// system in memory (catalog/history's versions) must be let go once loaded.
		reopen := l.reopen
		f.reopen = func() (fs.File, error) { return reopen(target) }
	}
	l.files[p] = f
}

// mimeType is the content type served for the file at p: SKILL.md is always
// catalog.SkillMDType, any other file what mediatype.Of says.
func mimeType(p string, text bool) string {
	if path.Base(p) == catalog.SkillMD {
		return catalog.SkillMDType
	}
	return mediatype.Of(p, text)
}

// clutterIn reports whether the path p of the folder lies in a directory, or is a file,
// that Load skips as clutter (.git, .DS_Store …): such a file is never served, through a
// link either.
func clutterIn(p string) bool {
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		if Ignored(seg, i < len(segs)-1) {
			return true
		}
	}
	return false
}

// within reports whether the path p of the folder is the directory dir or lies under it.
func within(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

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

var errTooLarge = errors.New("file too large")

// content is what reading a file found: its bytes when kept, its size, digest and
// whether it is text.
type content struct {
	data   []byte // nil when not kept
	size   int64
	digest [32]byte
	text   bool
	links  uint64 // hard links, 0 when the file system does not say
	exec   bool   // an execute bit is set
}

// readFile reads the regular file name. It keeps the bytes when keep says so for the
// size the file has when opened; otherwise it hashes them and decides whether they are
// text as they come, holding none, so that a large file costs no memory. It fails with
// errTooLarge as soon as it has more than limit bytes (limit < 0: no limit), and with a
// *dirfs.NotRegularError when the opened file is not a regular file (whatever the listing said).
func readFile(fsys fs.FS, name string, limit int64, keep func(size int64) bool) (content, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return content{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return content{}, err
	}
	if !fi.Mode().IsRegular() {
		return content{}, &fs.PathError{Op: "open", Path: name, Err: &dirfs.NotRegularError{Mode: fi.Mode()}}
	}
	r := io.Reader(f)
	if limit >= 0 {
		r = io.LimitReader(f, limit+1)
	}
	c := content{links: dirfs.LinkCount(fi), exec: fi.Mode()&0o111 != 0}
	if !keep(fi.Size()) {
		h := sha256.New()
		var scan mediatype.TextScan
		n, err := io.CopyBuffer(io.MultiWriter(h, &scan), r, make([]byte, 256<<10))
		if err != nil {
			return content{}, err
		}
		if limit >= 0 && n > limit {
			return content{}, errTooLarge
		}
		c.size, c.text = n, scan.Text()
		h.Sum(c.digest[:0])
		return c, nil
	}
	// Room for the size the file has now and one byte more, so that reading it does not
	// grow (and copy) the buffer.
	want := fi.Size() + 1
	if limit >= 0 {
		want = min(want, limit+1)
	}
	data := make([]byte, 0, max(want, 512))
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return content{}, err
		}
	}
	if limit >= 0 && int64(len(data)) > limit {
		return content{}, errTooLarge
	}
	c.data, c.size, c.digest, c.text = data, int64(len(data)), sha256.Sum256(data), mediatype.IsText(data)
	return c, nil
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

// errText is err without the path a *fs.PathError repeats.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// maxLinkHops bounds symbolic link resolution, as POSIX's SYMLOOP_MAX does.
const maxLinkHops = 40

var errLinkLoop = errors.New("too many levels of symbolic links")

// errLinkBackslash is resolveLink's error for a link whose target holds a backslash: a
// separator on Windows, where the build would follow it past the checks made here.
var errLinkBackslash = errors.New(`its target holds a backslash ("\"), which Windows reads as a path separator`)

// resolveLink resolves the symbolic link p component by component, as the kernel would,
// without leaving the file system: it returns the path of the final target (which
// contains no links), or inside == false as soon as a link or ".." would lead out, with
// where the path leads, unresolved from there: relative to the folder ("../x") or the
// absolute path a link names.
func resolveLink(fsys fs.ReadLinkFS, p string) (target string, inside bool, err error) {
	rest := strings.Split(p, "/")
	cur, hops := "", 0
	for len(rest) > 0 {
		seg := rest[0]
		rest = rest[1:]
		switch seg {
		case "", ".":
			continue
		case "..":
			if cur == "" {
				return path.Join(append([]string{".."}, rest...)...), false, nil
			}
			if cur = path.Dir(cur); cur == "." {
				cur = ""
			}
			continue
		}
		next := seg
		if cur != "" {
			next = cur + "/" + seg
		}
		info, err := fsys.Lstat(next)
		if err != nil {
			return "", true, err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", true, errLinkLoop
		}
		t, err := fsys.ReadLink(next)
		if err != nil {
			return "", true, err
		}
		if strings.ContainsRune(t, '\\') {
			return "", true, errLinkBackslash
		}
		if path.IsAbs(t) || filepath.IsAbs(t) || filepath.VolumeName(t) != "" {
			return path.Join(append([]string{t}, rest...)...), false, nil
		}
		rest = append(strings.Split(t, "/"), rest...)
	}
	if cur == "" {
		return ".", true, nil
	}
	return cur, true, nil
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
