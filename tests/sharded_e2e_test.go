//go:build e2e

package tests

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// shardFlags build a sharded index of shards as small as the cuts allow, so that a case
// reads several and its host fetches each as the plugin asks (edge/wire, "Need").
const shardFlags = "--shard 1"

// exampleDeploymentSharded is exampleDeployment built with shardFlags.
var exampleDeploymentSharded = sync.OnceValues(func() (*deployment, error) {
	return deployFolderWith(filepath.Join(repoRoot(nil), "catalog", "examples", "skills"), shardFlags)
})

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
