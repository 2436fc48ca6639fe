package pull

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skilledge/skilledge/catalog/archive"
)

// TestReplaceSkill: a skill is replaced whole, and a write that fails half-way (a file
// name the file system refuses, after other files were written) leaves the old skill as
// it was and no temporary folder behind.
func TestReplaceSkill(t *testing.T) {
	dir := t.TempDir()
	old := []archive.File{{Name: "SKILL.md", Data: []byte("old")}, {Name: "ref/gone.md", Data: []byte("gone")}}
	if _, err := replaceSkill(dir, "alpha", old); err != nil {
		t.Fatal(err)
	}
	n, err := replaceSkill(dir, "alpha", []archive.File{{Name: "SKILL.md", Data: []byte("new!")}})
	if err != nil || n != 4 {
		t.Fatalf("replace: %d %v", n, err)
	}
	if got := tree(t, dir); !reflect.DeepEqual(got, map[string]string{"alpha/SKILL.md": "new!"}) {
		t.Fatalf("after a replace: %v", got)
	}
	bad := []archive.File{{Name: "SKILL.md", Data: []byte("newer")}, {Name: "a/" + strings.Repeat("x", 300), Data: []byte("x")}}
	if _, err := replaceSkill(dir, "alpha", bad); err == nil {
		t.Fatal("a file name of 300 bytes was written")
	}
	if got := tree(t, dir); !reflect.DeepEqual(got, map[string]string{"alpha/SKILL.md": "new!"}) {
		t.Fatalf("after a failed replace: %v", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("a temporary folder is left: %v", ents)
	}
	if err := removeSkill(dir, "alpha"); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("removeSkill left %v", ents)
	}
	if _, err := os.Stat(filepath.Join(dir, "alpha")); !os.IsNotExist(err) {
		t.Fatal("alpha is still there")
	}
}

// TestExchangeByRenames: the fallback of systems without an atomic exchange swaps two
// folders.
func TestExchangeByRenames(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for p, data := range map[string]string{"a/f": "new", "b/f": "old"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(data), 0o644)
	}
	if err := exchangeByRenames(a, b); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, dir); !reflect.DeepEqual(got, map[string]string{"a/f": "old", "b/f": "new"}) {
		t.Fatalf("after the exchange: %v", got)
	}
}

// replaceSkill writes files as DIR/NAME as a pull does, one skill alone: writeTemp, then
// swapIn. On failure the old skill is left as it was.
func replaceSkill(dir, name string, files []archive.File) (int64, error) {
	tmp, n, err := writeTemp(dir, name, files)
	if err != nil {
		return 0, err
	}
	if err := swapIn(dir, name, tmp); err != nil {
		os.RemoveAll(tmp)
		return 0, err
	}
	return n, nil
}
