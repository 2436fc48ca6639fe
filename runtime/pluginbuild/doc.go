// Package pluginbuild finds the plugin.wasm a harness runs without a binary committed to
// git: a file named on the command line or in $SKILLEDGE_PLUGIN, or else one built from
// the skilledge module's own source with the go command (GOOS=wasip1 GOARCH=wasm
// -buildmode=c-shared), once per distinct source, into the user cache directory.
//
// It owns that build and its cache (<user cache>/skilledge/plugin-<hash>.wasm), and only
// produces a file: it never compiles or runs the module (runtime/wasm does), and imports
// nothing of skilledge beyond the harness's cache folder names.
package pluginbuild
