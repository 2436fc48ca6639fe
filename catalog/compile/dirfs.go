package compile

import (
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// dirFS is the file system LoadDir reads: an os.Root (nothing, symbolic links included,
// resolves outside it) whose files are opened so that nothing can block. A file replaced
// by a named pipe between the listing and the open would block an ordinary open until a
// writer came, forever: it is opened non-blocking (oNonblock) and, once open, must be a
// regular file or a directory, else the open fails with errNotRegular.
type dirFS struct{ root *os.Root }

// testHookOpen, when set, is called with each name before dirFS opens it.
var testHookOpen func(name string)

// Open opens name for reading without blocking, and refuses anything but a regular file
// or a directory.
func (d dirFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if testHookOpen != nil {
		testHookOpen(name)
	}
	f, err := d.root.OpenFile(name, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if m := fi.Mode(); !m.IsRegular() && !m.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: &notRegularError{m}}
	}
	return f, nil
}

// ReadDir lists the directory name, sorted by file name, through Open.
func (d dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dir, ok := f.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	ents, err := dir.ReadDir(-1)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}

func (d dirFS) Stat(name string) (fs.FileInfo, error)  { return d.root.Stat(name) }
func (d dirFS) Lstat(name string) (fs.FileInfo, error) { return d.root.Lstat(name) }
func (d dirFS) ReadLink(name string) (string, error)   { return d.root.Readlink(name) }

// notRegularError says what an opened file turned out to be instead of a regular file.
type notRegularError struct{ mode fs.FileMode }

func (e *notRegularError) Error() string {
	return fmt.Sprintf("a %s, not a regular file or directory", typeName(e.mode))
}

var _ fs.ReadLinkFS = dirFS{}
