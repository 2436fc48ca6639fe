package pull

import "golang.org/x/sys/unix"

// exchange swaps the folders a and b in one step (renameat2 RENAME_EXCHANGE), falling
// back to two renames on a file system that cannot.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if err == unix.EINVAL || err == unix.ENOSYS {
		return exchangeByRenames(a, b)
	}
	return err
}
