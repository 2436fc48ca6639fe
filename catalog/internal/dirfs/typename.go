package dirfs

import "io/fs"

// TypeName names the kind of file of a mode that is neither a regular file nor a
// directory: "named pipe", "socket", "character device", "device", else "irregular file".
func TypeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "irregular file"
}
