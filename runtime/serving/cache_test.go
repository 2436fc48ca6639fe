package serving

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildCache: serving a skills folder builds it once; the next start finds the build
// of the same content and says so, and a changed file makes a new build that serves it.
func TestBuildCache(t *testing.T) {
	cache, dir := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, "one", "SKILL.md"), "---\nname: one\ndescription: First.\n---\nVersion 1.\n")
	in := `{"jsonrpc":"2.0","id":1,"method":"skills/get","params":{"name":"one"}}` + "\n"
	expect := func(opt BuildOptions, wantOut, wantLog string) string {
		t.Helper()
		stdout, log := stdioLines(t, cache, dir, opt, in)
		if !strings.Contains(stdout, wantOut) || !strings.Contains(log, wantLog) {
			t.Fatalf("stdout: %s\n(want %q)\nlog: %s\n(want %q)", stdout, wantOut, log, wantLog)
		}
		return log
	}
	if log := expect(BuildOptions{}, `"instructions":"Version 1.\n"`, ""); strings.Contains(log, "reusing") {
		t.Fatalf("first start reused a build: %s", log)
	}
	expect(BuildOptions{}, `"instructions":"Version 1.\n"`, "reusing the build of "+dir+" from ")
	// Same size, new bytes, old mtime: the content decides, not the file's metadata.
	p := filepath.Join(dir, "one", "SKILL.md")
	fi, _ := os.Stat(p)
	writeFile(t, p, "---\nname: one\ndescription: First.\n---\nVersion 2.\n")
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	if log := expect(BuildOptions{}, `"instructions":"Version 2.\n"`, ""); strings.Contains(log, "reusing") {
		t.Fatalf("a changed folder reused the old build: %s", log)
	}
	// Other options are another build.
	if log := expect(BuildOptions{TrustRoot: "https://skills.example.com/"}, `"instructions":"Version 2.\n"`, ""); strings.Contains(log, "reusing") {
		t.Fatalf("a build with another trust root was reused: %s", log)
	}

	// A cached build missing an object is built again, not refused.
	matches, _ := filepath.Glob(filepath.Join(cache, folderKey(dir, BuildOptions{}), "assets", "sha256", "*"))
	if len(matches) == 0 {
		t.Fatal("no cached objects")
	}
	for _, m := range matches {
		os.Remove(m)
	}
	expect(BuildOptions{}, `"instructions":"Version 2.\n"`, "is incomplete (")
	expect(BuildOptions{}, `"instructions":"Version 2.\n"`, "reusing the build of ")
}
