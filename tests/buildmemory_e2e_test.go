//go:build e2e

package tests

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
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
	// The peak of a process counts its waited-for children: on a machine whose cache does
	// not yet hold the plugin this catalog ships, build runs the Go toolchain for it, and
	// the linker alone peaks over the limit. A small catalog of the same kind (public)
	// builds that plugin first, so the figure below is the catalog build's own.
	small := t.TempDir()
	if err := writeFile(filepath.Join(small, "one", "SKILL.md"), []byte("---\nname: one\ndescription: One small file.\n---\n")); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(cli, "build", small, "-o", filepath.Join(t.TempDir(), "out")).CombinedOutput(); err != nil {
		t.Fatalf("build of a small catalog: %v\n%s", err, b)
	}
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(cli, "build", skills, "-o", out, "--allow-oversize")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	objects, err := os.ReadDir(filepath.Join(out, "assets", "sha256"))
	if err != nil || len(objects) < 4*6 {
		t.Fatalf("%d objects (%v)", len(objects), err)
	}
	t.Logf("peak RSS %.1f MiB for a catalog of 4 files of %d MiB", float64(peak)/(1<<20), fileSize>>20)
	if limit := int64(2*fileSize + 64<<20); peak > limit {
		t.Fatalf("build peaked at %.1f MiB of memory, over %d MiB (twice the largest file and 64 MiB)", float64(peak)/(1<<20), limit>>20)
	}
}
