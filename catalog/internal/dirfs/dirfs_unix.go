//go:build unix

package dirfs

import (
	"io/fs"
	"syscall"
)

// oNonblock makes opening a named pipe or a device return at once instead of waiting.
const oNonblock = syscall.O_NONBLOCK

// LinkCount returns how many hard links the file of fi has, or 0 when unknown.
func LinkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}
