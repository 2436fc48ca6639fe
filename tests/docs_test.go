package tests

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDesignRooms holds DESIGN.md's rooms table and arrows to the code, as `go list` sees
// the module's packages and their imports (a package's own, not its tests'):
//
//   - every package of the module has a row (tests/… excepted: the "tests/" row is test
//     code), and every package a row names exists;
//   - a row's "imports of ours" names every package of the module that the row's packages
//     import, and nothing they do not: a name ending in "…" stands for the packages under
//     it, and must match at least one; "none" is no import;
//   - every arrow of the "Arrows" picture holds: a package on its left links (imports,
//     directly or not) each package on its right, or one of them does where the left
//     names several.
//
// A bare name after a path in a room cell ("`catalog/internal/yamljson`, `unicodex`") is
// a sibling of that path.
func TestDesignRooms(t *testing.T) {
	b, err := os.ReadFile("../DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	design := string(b)
	pkgs := moduleImports(t)
	rows := designRows(t, design)
	covered := map[string]bool{}
	for _, r := range rows {
		if len(r.rooms) == 1 && r.rooms[0] == "tests" {
			continue
		}
		got := map[string]bool{}
		for _, room := range r.rooms {
			imports, ok := pkgs[room]
			if !ok {
				t.Errorf("DESIGN.md's rooms table has a row for %s, which is no package of the module", room)
				continue
			}
			covered[room] = true
			for _, p := range imports {
				if !slices.Contains(r.rooms, p) {
					got[p] = true
				}
			}
		}
		for p := range got {
			if !slices.ContainsFunc(r.imports, func(name string) bool { return nameMatches(name, p) }) {
				t.Errorf("DESIGN.md's row for %s does not name %s, which it imports (it names %q)", strings.Join(r.rooms, ", "), p, r.imports)
			}
		}
		for _, name := range r.imports {
			if !slicesAnyKey(got, func(p string) bool { return nameMatches(name, p) }) {
				t.Errorf("DESIGN.md's row for %s names %s, which none of it imports", strings.Join(r.rooms, ", "), name)
			}
		}
	}
	for p := range pkgs {
		if !covered[p] && p != "tests" && !strings.HasPrefix(p, "tests/") {
			t.Errorf("package %s has no row in DESIGN.md's rooms table", p)
		}
	}
	deps := func(p string) []string { return moduleDeps(t, p) }
	for _, a := range designArrows(t, design) {
		for _, to := range a.to {
			if !slices.ContainsFunc(a.from, func(from string) bool {
				return slices.ContainsFunc(expand(from, pkgs), func(f string) bool {
					return slices.ContainsFunc(deps(f), func(d string) bool { return nameMatches(to, d) })
				})
			}) {
				t.Errorf("DESIGN.md's arrow %s ──▶ %s: no package on the left links %s", strings.Join(a.from, ", "), strings.Join(a.to, ", "), to)
			}
		}
	}
}

// designRow is one row of DESIGN.md's rooms table.
type designRow struct{ rooms, imports []string }

var codeSpan = regexp.MustCompile("`([^`]*)`")

// designRows parses the table under "## Rooms".
func designRows(t *testing.T, design string) []designRow {
	t.Helper()
	section := designSection(t, design, "## Rooms")
	var rows []designRow
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		var r designRow
		dir := ""
		for _, m := range codeSpan.FindAllStringSubmatch(cells[1], -1) {
			name := strings.TrimSuffix(m[1], "/")
			if i := strings.LastIndex(name, "/"); i >= 0 {
				dir = name[:i+1]
			} else if dir != "" {
				name = dir + name
			}
			r.rooms = append(r.rooms, name)
		}
		imports := cells[3]
		// A parenthesis explains an import; its code spans are not imports.
		imports = regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(imports, "")
		for _, m := range codeSpan.FindAllStringSubmatch(imports, -1) {
			r.imports = append(r.imports, strings.TrimSuffix(m[1], "/"))
		}
		if len(r.imports) == 0 && !strings.HasPrefix(strings.TrimSpace(imports), "none") && !strings.Contains(imports, "test code") {
			t.Errorf("DESIGN.md's row for %s names neither imports nor none: %q", strings.Join(r.rooms, ", "), cells[3])
		}
		rows = append(rows, r)
	}
	if len(rows) < 10 {
		t.Fatalf("DESIGN.md's rooms table has %d rows", len(rows))
	}
	return rows
}

// designArrow is one arrow of DESIGN.md's picture: every package of to is linked by one
// of from.
type designArrow struct{ from, to []string }

var arrowRun = regexp.MustCompile(`─*[┬├└]?─*▶`)

// designArrows parses the code block under "## Arrows": a line "A ─┬─▶ B ──▶ C" starts a
// fan whose later lines ("├─▶ D ──▶ E", "└─▶ …") leave from A too.
func designArrows(t *testing.T, design string) []designArrow {
	t.Helper()
	section := designSection(t, design, "## Arrows")
	_, block, _ := strings.Cut(section, "```\n")
	block, _, _ = strings.Cut(block, "```")
	var out []designArrow
	head := ""
	for _, line := range strings.Split(block, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		parts := arrowRun.Split(line, -1)
		if strings.HasPrefix(line, "├") || strings.HasPrefix(line, "└") {
			parts[0] = head
		} else if strings.Contains(line, "┬") {
			head = strings.TrimSpace(parts[0])
		}
		for i := 0; i+1 < len(parts); i++ {
			out = append(out, designArrow{stopNames(parts[i]), stopNames(parts[i+1])})
		}
	}
	if len(out) < 5 {
		t.Fatalf("DESIGN.md's arrows: %d read", len(out))
	}
	return out
}

// stopNames splits a stop of an arrow ("jsonrpc, catalog") into package names.
func stopNames(stop string) []string {
	var out []string
	for _, n := range strings.Split(stop, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, strings.TrimSuffix(n, "/"))
		}
	}
	return out
}

// designSection returns the text of DESIGN.md from heading to the next heading of its
// level.
func designSection(t *testing.T, design, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(design, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("DESIGN.md has no %q", heading)
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// nameMatches reports whether DESIGN.md's name ("catalog/compile", "runtime/…",
// "catalog…") stands for the package p (a path below the module).
func nameMatches(name, p string) bool {
	if prefix, ok := strings.CutSuffix(name, "…"); ok {
		return strings.HasPrefix(p, prefix)
	}
	return name == p
}

// expand returns the packages a name of the picture stands for.
func expand(name string, pkgs map[string][]string) []string {
	var out []string
	for p := range pkgs {
		if nameMatches(name, p) {
			out = append(out, p)
		}
	}
	return out
}

func slicesAnyKey(m map[string]bool, f func(string) bool) bool {
	for k := range m {
		if f(k) {
			return true
		}
	}
	return false
}

// moduleImports returns every package of the module (by its path below the module) with
// the packages of the module it imports, its tests' imports aside.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, line := range goListLines(t, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...") {
		f := strings.Fields(line)
		var own []string
		for _, imp := range f[1:] {
			if p, ok := strings.CutPrefix(imp, modulePath+"/"); ok {
				own = append(own, p)
			}
		}
		out[below(f[0])] = own
	}
	return out
}

// moduleDeps returns the packages of the module that p (a path below it) links.
func moduleDeps(t *testing.T, p string) []string {
	t.Helper()
	var out []string
	for _, d := range goListLines(t, "-deps", "-f", "{{.ImportPath}}", "./"+p) {
		if q, ok := strings.CutPrefix(d, modulePath+"/"); ok && q != p {
			out = append(out, q)
		}
	}
	return out
}

// below returns the path of a package of the module below the module's.
func below(importPath string) string {
	if importPath == modulePath {
		return ""
	}
	return strings.TrimPrefix(importPath, modulePath+"/")
}

// goListLines runs go list with args at the module's root and returns its lines.
func goListLines(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// readmeMaxLines is the README's length: it is for users, and what an operator or a
// contributor needs has a home of its own (DEPLOY.md, CONTRIBUTING.md, DESIGN.md).
const readmeMaxLines = 300

// TestREADMELength holds the README to readmeMaxLines lines.
func TestREADMELength(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > readmeMaxLines {
		t.Fatalf("README.md is %d lines, over %d: move what is not for users to DEPLOY.md, CONTRIBUTING.md or DESIGN.md", n, readmeMaxLines)
	}
}
