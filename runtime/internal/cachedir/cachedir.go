// Package cachedir names the folders the harness keeps under the user's cache directory,
// <user cache>/skilledge/: wazero's compiled code (runtime/wasm), built plugins
// (runtime/pluginbuild) and built catalogs (the CLI). It owns the names only: it creates,
// reads and removes nothing.
package cachedir

import (
	"os"
	"path/filepath"
)

// Dir returns <user cache dir>/skilledge/<sub>, or a directory under the temporary
// directory when the user has no cache directory. It does not create it.
func Dir(sub string) string {
	base, err := os.UserCacheDir()
	if err != nil || base == "" {
		base = os.TempDir()
	}
	return filepath.Join(base, "skilledge", sub)
}
