//go:build unix

package store

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// readObject returns the contents of the regular file path: mapped read-only when it is
// at least mmapMin bytes (release unmaps it), else read into memory (release is nil).
func readObject(path string) (b []byte, release func() error, err error) {
	// Non-blocking, so that a FIFO put in place of an object cannot hang the open; not
	// through a link, since builds write regular files.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", path)
	}
	size := fi.Size()
	if size < mmapMin || int64(int(size)) != size {
		return readAll(f, size)
	}
	b, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return readAll(f, size)
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}

// readAll reads the size bytes of f.
func readAll(f *os.File, size int64) ([]byte, func() error, error) {
	b := make([]byte, size)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", f.Name(), err)
	}
	return b, nil, nil
}
