package find

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalWidth asks the terminal f for its width in columns; 0 when it cannot say.
func terminalWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
