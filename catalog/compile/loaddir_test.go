package compile

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

// TestLoadDirPortability: files that are one file, or none, elsewhere are served but
// warned about, each naming the file: a hard link (whose content may come from outside
// the folder), names of one directory equal under Unicode normalization (NFC café.md
// beside NFD café.md) or letter case, and names Windows reserves or cannot hold.
func TestLoadDirPortability(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "skills")
	files := map[string]string{
		"x/SKILL.md":         "---\nname: x\ndescription: d\n---\n",
		"x/caf\u00e9.md":     "nfc",
		"x/cafe\u0301.md":    "nfd",
		"x/README.md":        "upper",
		"x/readme.md":        "lower",
		"x/Docs/a.md":        "a",
		"x/docs/b.md":        "b",
		"x/con":              "device",
		"x/LPT1.md":          "device",
		"x/aux.tar.gz":       "device",
		"x/what?.md":         "forbidden character",
		"x/trailing.":        "trailing dot",
		"x/console.md":       "fine",
		"x/com10.md":         "fine",
		"x/\u212Bngstrom.md": "angstrom sign",
		"x/\u00C5ngstrom.md": "A ring",
		"x/plain.md":         "plain",
		"y/SKILL.md":         "---\nname: y\ndescription: d\n---\n",
		"y/README.md":        "another directory: no collision",
	}
	var order []string
	for p := range files {
		order = append(order, p)
	}
	writeTree(t, root, files, order, 0o644)
	if err := os.WriteFile(filepath.Join(base, "outside.txt"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(base, "outside.txt"), filepath.Join(root, "x", "linked.txt")); err != nil {
		t.Skipf("hard links not available: %v", err)
	}
	cat, ps, err := LoadDir(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if HasErrors(ps) || len(cat.Skills) != 2 {
		t.Fatalf("%d skills, problems %v", len(cat.Skills), strs(ps))
	}
	got := strings.Join(strs(ps), "\n")
	l := root + "/x/"
	for _, want := range []string{
		l + "linked.txt: warning: the file has 2 hard links",
		l + "caf\u00e9.md: warning: file name \"caf\\u00e9.md\" and \"cafe\\u0301.md\" in the same directory are one name under Unicode normalization (NFC)",
		l + "cafe\u0301.md: warning: file name \"cafe\\u0301.md\" and \"caf\\u00e9.md\" in the same directory are one name under Unicode normalization (NFC)",
		l + "README.md: warning: file name \"README.md\" and \"readme.md\" in the same directory differ only in letter case",
		l + "readme.md: warning: file name \"readme.md\" and \"README.md\" in the same directory differ only in letter case",
		l + "Docs: warning: directory name \"Docs\" and \"docs\" in the same directory differ only in letter case",
		l + "docs: warning: directory name \"docs\" and \"Docs\" in the same directory differ only in letter case",
		l + "\u212Bngstrom.md: warning: file name \"\\u212bngstrom.md\" and \"\\u00c5ngstrom.md\" in the same directory are one name under Unicode normalization",
		l + "con: warning: file name \"con\" is a device name reserved on Windows",
		l + "LPT1.md: warning: file name \"LPT1.md\" is a device name reserved on Windows",
		l + "aux.tar.gz: warning: file name \"aux.tar.gz\" is a device name reserved on Windows",
		l + "what?.md: warning: file name \"what?.md\" contains '?', which Windows does not allow",
		l + "trailing.: warning: file name \"trailing.\" ends in a dot or a space",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q", want)
		}
	}
	for _, fine := range []string{"console.md", "com10.md", "plain.md", "SKILL.md"} {
		if strings.Contains(got, l+fine+":") {
			t.Errorf("a warning about %s:\n%s", fine, got)
		}
	}
	if strings.Contains(got, root+"/y/") {
		t.Errorf("names in different directories collide:\n%s", got)
	}
	if t.Failed() {
		t.Logf("problems:\n%s", got)
	}
}
