package serving

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skilledge/skilledge/catalog/compile"
)

// misplacedPolicy looks for a policy file (skilledge.yaml) that a newcomer put beside
// the skills folder dir rather than in it: when dir has none, in each folder above it up
// to the root of the git work tree that holds it (the one with .git; no further, and not
// at all outside a work tree). skilledge reads the file only in the skills folder, so
// such a file's access policy would not apply: the catalog would be public. It returns
// an error naming the file and where it belongs, or nil.
//
// Why does a `skilledge.yaml` above the skills folder stop the build, rather than be read?
// The skills-repository layout puts its deploy files at the repository's root, so that is
// where a newcomer writes skilledge.yaml; skilledge read it only in the skills folder and
// said nothing, so its access: policy was ignored and a private catalog was served to
// every caller. So every command that loads the folder stops, naming the file and where
// it belongs.
// Rejected: reading it there too (two places for one file, and a repository with several
// skills folders would share a policy none of them names), and a warning (a served catalog
// that should be private is the failure, not a remark about it). Above the work tree, or
// outside one, nothing is looked at: those folders are not the repository's.
func misplacedPolicy(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, compile.PolicyFile)); !errors.Is(err, fs.ErrNotExist) {
		return nil // the folder has its own (or it cannot be told: the load says why)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil {
		return nil // the folder is the work tree's root: nothing above is its
	}
	var above []string
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		above = append(above, d)
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			break // the work tree's root
		}
		if filepath.Dir(d) == d {
			return nil // in no git work tree: nothing above is the folder's
		}
	}
	for _, d := range above {
		p := filepath.Join(d, compile.PolicyFile)
		if _, err := os.Stat(p); err == nil {
			return fmt.Errorf("%w: %s is not read: skilledge reads %s only in the skills folder, so its access policy and versions would not apply; move it to %s",
				errMisplacedPolicy, p, compile.PolicyFile, filepath.Join(dir, compile.PolicyFile))
		}
	}
	return nil
}
