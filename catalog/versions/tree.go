package versions

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// A tree is the folder of a Source at one commit as a read-only file system
// (fs.ReadDirFS and fs.ReadLinkFS), for compile.Load: the files and links git lists, their
// sizes from the objects' headers, and their bytes read from git only when a file is read.
// A large file is streamed, so that reading the first bytes of a blob of gigabytes (a
// hostile repository's, refused past the per-skill limit) holds no more than those.
type tree struct {
	ctx   context.Context
	src   Source
	files map[string]File          // regular files and links, by path
	dirs  map[string][]fs.DirEntry // directories ("." the root), entries sorted by name
}

// Tree returns the folder of src at commit as a file system, and the paths git lists that
// no file system can hold (an empty, "." or ".." segment, or a name that is also a
// directory's), which it leaves out. Submodules are no files: they are left out too.
func Tree(ctx context.Context, src Source, commit string) (fs.FS, []string, error) {
	files, err := src.Files(ctx, commit)
	if err != nil {
		return nil, nil, err
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	t := &tree{ctx: ctx, src: src, files: map[string]File{}, dirs: map[string][]fs.DirEntry{".": nil}}
	var bad []string
	for _, f := range files {
		if !fs.ValidPath(f.Path) || f.Path == "." || t.dirs[f.Path] != nil {
			bad = append(bad, f.Path)
			continue
		}
		if !t.addDirs(path.Dir(f.Path)) {
			bad = append(bad, f.Path)
			continue
		}
		if _, dup := t.files[f.Path]; dup {
			bad = append(bad, f.Path)
			continue
		}
		t.files[f.Path] = f
		dir := path.Dir(f.Path)
		t.dirs[dir] = append(t.dirs[dir], dirEntry{t.info(f)})
	}
	for d, ents := range t.dirs {
		slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		t.dirs[d] = ents
	}
	return t, bad, nil
}

// addDirs makes dir and every directory above it, false when one of them is a file.
func (t *tree) addDirs(dir string) bool {
	if _, ok := t.dirs[dir]; ok {
		return true
	}
	if _, isFile := t.files[dir]; isFile {
		return false
	}
	parent := path.Dir(dir)
	if !t.addDirs(parent) {
		return false
	}
	t.dirs[dir] = []fs.DirEntry{}
	t.dirs[parent] = append(t.dirs[parent], dirEntry{info{name: path.Base(dir), mode: fs.ModeDir | 0o755}})
	return true
}

func (t *tree) info(f File) info {
	mode := fs.FileMode(0o644)
	switch {
	case f.Link:
		mode = fs.ModeSymlink | 0o777
	case f.Exec:
		mode = 0o755
	}
	return info{name: path.Base(f.Path), size: f.Size, mode: mode}
}

// maxLink is the longest link target read: a path, not content.
const maxLink = 4096

// ReadLink implements fs.ReadLinkFS.
func (t *tree) ReadLink(name string) (string, error) {
	f, ok := t.files[name]
	if !ok || !f.Link {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	if f.Size > maxLink {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: errors.New("link target longer than 4096 bytes")}
	}
	b, err := t.src.Read(t.ctx, f.Blob)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return string(b), nil
}

// Lstat implements fs.ReadLinkFS.
func (t *tree) Lstat(name string) (fs.FileInfo, error) {
	if f, ok := t.files[name]; ok {
		return t.info(f), nil
	}
	if _, ok := t.dirs[name]; ok {
		return info{name: path.Base(name), mode: fs.ModeDir | 0o755}, nil
	}
	return nil, &fs.PathError{Op: "lstat", Path: name, Err: fs.ErrNotExist}
}

// ReadDir implements fs.ReadDirFS.
func (t *tree) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, ok := t.dirs[name]
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return slices.Clone(ents), nil
}

// Open implements fs.FS. A link is followed, link by link (at most 40), as the operating
// system would; the loader reads links with ReadLink and decides what is served.
func (t *tree) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	for hops := 0; ; hops++ {
		if ents, ok := t.dirs[name]; ok {
			return &dirFile{info: info{name: path.Base(name), mode: fs.ModeDir | 0o755}, ents: ents}, nil
		}
		f, ok := t.files[name]
		if !ok {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		if !f.Link {
			return &blobFile{t: t, f: f, info: t.info(f)}, nil
		}
		if hops == 40 {
			return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("too many links")}
		}
		to, err := t.ReadLink(name)
		if err != nil {
			return nil, err
		}
		if path.IsAbs(to) {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		name = path.Join(path.Dir(name), to)
		if !fs.ValidPath(name) {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist} // out of the tree
		}
	}
}

// streamer is a Source that can stream a blob rather than hold it (gitRepo).
type streamer interface {
	Stream(ctx context.Context, blob string) (io.ReadCloser, error)
}

// streamAbove is the size from which a file's bytes are streamed from git rather than
// read whole: the build keeps a file of up to compile.KeepBytes (64 KiB) in memory anyway.
const streamAbove = 1 << 20

// blobFile is an open regular file of a tree, read from git at its first Read.
type blobFile struct {
	t    *tree
	f    File
	info info
	r    io.ReadCloser
}

func (b *blobFile) Stat() (fs.FileInfo, error) { return b.info, nil }

func (b *blobFile) Read(p []byte) (int, error) {
	if b.r == nil {
		var err error
		if s, ok := b.t.src.(streamer); ok && b.f.Size > streamAbove {
			b.r, err = s.Stream(b.t.ctx, b.f.Blob)
		}
		if errors.Is(err, errors.ErrUnsupported) {
			b.r, err = nil, nil
		}
		if err != nil {
			return 0, err
		}
		if b.r == nil {
			data, err := b.t.src.Read(b.t.ctx, b.f.Blob)
			if err != nil {
				return 0, err
			}
			b.r = io.NopCloser(bytes.NewReader(data))
		}
	}
	return b.r.Read(p)
}

func (b *blobFile) Close() error {
	if b.r != nil {
		return b.r.Close()
	}
	return nil
}

// dirFile is an open directory of a tree.
type dirFile struct {
	info info
	ents []fs.DirEntry
	off  int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: errors.New("is a directory")}
}
func (d *dirFile) Close() error { return nil }

// ReadDir implements fs.ReadDirFile.
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.ents[d.off:]
	if n <= 0 {
		d.off = len(d.ents)
		return slices.Clone(rest), nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	d.off += len(rest)
	return slices.Clone(rest), nil
}

// info is the fs.FileInfo of a tree's file or directory: no time (git keeps none per file).
type info struct {
	name string
	size int64
	mode fs.FileMode
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return i.size }
func (i info) Mode() fs.FileMode  { return i.mode }
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.mode.IsDir() }
func (i info) Sys() any           { return nil }

type dirEntry struct{ i info }

func (d dirEntry) Name() string               { return d.i.name }
func (d dirEntry) IsDir() bool                { return d.i.IsDir() }
func (d dirEntry) Type() fs.FileMode          { return d.i.mode.Type() }
func (d dirEntry) Info() (fs.FileInfo, error) { return d.i, nil }
func (d dirEntry) String() string             { return fs.FormatDirEntry(d) }
