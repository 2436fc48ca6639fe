package build

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// writeTree creates files (path -> content) under dir in the given order.
func writeTree(t *testing.T, dir string, files map[string]string, order []string, mode os.FileMode) {
	t.Helper()
	for _, p := range order {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(files[p]), mode); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symbolic links not available: %v", err)
	}
}

func TestLoadDirSymlinks(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "skills")
	writeTree(t, root, map[string]string{
		"x/SKILL.md":    "---\nname: x\ndescription: d\n---\n",
		"shared/doc.md": "shared doc",
		"shared/sub/f":  "f",
	}, []string{"x/SKILL.md", "shared/doc.md", "shared/sub/f"}, 0o644)
	if err := os.WriteFile(filepath.Join(base, "secret.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	x := filepath.Join(root, "x")
	symlink(t, "../shared/doc.md", filepath.Join(x, "in.md"))
	symlink(t, "in.md", filepath.Join(x, "chain.md"))
	symlink(t, "../../secret.txt", filepath.Join(x, "out.md"))
	symlink(t, filepath.Join(base, "secret.txt"), filepath.Join(x, "abs.md"))
	symlink(t, "../shared", filepath.Join(x, "dir"))
	symlink(t, "dir/../../secret.txt", filepath.Join(x, "through-dir.md"))
	symlink(t, "nothing", filepath.Join(x, "broken.md"))
	symlink(t, base, filepath.Join(root, "outside-dir")) // not in a skill: ignored

	cat, ps, err := LoadDir(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := root + "/x/"
	equalStrings(t, "problems", strs(ps), []string{
		l + "abs.md: warning: symbolic link leads outside the folder; not served",
		l + "broken.md: warning: broken symbolic link; not served",
		l + "dir: warning: symbolic link to a directory; not followed",
		l + "out.md: warning: symbolic link leads outside the folder; not served",
		l + "through-dir.md: warning: symbolic link leads outside the folder; not served",
	})
	if len(cat.Skills) != 1 {
		t.Fatalf("skills %v", paths(cat))
	}
	var got []string
	for _, f := range cat.Skills[0].Files {
		got = append(got, f.Path+" "+string(f.Data))
		if strings.Contains(string(f.Data), "secret") {
			t.Errorf("%s serves a file outside the folder", f.Path)
		}
	}
	equalStrings(t, "files", got, []string{
		"x/SKILL.md ---\nname: x\ndescription: d\n---\n",
		"x/chain.md shared doc",
		"x/in.md shared doc",
	})
}

func TestLoadDirErrors(t *testing.T) {
	if _, _, err := LoadDir(filepath.Join(t.TempDir(), "missing"), Options{}); err == nil {
		t.Error("LoadDir of a missing directory: no error")
	}
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("permissions do not stop this user from reading")
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{"x/SKILL.md": "---\nname: x\ndescription: d\n---\n", "x/locked/f": "f", "other/f": "f"},
		[]string{"x/SKILL.md", "x/locked/f", "other/f"}, 0o644)
	for _, d := range []string{"x/locked", "other"} {
		p := filepath.Join(root, d)
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(p, 0o755) })
	}
	cat, ps, err := LoadDir(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "problems", strs(ps), []string{
		root + "/other: warning: cannot list directory (permission denied); any skills in it are not served",
		root + "/x/locked: cannot list directory: permission denied",
	})
	if len(cat.Skills) != 0 {
		t.Errorf("skills %v", paths(cat))
	}
}

// TestDeterminism loads the same tree written in two orders, with different times and
// modes, from two places: the catalogs must be equal.
func TestDeterminism(t *testing.T) {
	files := map[string]string{
		"b/SKILL.md":           "---\nname: b\ndescription: d\nextra: 1\n---\nB\n",
		"b/z.txt":              "z",
		"b/a/deep/file.bin":    "\x00\x01",
		"acme/a/SKILL.md":      "---\nname: a\ndescription: d\n---\nA\n",
		"acme/a/c/SKILL.md":    "---\nname: c\ndescription: nested\n---\n",
		"acme/a/c/x.md":        "x",
		"acme/a/c/y.md":        "y",
		"acme/a-b/SKILL.md":    "---\nname: a-b\ndescription: d\n---\n",
		"acme/a.b/SKILL.md":    "---\nname: a.b\ndescription: d\n---\n",
		"not-a-skill/file.txt": "ignored",
	}
	var order []string
	for p := range files {
		order = append(order, p)
	}
	reverse := append([]string(nil), order...)
	for i, j := 0, len(reverse)-1; i < j; i, j = i+1, j-1 {
		reverse[i], reverse[j] = reverse[j], reverse[i]
	}
	one, two := t.TempDir(), filepath.Join(t.TempDir(), "elsewhere", "skills")
	writeTree(t, one, files, order, 0o644)
	writeTree(t, two, files, reverse, 0o600)
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	filepath.Walk(two, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, old, old) })
	os.Chmod(filepath.Join(two, "b", "z.txt"), 0o755)

	c1, p1, err1 := LoadDir(one, Options{})
	c2, p2, err2 := LoadDir(two, Options{})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !reflect.DeepEqual(c1, c2) {
		t.Error("catalogs differ")
	}
	strip := func(ps []Problem, label string) []Problem {
		for i := range ps {
			ps[i].Path = strings.TrimPrefix(ps[i].Path, label)
		}
		return ps
	}
	if !reflect.DeepEqual(strip(p1, one), strip(p2, two)) {
		t.Errorf("problems differ:\n%v\n%v", p1, p2)
	}
	equalStrings(t, "skills", paths(c1), []string{"acme/a", "acme/a-b", "acme/a/c", "b"})
	if len(p1) != 2 { // a.b's invalid name, b's unknown field
		t.Errorf("problems %v", strs(p1))
	}
}
