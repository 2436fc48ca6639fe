package compile

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// Where a symbolic link of the folder leads (PROTOCOL.md#skill-format): resolved link by
// link inside the folder, and the tests its target is held to.

// maxLinkHops bounds symbolic link resolution, as POSIX's SYMLOOP_MAX does.
const maxLinkHops = 40

var errLinkLoop = errors.New("too many levels of symbolic links")

// errLinkBackslash is resolveLink's error for a link whose target holds a backslash: a
// separator on Windows, where the build would follow it past the checks made here.
var errLinkBackslash = errors.New(`its target holds a backslash ("\"), which Windows reads as a path separator`)

// resolveLink resolves the symbolic link p component by component, as the kernel would,
// without leaving the file system: it returns the path of the final target (which
// contains no links), or inside == false as soon as a link or ".." would lead out, with
// where the path leads, unresolved from there: relative to the folder ("../x") or the
// absolute path a link names.
//
// Why resolve symlinks one component at a time when `os.Root` already confines them? Load
// takes any fs.FS, and os.DirFS or fstest.MapFS follow links out of the tree; a chain like
// a → b → ../x defeats a single check of a link's target text. Resolving every link
// component by component gives the same verdict on every file system, and LoadDir adds the
// OS-level enforcement of os.Root on top. A link to a regular file of its own skill is
// served as that file; a link leading anywhere else is an error (RATIONALE.md, "Why is a
// link out of its skill an error, rather than followed or skipped with a warning?"); one to
// a directory, or to nothing, is reported and skipped. On a file system that cannot read
// links (no fs.ReadLinkFS) where a link leads cannot be checked, so it is not served.
func resolveLink(fsys fs.ReadLinkFS, p string) (target string, inside bool, err error) {
	rest := strings.Split(p, "/")
	cur, hops := "", 0
	for len(rest) > 0 {
		seg := rest[0]
		rest = rest[1:]
		switch seg {
		case "", ".":
			continue
		case "..":
			if cur == "" {
				return path.Join(append([]string{".."}, rest...)...), false, nil
			}
			if cur = path.Dir(cur); cur == "." {
				cur = ""
			}
			continue
		}
		next := seg
		if cur != "" {
			next = cur + "/" + seg
		}
		info, err := fsys.Lstat(next)
		if err != nil {
			return "", true, err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", true, errLinkLoop
		}
		t, err := fsys.ReadLink(next)
		if err != nil {
			return "", true, err
		}
		if strings.ContainsRune(t, '\\') {
			return "", true, errLinkBackslash
		}
		if path.IsAbs(t) || filepath.IsAbs(t) || filepath.VolumeName(t) != "" {
			return path.Join(append([]string{t}, rest...)...), false, nil
		}
		rest = append(strings.Split(t, "/"), rest...)
	}
	if cur == "" {
		return ".", true, nil
	}
	return cur, true, nil
}

// within reports whether the path p of the folder is the directory dir or lies under it.
func within(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// clutterIn reports whether the path p of the folder lies in a directory, or is a file,
// that Load skips as clutter (.git, .DS_Store …): such a file is never served, through a
// link either.
func clutterIn(p string) bool {
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		if Ignored(seg, i < len(segs)-1) {
			return true
		}
	}
	return false
}
