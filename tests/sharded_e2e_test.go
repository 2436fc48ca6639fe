//go:build e2e

package tests

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/skilledge/skilledge/catalog"
)

// shardFlags build a sharded index of shards as small as the cuts allow, so that a case
// reads several and its host fetches each as the plugin asks (edge/wire, "Need").
const shardFlags = "--shard 1"

// exampleDeploymentSharded is exampleDeployment built with shardFlags.
var exampleDeploymentSharded = sync.OnceValues(func() (*deployment, error) {
	return deployFolderWith(filepath.Join(repoRoot(nil), "catalog", "examples", "skills"), shardFlags)
})

// requireSharded fails t unless d's index is sharded, with every index nested in it (each
// view's, read from the store, the older versions') a sharded root too: a test of a private catalog or of
// versions on shards that ran on a whole index would prove nothing.
func requireSharded(t *testing.T, d *deployment) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(d.assets), "catalog.pack"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := catalog.OpenWith(b, func(r catalog.Ref) ([]byte, error) {
		return os.ReadFile(filepath.Join(d.assets, catalog.StoreDir, r.Name))
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	nested := []*catalog.Pack{p, p.Versions()}
	for _, v := range p.Views() {
		nested = append(nested, v.Listed, v.All, v.Versions)
	}
	for i, q := range nested {
		if q != nil && !q.Sharded() {
			t.Fatalf("index %d of %d (the root, its versions, each view's listed, all and versions) is not sharded", i, len(nested))
		}
	}
	if p.Versions() == nil && len(p.Views()) == 0 {
		t.Fatal("the catalog has neither versions nor views")
	}
}

// shardedDeployment is the deployment of a case folder (nil: the examples) with shardFlags.
func shardedDeployment(t *testing.T, skills *caseSkills) *deployment {
	if skills == nil {
		d, err := exampleDeploymentSharded()
		if err != nil {
			failOrSkip(t, err)
		}
		return d
	}
	return caseDeploymentWith(t, skills, shardFlags)
}

// TestCasesShardedHosts runs every protocol case against a sharded deployment in workerd
// and on Deno, Bun and Node: each host fetches the shards its plugin asks for from its
// store (the Worker from its static assets, the others from OUT/assets) and answers as
// the whole index does, byte for byte.
func TestCasesShardedHosts(t *testing.T) {
	options := func(o []byte) string {
		if s := strings.TrimSpace(string(o)); s != "" {
			return s
		}
		return "{}"
	}
	t.Run("workerd", func(t *testing.T) {
		runCases(t, func(t *testing.T, o []byte, skills *caseSkills) target {
			return workerTarget{workerdFor(t, shardedDeployment(t, skills), options(o))[0]}
		}, false)
	})
	for _, rt := range jsRuntimes {
		t.Run(rt.name, func(t *testing.T) {
			runCases(t, func(t *testing.T, o []byte, skills *caseSkills) target {
				d := shardedDeployment(t, skills)
				return runtimeTarget{workerTarget{startRuntime(t, rt, withSDK(t, d), options(o))}, rt}
			}, false)
		})
	}
}

// TestShardedCatalogDeploys: the example catalog with its index sharded as finely as the
// cuts allow (every listing and lookup reads shards the Worker fetches from its assets)
// passes the README's deploy dry run, and the Worker serves it, in workerd and under
// wrangler dev (Cloudflare's own asset layer), to the conformance suite's every scenario
// with no FAILURE but the baselined, the Inspector's skills/list --verify on both eras,
// and every well-known artifact matching its digest.
func TestShardedCatalogDeploys(t *testing.T) {
	d := shardedDeployment(t, nil)
	if !strings.Contains(d.output, "--dry-run: exiting now.") {
		t.Fatalf("wrangler did not finish its dry run:\n%s", d.output)
	}
	suite := conformanceSuite(t)
	baseline := filepath.Join(repoRoot(t), "tests", "conformance", "expected-failures.yml")
	w := workerdFor(t, d, deployedOptions(t), "{}")
	servers := []struct{ name, base, private string }{
		{"workerd", w[0], w[1]},
		{"wrangler-dev", wranglerDev(t, d), ""},
	}
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			for _, run := range conformanceRuns {
				url := srv.base + "/mcp"
				if run.scenario == "dns-rebinding-protection" {
					if srv.private == "" {
						continue // wrangler dev serves wrangler.toml's options, every Host allowed
					}
					url = srv.private + "/mcp"
				}
				t.Run(run.scenario+"/"+strings.Join(run.args, "_"), func(t *testing.T) {
					conformanceRun(t, suite, baseline, url, run.scenario, run.args)
				})
			}
			for _, era := range []string{"legacy", "modern"} {
				t.Run("inspector/"+era, func(t *testing.T) { inspectList(t, srv.base+"/mcp", era, 6) })
			}
			t.Run("well-known", func(t *testing.T) {
				if n := checkWellKnown(t, srv.base); n < 15 {
					t.Fatalf("checked %d well-known artifacts", n)
				}
			})
		})
	}
}
