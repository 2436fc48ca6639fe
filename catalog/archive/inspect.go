package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"slices"
	"strings"
)

// Allowance, beyond Limits.MaxBytes, for the parts of a decompressed tar stream that are
// not file data: per entry a header block, padding up to the next block and room for PAX
// or GNU long-name headers; at the end two zero blocks and padding to a 10 KiB record.
const (
	tarEntryOverhead = 8 << 10
	tarEndOverhead   = 2*512 + 10240
)

// tarBudget is how many bytes a decompressed tar stream may hold under lim.
func tarBudget(lim Limits) int64 {
	const most = math.MaxInt64 / 4 // no overflow whatever the limits
	entries := min(int64(lim.MaxEntries), most/tarEntryOverhead-1)
	return min(lim.MaxBytes, most) + (entries+1)*tarEntryOverhead + tarEndOverhead
}

func unsafef(name, format string, args ...any) error {
	return fmt.Errorf("%w: entry %q: %s", ErrUnsafe, name, fmt.Sprintf(format, args...))
}

// inspector enforces the limits and name rules over the entries of one archive.
type inspector struct {
	lim     Limits
	entries int
	size    int64           // bytes of regular files so far
	isDir   map[string]bool // every name seen, a directory's without its "/"
	files   []File
}

func newInspector(lim Limits) *inspector {
	return &inspector{lim: lim, isDir: make(map[string]bool)}
}

// count counts one more entry, raw as named in the archive.
func (in *inspector) count(raw string) error {
	in.entries++
	if in.entries > in.lim.MaxEntries {
		return unsafef(raw, "the archive has more than %d entries", in.lim.MaxEntries)
	}
	return nil
}

// add checks the name of a regular file or directory (raw as in the archive; name
// without a directory's trailing "/") and records it.
func (in *inspector) add(raw, name string, dir bool) error {
	if why := checkName(name); why != "" {
		return unsafef(raw, "%s", why)
	}
	if wasDir, ok := in.isDir[name]; ok {
		if wasDir == dir {
			return unsafef(raw, "the name appears twice")
		}
		return unsafef(raw, "the name is both a file and a directory")
	}
	in.isDir[name] = dir
	return nil
}

// room is how many more bytes of regular files the limits allow.
func (in *inspector) room() int64 { return in.lim.MaxBytes - in.size }

func (in *inspector) tooBig(raw string) error {
	return unsafef(raw, "the files hold more than %d bytes uncompressed", in.lim.MaxBytes)
}

// addData adds the file name, executable when the archive gave it any execute bit.
func (in *inspector) addData(name string, data []byte, exec bool) {
	in.size += int64(len(data))
	in.files = append(in.files, File{Name: name, Data: data, Exec: exec})
}

// finish refuses a file that is also the directory of another entry, and returns the
// files sorted by name.
func (in *inspector) finish() ([]File, error) {
	names := make([]string, 0, len(in.isDir))
	for name := range in.isDir {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for i := range len(name) {
			if name[i] != '/' {
				continue
			}
			if wasDir, ok := in.isDir[name[:i]]; ok && !wasDir {
				return nil, unsafef(name, "%q is a file, not a directory", name[:i])
			}
		}
	}
	slices.SortFunc(in.files, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	return in.files, nil
}

// budgetReader reads at most n bytes from r, and then reports over (and errOver) if r
// holds more.
type budgetReader struct {
	r    io.Reader
	n    int64
	over bool
}

var errOver = errors.New("archive: decompressed stream over budget")

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.n <= 0 {
		var one [1]byte
		if n, err := io.ReadFull(b.r, one[:]); n == 0 {
			return 0, err
		}
		b.over = true
		return 0, errOver
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	b.n -= int64(n)
	return n, err
}

// InspectTarGz reads a gzip-compressed tar archive in memory, without touching the file
// system, and returns its regular files sorted by name (their Data never aliases b);
// directory entries are checked but not returned. It takes one gzip member holding a
// ustar, PAX or GNU tar.
//
// It refuses, with an error wrapping ErrUnsafe that names the entry: a name that is
// absolute, has a "..", "." or empty segment, a backslash, a control or other
// non-printable character, or is not UTF-8; a symbolic or hard link, a device, a FIFO, a
// sparse file or any other entry that is not a regular file or a directory; a name seen
// twice (a file and a directory included) or a file that is also another entry's
// directory; more than lim.MaxEntries entries; regular files of more than lim.MaxBytes
// in total. Sizes are counted while decompressing: the whole decompressed stream may not
// exceed lim.MaxBytes plus 8 KiB per allowed entry and 11 KiB for the end, so a
// compression bomb costs at most that much work and about lim.MaxBytes of memory.
//
// A corrupt or truncated stream, a bad gzip checksum, nonzero data after the tar's end
// or any byte after the gzip member give an error that does not wrap ErrUnsafe.
func InspectTarGz(b []byte, lim Limits) ([]File, error) {
	lim = lim.withDefaults()
	br := bytes.NewReader(b) // an io.ByteReader: gzip reads no further than its member
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("archive: not a gzip stream: %w", err)
	}
	zr.Multistream(false)
	budget := tarBudget(lim)
	stream := &budgetReader{r: zr, n: budget}
	streamErr := func(last string, err error) error {
		where := "before any entry"
		if last != "" {
			where = fmt.Sprintf("at entry %q", last)
		}
		if stream.over {
			return fmt.Errorf("%w: the tar stream is over %d bytes uncompressed (%s)", ErrUnsafe, budget, where)
		}
		return fmt.Errorf("archive: reading the tar archive %s: %w", where, err)
	}
	in := newInspector(lim)
	tr := tar.NewReader(stream)
	last := ""
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !(errors.Is(err, tar.ErrInsecurePath) && hdr != nil) {
			return nil, streamErr(last, err)
		}
		raw := hdr.Name
		last = raw
		if err := in.count(raw); err != nil {
			return nil, err
		}
		switch hdr.Typeflag {
		case tar.TypeReg, tar.TypeDir: // TypeRegA is turned into one of them by tar.Reader
		case tar.TypeSymlink:
			return nil, unsafef(raw, "it is a symbolic link to %q", hdr.Linkname)
		case tar.TypeLink:
			return nil, unsafef(raw, "it is a hard link to %q", hdr.Linkname)
		case tar.TypeChar, tar.TypeBlock:
			return nil, unsafef(raw, "it is a device")
		case tar.TypeFifo:
			return nil, unsafef(raw, "it is a FIFO")
		default:
			return nil, unsafef(raw, "it has type %q, not a regular file or directory", hdr.Typeflag)
		}
		for k := range hdr.PAXRecords {
			if strings.HasPrefix(k, "GNU.sparse.") {
				return nil, unsafef(raw, "it is a sparse file")
			}
		}
		if hdr.Typeflag == tar.TypeDir {
			if hdr.Size != 0 {
				return nil, unsafef(raw, "it is a directory holding %d bytes", hdr.Size)
			}
			if err := in.add(raw, strings.TrimSuffix(raw, "/"), true); err != nil {
				return nil, err
			}
			continue
		}
		if err := in.add(raw, raw, false); err != nil {
			return nil, err
		}
		if hdr.Size > in.room() {
			return nil, in.tooBig(raw)
		}
		data := make([]byte, hdr.Size) // at most lim.MaxBytes in all
		if _, err := io.ReadFull(tr, data); err != nil {
			return nil, streamErr(last, err)
		}
		in.addData(raw, data, hdr.Mode&0o111 != 0)
	}
	// The tar's end: only zero padding may follow, and then the gzip member's end.
	var scratch [4096]byte
	for {
		n, err := stream.Read(scratch[:])
		if slices.ContainsFunc(scratch[:n], func(c byte) bool { return c != 0 }) {
			return nil, errors.New("archive: data after the end of the tar archive")
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, streamErr(last, err)
		}
	}
	if br.Len() != 0 {
		return nil, fmt.Errorf("archive: %d bytes after the gzip stream", br.Len())
	}
	return in.finish()
}

// InspectZip reads a zip archive in memory, without touching the file system, and returns
// its regular files sorted by name (their Data never aliases b); directory entries are
// checked but not returned. It takes Store and Deflate entries, zip64 included.
//
// It refuses, with an error wrapping ErrUnsafe that names the entry, everything
// InspectTarGz refuses (a symbolic link is an entry with the Unix link type in its
// external attributes); a directory attribute on a name without a trailing "/"; and an
// entry whose declared sizes disagree with its data or whose local header disagrees with
// the central directory (name, method, sizes), or that overlaps another entry. Sizes are
// never trusted: an entry is decompressed up to its declared size plus one byte, and only
// while the total stays within lim.MaxBytes.
//
// A corrupt or truncated archive, a bad CRC-32, an encrypted entry, an unsupported
// compression method, bytes that belong to no entry (before, between or after them) or a
// multi-disk archive give an error that does not wrap ErrUnsafe.
func InspectZip(b []byte, lim Limits) ([]File, error) {
	lim = lim.withDefaults()
	dir, err := readZipDirectory(b, lim.MaxEntries)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil && !(errors.Is(err, zip.ErrInsecurePath) && zr != nil) {
		return nil, fmt.Errorf("archive: reading the zip archive: %w", err)
	}
	if len(zr.File) != len(dir) {
		return nil, fmt.Errorf("archive: the zip central directory is ambiguous: %d or %d entries", len(dir), len(zr.File))
	}
	in := newInspector(lim)
	for i, f := range zr.File {
		e := &dir[i]
		raw := e.name
		off, err := f.DataOffset()
		if f.Name != e.name || f.Method != e.method || f.CompressedSize64 != e.csize ||
			f.UncompressedSize64 != e.usize || f.CRC32 != e.crc || err != nil || off != int64(e.dataStart) {
			return nil, fmt.Errorf("archive: the zip central directory is ambiguous at entry %q", raw)
		}
		if err := in.count(raw); err != nil {
			return nil, err
		}
		isDir := strings.HasSuffix(raw, "/")
		switch t := f.Mode().Type(); {
		case t&fs.ModeSymlink != 0:
			return nil, unsafef(raw, "it is a symbolic link")
		case t&fs.ModeDevice != 0:
			return nil, unsafef(raw, "it is a device")
		case t&fs.ModeNamedPipe != 0:
			return nil, unsafef(raw, "it is a FIFO")
		case t == fs.ModeDir && !isDir:
			return nil, unsafef(raw, "it has directory attributes but its name does not end in \"/\"")
		case t != 0 && t != fs.ModeDir:
			return nil, unsafef(raw, "it is not a regular file or directory (mode %v)", f.Mode())
		}
		if e.flags&0x41 != 0 {
			return nil, fmt.Errorf("archive: entry %q is encrypted", raw)
		}
		if e.method != zip.Store && e.method != zip.Deflate {
			return nil, fmt.Errorf("archive: entry %q uses unsupported compression method %d", raw, e.method)
		}
		if isDir {
			if err := in.add(raw, strings.TrimSuffix(raw, "/"), true); err != nil {
				return nil, err
			}
			if e.usize != 0 {
				return nil, unsafef(raw, "it is a directory declaring %d bytes", e.usize)
			}
		} else {
			if err := in.add(raw, raw, false); err != nil {
				return nil, err
			}
			if e.usize > uint64(in.room()) {
				return nil, in.tooBig(raw)
			}
		}
		data, err := decompress(e, b[e.dataStart:e.dataStart+e.csize])
		if err != nil {
			return nil, err
		}
		if crc32.ChecksumIEEE(data) != e.crc {
			return nil, fmt.Errorf("archive: entry %q: CRC-32 mismatch", raw)
		}
		if !isDir {
			in.addData(raw, data, f.Mode().Perm()&0o111 != 0)
		}
	}
	return in.finish()
}

// decompress returns the e.usize bytes that the compressed data comp of e holds, refusing
// data that holds fewer or more bytes or does not exactly fill comp. It never produces
// more than e.usize+1 bytes.
func decompress(e *zipEntry, comp []byte) ([]byte, error) {
	if len(comp) == 0 && e.usize == 0 {
		return []byte{}, nil
	}
	if e.method == zip.Store {
		if uint64(len(comp)) != e.usize {
			return nil, unsafef(e.name, "it declares %d bytes but stores %d", e.usize, len(comp))
		}
		return bytes.Clone(comp), nil
	}
	r := bytes.NewReader(comp) // an io.ByteReader: flate reads no further than its stream
	fr := flate.NewReader(r)
	data := make([]byte, e.usize)
	n := 0
	for {
		var err error
		var m int
		if n < len(data) {
			m, err = fr.Read(data[n:])
			n += m
		} else {
			var one [1]byte
			m, err = fr.Read(one[:])
			if m > 0 {
				return nil, unsafef(e.name, "it holds more than its declared %d bytes", e.usize)
			}
		}
		switch {
		case err == io.EOF && n < len(data):
			return nil, unsafef(e.name, "it declares %d bytes but holds %d", e.usize, n)
		case err == io.EOF:
			if r.Len() != 0 {
				return nil, unsafef(e.name, "its compressed data ends %d bytes before its declared compressed size", r.Len())
			}
			return data, nil
		case err == io.ErrUnexpectedEOF:
			return nil, unsafef(e.name, "its compressed data runs past its declared compressed size %d", e.csize)
		case err != nil:
			return nil, fmt.Errorf("archive: entry %q: %w", e.name, err)
		}
	}
}
