package serving

import (
	"fmt"
	"io/fs"
	"syscall"
)

// statTimes adds to a snapshot entry what a stat knows beyond size and modification time:
// the inode (an editor that saves by renaming a new file over the old one) and the change
// time, which no tool can set back (cp -p and touch -r can set the modification time).
func statTimes(info fs.FileInfo) string {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d %d.%d", st.Ino, st.Ctim.Sec, st.Ctim.Nsec)
}
