//go:build e2e && benchreport

package tests

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/examples"
	"github.com/skilledge/skilledge/edge"
	"github.com/skilledge/skilledge/edge/wire"
)

// TestEdgeScaleDeploys deploys the 50,000-skill catalog (writeScaleCatalog) as the README
// and DEPLOY.md say, built by `skilledge build` with its defaults (the index sharded, the
// objects packed): wrangler's dry run bundles the Worker within the free plan's script
// size and reads its assets, within the free plan's file count; the packs go to wrangler's
// local R2 by the commands the build printed; and the Worker under wrangler dev serves
// every conformance scenario with no FAILURE but the baselined, the Inspector's
// skills/list --verify on both eras (every skill listed, its files verified as far as the Inspector's read bounds go), and well-known artifacts that match
// their digests (every 500th skill's). The example catalog is in the folder too, and the
// protocol cases served from it are asked of the Worker, one wrangler dev for each set of
// options they give: every answer is the one the edge gives in process over the same
// folder built whole (compareCases), the cases' want sections being the examples' alone.
// It writes what it measured to BENCHMARKS.md, "The edge at scale, deployed". About
// five minutes; run by hand (go test -tags 'e2e benchreport' -run EdgeScaleDeploys).
func TestEdgeScaleDeploys(t *testing.T) {
	const scaleSkills = 50000
	folder := filepath.Join(t.TempDir(), "skills")
	if err := writeScaleCatalog(folder, scaleSkills); err != nil {
		t.Fatal(err)
	}
	// And, listed first, a skill with a subdirectory, which the conformance suite's
	// directory scenario reads (the generated skills are a SKILL.md each).
	for name, text := range map[string]string{
		"a-reference/SKILL.md":           "---\nname: a-reference\ndescription: Read the reference notes before answering questions about the catalog.\n---\nSee reference/notes.md.\n",
		"a-reference/reference/notes.md": "# Notes\n\nThe catalog is generated.\n",
	} {
		if err := writeFile(filepath.Join(folder, filepath.FromSlash(name)), []byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	// And the example catalog, whose protocol cases then run on this one (below).
	if err := os.CopyFS(folder, examples.FS); err != nil {
		t.Fatal(err)
	}
	enc, err := exampleBuild()
	if err != nil {
		t.Fatal(err)
	}
	ex, err := catalog.Open(enc.Index)
	if err != nil {
		t.Fatal(err)
	}
	skills := scaleSkills + 1 + ex.NumSkills()
	defer func(was time.Duration) { blockTimeout = was }(blockTimeout)
	blockTimeout = 30 * time.Minute // the build of 50,000 skills takes minutes
	start := time.Now()
	d, err := deployFolderWith(folder, "")
	if err != nil {
		t.Fatal(err)
	}
	built := time.Since(start)
	if !strings.Contains(d.output, "--dry-run: exiting now.") {
		t.Fatalf("wrangler did not finish its dry run:\n%s", d.output)
	}
	find := func(re string) []string {
		m := regexp.MustCompile(re).FindStringSubmatch(d.output)
		if m == nil {
			t.Fatalf("no %s in the deploy's output:\n%s", re, d.output)
		}
		return m
	}
	upload := find(`Total Upload: ([0-9.]+) KiB / gzip: ([0-9.]+) KiB`)
	assets := find(`Read (\d+) files from the assets directory`)
	packs := find(`packs/sha256/  ([0-9.]+ [KMG]iB) in (\d+) packs`)
	var gz float64
	fmt.Sscan(upload[2], &gz)
	var files int
	fmt.Sscan(assets[1], &files)
	if gz > 3*1024 || files > 20000 {
		t.Errorf("the script is %.2f KiB gzipped, the assets %d files: over the free plan", gz, files)
	}
	uploads := packUploads(d.output)
	start = time.Now()
	base := wranglerDevPacked(t, d, uploads)
	uploaded := time.Since(start)

	conformanceUnderWranglerDev(t, base)
	verified := map[string]int{}
	for _, era := range []string{"legacy", "modern"} {
		t.Run("inspector/"+era, func(t *testing.T) { verified[era] = inspectCatalog(t, base+"/mcp", era, skills) })
	}
	checked := 0
	t.Run("well-known", func(t *testing.T) {
		get := func(path string) []byte {
			status, _, b := httpGet(t, base, path)
			if status != 200 {
				t.Fatalf("GET %s: %d", path, status)
			}
			return b
		}
		index := get("/.well-known/agent-skills/index.json")
		list := gjson.GetBytes(index, "skills").Array()
		if len(list) != skills {
			t.Fatalf("the index lists %d skills", len(list))
		}
		for i := 0; i < len(list); i += 500 {
			s := list[i]
			if got := digestOf(get("/.well-known/agent-skills/" + s.Get("url").Str)); got != s.Get("digest").Str {
				t.Errorf("%s hashes to %s, the index says %s", s.Get("url").Str, got, s.Get("digest").Str)
			}
			checked++
		}
	})
	if t.Failed() {
		return
	}
	// The protocol cases served from the examples, asked of this catalog: the answers are
	// the reference's, the edge in process over the same folder built whole.
	ref, problems, err := compile.LoadDir(folder, compile.Options{})
	if err != nil || compile.HasErrors(problems) {
		t.Fatal(err, fmtProblems(problems))
	}
	whole, err := compile.Encode(ref)
	if err != nil {
		t.Fatal(err)
	}
	p, err := catalog.Open(whole.Index)
	if err != nil || p.Sharded() {
		t.Fatalf("the reference's index is sharded or does not open: %v", err)
	}
	ran, answered, cases, groups := 0, 0, 0, 0
	t.Run("cases", func(t *testing.T) {
		eachCaseOptions(t, d, func(t *testing.T, options string, files []string, base string) {
			opt, err := wire.ParseOptions([]byte(options))
			if err != nil {
				t.Fatal(err)
			}
			r, a := compareCases(t, files, inProcess{edge.New(p, opt), whole.Store}, workerTarget{base})
			if a == 0 {
				t.Errorf("of %d exchanges under %s, none answered 200 without an error: the comparison shows nothing", r, options)
			}
			ran, answered, cases, groups = ran+r, answered+a, cases+len(files), groups+1
		})
	})
	if t.Failed() {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s: %s generated skills (writeScaleCatalog) and the %d of the example catalog, built by `skilledge build` with its defaults and deployed as DEPLOY.md says\n", time.Now().UTC().Format("2006-01-02"), thousands(scaleSkills+1), ex.NumSkills())
	fmt.Fprintf(&b, "(\"Large catalogs\"), under wrangler dev with its local R2 in place of the account's.\n\n")
	b.WriteString("| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| the Worker's script (`wrangler deploy --dry-run`) | %s KiB, %s KiB gzipped (free plan: 3 MiB) |\n", upload[1], upload[2])
	fmt.Fprintf(&b, "| its asset files (the index's shards and chunks) | %s (free plan: 20,000) |\n", thousands(files))
	fmt.Fprintf(&b, "| objects in R2 (the packs) | %s, %s |\n", packs[2], packs[1])
	fmt.Fprintf(&b, "| the build and dry run | %s |\n", built.Round(time.Second))
	fmt.Fprintf(&b, "| the packs' uploads (`wrangler r2 object put --local`) and wrangler dev's start | %s |\n", uploaded.Round(time.Second))
	fmt.Fprintf(&b, "| conformance scenarios, no FAILURE but the baselined | %d |\n", len(conformanceRuns)-1)
	fmt.Fprintf(&b, "| the Inspector's `skills/list --verify` (it lists every skill, and reads files up to its bounds) | %s skills listed, %d files verified (legacy), %d (modern) |\n", thousands(skills), verified["legacy"], verified["modern"])
	fmt.Fprintf(&b, "| well-known artifacts checked against their digests | %d |\n", checked)
	fmt.Fprintf(&b, "| the protocol cases served from the examples (%d, under %d sets of options), their HTTP exchanges asked of this catalog: the same answers as the edge in process over the folder built whole | %d exchanges, %d answered 200 without an error |\n", cases, groups, ran, answered)
	writeReport(t, "edgescaledeploy", b.String())
}

// inspectCatalog runs the Inspector's skills/list --verify against url in era, on a catalog
// larger than its read bounds: it must list all n skills, fail none, and verify every
// file it read; it may stop reading (exit 8, a skill's outcome "incomplete"). It returns
// how many files it verified.
func inspectCatalog(t *testing.T, url, era string, n int) int {
	code, stdout, stderr := inspectorCLI(t, url, era, "--method", "skills/list", "--verify")
	if code != 0 && code != 8 {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	files := 0
	for _, line := range lines {
		r := gjson.Parse(line)
		if o := r.Get("outcome").Str; !r.Get("ok").Bool() || o != "verified" && o != "incomplete" {
			t.Fatalf("skill %s: %.500s", r.Get("uri").Str, line)
		}
		for _, f := range r.Get("files").Array() {
			if f.Get("status").Str != "verified" {
				t.Fatalf("file %s: %s", f.Get("uri").Str, f.Raw)
			}
			files++
		}
	}
	if len(lines) != n || files == 0 {
		t.Fatalf("listed %d skills, want %d; verified %d files\n%s", len(lines), n, files, stderr)
	}
	t.Log(strings.TrimSpace(stderr))
	return files
}

// compareCases asks ref and got every http exchange of the case files, in order, and fails
// where got's answer is not ref's (compared as got normalises them, if it does): the cases'
// requests put to a catalog other than the one their want sections were written for, the
// reference saying what the answers are. Each request's $CURSOR and $ETAG come from the
// answers before it, the same from both when they agree; a file's exchanges stop at its
// first difference (the rest would follow from it), the next file's go on. It returns how
// many exchanges ran, and how many of them were answered 200 with no JSON-RPC error in the
// body (of a batch or a stream either).
func compareCases(t *testing.T, files []string, ref, got target) (ran, answered int) {
	same := bytes.Equal
	if n, ok := got.(normalizer); ok {
		same = func(a, b []byte) bool { return bytes.Equal(n.normalize(a), n.normalize(b)) }
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		ar := parseTxtar(data)
		cursor, etag := "", ""
	exchanges:
		for i := range ar.sections {
			sec := &ar.sections[i]
			if sec.name != "http" || unsupported(got, sec) != "" || unsupported(ref, sec) != "" {
				continue
			}
			frame := requestFrame(sec.data, cursor, etag)
			want, have := ref.HTTP(t, frame), got.HTTP(t, frame)
			checkFrame(t, have)
			ran++
			if !same(have, want) {
				t.Errorf("%s: http exchange %d:\nrequest:\n%s\ngot:\n%.2000s\nthe reference answered:\n%.2000s", file, i, frame, have, want)
				break exchanges
			}
			if r, err := wire.ParseResponse(want); err == nil && r.Status == 200 && !jsonRPCError.Match(r.Body) {
				answered++
			}
			cursor, etag = carried(want, cursor, etag)
		}
	}
	return ran, answered
}

// jsonRPCError finds a JSON-RPC error object in a body, whole, in a batch or in a stream's
// events.
var jsonRPCError = regexp.MustCompile(`"error"\s*:\s*\{`)
