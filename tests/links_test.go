package tests

import (
	"bufio"
	"bytes"
	"fmt"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestLinks holds every reference in the repository's own words to a file of the
// repository: a reference to a file, folder or heading that is not there fails, so a
// rename or a removal cannot leave a comment or a document pointing at nothing. What is
// read, and what counts as a reference:
//
//   - Where: every *.md file, the comments of every *.go file (go/parser's), and the
//     line comments ("//") of every *.mjs file, outside .git, node_modules, testdata
//     (fixtures: skills and protocol cases, whose paths are data), skills (a folder
//     holding a SKILL.md: content the server serves, such as catalog/examples/skills) and
//     what a build leaves at the root (dist, tmp, .wrangler); and the comments of the
//     protocol cases (tests/testdata/cases/*.txtar, the lines before the first file).
//   - Markdown links: [text](target) outside fenced code blocks, when target has no
//     scheme (no "https:", "mailto:"), resolved against the Markdown file's folder;
//     "#anchor" alone names a heading of the same file.
//   - Paths in text (Markdown prose, code spans and code blocks alike, and comments): a
//     run of path characters [A-Za-z0-9_.*#/-] that is not the tail of something else (a
//     URL, an import path, "@scope/pkg", "~/…", "$VAR/…": the character before it is no
//     path character and none of "@$~:%\") and whose first segment is an entry of the
//     repository's root (edge/wire/doc.go, tests/testdata/hostile, .ci/run) or of the
//     folder of the file it is in (wiretest/wiretest.go in a comment of edge/wire); a
//     leading "./" is dropped, and trailing dots are the sentence's. A bare name in
//     capitals ending in .md (RATIONALE.md) is a document of the file's folder or of the
//     root; SKILL.md is not one: it is the file every skill holds, named everywhere.
//   - Such a path must exist; with "*" in it, match at least one file. A Go identifier
//     after a package's folder (edge/wire.Options, catalog/compile.Load) names the
//     package; a standard-library package under runtime/ (runtime/debug) is not ours. A
//     path the root's .gitignore names (build/node_modules, what the test command
//     installs; runtime/pluginbuild/plugin.wasm, what a release build writes) is made by
//     a command, and need not be there. notInRepo lists the few paths written on purpose
//     for a file that is not there, each with why.
//   - An anchor (README.md#install) must be a heading of that Markdown file, by GitHub's
//     slug: lowercase, punctuation other than "-" and "_" dropped, spaces as "-", a
//     repeated heading with "-1", "-2" after it.
//   - No mention at all of "SPEC" followed by " §" or ".md": nothing cites a document
//     that is not in the repository.
//
// Example paths that are not the repository's (skills/x/SKILL.md, dist/plugin.wasm,
// OUT/assets/sha256/) start with no entry of the root, and are not checked.
//
// Why does a test check every reference to a file, rather than a convention for writing
// them? Comments and documents pointed at things no clone has: over fifty places cited
// sections of a protocol summary and a design note kept outside the repository, and one
// entry named a test file by the name it had before a rename. "Cite only files of the
// repository" had been the convention, and nothing noticed it broken: a reference is read
// only when someone follows it. Now the protocol and the architecture are PROTOCOL.md and
// DESIGN.md, whose headings are anchors comments point at, and removing or renaming a file
// fails every stale mention of it at once (taking PROTOCOL.md away failed 54 lines). What
// it costs: the rules above for what counts as a reference, the short notInRepo list, and
// renaming a cited heading means changing its citations. Rejected: checking Markdown links
// only (most references are Go comments and code spans), checking every slash-separated
// word (import paths, MIME types and example paths such as skills/x/SKILL.md would fail),
// and a link checker from the Node tooling (it reads links in Markdown, not Go comments,
// and would run only under ./build/test).
func TestLinks(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the repository's root is not %s: %v", root, err)
	}
	c := &linkCheck{root: root, headings: map[string][]string{}, ignored: gitignored(t, root), excused: map[string]bool{}}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skipDir(root, path, d.Name()) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "SKILL.md")); err == nil {
				return filepath.SkipDir // a skill: data the server serves
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".md":
			c.markdown(path)
		case ".go":
			c.goComments(path)
		case ".mjs":
			c.mjsComments(path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cases, _ := filepath.Glob(filepath.Join(root, "tests", "testdata", "cases", "*.txtar"))
	for _, path := range cases {
		c.txtarComment(path)
	}
	if c.files < 50 || c.refs < 500 {
		t.Fatalf("read %d files and checked %d references: is %s the repository?", c.files, c.refs, root)
	}
	t.Logf("%d files, %d references", c.files, c.refs)
	for _, p := range c.problems {
		t.Error(p)
	}
	for k := range notInRepo {
		if !c.excused[k] {
			t.Errorf("notInRepo[%q]: no longer written; take it out", k)
		}
	}
}

// skipDir reports whether the folder at path, named name, holds no text of the
// repository's own: version control, installed packages, fixtures, and build output.
func skipDir(root, path, name string) bool {
	switch name {
	case ".git", "node_modules", "testdata", ".wrangler":
		return true
	case "dist", "tmp":
		return filepath.Dir(path) == root
	}
	return false
}

type linkCheck struct {
	root     string
	files    int                 // files read
	refs     int                 // references checked
	headings map[string][]string // slugs of a Markdown file's headings, by path
	ignored  []string            // the root .gitignore's patterns
	excused  map[string]bool     // the notInRepo entries met
	problems []string
}

// notInRepo are paths written on purpose for a file that is not in the repository, by
// the file that writes them ("FILE PATH"), each with why.
var notInRepo = map[string]string{
	"RATIONALE.md edge/plugin/default.pgo":   "a profile tried and not kept",
	"catalog/compile/model.go catalog/build": "catalog/compile's former name",
	"catalog/uri.go LPT1.md":                 "a name Windows reserves, as an example",

	// Where a skills repository keeps the workflow it copies (build/skills-repo/skills.yml).
	"build/skills-repo/README.md .github/workflows/skills.yml": "a skills repository's path",
	"README.md .github/workflows/skills.yml":                   "a skills repository's path",
	"README.md .github/skills":                                 "where VS Code reads a project's skills",
}

// gitignored returns the patterns of the root's .gitignore.
func gitignored(t *testing.T, root string) []string {
	b, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// ignoredPath reports whether file, a slash-separated path from the root, is one the
// .gitignore patterns name, or lies in a folder they name: a pattern with a leading "/"
// matches from the root, any other matches a name at any depth.
func (c *linkCheck) ignoredPath(file string) bool {
	segs := strings.Split(file, "/")
	for _, p := range c.ignored {
		p = strings.TrimSuffix(p, "/")
		if anchored, ok := strings.CutPrefix(p, "/"); ok {
			n := strings.Count(anchored, "/") + 1
			if len(segs) >= n {
				if ok, _ := filepath.Match(anchored, strings.Join(segs[:n], "/")); ok {
					return true
				}
			}
			continue
		}
		for _, s := range segs {
			if ok, _ := filepath.Match(p, s); ok {
				return true
			}
		}
	}
	return false
}

// problem reports a problem at line of the file at path, once.
func (c *linkCheck) problem(path string, line int, format string, args ...any) {
	rel, _ := filepath.Rel(c.root, path)
	p := fmt.Sprintf("%s:%d: %s", rel, line, fmt.Sprintf(format, args...))
	if !slices.Contains(c.problems, p) {
		c.problems = append(c.problems, p)
	}
}

var (
	// mdLink is a Markdown inline link or image: [text](target "title").
	mdLink = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	// pathRun is a run of the characters a repository path (and its anchor) is written with.
	pathRun = regexp.MustCompile(`[A-Za-z0-9_.*#/-]+`)
	// docName is a document at the root or beside the file: RATIONALE.md.
	docName = regexp.MustCompile(`^[A-Z][A-Z0-9_-]*\.md$`)
	// forbidden are citations of documents that are not in the repository.
	forbidden = regexp.MustCompile(`SPEC §|SPEC\.md`)
	// scheme starts a link to somewhere else: https:, mailto:.
	scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// markdown checks the Markdown file at path: its links, and the paths in its text.
func (c *linkCheck) markdown(path string) {
	c.files++
	b, err := os.ReadFile(path)
	if err != nil {
		c.problem(path, 0, "%v", err)
		return
	}
	var fence fence
	for i, line := range strings.Split(string(b), "\n") {
		n := i + 1
		if fence == "" {
			c.text(path, n, mdLink.ReplaceAllString(line, "]()")) // the targets are links, below
		} else {
			c.text(path, n, line)
		}
		if fence.step(line) || fence != "" {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			target := m[1]
			if scheme.MatchString(target) {
				continue
			}
			c.refs++
			file, anchor, _ := strings.Cut(target, "#")
			full := path
			if file != "" {
				full = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
				if _, err := os.Stat(full); err != nil {
					c.problem(path, n, "link to %s: no such file or folder", target)
					continue
				}
			}
			if anchor != "" {
				c.anchor(path, n, target, full, anchor)
			}
		}
	}
}

// fenceOf returns the fence a line opens or closes (``` or ~~~, as long as written), or "".
// A fence is the code fence a Markdown document is inside of, as its lines are read in
// order ("" outside any).
type fence string

// step reads the next line and reports whether it opens or closes a fence.
func (f *fence) step(line string) bool {
	g := fenceOf(line)
	switch {
	case g == "":
		return false
	case *f == "":
		*f = fence(g)
	case strings.HasPrefix(g, string(*f)):
		*f = ""
	}
	return true
}

func fenceOf(line string) string {
	s := strings.TrimLeft(line, " ")
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(s, f) {
			return s[:len(s)-len(strings.TrimLeft(s, f[:1]))]
		}
	}
	return ""
}

// goComments checks the comments of the Go file at path.
func (c *linkCheck) goComments(path string) {
	c.files++
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		c.problem(path, 0, "%v", err)
		return
	}
	for _, g := range f.Comments {
		for _, cm := range g.List {
			line := fset.Position(cm.Slash).Line
			for k, l := range strings.Split(cm.Text, "\n") {
				c.text(path, line+k, l)
			}
		}
	}
}

// mjsComments checks the line comments of the JavaScript module at path.
func (c *linkCheck) mjsComments(path string) {
	c.files++
	f, err := os.Open(path)
	if err != nil {
		c.problem(path, 0, "%v", err)
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20) // a generated module (the load benchmark's embedded skills) holds a file on a line
	for n := 1; sc.Scan(); n++ {
		if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "//") {
			c.text(path, n, l)
		}
	}
	if err := sc.Err(); err != nil {
		c.problem(path, 0, "%v", err)
	}
}

// txtarComment checks the comment of the protocol case at path: its lines before the
// first file ("-- name --"), which say in words what the case is about.
func (c *linkCheck) txtarComment(path string) {
	c.files++
	b, err := os.ReadFile(path)
	if err != nil {
		c.problem(path, 0, "%v", err)
		return
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			return
		}
		c.text(path, i+1, line)
	}
}

// text checks the paths written in one line of the file at path.
func (c *linkCheck) text(path string, n int, line string) {
	if m := forbidden.FindString(line); m != "" {
		c.problem(path, n, "%q cites a document that is not in the repository: cite PROTOCOL.md#…, DESIGN.md#… or the code", m)
	}
	for _, loc := range pathRun.FindAllStringIndex(line, -1) {
		if loc[0] > 0 && strings.IndexByte(`@$~:%\`, line[loc[0]-1]) >= 0 {
			continue // the tail of a URL, a package scope, a home or variable
		}
		c.reference(path, n, line[loc[0]:loc[1]])
	}
}

// reference checks run, a run of path characters in the file at path, if it is a
// reference to a file of the repository.
func (c *linkCheck) reference(path string, n int, run string) {
	run = strings.TrimPrefix(run, "./")
	run = strings.TrimRight(run, ".#")
	if run == "" || strings.HasPrefix(run, "/") || strings.HasPrefix(run, "#") || strings.HasPrefix(run, "..") {
		return
	}
	file, anchor, _ := strings.Cut(run, "#")
	first, _, nested := strings.Cut(file, "/")
	var full string
	switch {
	case !nested:
		if !docName.MatchString(file) || file == "SKILL.md" {
			return
		}
		full = filepath.Join(filepath.Dir(path), file)
		if _, err := os.Stat(full); err != nil {
			full = filepath.Join(c.root, file)
		}
	case entryOf(c.root, first):
		full = filepath.Join(c.root, filepath.FromSlash(file))
	case entryOf(filepath.Dir(path), first):
		full = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
	default:
		return
	}
	c.refs++
	rel, _ := filepath.Rel(c.root, full)
	rel = filepath.ToSlash(rel)
	from, _ := filepath.Rel(c.root, path)
	if k := filepath.ToSlash(from) + " " + file; notInRepo[k] != "" {
		c.excused[k] = true
		return
	}
	if c.ignoredPath(rel) {
		return
	}
	if !c.exists(full, file) {
		c.problem(path, n, "%s: no such file or folder in the repository", run)
		return
	}
	if anchor != "" {
		c.anchor(path, n, run, full, anchor)
	}
}

// entryOf reports whether dir has an entry named name (a plain name: no "." or "..").
func entryOf(dir, name string) bool {
	if name == "" || name == "." || name == ".." || strings.Contains(name, "*") {
		return false
	}
	_, err := os.Lstat(filepath.Join(dir, name))
	return err == nil
}

// exists reports whether full, the path file written in a reference, names something: a
// file or folder, at least one match of a pattern, a package's folder followed by one of
// its identifiers, or a standard-library package under runtime/.
func (c *linkCheck) exists(full, file string) bool {
	if strings.Contains(full, "*") {
		m, err := filepath.Glob(full)
		return err == nil && len(m) > 0
	}
	if _, err := os.Stat(full); err == nil {
		return true
	}
	dir, last := filepath.Split(full)
	// A Go identifier after a package's folder: exported, so an upper-case letter (a file
	// name such as "wire.go" after a package's folder is not taken for one).
	if pkg, ident, ok := strings.Cut(last, "."); ok && ident != "" && unicode.IsUpper(rune(ident[0])) {
		if fi, err := os.Stat(filepath.Join(dir, pkg)); err == nil && fi.IsDir() {
			return true // edge/wire.Options
		}
		file = strings.TrimSuffix(file, "."+ident)
	}
	// runtime/debug and its kind: the standard library's, not the harness's.
	fi, err := os.Stat(filepath.Join(build.Default.GOROOT, "src", filepath.FromSlash(file)))
	return err == nil && fi.IsDir() && strings.HasPrefix(file, "runtime/")
}

// anchor checks that anchor is a heading of the Markdown file full, named in run.
func (c *linkCheck) anchor(path string, n int, run, full, anchor string) {
	if filepath.Ext(full) != ".md" {
		c.problem(path, n, "%s: an anchor in a file that is not Markdown", run)
		return
	}
	slugs, ok := c.headings[full]
	if !ok {
		b, err := os.ReadFile(full)
		if err != nil {
			c.problem(path, n, "%s: %v", run, err)
			return
		}
		slugs = headingSlugs(b)
		c.headings[full] = slugs
	}
	if !slices.Contains(slugs, anchor) {
		c.problem(path, n, "%s: %s has no heading #%s", run, filepath.Base(full), anchor)
	}
}

// headingSlugs returns the anchors GitHub gives the ATX headings of a Markdown document
// (outside fenced code blocks), in order.
func headingSlugs(b []byte) []string {
	var out []string
	seen := map[string]int{}
	var fence fence
	for _, line := range bytes.Split(b, []byte("\n")) {
		l := string(line)
		if fence.step(l) || fence != "" {
			continue
		}
		text, ok := headingText(l)
		if !ok {
			continue
		}
		s := slug(text)
		if k := seen[s]; k > 0 {
			out = append(out, fmt.Sprintf("%s-%d", s, k))
		} else {
			out = append(out, s)
		}
		seen[s]++
	}
	return out
}

// headingText returns the text of an ATX heading line ("## Errors" gives "Errors").
func headingText(l string) (string, bool) {
	l = strings.TrimLeft(l, " ")
	level := len(l) - len(strings.TrimLeft(l, "#"))
	if level < 1 || level > 6 || (len(l) > level && l[level] != ' ') {
		return "", false
	}
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(l[level:]), "#")), true
}

// mdLinkText matches a link in a heading, whose text is what the slug is made of.
var mdLinkText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// slug is GitHub's anchor of a heading's text: lowercased, every character but letters,
// digits, "-", "_" and spaces dropped, spaces as "-".
func slug(text string) string {
	text = mdLinkText.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
