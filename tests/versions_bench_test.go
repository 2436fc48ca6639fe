//go:build e2e && benchreport

package tests

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// The versions benchmark (issue item 5, size): the anthropics-shaped catalog of the store
// benchmark (writeRealisticCatalog) in a git repository with a generated history, built
// with its older versions kept (versions: {keep: 10}) and without (the same final tree, no
// versions section), and each measured: the build's time, the index, the Worker script and
// the assets, held to the Workers free plan; then, against `skilledge serve OUT`, reads of
// a pinned older version beside the same reads of the latest.
//
//	go test -tags 'e2e benchreport' -run VersionsReport -count=1 -timeout 30m ./tests/
//
// writes the versions section of BENCHMARKS.md. Nothing here fails on a timing; it fails
// when the catalog with its history does not fit the free plan.

const (
	histCommits = 50 // commits of the generated history, the first one included
	histKeep    = 10 // the policy's versions.keep
	histBuilds  = 5  // timed builds per side, the sides in turn, after one each unmeasured
	// Each throughput comparison: histRounds rounds of histRound per side, the
	// sides in turn (in reverse order every other round), after histWarm each. Short
	// rounds, many: this machine's throughput drifts by tens of percent from one second to
	// the next, and sides taken in quick turns see the same drift.
	histRounds = 12
	histRound  = 250 * time.Millisecond
	histWarm   = 250 * time.Millisecond
)

// Workers free plan limits (runtime/serving/limits.go has the same).
const (
	freeScript      = 3 << 20 // the script, gzipped
	freeAssets      = 20_000  // static asset files
	freeAssetMaxLen = 25 << 20
)

// versionedRepo is what writeVersionedRepo made.
type versionedRepo struct {
	repo, skills string // the repository and its skills folder (skills/)
	edits        int    // skill changes over the history (a skill a commit changed)
	first, last  time.Time
	// pinned is a skill (unversioned: its versions are named by date and digest) whose
	// last commit changed one script only, so that its newest older version has the same
	// SKILL.md and references as the latest.
	pinned                 string
	added, removed         string
	renamedFrom, renamedTo string
	addedAt, removedAt     int // commit numbers, from 1
	renamedAt, schemaAt    int
	fontAt                 int
	versioned, hot         []string
}

// editLines replaces one line of b at or after line from with a generated one and, every
// other time, appends a few lines: an edit as a person makes one.
func editLines(rnd *rand.Rand, b []byte, from int, prefix string) []byte {
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if from < len(lines) {
		lines[from+rnd.IntN(len(lines)-from)] = string(prose(rnd, 1, prefix))
	}
	out := strings.Join(lines, "")
	if rnd.IntN(2) == 0 {
		out += string(prose(rnd, 100+rnd.IntN(600), prefix))
	}
	return []byte(out)
}

// bodyStart is the line after a SKILL.md's frontmatter.
func bodyStart(md []byte) int {
	lines := strings.Split(string(md), "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i] == "---" {
			return i + 1
		}
	}
	return 0
}

var frontmatterVersion = regexp.MustCompile(`(?m)^version: (\d+)\.(\d+)\.(\d+)$`)

// bump raises the version of a SKILL.md's frontmatter: the minor one for a larger change,
// else the patch one. It returns the new version.
func bump(t *testing.T, path string, minor bool) string {
	md, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := frontmatterVersion.FindSubmatch(md)
	if m == nil {
		t.Fatalf("%s has no version", path)
	}
	x, _ := strconv.Atoi(string(m[1]))
	y, _ := strconv.Atoi(string(m[2]))
	z, _ := strconv.Atoi(string(m[3]))
	if minor {
		y, z = y+1, 0
	} else {
		z++
	}
	v := fmt.Sprintf("%d.%d.%d", x, y, z)
	md = frontmatterVersion.ReplaceAll(md, []byte("version: "+v))
	if err := os.WriteFile(path, md, 0o644); err != nil {
		t.Fatal(err)
	}
	return v
}

// filesUnder lists the files of dir/sub, relative to dir, sorted.
func filesUnder(t *testing.T, dir, sub string) []string {
	var out []string
	err := filepath.WalkDir(filepath.Join(dir, sub), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// writeVersionedRepo makes a git repository in repo whose folder skills/ holds the
// anthropics-shaped catalog and a history of histCommits commits, every one of them
// changing skills, the same on every machine (a fixed ChaCha8 seed, fixed names and dates):
//
//   - commit 1: the catalog, six of its skills with a frontmatter version (1.0.0), and the
//     policy file (versions: {keep: 10});
//   - then, each commit, one or two skills changed (two of them four times as often as the
//     rest): a line of SKILL.md's body replaced or text added, a reference or script
//     edited, a reference added or removed; a skill with a frontmatter version bumps it
//     (patch) with every change;
//   - one commit edits an XML schema that three skills ship identically, in all three; one
//     replaces a font; one adds a skill, one removes one, and one renames one (its folder
//     and its name, in one commit, as `git mv` and an edit do);
//   - the last commit changes one script of the pinned skill, and a SKILL.md of another.
func writeVersionedRepo(t *testing.T, repo string) *versionedRepo {
	v := &versionedRepo{
		repo: repo, skills: filepath.Join(repo, "skills"), pinned: "skill-07",
		added: "skill-16", removed: "skill-15", renamedFrom: "skill-12", renamedTo: "skill-twelve",
		schemaAt: 8, fontAt: 17, addedAt: 20, removedAt: 30, renamedAt: 38,
		hot: []string{"skill-00", "skill-07"},
	}
	if _, err := writeRealisticCatalog(v.skills); err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewChaCha8([32]byte{'h', 'i', 's', 't', 'o', 'r', 'y'}))
	skills := filepath.Join(repo, "skills")
	md := func(s string) string { return filepath.Join(skills, s, "SKILL.md") }
	var current []string
	for i := range 16 {
		current = append(current, fmt.Sprintf("skill-%02d", i))
	}
	versioned := map[string]bool{}
	for _, s := range current[:6] {
		versioned[s] = true
		b, err := os.ReadFile(md(s))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(md(s), bytes.Replace(b, []byte("license: Apache-2.0\n"), []byte("license: Apache-2.0\nversion: 1.0.0\n"), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeFile(filepath.Join(skills, "skilledge.yaml"), []byte(fmt.Sprintf("versions:\n  keep: %d\n", histKeep))); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(filepath.Join(repo, "README.md"), []byte("# Skills\n\nGenerated for skilledge's versions benchmark.\n")); err != nil {
		t.Fatal(err)
	}

	date := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	v.first = date
	git := func(args ...string) {
		t.Helper()
		stamp := date.Format(time.RFC3339)
		run(t, repo, append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=Skills Maintainer", "GIT_AUTHOR_EMAIL=skills@example.com", "GIT_AUTHOR_DATE="+stamp,
			"GIT_COMMITTER_NAME=Skills Maintainer", "GIT_COMMITTER_EMAIL=skills@example.com", "GIT_COMMITTER_DATE="+stamp),
			"git", args...)
	}
	git("init", "-q", "-b", "main")
	commit := func(msg string) {
		t.Helper()
		git("add", "-A")
		git("commit", "-q", "-m", msg)
		v.last = date
		date = date.Add(time.Duration(30+rnd.IntN(60)) * time.Hour)
	}
	commit("Add the skills")

	// change applies one or two edits to skill s and returns what they were.
	change := func(s string, only string) []string {
		dir := filepath.Join(skills, s)
		var did []string
		for range 1 + rnd.IntN(2) {
			op := rnd.IntN(10)
			if only != "" {
				op = -1
			}
			refs := filesUnder(t, dir, "reference")
			switch {
			case op >= 0 && op < 4: // SKILL.md's body
				b, err := os.ReadFile(md(s))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(md(s), editLines(rnd, b, bodyStart(b), "- "), 0o644); err != nil {
					t.Fatal(err)
				}
				did = append(did, "SKILL.md")
			case op == 8: // a new reference
				rel := fmt.Sprintf("reference/topic-%d.md", len(refs)+rnd.IntN(100))
				for slices.Contains(refs, rel) {
					rel = fmt.Sprintf("reference/topic-%d.md", len(refs)+rnd.IntN(100))
				}
				if err := writeFile(filepath.Join(dir, rel), prose(rnd, 2<<10+rnd.IntN(10<<10), "")); err != nil {
					t.Fatal(err)
				}
				did = append(did, rel+" added")
			case op == 9 && len(refs) > 3: // a reference dropped (never topic-0, the benchmark reads it)
				rel := refs[1+rnd.IntN(len(refs)-1)]
				if err := os.Remove(filepath.Join(dir, rel)); err != nil {
					t.Fatal(err)
				}
				did = append(did, rel+" removed")
			default: // a reference or a script edited
				files := append(refs, filesUnder(t, dir, "scripts")...)
				files = slices.DeleteFunc(files, func(f string) bool { return strings.Contains(f, "/schemas/") })
				rel := only
				if rel == "" {
					rel = files[rnd.IntN(len(files))]
				}
				b, err := os.ReadFile(filepath.Join(dir, rel))
				if err != nil {
					t.Fatal(err)
				}
				prefix := ""
				if strings.HasSuffix(rel, ".py") {
					prefix = "    "
				}
				if err := os.WriteFile(filepath.Join(dir, rel), editLines(rnd, b, 0, prefix), 0o644); err != nil {
					t.Fatal(err)
				}
				did = append(did, rel)
			}
			if only != "" {
				break
			}
		}
		slices.Sort(did)
		did = slices.Compact(did)
		if versioned[s] {
			did = append(did, "version "+bump(t, md(s), false))
		}
		v.edits++
		return did
	}
	// pick returns one or two skills, the hot ones weighted four times.
	pick := func(except ...string) []string {
		var pool []string
		for _, s := range current {
			if slices.Contains(except, s) {
				continue
			}
			n := 1
			if slices.Contains(v.hot, s) {
				n = 4
			}
			for range n {
				pool = append(pool, s)
			}
		}
		var out []string
		for range 1 + rnd.IntN(2) {
			if s := pool[rnd.IntN(len(pool))]; !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		slices.Sort(out)
		return out
	}
	describe := func(s string, did []string) string { return s + ": " + strings.Join(did, ", ") }

	for n := 2; n <= histCommits; n++ {
		switch n {
		case v.schemaAt:
			rel := "scripts/schemas/ooxml/part-05.xsd"
			b, err := os.ReadFile(filepath.Join(skills, "skill-00", rel))
			if err != nil {
				t.Fatal(err)
			}
			b = editLines(rnd, b, 0, `  <xsd:element name="x" type="`)
			var vs []string
			for _, s := range []string{"skill-00", "skill-01", "skill-02"} {
				if err := os.WriteFile(filepath.Join(skills, s, rel), b, 0o644); err != nil {
					t.Fatal(err)
				}
				vs = append(vs, s+" "+bump(t, md(s), true))
				v.edits++
			}
			commit("Schemas: part-05.xsd updated in the three document skills (" + strings.Join(vs, ", ") + ")")
		case v.fontAt:
			font := make([]byte, 60<<10+rnd.IntN(60<<10))
			for j := range font {
				font[j] = byte(rnd.Uint32())
			}
			if err := os.WriteFile(filepath.Join(skills, "skill-05", "fonts", "Family-03.ttf"), font, 0o644); err != nil {
				t.Fatal(err)
			}
			v.edits++
			commit("skill-05: Family-03.ttf replaced (version " + bump(t, md("skill-05"), true) + ")")
		case v.addedAt:
			dir := filepath.Join(skills, v.added)
			if err := writeFile(filepath.Join(dir, "SKILL.md"), append([]byte("---\nname: "+v.added+"\ndescription: A skill added later, which works with spreadsheets; use it when the user asks for a sheet.\nlicense: Apache-2.0\nversion: 0.1.0\n---\n\n"), prose(rnd, 6<<10, "- ")...)); err != nil {
				t.Fatal(err)
			}
			for k := range 3 {
				if err := writeFile(filepath.Join(dir, fmt.Sprintf("reference/topic-%d.md", k)), prose(rnd, 3<<10+rnd.IntN(8<<10), "")); err != nil {
					t.Fatal(err)
				}
			}
			if err := writeFile(filepath.Join(dir, "scripts/tool_0.py"), prose(rnd, 4<<10, "    ")); err != nil {
				t.Fatal(err)
			}
			current = append(current, v.added)
			versioned[v.added] = true
			v.edits++
			commit("Add " + v.added)
		case v.removedAt:
			if err := os.RemoveAll(filepath.Join(skills, v.removed)); err != nil {
				t.Fatal(err)
			}
			current = slices.DeleteFunc(current, func(s string) bool { return s == v.removed })
			v.edits++
			commit("Remove " + v.removed)
		case v.renamedAt:
			if err := os.Rename(filepath.Join(skills, v.renamedFrom), filepath.Join(skills, v.renamedTo)); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(md(v.renamedTo))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(md(v.renamedTo), bytes.Replace(b, []byte("name: "+v.renamedFrom+"\n"), []byte("name: "+v.renamedTo+"\n"), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			current[slices.Index(current, v.renamedFrom)] = v.renamedTo
			slices.Sort(current)
			v.edits++
			commit("Rename " + v.renamedFrom + " to " + v.renamedTo)
		case histCommits:
			other := pick(v.pinned)[0]
			msg := describe(v.pinned, change(v.pinned, "scripts/tool_0.py"))
			commit(msg + "; " + describe(other, change(other, "")))
		default:
			var msg []string
			for _, s := range pick() {
				msg = append(msg, describe(s, change(s, "")))
			}
			commit(strings.Join(msg, "; "))
		}
	}
	for s := range versioned {
		v.versioned = append(v.versioned, s)
	}
	slices.Sort(v.versioned)
	return v
}

// versionsBuild is one build of a side: what `skilledge build` and wrangler's dry run said
// and what they wrote.
type versionsBuild struct {
	d                   *deployment
	pack                []byte
	packGzipped         int
	scriptLine          string // the build's "Worker script: about … gzipped" figure
	scriptWrangler      float64
	assets              int
	assetBytes, largest int64
	// archives are the objects that are archives (.tar.gz, .zip) or their resources/read
	// form (base64 in a JSON string), told by their first bytes: the generated catalog
	// has no archive among its files.
	archives     int
	archiveBytes int64
	history      string // the build's history line, after "skilledge: history: "
}

var (
	buildScriptLine  = regexp.MustCompile(`Worker script: about (\S+ \S+) gzipped`)
	buildHistoryLine = regexp.MustCompile(`skilledge: history: (.*)`)
	historyCommits   = regexp.MustCompile(` from (\d+) commits;`)
)

// buildSide builds skills and has wrangler bundle it (deployVariant), and reads the sizes.
func buildSide(t *testing.T, v *variant, skills string) *versionsBuild {
	d := deployVariant(t, v, skills)
	b := &versionsBuild{d: d, scriptWrangler: scriptSize(t, d)}
	pack, err := os.ReadFile(filepath.Join(d.dir, "dist", "catalog.pack"))
	if err != nil {
		t.Fatal(err)
	}
	b.pack = pack
	b.packGzipped = gzippedSize(pack)
	m := buildScriptLine.FindStringSubmatch(d.output)
	if m == nil {
		t.Fatalf("no Worker script line in:\n%s", d.output)
	}
	b.scriptLine = m[1]
	if m := buildHistoryLine.FindStringSubmatch(d.output); m != nil {
		b.history = m[1]
	}
	b.assets, b.assetBytes = assetsSize(d)
	err = filepath.WalkDir(d.assets, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		b.largest = max(b.largest, fi.Size())
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		head := make([]byte, 5)
		n, _ := io.ReadFull(f, head)
		for _, magic := range []string{"\x1f\x8b", "PK\x03\x04", `"H4sI`, `"UEsD`} {
			if bytes.HasPrefix(head[:n], []byte(magic)) {
				b.archives++
				b.archiveBytes += fi.Size()
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fitsFreePlan fails t unless b deploys on the Workers free plan.
func fitsFreePlan(t *testing.T, name string, b *versionsBuild) {
	if b.scriptWrangler > freeScript>>10 {
		t.Errorf("%s: the Worker script is %.0f KiB gzipped (wrangler), over the free plan's 3 MiB", name, b.scriptWrangler)
	}
	if b.assets > freeAssets {
		t.Errorf("%s: %d assets, over the free plan's %d", name, b.assets, freeAssets)
	}
	if b.largest > freeAssetMaxLen {
		t.Errorf("%s: an asset of %d bytes, over 25 MiB", name, b.largest)
	}
	if strings.Contains(b.d.output, "warning: the Worker script") || strings.Contains(b.d.output, "warning: the content store") {
		t.Errorf("%s: the build warns of a Workers limit:\n%s", name, b.d.output)
	}
}

// versionsSide is one side of a throughput comparison: a server and the request it is sent.
type versionsSide struct {
	srv loadServer
	c   loadCase
}

// newSide asks srv c once with firstID and keeps the answer every later one must repeat.
func newSide(t *testing.T, srv loadServer, c loadCase) versionsSide {
	status, body, err := c.post(http.DefaultClient, srv.url, firstID)
	a, ok := splitAnswer(body)
	if err != nil || status != 200 || !ok || gjson.GetBytes(body, "error").Exists() {
		t.Fatalf("%s, %s: %d %v %.300s", srv.name, c.name, status, err, body)
	}
	srv.answers = map[string]answer{c.name: a}
	return versionsSide{srv, c}
}

// compareSides measures the sides at clients concurrent clients, in turn, and returns
// each one's figures.
func compareSides(t *testing.T, sides []versionsSide, clients int) []loadResult {
	r := make([]loadResult, len(sides))
	for _, s := range sides {
		measure(t, s.srv, s.c, clients, histWarm, &loadResult{})
	}
	for round := range histRounds {
		for i := range sides {
			k := i
			if round%2 == 1 {
				k = len(sides) - 1 - i
			}
			measure(t, sides[k].srv, sides[k].c, clients, histRound, &r[k])
		}
	}
	return r
}

// mcpMeta is the _meta of a 2026-07-28 request (loadCases').
const mcpMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func readCase(name, uri string) loadCase {
	return loadCase{name: name, method: "resources/read", uri: uri, rest: `,"method":"resources/read","params":{"uri":"` + uri + `",` + mcpMeta + `}}`}
}

func getCase(name, params string) loadCase {
	return loadCase{name: name, method: "skills/get", rest: `,"method":"skills/get","params":{` + params + `,` + mcpMeta + `}}`}
}

// resultOf posts c (a 2026-07-28 request, with its headers) and returns its result, failing
// t unless it is 200 and a result.
func resultOf(t *testing.T, url string, c loadCase) gjson.Result {
	status, body, err := c.post(http.DefaultClient, url, 1)
	r := gjson.GetBytes(body, "result")
	if err != nil || status != 200 || !r.Exists() {
		t.Fatalf("%s: %d %v %.300s", c.name, status, err, body)
	}
	return r
}

func pluralN(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// cpuBusy is the CPU time the whole machine spent so far (/proc/stat): user and system,
// and interrupts, which a process's own time (cpuTime) counts too when they land on it, as
// the loopback network's do.
func cpuBusy() time.Duration {
	b, _ := os.ReadFile("/proc/stat")
	f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
	var ticks int64
	for _, k := range []int{1, 2, 3, 6, 7} { // user, nice, system, irq, softirq
		if k < len(f) {
			n, _ := strconv.ParseInt(f[k], 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * time.Second / 100
}

func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], ", ")
}

// TestVersionsReport measures a catalog with its history beside the same catalog without,
// and writes the versions section of BENCHMARKS.md.
func TestVersionsReport(t *testing.T) {
	loadBefore := loadAverage()
	cli, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	v := &variant{name: "this tree", tree: repoRoot(t), cli: cli, cache: t.TempDir()}
	gen := writeVersionedRepo(t, t.TempDir())
	// The same final tree without the versions section: the policy file held nothing else.
	plain := t.TempDir()
	run(t, gen.repo, nil, "sh", "-c", "git archive HEAD:skills | tar -x -C "+plain)
	if err := os.Remove(filepath.Join(plain, "skilledge.yaml")); err != nil {
		t.Fatal(err)
	}
	var treeFiles int
	var treeBytes int64
	filepath.WalkDir(plain, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			treeFiles++
			fi, _ := e.Info()
			treeBytes += fi.Size()
		}
		return err
	})

	// Sizes, from the build and wrangler's dry run of each side.
	without := buildSide(t, v, plain)
	with := buildSide(t, v, gen.skills)
	if without.history != "" || with.history == "" {
		t.Fatalf("history lines: without %q, with %q", without.history, with.history)
	}
	if m := historyCommits.FindStringSubmatch(with.history); m == nil || m[1] != strconv.Itoa(histCommits) {
		t.Fatalf("the build read a history other than the %d commits made: %q", histCommits, with.history)
	}
	fitsFreePlan(t, "without history", without)
	fitsFreePlan(t, "with history", with)

	// Build time: each side built again, in turn (plugin.wasm comes from the cache both
	// warmed; the catalog is built anew every time).
	var builds [2][]time.Duration
	outs := t.TempDir()
	for i := range histBuilds {
		for k, dir := range []string{plain, gen.skills} {
			t0 := time.Now()
			run(t, outs, v.env(), cli, "build", dir, "-o", filepath.Join(outs, fmt.Sprintf("%d-%d", k, i)))
			builds[k] = append(builds[k], time.Since(t0))
		}
	}
	for k := range builds {
		slices.Sort(builds[k])
	}
	// Memory: the peak of `skilledge validate` on each side, in turn (issue 38: it held
	// every blob of the history it read; the target is at most twice the side without).
	var peaks [2][]int64
	for range histBuilds {
		for k, dir := range []string{plain, gen.skills} {
			cmd := exec.Command(cli, "validate", dir)
			cmd.Env = v.env()
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("validate %s: %v\n%s", dir, err, out)
			}
			peaks[k] = append(peaks[k], cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss<<10)
		}
	}
	for k := range peaks {
		slices.Sort(peaks[k])
	}

	// Throughput: serve each output, and the one with history again without replays.
	outWithout := filepath.Join(without.d.dir, "dist")
	outWith := filepath.Join(with.d.dir, "dist")
	serveOf := func(name, out string, args ...string) loadServer {
		addr, cmd := startProcess(t, name, exec.Command(cli, append([]string{"serve", out, "--addr", "127.0.0.1:0"}, args...)...), servingLine)
		return loadServer{name: name, url: addr, pid: cmd.Process.Pid}
	}
	type mode struct {
		name          string
		without, with loadServer
	}
	modes := []mode{
		{"`serve`", serveOf("serve, without history", outWithout), serveOf("serve, with history", outWith)},
		{"`serve --replays 0`", serveOf("serve --replays 0, without history", outWithout, "--replays", "0"), serveOf("serve --replays 0, with history", outWith, "--replays", "0")},
	}

	// The pinned version: the pinned skill's newest older one, whose SKILL.md and
	// reference/topic-0.md are the latest's bytes.
	latestMD := "skill://" + gen.pinned + "/SKILL.md"
	got := resultOf(t, modes[0].with.url, getCase("skills/get", `"uri":"`+latestMD+`"`))
	kept := got.Get(`_meta.io\.github\.skilledge/versions`).Array()
	if len(kept) < 2 {
		t.Fatalf("%s keeps %d versions: %s", gen.pinned, len(kept), got.Raw)
	}
	latestV, pinnedV := kept[0].Get("version").Str, kept[1].Get("version").Str
	pinnedMD := kept[1].Get("uri").Str
	// The latest is named at its own version path or at its skill's.
	if u := kept[0].Get("uri").Str; u != latestMD && !strings.Contains(u, "/@"+latestV+"/") || !strings.Contains(pinnedMD, "/@"+pinnedV+"/") {
		t.Fatalf("unexpected versions of %s: %s", gen.pinned, got.Raw)
	}
	ref := "reference/topic-0.md"
	latestRef := strings.TrimSuffix(latestMD, "SKILL.md") + ref
	pinnedRef := strings.TrimSuffix(pinnedMD, "SKILL.md") + ref
	sizes := map[string]int{}
	for _, pair := range [][2]string{{latestMD, pinnedMD}, {latestRef, pinnedRef}} {
		a := resultOf(t, modes[0].with.url, readCase("read", pair[0])).Get("contents.0.text").Str
		b := resultOf(t, modes[0].with.url, readCase("read", pair[1])).Get("contents.0.text").Str
		if a == "" || a != b {
			t.Fatalf("%s and %s differ (%d and %d bytes): the pinned reads would not be of the same files", pair[0], pair[1], len(a), len(b))
		}
		sizes[pair[0]] = len(a)
	}

	// What the history made of the renamed skill: the versions it keeps.
	renamedKept := len(resultOf(t, modes[0].with.url, getCase("skills/get", `"uri":"skill://`+gen.renamedTo+`/SKILL.md"`)).
		Get(`_meta.io\.github\.skilledge/versions`).Array())

	requests := []struct {
		name                   string
		without, latest, older loadCase
	}{
		{fmt.Sprintf("`resources/read` SKILL.md (%s)", byteSize(sizes[latestMD])),
			readCase("md", latestMD), readCase("md", latestMD), readCase("md", pinnedMD)},
		{fmt.Sprintf("`resources/read` %s (%s)", ref, byteSize(sizes[latestRef])),
			readCase("ref", latestRef), readCase("ref", latestRef), readCase("ref", pinnedRef)},
		{"`skills/get {uri}`",
			getCase("get", `"uri":"`+latestMD+`"`), getCase("get", `"uri":"`+latestMD+`"`), getCase("get", `"uri":"`+pinnedMD+`"`)},
		{"`skills/get {name, version}`",
			getCase("byname", `"name":"`+gen.pinned+`"`), getCase("byname", `"name":"`+gen.pinned+`","version":"`+latestV+`"`), getCase("byname", `"name":"`+gen.pinned+`","version":"`+pinnedV+`"`)},
	}

	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (%d CPUs), %s, workerd %s; load average %s at the start.\n",
		time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), runtime.Version(), workerdVersion(t), loadBefore)
	fmt.Fprintf(&b, "The catalog is the store benchmark's anthropics-shaped one (%d files, %s at the end) in a git repository with a\n", treeFiles, mibf(treeBytes))
	fmt.Fprintf(&b, "generated history of %d commits (%s to %s, %d skill changes): edits to SKILL.md bodies, references and\n",
		histCommits, gen.first.Format("2006-01-02"), gen.last.Format("2006-01-02"), gen.edits)
	fmt.Fprintf(&b, "scripts, references added and removed, %d skills bumping a frontmatter `version` with each change (the others'\n", len(gen.versioned))
	b.WriteString("versions are named by date and digest), two skills changed four times as often as the rest, an XML schema three\n")
	fmt.Fprintf(&b, "skills ship edited in all three (commit %d), a font replaced (%d), a skill added (%d), one removed (%d) and one\n",
		gen.schemaAt, gen.fontAt, gen.addedAt, gen.removedAt)
	fmt.Fprintf(&b, "renamed (%d: its folder and its name in one commit). **with history** builds it with `versions: {keep: %d}`;\n", gen.renamedAt, histKeep)
	b.WriteString("**without** is the same final tree with no versions section. The build said of the history:\n")
	b.WriteString("\"" + with.history + "\".\n\n")

	b.WriteString("| | without history | with history | with ÷ without |\n|---|---|---|---|\n")
	fmt.Fprintf(&b, "| `skilledge build`, median (min–max) of %d | %s (%s–%s) | %s (%s–%s) | %.2f× |\n", histBuilds,
		ms(quantile(builds[0], 0.5)), ms(builds[0][0]), ms(builds[0][len(builds[0])-1]),
		ms(quantile(builds[1], 0.5)), ms(builds[1][0]), ms(builds[1][len(builds[1])-1]),
		float64(quantile(builds[1], 0.5))/float64(quantile(builds[0], 0.5)))
	fmt.Fprintf(&b, "| `skilledge validate`, peak memory (max RSS), median (min–max) of %d | %s (%s–%s) | %s (%s–%s) | %.2f× |\n", histBuilds,
		mibf(peaks[0][len(peaks[0])/2]), mibf(peaks[0][0]), mibf(peaks[0][len(peaks[0])-1]),
		mibf(peaks[1][len(peaks[1])/2]), mibf(peaks[1][0]), mibf(peaks[1][len(peaks[1])-1]),
		float64(peaks[1][len(peaks[1])/2])/float64(peaks[0][len(peaks[0])/2]))
	fmt.Fprintf(&b, "| `catalog.pack` | %s | %s | %.2f× |\n", byteSize(len(without.pack)), byteSize(len(with.pack)), float64(len(with.pack))/float64(len(without.pack)))
	fmt.Fprintf(&b, "| `catalog.pack`, gzipped | %s | %s | %.2f× |\n", byteSize(without.packGzipped), byteSize(with.packGzipped), float64(with.packGzipped)/float64(without.packGzipped))
	fmt.Fprintf(&b, "| Worker script, gzipped: the build's estimate | about %s | about %s | |\n", without.scriptLine, with.scriptLine)
	fmt.Fprintf(&b, "| Worker script, gzipped: wrangler's figure (free plan: 3 MiB) | %.2f MiB | %.2f MiB | %.2f× |\n",
		without.scriptWrangler/1024, with.scriptWrangler/1024, with.scriptWrangler/without.scriptWrangler)
	fmt.Fprintf(&b, "| assets (free plan: 20,000 files) | %d files, %s | %d files, %s | %.2f×, %.2f× |\n",
		without.assets, mibf(without.assetBytes), with.assets, mibf(with.assetBytes),
		float64(with.assets)/float64(without.assets), float64(with.assetBytes)/float64(without.assetBytes))
	fmt.Fprintf(&b, "| of them, archives (`.tar.gz`, `.zip`) and their `resources/read` form | %d files, %s | %d files, %s | %.2f×, %.2f× |\n",
		without.archives, mibf(without.archiveBytes), with.archives, mibf(with.archiveBytes),
		float64(with.archives)/float64(without.archives), float64(with.archiveBytes)/float64(without.archiveBytes))
	fmt.Fprintf(&b, "| the largest asset (free plan: 25 MiB) | %s | %s | |\n\n", byteSize(int(without.largest)), byteSize(int(with.largest)))
	b.WriteString("Both fit the Workers free plan (the program fails when either does not). A file that versions share is one\n")
	b.WriteString("object, but each kept version has archives of its own, which hold every file of the version again.\n")
	fmt.Fprintf(&b, "The renamed skill (%s, once %s) keeps %s", gen.renamedTo, gen.renamedFrom, pluralN(renamedKept, "version"))
	if renamedKept == 1 {
		b.WriteString(": a skill's history follows it to a new folder only when\n")
		b.WriteString("the move changes none of its files, and a rename changes the name in its SKILL.md, so the history reads a\n")
		b.WriteString("removal and an addition.\n\n")
	} else {
		b.WriteString(", its history followed across the rename.\n\n")
	}

	fmt.Fprintf(&b, "Reads of a pinned version beside the same reads of the latest, against `skilledge serve OUT`: %s, a skill\n", gen.pinned)
	fmt.Fprintf(&b, "whose last commit changed one script, so that its newest older version (`@%s`) has the latest's\n", pinnedV)
	fmt.Fprintf(&b, "SKILL.md and %s byte for byte; `skills/get {name, version}` names the latest version\n", ref)
	fmt.Fprintf(&b, "(%s) or that one. %d clients on keep-alive connections, 2026-07-28 requests each with an id of its own\n", latestV, manyClients)
	fmt.Fprintf(&b, "(every answer checked), %d rounds of %v per side, the sides in turn (the order reversed every other round),\n", histRounds, histRound)
	fmt.Fprintf(&b, "after %v of warm-up each: the load benchmark's client and driver, in short rounds because this machine's\n", histWarm)
	b.WriteString("throughput drifts by tens of percent from one second to the next. The latest is read from the catalog without\n")
	b.WriteString("history too. Each cell: requests per second, p50 and p99 latency, and the server's CPU time per request; the last\n")
	b.WriteString("column divides the pinned side's throughput by the latest's, and its CPU time a request by the latest's. The\n")
	b.WriteString("issue's bar: a pinned read at ≥ 0.9× the latest's throughput.\n\n")
	// The CPU time other processes took while the reads were measured: the machine's
	// busy time less this process's (the clients) and the servers'.
	pids := []int{os.Getpid()}
	for _, m := range modes {
		pids = append(pids, m.without.pid, m.with.pid)
	}
	mine := func() time.Duration {
		var d time.Duration
		for _, pid := range pids {
			d += cpuTime(pid)
		}
		return d
	}
	busy0, mine0, start := cpuBusy(), mine(), time.Now()
	worst := 10.0
	for _, m := range modes {
		fmt.Fprintf(&b, "%s:\n\n", m.name)
		b.WriteString("| request | latest, without history | latest, with history | pinned `@VERSION` | pinned ÷ latest: throughput (CPU) |\n|---|---|---|---|---|\n")
		for _, rq := range requests {
			sides := []versionsSide{newSide(t, m.without, rq.without), newSide(t, m.with, rq.latest), newSide(t, m.with, rq.older)}
			r := compareSides(t, sides, manyClients)
			ratio := r[2].rps() / r[1].rps()
			worst = min(worst, ratio)
			cpu := (float64(r[2].cpu) / float64(r[2].requests)) / (float64(r[1].cpu) / float64(r[1].requests))
			fmt.Fprintf(&b, "| %s | %s | %s | %s | **%.2f×** (%.2f×) |\n", rq.name, authCell(&r[0]), authCell(&r[1]), authCell(&r[2]), ratio, cpu)
			t.Logf("%s, %s: %.2f×", m.name, rq.name, ratio)
		}
		b.WriteString("\n")
	}
	others := max(0, (cpuBusy()-busy0)-(mine()-mine0))
	elapsed := time.Since(start)
	held := "held in every row"
	if worst < 0.9 {
		held = "did not hold in every row"
	}
	fmt.Fprintf(&b, "The lowest pinned ÷ latest is %.2f×: the bar of 0.9× %s. Other processes than this program's\n", worst, held)
	fmt.Fprintf(&b, "took %.0f%% of the machine's CPU time while the reads were measured (%v of %v on %d CPUs).\n",
		100*others.Seconds()/(elapsed.Seconds()*float64(runtime.NumCPU())), others.Round(100*time.Millisecond), elapsed.Round(time.Second), runtime.NumCPU())
	writeReport(t, "versions", b.String())
}
