package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"strings"
)

// member is one archive entry in writing order.
type member struct {
	name string // a directory's ends in "/"
	data []byte
	dir  bool
}

// layout validates entries and returns the archive's members: the files and every
// directory level above them, sorted by name byte-wise.
func layout(entries []Entry) ([]member, error) {
	sorted := slices.Clone(entries)
	slices.SortStableFunc(sorted, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	files := make(map[string]bool, len(sorted))
	for i, e := range sorted {
		if why := checkName(e.Name); why != "" {
			return nil, fmt.Errorf("archive: entry %q: %s", e.Name, why)
		}
		if i > 0 && sorted[i-1].Name == e.Name {
			return nil, fmt.Errorf("archive: entry %q: the name appears twice", e.Name)
		}
		files[e.Name] = true
	}
	dirs := make(map[string]bool)
	for _, e := range sorted {
		for i := range len(e.Name) {
			if e.Name[i] != '/' {
				continue
			}
			d := e.Name[:i]
			if files[d] {
				return nil, fmt.Errorf("archive: entry %q: %q is a file, not a directory", e.Name, d)
			}
			dirs[d] = true
		}
	}
	ms := make([]member, 0, len(sorted)+len(dirs))
	for _, e := range sorted {
		ms = append(ms, member{name: e.Name, data: e.Data})
	}
	for d := range dirs {
		ms = append(ms, member{name: d + "/", dir: true})
	}
	slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.name, b.name) })
	return ms, nil
}

// TarGz returns a reproducible gzip-compressed POSIX tar of entries (see the package
// documentation for every fixed field): ustar headers, PAX only for a name that needs it,
// SKILL.md at the archive root (no wrapper directory), members sorted by name byte-wise
// whatever the order of entries, an explicit directory entry for every directory level,
// files 0644 and directories 0755 owned by 0:0, all modified at 1980-01-01T00:00:00Z,
// gzip at best compression with no name, MTIME 0 and OS 255.
//
// It returns an error, and no archive, for an invalid or duplicate name, or a file whose
// name is also a directory of another entry's ("a" and "a/b").
func TarGz(entries []Entry) ([]byte, error) {
	ms, err := layout(entries)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	zw.Header = gzip.Header{OS: 255} // no name, comment, extra or MTIME
	tw := tar.NewWriter(zw)
	for _, m := range ms {
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     m.name,
			Size:     int64(len(m.data)),
			Mode:     fileMode,
			ModTime:  modTime,
			Format:   tar.FormatUSTAR,
		}
		if m.dir {
			hdr.Typeflag, hdr.Mode = tar.TypeDir, dirMode
		}
		// A header that ustar cannot hold is refused before anything is written: then
		// write it again as PAX, which holds any name.
		if err := tw.WriteHeader(hdr); err != nil {
			hdr.Format = tar.FormatPAX
			if err := tw.WriteHeader(hdr); err != nil {
				return nil, fmt.Errorf("archive: entry %q: %w", m.name, err)
			}
		}
		if _, err := tw.Write(m.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Zip header constants.
const (
	zipVersion20   = 20     // "version made by" / "needed to extract": 2.0 (Deflate, directories)
	creatorUnix    = 3 << 8 // "version made by" high byte: the external attributes are Unix
	flagUTF8       = 0x800  // general purpose bit 11: the name is UTF-8
	unixRegular    = 0o100000
	unixDirectory  = 0o040000
	msdosDirectory = 0x10
)

// Zip returns a reproducible zip of entries with the same members, order, names and
// modes as TarGz: files Deflate at best compression, directories Store, the
// 1980-01-01T00:00:00Z time in the MS-DOS fields only (no extended timestamp extra field),
// CRC-32 and sizes in the local headers (no data descriptors), the Unix mode in the
// external attributes and no comments (see the package documentation).
//
// It returns the same errors as TarGz, and one for a file of 4 GiB or more (which would
// need zip64).
func Zip(entries []Entry) ([]byte, error) {
	ms, err := layout(entries)
	if err != nil {
		return nil, err
	}
	var buf, comp bytes.Buffer
	zw := zip.NewWriter(&buf)
	fw, err := flate.NewWriter(&comp, flate.BestCompression)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		fh := &zip.FileHeader{
			Name:           m.name,
			CreatorVersion: creatorUnix | zipVersion20,
			ReaderVersion:  zipVersion20,
			Method:         zip.Store,
			ModifiedTime:   dosTime,
			ModifiedDate:   dosDate,
			ExternalAttrs:  (unixDirectory|dirMode)<<16 | msdosDirectory,
		}
		if strings.ContainsFunc(m.name, needsUTF8) {
			fh.Flags |= flagUTF8
		}
		var data []byte
		if !m.dir {
			if int64(len(m.data)) >= math.MaxUint32 {
				return nil, fmt.Errorf("archive: entry %q: 4 GiB or more does not fit a zip without zip64", m.name)
			}
			comp.Reset()
			fw.Reset(&comp)
			if _, err := fw.Write(m.data); err != nil {
				return nil, err
			}
			if err := fw.Close(); err != nil {
				return nil, err
			}
			data = comp.Bytes()
			fh.Method = zip.Deflate
			fh.CRC32 = crc32.ChecksumIEEE(m.data)
			fh.CompressedSize64 = uint64(len(data))
			fh.UncompressedSize64 = uint64(len(m.data))
			fh.ExternalAttrs = (unixRegular | fileMode) << 16
		}
		w, err := zw.CreateRaw(fh)
		if err != nil {
			return nil, fmt.Errorf("archive: entry %q: %w", m.name, err)
		}
		if _, err := w.Write(data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// needsUTF8 reports whether r makes a name need the UTF-8 flag: the rule of archive/zip's
// CreateHeader (and Info-ZIP), which leaves it off for names that read the same in CP-437
// and the common legacy code pages. Control characters and backslashes never get here.
func needsUTF8(r rune) bool { return r > 0x7d }
