//go:build skilledge_release

package pluginbuild

import _ "embed"

// embedded is runtime/pluginbuild/plugin.wasm, which build/release writes before it builds
// the CLI with this tag (Embedded).
//
//go:embed plugin.wasm
var embedded []byte

func init() { Embedded = embedded }
