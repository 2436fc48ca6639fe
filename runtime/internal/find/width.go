package find

import (
	"io"
	"os"
	"strconv"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// Width is how many columns the terminal w writes to has: $COLUMNS when it is a number,
// else what the terminal says (terminalWidth), else 100; and 0 when w is not a terminal
// (a pipe or a file gets whole descriptions).
func Width(w io.Writer) int {
	f := verify.TerminalFile(w)
	if f == nil {
		return 0
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if n := terminalWidth(f); n > 0 {
		return n
	}
	return 100
}
