//go:build e2e && benchreport

package tests

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// The pull benchmark (issue 30, "Fast"): `skilledge pull` of the store benchmark's
// anthropics-shaped catalog (writeRealisticCatalog, about 10 MB) from a local
// `skilledge serve`, cold (an empty folder) and up to date (a second pull, which
// downloads nothing), by the well-known index and archives and over MCP, beside `git
// clone` of the same folder from a local repository (file://, --no-local, so git packs
// and sends the objects as it would over a network) and `git pull` of an up-to-date
// clone: what a person installing skills from a repository does today.
//
//	go test -tags 'e2e benchreport' -run PullReport -count=1 -timeout 30m ./tests/
//
// writes the pull section of BENCHMARKS.md. Nothing here fails on a timing.

// pullRuns is how many times each command is timed, the sides in turn, after one
// unmeasured run each.
const pullRuns = 7

// TestPullReport measures the pulls and clones and writes the pull section.
func TestPullReport(t *testing.T) {
	loadBefore := loadAverage()
	work := t.TempDir()
	src := filepath.Join(work, "repo")
	total, err := writeRealisticCatalog(src)
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	filepath.WalkDir(src, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return nil
	})
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = gitEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git(src, "init", "-q", "-b", "main")
	git(src, "add", "-A")
	git(src, "commit", "-q", "-m", "the catalog")
	mcp := serve(t, src)
	base := strings.TrimSuffix(mcp, "/mcp")
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	run := func(dir string, name string, args ...string) time.Duration {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = gitEnv()
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return d
	}
	type side struct {
		name string
		cold func(dir string) time.Duration // into the empty folder dir
		warm func(dir string) time.Duration // dir as cold left it
	}
	sides := []side{
		{"`skilledge pull URL` (well-known index and archives)",
			func(dir string) time.Duration { return run(work, bin, "pull", base, dir, "--allow-http-loopback") },
			func(dir string) time.Duration { return run(work, bin, "pull", base, dir, "--allow-http-loopback") }},
		{"`skilledge pull URL/mcp` (skills/list, resources/read)",
			func(dir string) time.Duration { return run(work, bin, "pull", mcp, dir, "--allow-http-loopback") },
			func(dir string) time.Duration { return run(work, bin, "pull", mcp, dir, "--allow-http-loopback") }},
		{"`git clone` / `git pull` (baseline)",
			func(dir string) time.Duration {
				return run(work, "git", "clone", "-q", "--no-local", "file://"+src, dir)
			},
			func(dir string) time.Duration { return run(dir, "git", "pull", "-q", "--ff-only") }},
	}
	cold := make([][]time.Duration, len(sides))
	warm := make([][]time.Duration, len(sides))
	n := 0
	for round := 0; round <= pullRuns; round++ {
		for i, s := range sides {
			dir := filepath.Join(work, fmt.Sprintf("out-%d", n))
			n++
			c := s.cold(dir)
			w := s.warm(dir)
			if round > 0 {
				cold[i] = append(cold[i], c)
				warm[i] = append(warm[i], w)
			}
			os.RemoveAll(dir)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (%d CPUs), %s; load average %s at the start.\n",
		time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), runtime.Version(), loadBefore)
	fmt.Fprintf(&b, "The catalog is the store benchmark's anthropics-shaped one: %d files, %s, served by `skilledge serve` on\n", files, mibf(total))
	b.WriteString("loopback; the same folder committed to a git repository is the baseline's. Median (min–max) of\n")
	fmt.Fprintf(&b, "%d runs of each command, the sides in turn, each run into a new folder, the process's whole wall time.\n\n", pullRuns)
	b.WriteString("| | cold (an empty folder) | up to date (nothing to download) |\n|---|---|---|\n")
	for i, s := range sides {
		slices.Sort(cold[i])
		slices.Sort(warm[i])
		fmt.Fprintf(&b, "| %s | %s (%s–%s) | %s (%s–%s) |\n", s.name,
			ms(quantile(cold[i], 0.5)), ms(cold[i][0]), ms(cold[i][len(cold[i])-1]),
			ms(quantile(warm[i], 0.5)), ms(warm[i][0]), ms(warm[i][len(warm[i])-1]))
	}
	b.WriteString("\nEvery pull checks each artifact or file against its SHA-256 before writing, writes each skill to a temporary\n")
	b.WriteString("folder and swaps it in, and writes `skills.lock`; an up-to-date pull reads the index (or `skills/list`) and\n")
	b.WriteString("each installed file once, to find local edits. The clone checks git's own object hashes, which the publisher's\n")
	b.WriteString("catalog does not vouch for.\n")
	writeReport(t, "pull", b.String())
}
