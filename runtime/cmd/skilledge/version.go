package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/pluginbuild"
)

// commit is the commit this binary was built from, set by build/release
// (-ldflags "-X main.commit=…"); otherwise the go command's record of it, if any.
var commit string

// printVersion prints the version, the commit and the plugin: its SHA-256 when the binary
// carries it (a release build), else where it comes from.
func printVersion(w io.Writer) {
	fmt.Fprintf(w, "skilledge %s (%s %s/%s)\n", wire.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	c := commit
	if c == "" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" {
					c = s.Value
				}
			}
		}
	}
	if c == "" {
		c = "unknown"
	}
	fmt.Fprintf(w, "commit %s\n", c)
	if pluginbuild.Embedded != nil {
		for _, v := range pluginbuild.Variants {
			fmt.Fprintf(w, "plugin.wasm sha256 %x (%s, carried by this binary)\n", sha256.Sum256(pluginbuild.Carried(v)), v)
		}
	} else {
		fmt.Fprintf(w, "plugin.wasm built from the skilledge source on first use (not a release build)\n")
	}
}
