//go:build e2e && benchreport

package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestEdgeScaleColdReport measures cache-cold reads on the Worker at scale: the
// generated catalogs of 1,000, 10,000 and 50,000 skills (writeScaleCatalog), built as
// `skilledge build` does but with their objects as assets (--pack never: workerd alone has
// no R2), each served by its Worker in a workerd of its own, in turn, with reads of SKILL.md
// files picked at random by each request's id, as the load-cold section's are. The reads
// spread over at most 2,000 skills, every n/2,000th, so that they reach every shard of the
// index (the Worker keeps 16 MiB of them) while the answers the harness checks stay few.
// It writes the edge-at-scale-cold section of BENCHMARKS.md, each catalog's rate beside the
// 1,000-skill catalog's. Nothing here fails on a timing.
func TestEdgeScaleColdReport(t *testing.T) {
	type row struct {
		skills  int
		srv     loadServer
		c       loadCase
		results [2]loadResult // one client, manyClients
	}
	var rows []*row
	defer func(was time.Duration) { blockTimeout = was }(blockTimeout)
	blockTimeout = 30 * time.Minute // the build of 50,000 skills, and wrangler reading its 350,000 assets, take minutes
	for _, n := range []int{1000, 10000, 50000} {
		folder := filepath.Join(t.TempDir(), "skills")
		if err := writeScaleCatalog(folder, n); err != nil {
			t.Fatal(err)
		}
		d, err := deployFolderWith(folder, "--pack never")
		if err != nil {
			t.Fatal(err)
		}
		config, err := workerdConfig(t.TempDir(), d, []string{deployedOptions(t)})
		if err != nil {
			t.Fatal(err)
		}
		r := &row{skills: n, srv: workerdServer(t, fmt.Sprintf("%d skills", n), config)}
		uris, err := scaleSkillURIs(folder)
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, len(uris)/2000)
		var spread []string
		for i := 0; i < len(uris); i += step {
			spread = append(spread, uris[i])
		}
		r.c = loadCase{name: "cache-cold read", method: "resources/read", spread: spread}
		r.srv.expectSpread(t, r.c, coldAnswers(t, r.srv, r.c))
		rows = append(rows, r)
	}
	for k, clients := range []int{1, manyClients} {
		for _, r := range rows {
			measure(t, r.srv, r.c, clients, loadWarm, &loadResult{})
		}
		for range loadRounds {
			for _, r := range rows {
				measure(t, r.srv, r.c, clients, loadRound, &r.results[k])
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (%d CPUs), %s, workerd %s: %d rounds of %v per Worker and client count, in turn. Each\n",
		time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), runtime.Version(), workerdVersion(t), loadRounds, loadRound)
	b.WriteString("request reads the SKILL.md its id picks, at random, among those of every n/2,000th skill.\n\n")
	fmt.Fprintf(&b, "| catalog | reads spread over | 1 client | ÷ 1,000 | %d clients | ÷ 1,000 |\n|---|---|---|---|---|---|\n", manyClients)
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s skills | %s SKILL.md files |", thousands(r.skills), thousands(len(r.c.spread)))
		for k := range r.results {
			res := &r.results[k]
			fmt.Fprintf(&b, " %.0f rps; p50 %s, p99 %s | %.2f× |", res.rps(), latency(res.q(0.5)), latency(res.q(0.99)), res.rps()/rows[0].results[k].rps())
		}
		b.WriteString("\n")
	}
	writeReport(t, "edgescalecold", b.String())
}

// scaleSkillURIs are the URIs of the SKILL.md files of the skills folder dir (one folder a
// skill, as writeScaleCatalog writes it), sorted.
func scaleSkillURIs(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var uris []string
	for _, e := range ents {
		if e.IsDir() {
			uris = append(uris, "skill://"+e.Name()+"/SKILL.md")
		}
	}
	return uris, nil
}
