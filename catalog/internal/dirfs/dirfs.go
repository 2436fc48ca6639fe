// Package dirfs is the file system the compiler reads a skills folder through.
//
// Why does the loader open files non-blocking, and warn about hard links, colliding names
// and Windows names? A file replaced by a named pipe between the listing and the open
// blocked validate, build and serve in open until a writer came, forever. So every file
// and directory is opened with O_NONBLOCK and must be, once open, a regular file or a
// directory (fstat on the descriptor, not the name, so nothing can swap it after the
// check; FS.Open); checking the type with lstat before opening, the obvious fix, leaves
// the same race one step earlier. Three things are served, but said (catalog/compile's
// warnings, each naming the file and, for a collision, the other name, with escapes so
// that the two can be told apart): a file with more than one hard link (LinkCount: the
// same inode may be a file outside the folder, which os.Root cannot see); names of one
// directory equal under Unicode normalization or letter case (NFC and NFD "café.md",
// README.md beside readme.md), which macOS and Windows hold as one file, so a checkout or
// an unpacked archive silently loses one (catalog/internal/unicodex says how they are
// compared); and names Windows reserves or cannot hold (catalog.WindowsNameProblem).
// Warnings, not errors: each is served correctly over MCP and HTTP, where URIs are exact,
// and refusing would break folders that only ever live on Linux.
package dirfs

import (
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// FS is an os.Root (nothing, symbolic links included, resolves outside it) whose files
// are opened so that nothing can block. A file replaced by a named pipe between a listing
// and the open would block an ordinary open until a writer came, forever: it is opened
// non-blocking (oNonblock) and, once open, must be a regular file or a directory (checked
// on the descriptor, not the name), else the open fails with a *NotRegularError. FS
// implements fs.ReadDirFS, fs.StatFS and fs.ReadLinkFS.
type FS struct {
	root       *os.Root
	beforeOpen func(name string)
}

// New returns the FS of root. beforeOpen, when not nil, is called with each name before
// it is opened: tests use it to change the tree between a listing and an open.
func New(root *os.Root, beforeOpen func(name string)) FS { return FS{root, beforeOpen} }

// Open opens name for reading without blocking, and refuses anything but a regular file
// or a directory: the error is then a *fs.PathError whose Err is a *NotRegularError.
func (d FS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if d.beforeOpen != nil {
		d.beforeOpen(name)
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
		return nil, &fs.PathError{Op: "open", Path: name, Err: &NotRegularError{m}}
	}
	return f, nil
}

// ReadDir lists the directory name, sorted by file name, through Open.
func (d FS) ReadDir(name string) ([]fs.DirEntry, error) {
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

func (d FS) Stat(name string) (fs.FileInfo, error)  { return d.root.Stat(name) }
func (d FS) Lstat(name string) (fs.FileInfo, error) { return d.root.Lstat(name) }
func (d FS) ReadLink(name string) (string, error)   { return d.root.Readlink(name) }

// NotRegularError says what an opened file turned out to be instead of a regular file.
type NotRegularError struct{ Mode fs.FileMode }

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("a %s, not a regular file or directory", TypeName(e.Mode))
}

var _ fs.ReadLinkFS = FS{}
