//go:build skilledge_release

package pluginbuild

import _ "embed"

// embedded and embeddedPublic are runtime/pluginbuild/plugin.wasm and plugin-public.wasm,
// which build/release writes before it builds the CLI with this tag (Embedded).
var (
	//go:embed plugin.wasm
	embedded []byte
	//go:embed plugin-public.wasm
	embeddedPublic []byte
)

func init() { Embedded, EmbeddedPublic = embedded, embeddedPublic }
