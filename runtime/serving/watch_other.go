//go:build !linux

package serving

import "io/fs"

// statTimes: beyond size and modification time, nothing portable to add.
func statTimes(fs.FileInfo) string { return "" }
