//go:build !unix

package compile

import "io/fs"

// oNonblock is 0 where files cannot be named pipes that block an open.
const oNonblock = 0

// linkCount returns 0: the link count is not known here.
func linkCount(fs.FileInfo) uint64 { return 0 }
