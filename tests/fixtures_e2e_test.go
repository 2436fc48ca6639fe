//go:build e2e

package tests

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// loadCatalog writes the load benchmark's catalog (the base of the hostile suite's and the
// soak's too): the examples, a skill with a 10-byte file
// and one with a 3 MiB binary.
func loadCatalog(t *testing.T) string {
	dir := t.TempDir()
	src := filepath.Join(repoRoot(t), "catalog", "examples", "skills")
	err := filepath.WalkDir(src, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		return writeFile(filepath.Join(dir, rel), b)
	})
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 3<<20)
	rand.NewChaCha8([32]byte{'l', 'o', 'a', 'd'}).Read(big)
	for rel, data := range map[string][]byte{
		"tiny/SKILL.md": []byte("---\nname: tiny\ndescription: A skill with a ten-byte file.\n---\nRead ten.txt.\n"),
		"tiny/ten.txt":  []byte("0123456789"),
		"big/SKILL.md":  []byte("---\nname: big\ndescription: A skill with a 3 MiB binary.\n---\nRead data.bin.\n"),
		"big/data.bin":  big,
	} {
		if err := writeFile(filepath.Join(dir, rel), data); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
