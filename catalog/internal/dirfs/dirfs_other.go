//go:build !unix

package dirfs

import "io/fs"

// oNonblock is 0 where files cannot be named pipes that block an open.
const oNonblock = 0

// LinkCount returns 0: the link count is not known here.
func LinkCount(fs.FileInfo) uint64 { return 0 }
