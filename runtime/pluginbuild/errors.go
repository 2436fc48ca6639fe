package pluginbuild

import "errors"

// ErrSource is wrapped by the errors of Ensure (and Locate, SourceDir) when the skilledge
// source, or the go command, needed to build plugin.wasm cannot be found.
var ErrSource = errors.New("pluginbuild: skilledge source not found")
