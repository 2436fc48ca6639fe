package tests

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWhyOneHome holds that every "Why …?" decision in tests/testdata/why.txt (the
// questions RATIONALE.md asked when its entries local to one package, flag or function
// began to move into the doc comments of that code) has exactly one home: a "### " heading
// of RATIONALE.md, or a comment of the code it explains. A question dropped in a move, or
// answered twice, fails; a new decision is free to add a question to either home, and to
// why.txt so that it is held from then on.
//
// A comment is a run of consecutive comment lines ("//", "#" or a JSDoc "*") of a *.go,
// *.mjs or shell file outside node_modules and testdata, joined with single spaces, so
// that a question may wrap over lines; a question is found in it verbatim, backquotes and
// all. A question in double quotes is a reference to its home, not a home.
func TestWhyOneHome(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	questions := readLines(t, filepath.Join(root, "tests/testdata/why.txt"))
	homes := map[string][]string{}
	var headings []string
	for _, line := range readLines(t, filepath.Join(root, "RATIONALE.md")) {
		if h, ok := strings.CutPrefix(line, "### "); ok {
			headings = append(headings, h)
		}
	}
	blocks := codeComments(t, root)
	for _, q := range questions {
		for _, h := range headings {
			if h == q {
				homes[q] = append(homes[q], "RATIONALE.md")
			}
		}
		for _, b := range blocks {
			for i, rest := 0, b.text; ; {
				j := strings.Index(rest[i:], q)
				if j < 0 {
					break
				}
				// A question in quotes refers to its home ("RATIONALE: "Why …?"") and is
				// not one.
				if at := i + j; at == 0 || rest[at-1] != '"' {
					homes[q] = append(homes[q], b.file)
				}
				i += j + len(q)
			}
		}
	}
	for _, q := range questions {
		switch h := homes[q]; len(h) {
		case 1:
		case 0:
			t.Errorf("%q has no home: neither a heading of RATIONALE.md nor a comment of the code says it", q)
		default:
			t.Errorf("%q has %d homes (%s): keep one", q, len(h), strings.Join(h, ", "))
		}
	}
}

// comment is one run of comment lines of a file, joined.
type comment struct{ file, text string }

// codeComments returns the comments of the repository's Go, JavaScript and shell files.
func codeComments(t *testing.T, root string) []comment {
	t.Helper()
	var out []comment
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			switch name {
			case ".git", "node_modules", "testdata", "dist", "tmp", ".wrangler":
				return filepath.SkipDir
			}
			return nil
		}
		marker := ""
		switch {
		case strings.HasSuffix(name, ".go"):
			marker = "//"
		case strings.HasSuffix(name, ".mjs"), strings.HasSuffix(name, ".d.ts"):
			marker = "//"
		case strings.HasSuffix(name, ".yml"), !strings.Contains(name, ".") && isShell(p):
			marker = "#"
		default:
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		var run []string
		flush := func() {
			if len(run) > 0 {
				out = append(out, comment{rel, strings.Join(strings.Fields(strings.Join(run, " ")), " ")})
				run = run[:0]
			}
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			text, ok := strings.CutPrefix(line, marker)
			if !ok && marker == "//" {
				// JSDoc: /** … */ blocks, a line each.
				if s, jok := strings.CutPrefix(line, "*"); jok && !strings.HasPrefix(s, "/") {
					text, ok = s, true
				} else if s, jok := strings.CutPrefix(line, "/**"); jok {
					text, ok = s, true
				}
			}
			if !ok {
				flush()
				continue
			}
			run = append(run, strings.TrimSuffix(text, "*/"))
		}
		flush()
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// isShell reports whether the extensionless file p is a shell script (a "#!" line naming
// a shell).
func isShell(p string) bool {
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	return strings.HasPrefix(first, "#!") && strings.Contains(first, "sh")
}

// readLines returns the non-empty lines of the file at p.
func readLines(t *testing.T, p string) []string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimRight(l, "\r"); l != "" {
			out = append(out, l)
		}
	}
	return out
}
