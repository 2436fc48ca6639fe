//go:build !linux

package main

import "io/fs"

// statTimes: beyond size and modification time, nothing portable to add.
func statTimes(fs.FileInfo) string { return "" }
