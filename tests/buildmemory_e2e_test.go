//go:build e2e

package tests

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBuildMemory: `skilledge build` streams large files: its peak memory is a small
// multiple of the largest file, not of the catalog. Four skills of an 18 MiB incompressible
// file each (72 MiB, every object under the 25 MiB asset limit) once took about a gigabyte:
// every file, its base64 form and both archives with theirs, all held until written.
func TestBuildMemory(t *testing.T) {
	cli, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	const fileSize = 18 << 20
	skills := t.TempDir()
	rnd := rand.NewChaCha8([32]byte{'m', 'e', 'm'})
	data := make([]byte, fileSize)
	for i := range 4 {
		name := fmt.Sprint("big", i)
		rnd.Read(data)
		if err := writeFile(filepath.Join(skills, name, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: One large file.\n---\n")); err != nil {
			t.Fatal(err)
		}
		if err := writeFile(filepath.Join(skills, name, "data.bin"), data); err != nil {
			t.Fatal(err)
		}
	}
	// runPeak reads the build's own high-water mark (VmHWM): the Go toolchain a cold cache
	// runs for the plugin is a child of its own, and a child's rusage would count the
	// memory of the test binary that forked it.
	out := filepath.Join(t.TempDir(), "out")
	b, peak, err := runPeak(exec.Command(cli, "build", skills, "-o", out, "--allow-oversize"))
	if err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	objects, err := os.ReadDir(filepath.Join(out, "assets", "sha256"))
	if err != nil || len(objects) < 4*6 {
		t.Fatalf("%d objects (%v)", len(objects), err)
	}
	t.Logf("peak RSS %.1f MiB for a catalog of 4 files of %d MiB", float64(peak)/(1<<20), fileSize>>20)
	if limit := int64(2*fileSize + 64<<20); peak > limit {
		t.Fatalf("build peaked at %.1f MiB of memory, over %d MiB (twice the largest file and 64 MiB)", float64(peak)/(1<<20), limit>>20)
	}
}
