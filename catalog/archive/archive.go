// Package archive writes the reproducible .tar.gz and .zip archives of a skill
// (PROTOCOL.md#archives) and inspects archives without touching the file system.
//
// Writing: TarGz and Zip are pure functions of the entries' names and bytes. The same
// entries give the same bytes whatever the caller's order, machine, umask, user or time
// zone (for a given Go release: the bytes depend on compress/flate, and a Go release that
// changes flate's output changes them; the golden digests in the tests notice that). Every
// member carries the same fixed metadata:
//
//   - members sorted by name byte-wise, each directory level as an explicit entry whose
//     name ends in "/" ("dir/" sorts before "dir/x"); SKILL.md and the skill's other files
//     at the archive root, with no wrapper directory;
//   - regular files and directories only: files mode 0644 (0755 when Entry.Exec),
//     directories 0755, owner and
//     group 0 with empty names, no device numbers, no extended attributes;
//   - modification time 1980-01-01T00:00:00Z, the earliest instant a zip (MS-DOS) date can
//     hold, so that the tar and the zip say the same time;
//   - tar: ustar headers, with a PAX extended header only for a name ustar cannot hold (not
//     ASCII, or too long to split into ustar's 155-byte prefix and 100-byte name), ended by
//     the two zero blocks and not padded to a 10 KiB record; gzip: one member at
//     compress/flate's best compression (level 9), with no file name, no comment, no extra
//     field, MTIME 0 and OS 255 ("unknown");
//   - zip: files Deflate at level 9, directories Store; CRC-32 and sizes in the local
//     header (no data descriptors); the time in the MS-DOS fields only (no extended
//     timestamp field, no other extra field); "made by" Unix 2.0 with the Unix mode in the
//     external attributes (plus the MS-DOS directory bit on directories); the UTF-8 flag
//     only on names that need it (as archive/zip and Info-ZIP decide); no comments.
//
// Why fixed archive metadata: 1980-01-01, level 9, explicit directories, ustar?
// 1980-01-01T00:00:00Z is the earliest instant a zip date holds, so the tar and the zip
// state the same time; Unix 0 cannot be written in a zip, and build or file times change
// with every checkout. Level 9 is a little smaller than the default for somewhat more CPU,
// paid once per build (BENCHMARKS.md, "Why archive level 9"). Explicit directory entries
// at 0755 make extraction independent of the extractor's umask. ustar with PAX only for
// names ustar cannot hold is readable by every tar. A golden digest test notices a Go
// release that changes the compressed bytes; refreshing it is deliberate, since every
// published digest moves with it.
//
// Reading: InspectTarGz and InspectZip unpack an archive into memory, never onto a disk,
// and refuse anything an unpacker could be tricked by (see the functions).
package archive

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skilledge/skilledge/catalog"
)

// Entry is one file to archive: Name is the path relative to the skill root, "/"-separated
// (e.g. "SKILL.md", "examples/email.md"); Data the bytes, or, when Open is set, Size
// bytes that Open reads (so that a large file is read while it is written, not held).
type Entry struct {
	Name string
	Data []byte
	Size int64
	Open func() (io.ReadCloser, error)
	// Exec gives the file mode 0755 instead of 0644 (a script).
	Exec bool
}

// mode is the permission bits an entry's file is written with.
func (e *Entry) mode() int64 {
	if e.Exec {
		return execMode
	}
	return fileMode
}

// size is the length of e's bytes.
func (e *Entry) size() int64 {
	if e.Open != nil {
		return e.Size
	}
	return int64(len(e.Data))
}

// copyTo writes e's bytes to w: exactly size() of them, or an error.
func (e *Entry) copyTo(w io.Writer) error {
	if e.Open == nil {
		_, err := w.Write(e.Data)
		return err
	}
	r, err := e.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	n, err := io.Copy(w, io.LimitReader(r, e.Size+1)) // one more: a longer file is an error too
	if err == nil && n != e.Size {
		err = fmt.Errorf("archive: entry %q: %d bytes, not %d", e.Name, n, e.Size)
	}
	return err
}

// bytes returns e's bytes, read in full.
func (e *Entry) bytes() ([]byte, error) {
	if e.Open == nil {
		return e.Data, nil
	}
	var b bytes.Buffer
	b.Grow(int(e.Size))
	err := e.copyTo(&b)
	return b.Bytes(), err
}

// File is one regular file found in an archive.
type File struct {
	Name string
	Data []byte
	// Exec is set when the archive gives the file an execute bit: an unpacker makes it
	// 0755, never more (no set-id, sticky or write bits for others).
	Exec bool
}

// ErrUnsafe is wrapped by every refusal of Inspect (so callers can say "unsafe archive").
// Archives that are merely corrupt or truncated give other errors.
var ErrUnsafe = errors.New("archive: unsafe archive")

// Limits bound what Inspect will unpack. A zero or negative field means its default.
type Limits struct {
	// MaxEntries bounds the archive's entries: regular files, directories and every other
	// entry, each counted once (tar's PAX and GNU long-name headers are not entries).
	MaxEntries int
	// MaxBytes bounds the sum of the regular files' sizes, counted while decompressing.
	MaxBytes int64
}

// Default limits: a skill holds at most 512 files and 16 MiB (PROTOCOL.md#skill-format);
// 1024 entries leave room for one directory entry per file.
const (
	defaultMaxEntries = 1024
	defaultMaxBytes   = 16 << 20
)

// DefaultLimits returns 1024 entries and 16 MiB.
func DefaultLimits() Limits {
	return Limits{MaxEntries: defaultMaxEntries, MaxBytes: defaultMaxBytes}
}

func (l Limits) withDefaults() Limits {
	if l.MaxEntries <= 0 {
		l.MaxEntries = defaultMaxEntries
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = defaultMaxBytes
	}
	return l
}

// modTime is every member's modification time: 1980-01-01T00:00:00Z.
var modTime = time.Date(1980, time.January, 1, 0, 0, 0, 0, time.UTC)

// The same instant in MS-DOS form (date: years since 1980 <<9 | month <<5 | day; time 0).
const (
	dosDate = 0<<9 | 1<<5 | 1
	dosTime = 0
)

// Modes written for files and directories (permission bits only).
const (
	fileMode = 0o644
	execMode = 0o755
	dirMode  = 0o755
)

// checkName returns why name cannot name a file or directory in an archive, or "". A valid
// name is relative, "/"-separated, valid UTF-8, and has no empty, "." or ".." segment, no
// backslash and no control or other non-printable character (the rules catalog/compile
// applies to skill files, PROTOCOL.md#uris). Directory names are checked without their
// trailing "/".
func checkName(name string) string {
	switch {
	case name == "":
		return "the name is empty"
	case !utf8.ValidString(name):
		return "the name is not valid UTF-8"
	case name[0] == '/':
		return "the name is absolute"
	}
	if why := catalog.NameProblem(name); why != "" {
		return "the name " + why
	}
	for seg := range strings.SplitSeq(name, "/") {
		switch seg {
		case "":
			return "the name has an empty segment"
		case ".", "..":
			return fmt.Sprintf("the name has a %q segment", seg)
		}
	}
	return ""
}
