package pluginbuild

import (
	"context"
	"fmt"
	"io"
	"os"
)

// Embedded and EmbeddedPublic are the plugin.wasm files, Full and Public, a release build
// carries: build/release writes the modules it builds from this source as
// runtime/pluginbuild/plugin.wasm and plugin-public.wasm and builds the CLI with the build
// tag ReleaseTag, which embeds them (embed_release.go). In any other build they are nil,
// and the plugin is found or built from the source (Ensure).
var Embedded, EmbeddedPublic []byte

// Carried is the plugin.wasm of variant v the binary carries, nil if none.
func Carried(v Variant) []byte {
	if v == Public {
		return EmbeddedPublic
	}
	return Embedded
}

// ReleaseTag is the build tag under which the CLI carries its plugin (Embedded).
const ReleaseTag = "skilledge_release"

// Module returns the bytes of the plugin.wasm to run, and where they come from for
// messages: file if not empty, else $SKILLEDGE_PLUGIN if set (either names one module,
// whatever v), else the variant v the binary carries (Carried), else Ensure's build of v
// from the source. A release binary thus needs neither the go command nor the source.
func Module(ctx context.Context, file string, v Variant, progress io.Writer) (module []byte, from string, err error) {
	if file == "" {
		file = os.Getenv(Env)
	}
	if carried := Carried(v); file == "" && carried != nil {
		return carried, "the " + v.String() + " plugin this binary carries", nil
	}
	path, err := Locate(ctx, file, v, progress)
	if err != nil {
		return nil, "", err
	}
	module, err = os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("pluginbuild: %w", err)
	}
	return module, path, nil
}
