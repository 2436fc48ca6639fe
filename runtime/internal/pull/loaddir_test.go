package pull_test

import (
	"github.com/skilledge/skilledge/runtime/internal/pull"
	"github.com/skilledge/skilledge/runtime/internal/pull/loaddir"
)

// The tests read folders and git repositories with the loader the CLI gives pull; an
// external test package, since loaddir imports pull.
func init() { pull.SetDefaultLoadFolder(loaddir.Load) }
