package main

import (
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
	pluginbuild.WriteCarried(w)
}
