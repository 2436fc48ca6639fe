//go:build e2e

package tests

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// packFlags build the examples sharded as finely as the cuts allow, with their objects in
// packs of about 4 KiB: every file, form, archive and document a host splices is read by
// range from a pack, and checked.
const packFlags = shardFlags + " --pack 4096"

// exampleDeploymentPacked is exampleDeployment built with packFlags.
var exampleDeploymentPacked = sync.OnceValues(func() (*deployment, error) {
	return deployFolderWith(filepath.Join(repoRoot(nil), "catalog", "examples", "skills"), packFlags)
})

// packedDeployment is the deployment of a case folder (nil: the examples) with packFlags.
func packedDeployment(t *testing.T, skills *caseSkills) *deployment {
	if skills == nil {
		d, err := exampleDeploymentPacked()
		if err != nil {
			failOrSkip(t, err)
		}
		return d
	}
	return caseDeploymentWith(t, skills, packFlags)
}

// TestCasesPackedHosts runs every protocol case against a packed deployment on Deno, Bun
// and Node, which read packed objects by range from OUT/packs: the same answers, byte for
// byte. (workerd alone has no R2; TestPackedCatalogDeploys serves the Worker under
// wrangler dev, with its local R2.)
func TestCasesPackedHosts(t *testing.T) {
	for _, rt := range jsRuntimes {
		t.Run(rt.name, func(t *testing.T) {
			runCases(t, func(t *testing.T, o []byte, skills *caseSkills) target {
				d := packedDeployment(t, skills)
				if !strings.Contains(d.output, "packed: a Worker reads them from R2") {
					t.Fatalf("this case's catalog is not packed:\n%s", d.output)
				}
				opts := strings.TrimSpace(string(o))
				if opts == "" {
					opts = "{}"
				}
				return runtimeTarget{workerTarget{startRuntime(t, rt, withSDK(t, d), opts)}, rt}
			}, false)
		})
	}
}

// TestPackedRepeatsHosts: on Deno, Bun, Node and `skilledge serve OUT`, every file of a
// packed catalog read twice answers alike, the second time from what the host kept of the
// first (a replay). One file is larger than the host's object cache keeps (64 KiB), so that
// its repeat reads its pack again: a replay that lost a reference's pack (as one did) reads
// it as an asset, a 500.
func TestPackedRepeatsHosts(t *testing.T) {
	large := strings.Repeat("a line of the large reference, packed with the others\n", 2000)
	skills := skillsFolder(map[string]string{
		"big/SKILL.md":         "---\nname: big\ndescription: A skill with a reference larger than a host's object cache keeps.\n---\n\nRead reference.md.\n",
		"big/reference.md":     large,
		"small/SKILL.md":       "---\nname: small\ndescription: A skill of one small file.\n---\n\nNothing more.\n",
		"small/scripts/run.sh": "#!/bin/sh\necho small\n",
	})
	d := packedDeployment(t, skills)
	if !strings.Contains(d.output, "packed: a Worker reads them from R2") {
		t.Fatalf("the catalog was not packed:\n%s", d.output)
	}
	for _, rt := range jsRuntimes {
		t.Run(rt.name, func(t *testing.T) {
			readsTwice(t, startRuntime(t, rt, withSDK(t, d), "{}")+"/mcp")
		})
	}
	// The harness too: `skilledge serve OUT` reads the same packs (its replays once kept a
	// reference's pack as a view of the plugin's memory, which the next answer overwrote).
	t.Run("serve", func(t *testing.T) { readsTwice(t, serve(t, filepath.Dir(d.assets))) })
}

// TestPackedCatalogDeploys: the packed examples deploy as the build says, with the R2
// binding of the root wrangler.toml uncommented and each pack uploaded by the command the
// build printed (to wrangler's local R2 rather than the account's), and the Worker under
// wrangler dev serves them to the conformance suite's every scenario with no FAILURE but
// the baselined, the Inspector's skills/list --verify on both eras, every well-known
// artifact matching its digest, and every protocol case served from the examples
// (casesUnderWranglerDev). The assets are the index's parts alone.
func TestPackedCatalogDeploys(t *testing.T) {
	d := packedDeployment(t, nil)
	if !strings.Contains(d.output, "--dry-run: exiting now.") {
		t.Fatalf("wrangler did not finish its dry run:\n%s", d.output)
	}
	uploads := packUploads(d.output)
	if len(uploads) < 10 {
		t.Fatalf("the build printed %d pack uploads:\n%s", len(uploads), d.output)
	}
	// The assets are the index's parts (as many as the sharded build's without packs, other
	// bytes: their references name packs), and none of its objects.
	assets, err := os.ReadDir(filepath.Join(d.assets, "sha256"))
	unpacked, err2 := os.ReadDir(filepath.Join(shardedDeployment(t, nil).assets, "sha256"))
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	// The examples' 13 files, each twice, their 6 skills' archives, twice, and documents.
	if packed := len(unpacked) - len(assets); packed < 50 {
		t.Errorf("%d asset files packed, %d not: %d objects left the assets", len(assets), len(unpacked), packed)
	}
	base := wranglerDevPacked(t, d, uploads)
	conformanceUnderWranglerDev(t, base)
	for _, era := range []string{"legacy", "modern"} {
		t.Run("inspector/"+era, func(t *testing.T) { inspectList(t, base+"/mcp", era, 6) })
	}
	t.Run("well-known", func(t *testing.T) {
		if n := checkWellKnown(t, base); n < 15 {
			t.Fatalf("checked %d well-known artifacts", n)
		}
	})
	t.Run("repeats", func(t *testing.T) { readsTwice(t, base+"/mcp") })
	t.Run("cases", func(t *testing.T) { casesUnderWranglerDev(t, d) })
}

// casesUnderWranglerDev runs every protocol case served from the examples (a case with a
// folder of its own is another catalog: TestCasesPackedHosts runs those on packed builds)
// against the packed examples d under wrangler dev, its packs in local R2 already: one
// wrangler dev for each set of options the cases give, with those options (none: {}) in
// place of wrangler.toml's. The answers are the want sections, as on every host.
func casesUnderWranglerDev(t *testing.T, d *deployment) {
	eachCaseOptions(t, d, func(t *testing.T, _ string, files []string, base string) {
		runCaseFiles(t, files, func(t *testing.T, _ []byte, _ *caseSkills) target { return workerTarget{base} }, false)
	})
}

// eachCaseOptions calls do for each group of casesByOptions, in a subtest named by the
// options (none: {}), with the group's files and the base URL of a wrangler dev of the
// deployment d that serves those options in place of wrangler.toml's. Its cases share that
// one Worker, and so its isolate: an answer that depended on an earlier case's would show.
func eachCaseOptions(t *testing.T, d *deployment, do func(t *testing.T, options string, files []string, base string)) {
	groups := casesByOptions(t)
	for _, options := range slices.Sorted(maps.Keys(groups)) {
		name := cmp.Or(options, "{}")
		t.Run(name, func(t *testing.T) { do(t, name, groups[options], wranglerDevOptions(t, d, name)) })
	}
}

// readsTwice reads every resource the MCP endpoint url lists, then every one again by a
// request that differs only in its id, and fails unless both answer it alike: the second
// is the one a host answers from what it kept of the first (a replay), whose references
// must still name their packs. (The JavaScript host's replays once dropped them, which
// only an object too large for its object cache shows, as TestPackedRepeatsHosts's large
// file; the harness's kept a view of the plugin's memory as the pack's name.)
func readsTwice(t *testing.T, url string) {
	t.Helper()
	call := func(id int, method, params string) []byte {
		return post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	}
	var uris []string
	for cursor := ""; ; {
		params := "{}"
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		var page struct {
			Result struct {
				Resources  []struct{ URI string }
				NextCursor string
			}
		}
		if err := json.Unmarshal(call(1, "resources/list", params), &page); err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Result.Resources {
			uris = append(uris, r.URI)
		}
		if cursor = page.Result.NextCursor; cursor == "" {
			break
		}
	}
	if len(uris) < 4 {
		t.Fatalf("%d resources listed", len(uris))
	}
	// Every read once, then every one again: a repeat comes after other answers, which the
	// plugin wrote where the first one's had been.
	first := make([][]byte, len(uris))
	for i, u := range uris {
		if first[i] = call(1, "resources/read", fmt.Sprintf(`{"uri":%q}`, u)); !bytes.Contains(first[i], []byte(`"contents"`)) {
			t.Fatalf("%s: %.300s", u, first[i])
		}
	}
	for i, u := range uris {
		again := call(2, "resources/read", fmt.Sprintf(`{"uri":%q}`, u))
		if !bytes.Equal(bytes.Replace(again, []byte(`"id":2`), []byte(`"id":1`), 1), first[i]) {
			t.Fatalf("%s read again: %.200s, first %.200s", u, again, first[i])
		}
	}
}

// packUploads are the uploads of packs a build printed, each the command without its
// --remote.
func packUploads(output string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^  (npx --prefix build wrangler r2 object put skilledge-packs/sha256/[0-9a-f]{64} --file \S+) --remote$`).FindAllStringSubmatch(output, -1) {
		out = append(out, m[1])
	}
	return out
}

// wranglerDevPacked serves the packed deployment d under wrangler dev, as DEPLOY.md says
// to deploy it: the root wrangler.toml's R2 binding uncommented, and each pack uploaded
// by the command the build printed, to wrangler's local R2 rather than the account's. It
// returns the server's base URL.
func wranglerDevPacked(t *testing.T, d *deployment, uploads []string) string {
	t.Helper()
	toml, err := os.ReadFile(filepath.Join(d.dir, "wrangler.toml"))
	if err != nil {
		t.Fatal(err)
	}
	bound := strings.NewReplacer("# [[r2_buckets]]", "[[r2_buckets]]", `# binding = "SKILLEDGE_PACKS"`, `binding = "SKILLEDGE_PACKS"`, `# bucket_name = "skilledge-packs"`, `bucket_name = "skilledge-packs"`).Replace(string(toml))
	if bound == string(toml) {
		t.Fatal("the root wrangler.toml has no R2 binding to uncomment")
	}
	os.Remove(filepath.Join(d.dir, "wrangler.toml")) // a link to the repository's
	if err := os.WriteFile(filepath.Join(d.dir, "wrangler.toml"), []byte(bound), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, u := range uploads {
		cmd := exec.Command("sh", "-c", u+" --local")
		cmd.Dir = d.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s --local: %v\n%s", u, err, out)
		}
	}
	return wranglerDev(t, d)
}

// conformanceUnderWranglerDev runs every conformance scenario against the Worker wrangler
// dev serves at base, each with no FAILURE but the baselined; all but the DNS-rebinding
// one, since wrangler dev serves wrangler.toml's options, every Host allowed.
func conformanceUnderWranglerDev(t *testing.T, base string) {
	suite := conformanceSuite(t)
	baseline := filepath.Join(repoRoot(t), "tests", "conformance", "expected-failures.yml")
	for _, run := range conformanceRuns {
		if run.scenario == "dns-rebinding-protection" {
			continue
		}
		t.Run(run.scenario+"/"+strings.Join(run.args, "_"), func(t *testing.T) {
			conformanceRun(t, suite, baseline, base+"/mcp", run.scenario, run.args)
		})
	}
}

// casesByOptions groups the protocol cases served from the example catalog (those with
// no skills/ sections of their own) by their options section, verbatim ("" for none):
// a server that takes its options as it starts serves each group with one start.
func casesByOptions(t *testing.T) map[string][]string {
	groups := map[string][]string{}
	for _, file := range caseFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		ar := parseTxtar(data)
		if skillsOf(ar) != nil {
			continue
		}
		options := ""
		if s := ar.get("options"); s != nil {
			options = string(bytes.TrimSpace(s.data))
		}
		groups[options] = append(groups[options], file)
	}
	return groups
}
