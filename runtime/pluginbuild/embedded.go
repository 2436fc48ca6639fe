package pluginbuild

import (
	"context"
	"fmt"
	"io"
	"os"
)

// Embedded is the plugin.wasm a release build carries: build/release writes the module it
// builds from this source as runtime/pluginbuild/plugin.wasm and builds the CLI with the
// build tag ReleaseTag, which embeds it (embed_release.go). In any other build it is nil,
// and the plugin is found or built from the source (Ensure).
var Embedded []byte

// ReleaseTag is the build tag under which the CLI carries its plugin (Embedded).
const ReleaseTag = "skilledge_release"

// Module returns the bytes of the plugin.wasm to run, and where they come from for
// messages: file if not empty, else $SKILLEDGE_PLUGIN if set, else the one the binary
// carries (Embedded), else Ensure's, built from the source. A release binary thus needs
// neither the go command nor the source.
func Module(ctx context.Context, file string, progress io.Writer) (module []byte, from string, err error) {
	if file == "" {
		file = os.Getenv(Env)
	}
	if file == "" && Embedded != nil {
		return Embedded, "the plugin this binary carries", nil
	}
	path, err := Locate(ctx, file, progress)
	if err != nil {
		return nil, "", err
	}
	module, err = os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("pluginbuild: %w", err)
	}
	return module, path, nil
}
