//go:build !linux

package find

import "os"

// terminalWidth is 0 (unknown) off Linux: Width then reads $COLUMNS, else takes 100.
func terminalWidth(*os.File) int { return 0 }
