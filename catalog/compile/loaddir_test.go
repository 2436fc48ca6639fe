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

// TestLoadDirSymlinks: links on disk, read through os.Root. A link to a file of its own
// skill is served as that file; one leading anywhere else (a file of no skill, another
// skill's file, out of the folder by a relative or absolute path or through a linked
// directory) is an error naming both paths; a link to a directory, or to nothing, is a
// warning and not served.
func TestLoadDirSymlinks(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "skills")
	writeTree(t, root, map[string]string{
		"x/SKILL.md":    "---\nname: x\ndescription: d\n---\n",
		"y/SKILL.md":    "---\nname: y\ndescription: d\n---\n",
		"y/own/doc.md":  "own doc",
		"shared/doc.md": "shared doc",
		"shared/sub/f":  "f",
	}, []string{"x/SKILL.md", "y/SKILL.md", "y/own/doc.md", "shared/doc.md", "shared/sub/f"}, 0o644)
	if err := os.WriteFile(filepath.Join(base, "secret.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	x, y := filepath.Join(root, "x"), filepath.Join(root, "y")
	symlink(t, "../shared/doc.md", filepath.Join(x, "shared.md"))
	symlink(t, "../y/own/doc.md", filepath.Join(x, "other.md"))
	symlink(t, "../../secret.txt", filepath.Join(x, "out.md"))
	symlink(t, filepath.Join(base, "secret.txt"), filepath.Join(x, "abs.md"))
	symlink(t, "../shared", filepath.Join(x, "dir"))
	symlink(t, "dir/../../secret.txt", filepath.Join(x, "through-dir.md"))
	symlink(t, "own/doc.md", filepath.Join(y, "in.md"))
	symlink(t, "in.md", filepath.Join(y, "chain.md"))
	symlink(t, "own", filepath.Join(y, "dir"))
	symlink(t, "nothing", filepath.Join(y, "broken.md"))
	symlink(t, base, filepath.Join(root, "outside-dir")) // not in a skill: ignored

	cat, ps, err := LoadDir(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	why := ": a link is served to whoever may see its skill (x), so it may lead only to a file of that skill; copy the file in if it belongs there, or remove the link"
	l := root + "/x/"
	equalStrings(t, "problems", strs(ps), []string{
		l + "abs.md: symbolic link to " + base + "/secret.txt, outside the folder" + why,
		l + "dir: warning: symbolic link to a directory; not followed",
		l + "other.md: symbolic link to " + root + "/y/own/doc.md, a file of skill y" + why,
		l + "out.md: symbolic link to " + root + "/../secret.txt, outside the folder" + why,
		l + "shared.md: symbolic link to " + root + "/shared/doc.md, which is in no skill" + why,
		l + "through-dir.md: symbolic link to " + root + "/../secret.txt, outside the folder" + why,
		root + "/y/broken.md: warning: broken symbolic link; not served",
		root + "/y/dir: warning: symbolic link to a directory; not followed",
	})
	if len(cat.Skills) != 1 || cat.Skills[0].Path != "y" {
		t.Fatalf("skills %v", paths(cat))
	}
	var got []string
	for _, f := range cat.Skills[0].Files {
		got = append(got, f.Path+" "+string(f.Data))
	}
	equalStrings(t, "files", got, []string{
		"y/SKILL.md ---\nname: y\ndescription: d\n---\n",
		"y/chain.md own doc",
		"y/in.md own doc",
		"y/own/doc.md own doc",
	})
}

// TestLoadDirLinkOutOfSkill: the leak of a scoped file through a public skill, on disk:
// `ln -s ../../finance/ledger/secret.txt pub/notes/leak.txt` in a folder whose policy
// scopes finance/ is an error naming the link and the file, and with SkipInvalid the
// public skill is left out rather than served with the ledger in it.
func TestLoadDirLinkOutOfSkill(t *testing.T) {
	root := filepath.Join(t.TempDir(), "skills")
	writeTree(t, root, map[string]string{
		PolicyFile:                  "access:\n  rules:\n    - path: finance/\n      scopes: [skills:finance]\n",
		"finance/ledger/SKILL.md":   "---\nname: ledger\ndescription: d\n---\n",
		"finance/ledger/secret.txt": "the ledger",
		"pub/SKILL.md":              "---\nname: pub\ndescription: d\n---\n",
		"pub/notes/own.txt":         "pub's own",
	}, []string{PolicyFile, "finance/ledger/SKILL.md", "finance/ledger/secret.txt", "pub/SKILL.md", "pub/notes/own.txt"}, 0o644)
	symlink(t, "../../finance/ledger/secret.txt", filepath.Join(root, "pub", "notes", "leak.txt"))
	symlink(t, "own.txt", filepath.Join(root, "pub", "notes", "same.txt")) // within its skill: served

	leak := root + "/pub/notes/leak.txt: symbolic link to " + root + "/finance/ledger/secret.txt, a file of skill finance/ledger: " +
		"a link is served to whoever may see its skill (pub), so it may lead only to a file of that skill; copy the file in if it belongs there, or remove the link"
	for _, skip := range []bool{false, true} {
		cat, ps, err := LoadDir(root, Options{SkipInvalid: skip})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{leak}
		if skip {
			want = []string{root + "/pub/SKILL.md: warning: skipped, not served: " + strings.TrimPrefix(leak, root+"/pub/notes/leak.txt: "), leak}
		}
		equalStrings(t, "problems", strs(ps), want)
		equalStrings(t, "skills", paths(cat), []string{"finance/ledger"})
	}
	if err := os.Remove(filepath.Join(root, "pub", "notes", "leak.txt")); err != nil {
		t.Fatal(err)
	}
	cat, ps, err := LoadDir(root, Options{})
	if err != nil || len(ps) != 0 {
		t.Fatalf("without the leaking link: %v %v", err, strs(ps))
	}
	equalStrings(t, "skills", paths(cat), []string{"finance/ledger", "pub"})
	var files []string
	for _, f := range cat.Skills[1].Files {
		files = append(files, f.Path+" "+string(f.Data))
	}
	equalStrings(t, "pub's files", files, []string{"pub/SKILL.md ---\nname: pub\ndescription: d\n---\n", "pub/notes/own.txt pub's own", "pub/notes/same.txt pub's own"})
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
// modes (but the execute bit), from two places: the catalogs must be equal.
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
	os.Chmod(filepath.Join(two, "b", "z.txt"), 0o664)

	c1, p1, err1 := LoadDir(one, Options{})
	c2, p2, err2 := LoadDir(two, Options{})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !reflect.DeepEqual(c1, c2) {
		t.Error("catalogs differ")
	}
	// Of a file's mode only the execute bit is kept: a script stays one.
	os.Chmod(filepath.Join(two, "b", "z.txt"), 0o750)
	c3, _, err := LoadDir(two, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range c3.Skills {
		for _, f := range s.Files {
			if f.Exec != (f.Path == "b/z.txt") {
				t.Errorf("%s: Exec %v", f.Path, f.Exec)
			}
		}
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
