package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"strings"
)

// member is one archive entry in writing order.
type member struct {
	name  string // a directory's ends in "/"
	entry *Entry // nil for a directory
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
	for i := range sorted {
		ms = append(ms, member{name: sorted[i].Name, entry: &sorted[i]})
	}
	for d := range dirs {
		ms = append(ms, member{name: d + "/"})
	}
	slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.name, b.name) })
	return ms, nil
}

// TarGz returns a reproducible gzip-compressed POSIX tar of entries (see the package
// documentation for every fixed field): ustar headers, PAX only for a name that needs it,
// SKILL.md at the archive root (no wrapper directory), members sorted by name byte-wise
// whatever the order of entries, an explicit directory entry for every directory level,
// files 0644 (0755 when Exec) and directories 0755 owned by 0:0, all modified at 1980-01-01T00:00:00Z,
// gzip at best compression with no name, MTIME 0 and OS 255.
//
// It returns an error, and no archive, for an invalid or duplicate name, or a file whose
// name is also a directory of another entry's ("a" and "a/b").
func TarGz(entries []Entry) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteTarGz(&buf, entries); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteTarGz writes the archive TarGz returns to w, reading each entry's bytes as it
// writes them: it holds no file whole. The names are checked before anything is written;
// an error reading an entry or writing w leaves w with part of an archive.
func WriteTarGz(w io.Writer, entries []Entry) error {
	ms, err := layout(entries)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	zw.Header = gzip.Header{OS: 255} // no name, comment, extra or MTIME
	tw := tar.NewWriter(zw)
	for _, m := range ms {
		hdr := &tar.Header{
			Typeflag: tar.TypeDir,
			Name:     m.name,
			Mode:     dirMode,
			ModTime:  modTime,
			Format:   tar.FormatUSTAR,
		}
		if m.entry != nil {
			hdr.Typeflag, hdr.Mode, hdr.Size = tar.TypeReg, m.entry.mode(), m.entry.size()
		}
		// A header that ustar cannot hold is refused before anything is written: then
		// write it again as PAX, which holds any name.
		if err := tw.WriteHeader(hdr); err != nil {
			hdr.Format = tar.FormatPAX
			if err := tw.WriteHeader(hdr); err != nil {
				return fmt.Errorf("archive: entry %q: %w", m.name, err)
			}
		}
		if m.entry != nil {
			if err := m.entry.copyTo(tw); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
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
	var buf bytes.Buffer
	if err := WriteZip(&buf, entries); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteZip writes the archive Zip returns to w. The sizes and CRC-32 come before each
// file's data, so it holds one file (and its compressed form) at a time, never the
// archive; an entry read through Open of more than 4 MiB it reads twice instead (once
// for the header's figures, once to write), holding none of it. Errors are as for
// WriteTarGz.
func WriteZip(w io.Writer, entries []Entry) error {
	ms, err := layout(entries)
	if err != nil {
		return err
	}
	var comp bytes.Buffer
	zw := zip.NewWriter(w)
	fw, err := flate.NewWriter(&comp, flate.BestCompression)
	if err != nil {
		return err
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
		streamed := m.entry != nil && m.entry.Open != nil && m.entry.Size > zipHoldBytes
		if m.entry != nil {
			if m.entry.size() >= math.MaxUint32 {
				return fmt.Errorf("archive: entry %q: 4 GiB or more does not fit a zip without zip64", m.name)
			}
			fh.Method = zip.Deflate
			fh.ExternalAttrs = (unixRegular | uint32(m.entry.mode())) << 16
			fh.UncompressedSize64 = uint64(m.entry.size())
			if streamed {
				// The header needs the CRC-32 and the compressed size: a first pass over
				// the file finds them, compressing into a counter.
				crc := crc32.NewIEEE()
				var n countWriter
				fw.Reset(&n)
				if err := m.entry.copyTo(io.MultiWriter(fw, crc)); err != nil {
					return err
				}
				if err := fw.Close(); err != nil {
					return err
				}
				fh.CRC32, fh.CompressedSize64 = crc.Sum32(), uint64(n)
			} else {
				raw, err := m.entry.bytes()
				if err != nil {
					return err
				}
				comp.Reset()
				fw.Reset(&comp)
				if _, err := fw.Write(raw); err != nil {
					return err
				}
				if err := fw.Close(); err != nil {
					return err
				}
				data = comp.Bytes()
				fh.CRC32 = crc32.ChecksumIEEE(raw)
				fh.CompressedSize64 = uint64(len(data))
			}
		}
		out, err := zw.CreateRaw(fh)
		if err != nil {
			return fmt.Errorf("archive: entry %q: %w", m.name, err)
		}
		if !streamed {
			if _, err := out.Write(data); err != nil {
				return err
			}
			continue
		}
		// The second pass writes the same compressed bytes (flate is deterministic; the
		// entry's reader fails if the file changed) and checks their length.
		n := countWriter(0)
		fw.Reset(io.MultiWriter(out, &n))
		if err := m.entry.copyTo(fw); err != nil {
			return err
		}
		if err := fw.Close(); err != nil {
			return err
		}
		if uint64(n) != fh.CompressedSize64 {
			return fmt.Errorf("archive: entry %q: compressed to %d bytes, then to %d", m.name, fh.CompressedSize64, n)
		}
	}
	return zw.Close()
}

// zipHoldBytes is the largest entry read through Open that WriteZip holds in memory with
// its compressed form; larger ones are read twice instead.
const zipHoldBytes = 4 << 20

// countWriter counts what is written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// needsUTF8 reports whether r makes a name need the UTF-8 flag: the rule of archive/zip's
// CreateHeader (and Info-ZIP), which leaves it off for names that read the same in CP-437
// and the common legacy code pages. Control characters and backslashes never get here.
func needsUTF8(r rune) bool { return r > 0x7d }
