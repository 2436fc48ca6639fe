//go:build !unix

package store

import (
	"fmt"
	"os"
)

// readObject returns the contents of the regular file path, read into memory.
func readObject(path string) (b []byte, release func() error, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", path)
	}
	b, err = os.ReadFile(path)
	return b, nil, err
}
