package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// tgz gzips a tar built by add.
func tgz(t testing.TB, add func(tw *tar.Writer)) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	add(tw)
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gz gzips raw bytes (a hand-made tar stream).
func gz(raw []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(raw)
	zw.Close()
	return buf.Bytes()
}

func tarFile(tw *tar.Writer, name string, data string) {
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(data)), Mode: 0o644})
	tw.Write([]byte(data))
}

func tarHeaders(hdrs ...*tar.Header) func(*tar.Writer) {
	return func(tw *tar.Writer) {
		for _, h := range hdrs {
			if h.Typeflag == tar.TypeReg && h.Size == 0 {
				h.Size = 1
			}
			if err := tw.WriteHeader(h); err != nil {
				panic(err)
			}
			if h.Typeflag == tar.TypeReg {
				tw.Write(make([]byte, h.Size))
			}
		}
	}
}

func reg(name string) *tar.Header { return &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644} }
func dir(name string) *tar.Header { return &tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: 0o755} }

// rawTarHeader is a hand-made ustar header block, for what archive/tar will not write.
func rawTarHeader(name string, typeflag byte, size int) []byte {
	return rawTarHeaderMagic(name, typeflag, size, "ustar\x0000")
}

func rawTarHeaderMagic(name string, typeflag byte, size int, magic string) []byte {
	blk := make([]byte, 512)
	copy(blk, name)
	copy(blk[100:], "0000644\x00")
	copy(blk[108:], "0000000\x00")
	copy(blk[116:], "0000000\x00")
	copy(blk[124:], fmt.Sprintf("%011o\x00", size))
	copy(blk[136:], fmt.Sprintf("%011o\x00", 0))
	blk[156] = typeflag
	copy(blk[257:], magic)
	copy(blk[148:], "        ")
	sum := 0
	for _, c := range blk {
		sum += int(c)
	}
	copy(blk[148:], fmt.Sprintf("%06o\x00 ", sum))
	return blk
}

func padBlock(b []byte) []byte { return append(b, make([]byte, (512-len(b)%512)%512)...) }

func paxRecord(k, v string) string {
	n := len(k) + len(v) + 3
	for {
		s := fmt.Sprintf("%d %s=%s\n", n, k, v)
		if len(s) == n {
			return s
		}
		n = len(s)
	}
}

// zipOf builds a zip with archive/zip; each header's Data is written after it.
type zipItem struct {
	fh   zip.FileHeader
	data string
}

func zipOf(t testing.TB, items ...zipItem) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, it := range items {
		fh := it.fh
		if fh.Method == 0 && !strings.HasSuffix(fh.Name, "/") {
			fh.Method = zip.Deflate
		}
		w, err := zw.CreateHeader(&fh)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(it.data))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zf(name, data string) zipItem { return zipItem{zip.FileHeader{Name: name}, data} }

func zmode(name string, mode fs.FileMode, data string) zipItem {
	it := zipItem{zip.FileHeader{Name: name}, data}
	it.fh.SetMode(mode)
	return it
}

// rawZip builds a zip whose sizes and CRC are whatever the caller declares.
func rawZip(t testing.TB, name string, method uint16, comp []byte, crc uint32, csize, usize uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: method, CRC32: crc, CompressedSize64: csize, UncompressedSize64: usize})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(comp)
	zw.Close()
	return buf.Bytes()
}

func deflate(data []byte) []byte {
	var buf bytes.Buffer
	fw, _ := flate.NewWriter(&buf, flate.BestSpeed)
	fw.Write(data)
	fw.Close()
	return buf.Bytes()
}

var (
	bombsOnce                              sync.Once
	zeros100M, gzZeros, tgzBomb, zipBomb   []byte
	zipBombLying, deflatedZeros, tgzMany1M []byte
)

// bombs builds, once, the compression bombs: 100 MB of zeros as a raw gzip stream, as
// one tar file, deflated in a zip (declared honestly, and declared as 1 KiB), and as a
// tar of 1 MiB files.
func bombs(t testing.TB) {
	bombsOnce.Do(func() {
		const n = 100 << 20
		zeros100M = make([]byte, n)
		gzZeros = gz(zeros100M)
		tgzBomb = tgz(t, func(tw *tar.Writer) {
			tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "SKILL.md", Size: n, Mode: 0o644})
			tw.Write(zeros100M)
		})
		deflatedZeros = deflate(zeros100M)
		crc := crc32.ChecksumIEEE(zeros100M)
		zipBomb = rawZip(t, "SKILL.md", zip.Deflate, deflatedZeros, crc, uint64(len(deflatedZeros)), n)
		zipBombLying = rawZip(t, "SKILL.md", zip.Deflate, deflatedZeros, crc, uint64(len(deflatedZeros)), 1024)
		tgzMany1M = tgz(t, func(tw *tar.Writer) {
			for i := range 100 {
				tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: fmt.Sprintf("f%03d", i), Size: 1 << 20, Mode: 0o644})
				tw.Write(zeros100M[:1<<20])
			}
		})
		zeros100M = nil
	})
}

func TestInspectRefusesTar(t *testing.T) {
	bombs(t)
	sparse := func() []byte {
		recs := paxRecord("GNU.sparse.major", "0") + paxRecord("GNU.sparse.minor", "1") +
			paxRecord("GNU.sparse.map", "0,5") + paxRecord("GNU.sparse.numblocks", "1") +
			paxRecord("GNU.sparse.size", "1000") + paxRecord("GNU.sparse.name", "sparse.txt")
		var b []byte
		b = append(b, rawTarHeader("PaxHeaders/sparse.txt", tar.TypeXHeader, len(recs))...)
		b = append(b, padBlock([]byte(recs))...)
		b = append(b, rawTarHeader("GNUSparseFile.0/sparse.txt", tar.TypeReg, 5)...)
		b = append(b, padBlock([]byte("hello"))...)
		return gz(append(b, make([]byte, 1024)...))
	}()
	oldSparse := gz(append(rawTarHeaderMagic("s", tar.TypeGNUSparse, 0, "ustar  \x00"), make([]byte, 1024)...))
	many := tgz(t, func(tw *tar.Writer) {
		for i := range 6 {
			tarFile(tw, fmt.Sprintf("f%d", i), "x")
		}
	})
	for _, c := range []struct {
		name string
		tgz  []byte
		lim  Limits
		want string
	}{
		{"dotdot", tgz(t, tarHeaders(reg("../evil"))), Limits{}, `".." segment`},
		{"absolute", tgz(t, tarHeaders(reg("/abs"))), Limits{}, "absolute"},
		{"inner dotdot", tgz(t, tarHeaders(reg("a/../../b"))), Limits{}, `".." segment`},
		{"dot", tgz(t, tarHeaders(reg("./SKILL.md"))), Limits{}, `"." segment`},
		{"empty segment", tgz(t, tarHeaders(reg("a//b"))), Limits{}, "empty segment"},
		{"backslash", tgz(t, tarHeaders(reg(`a\b`))), Limits{}, "backslash"},
		{"control", tgz(t, tarHeaders(reg("a\x01b"))), Limits{}, "control"},
		{"bidi override", tgz(t, tarHeaders(reg("evil\u202eexe.md"))), Limits{}, "non-printable"},
		{"not UTF-8", tgz(t, tarHeaders(reg("caf\xe9"))), Limits{}, "UTF-8"},
		{"symlink", tgz(t, tarHeaders(&tar.Header{Typeflag: tar.TypeSymlink, Name: "link", Linkname: "/etc/passwd"})), Limits{}, "symbolic link"},
		{"hardlink", tgz(t, tarHeaders(reg("a"), &tar.Header{Typeflag: tar.TypeLink, Name: "b", Linkname: "a"})), Limits{}, "hard link"},
		{"char device", tgz(t, tarHeaders(&tar.Header{Typeflag: tar.TypeChar, Name: "null", Devmajor: 1, Devminor: 3})), Limits{}, "device"},
		{"block device", tgz(t, tarHeaders(&tar.Header{Typeflag: tar.TypeBlock, Name: "sda", Devmajor: 8})), Limits{}, "device"},
		{"fifo", tgz(t, tarHeaders(&tar.Header{Typeflag: tar.TypeFifo, Name: "fifo"})), Limits{}, "FIFO"},
		{"global header", tgz(t, tarHeaders(&tar.Header{Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"comment": "x"}})), Limits{}, "not a regular file"},
		{"old GNU sparse", oldSparse, Limits{}, "not a regular file"},
		{"PAX sparse", sparse, Limits{}, "sparse"},
		{"duplicate", tgz(t, tarHeaders(reg("a"), reg("a"))), Limits{}, "twice"},
		{"duplicate dir", tgz(t, tarHeaders(dir("a/"), dir("a"))), Limits{}, "twice"},
		{"file and dir", tgz(t, tarHeaders(reg("a"), dir("a/"))), Limits{}, "both a file and a directory"},
		{"file and implied dir", tgz(t, tarHeaders(reg("a"), reg("a/b"))), Limits{}, "is a file, not a directory"},
		{"file named like a dir", gz(append(rawTarHeader("a/", tar.TypeReg, 0), make([]byte, 1024)...)), Limits{}, "empty segment"},
		{"dir with data", tgz(t, tarHeaders(&tar.Header{Typeflag: tar.TypeDir, Name: "d/", Size: 3})), Limits{}, "directory holding"},
		{"too many entries", many, Limits{MaxEntries: 5}, "more than 5 entries"},
		{"too many bytes", tgz(t, tarHeaders(&tar.Header{Typeflag: tar.TypeReg, Name: "a", Size: 11})), Limits{MaxBytes: 10}, "more than 10 bytes"},
		{"declared 100 MB", tgzBomb, Limits{}, "more than 16777216 bytes"},
		{"100 x 1 MiB", tgzMany1M, Limits{}, "more than 16777216 bytes"},
		{"100 MB of zeros", gzZeros, Limits{}, "uncompressed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			files, err := InspectTarGz(c.tgz, c.lim)
			t.Log(err)
			if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), c.want) || files != nil {
				t.Errorf("got %v, want ErrUnsafe containing %q", err, c.want)
			}
		})
	}
}

func TestInspectCorruptTar(t *testing.T) {
	good, _ := TarGz(entrySets[1].entries)
	var corrupt = func(i int) []byte { b := bytes.Clone(good); b[i] ^= 0x55; return b }
	var concatenated []byte
	concatenated = append(append(concatenated, good...), good...)
	afterEnd := gz(append(padBlock(append(rawTarHeader("a", tar.TypeReg, 1), 'x')), append(make([]byte, 1024), "junk"...)...))
	noGzip, _ := Zip(entrySets[0].entries)
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"not gzip", noGzip},
		{"truncated", good[:len(good)-10]},
		{"truncated header", good[:5]},
		{"trailing garbage", append(bytes.Clone(good), "garbage"...)},
		{"trailing zero", append(bytes.Clone(good), 0)},
		{"two gzip members", concatenated},
		{"bad CRC", corrupt(len(good) - 6)},
		{"bad size", corrupt(len(good) - 2)},
		{"corrupt data", corrupt(len(good) / 2)},
		{"data after tar end", afterEnd},
		{"truncated file", gz(append(rawTarHeader("a", tar.TypeReg, 100), "short"...))},
		{"bad header checksum", gz(append(bytes.Repeat([]byte{'z'}, 512), make([]byte, 1024)...))},
	} {
		t.Run(c.name, func(t *testing.T) {
			files, err := InspectTarGz(c.b, DefaultLimits())
			t.Log(err)
			if err == nil || errors.Is(err, ErrUnsafe) || files != nil {
				t.Errorf("got %v, want a corruption error", err)
			}
		})
	}
	// Zero padding after the tar's end (GNU tar's 10 KiB records) is fine.
	padded := gz(append(padBlock(append(rawTarHeader("a", tar.TypeReg, 1), 'x')), make([]byte, 10240-512)...))
	if files, err := InspectTarGz(padded, DefaultLimits()); err != nil || len(files) != 1 {
		t.Errorf("padded tar: %v", err)
	}
}

func TestInspectRefusesZip(t *testing.T) {
	bombs(t)
	data := []byte(strings.Repeat("payload ", 100))
	comp := deflate(data)
	crc := crc32.ChecksumIEEE(data)
	n := uint64(len(data))
	many := make([]zipItem, 6)
	for i := range many {
		many[i] = zf(fmt.Sprintf("f%d", i), "x")
	}
	// Two files, then the local header of the second renamed to "../e.md".
	renamed := zipOf(t, zf("good.md", "x"))
	copy(renamed[30:], "../e.md")
	// Two identical files, then the second central record pointed at the first local header.
	overlap := zipOf(t, zipItem{zip.FileHeader{Name: "a.md", Method: zip.Store}, "same"}, zipItem{zip.FileHeader{Name: "b.md", Method: zip.Store}, "same"})
	if i := bytes.LastIndex(overlap, []byte("PK\x01\x02")); i < 0 {
		t.Fatal("no central record")
	} else {
		binary.LittleEndian.PutUint32(overlap[i+42:], 0)
	}
	dirAttrs := zipItem{zip.FileHeader{Name: "d"}, ""}
	dirAttrs.fh.SetMode(fs.ModeDir | 0o755)
	for _, c := range []struct {
		name string
		zip  []byte
		lim  Limits
		want string
	}{
		{"dotdot", zipOf(t, zf("../evil", "x")), Limits{}, `".." segment`},
		{"absolute", zipOf(t, zf("/abs", "x")), Limits{}, "absolute"},
		{"inner dotdot", zipOf(t, zf("a/../../b", "x")), Limits{}, `".." segment`},
		{"backslash", zipOf(t, zf(`a\b`, "x")), Limits{}, "backslash"},
		{"windows path", zipOf(t, zf(`..\..\evil`, "x")), Limits{}, "backslash"},
		{"control", zipOf(t, zf("a\x00b", "x")), Limits{}, "control"},
		{"empty name", zipOf(t, zf("", "x")), Limits{}, "empty"},
		{"symlink", zipOf(t, zmode("link", fs.ModeSymlink|0o777, "/etc/passwd")), Limits{}, "symbolic link"},
		{"device", zipOf(t, zmode("null", fs.ModeDevice|fs.ModeCharDevice|0o666, "")), Limits{}, "device"},
		{"fifo", zipOf(t, zmode("fifo", fs.ModeNamedPipe|0o644, "")), Limits{}, "FIFO"},
		{"socket", zipOf(t, zmode("sock", fs.ModeSocket|0o644, "")), Limits{}, "not a regular file"},
		{"dir attributes on a file name", zipOf(t, dirAttrs), Limits{}, "directory attributes"},
		{"duplicate", zipOf(t, zf("a", "x"), zf("a", "y")), Limits{}, "twice"},
		{"file and dir", zipOf(t, zf("a", "x"), zf("a/", "")), Limits{}, "both a file and a directory"},
		{"file and implied dir", zipOf(t, zf("a", "x"), zf("a/b", "y")), Limits{}, "is a file, not a directory"},
		{"too many entries", zipOf(t, many...), Limits{MaxEntries: 5}, "more than 5"},
		{"too many bytes", zipOf(t, zf("a", "0123456789x")), Limits{MaxBytes: 10}, "more than 10 bytes"},
		{"declared 100 MB", zipBomb, Limits{}, "more than 16777216 bytes"},
		{"100 MB declared as 1 KiB", zipBombLying, Limits{}, "more than its declared 1024 bytes"},
		{"uncompressed size too big", rawZip(t, "a", zip.Deflate, comp, crc, uint64(len(comp)), n+1), Limits{}, "declares 801 bytes but holds 800"},
		{"uncompressed size too small", rawZip(t, "a", zip.Deflate, comp, crc, uint64(len(comp)), n-1), Limits{}, "more than its declared"},
		{"stored size lies", rawZip(t, "a", zip.Store, data, crc, n, n-1), Limits{}, "declares 799 bytes but stores 800"},
		{"compressed size too big", rawZip(t, "a", zip.Deflate, append(bytes.Clone(comp), 0, 0, 0), crc, uint64(len(comp))+3, n), Limits{}, "before its declared compressed size"},
		{"compressed size too small", rawZip(t, "a", zip.Deflate, comp, crc, uint64(len(comp))-3, n), Limits{}, "belong to no entry"},
		{"compressed size past the data", rawZip(t, "a", zip.Deflate, comp, crc, uint64(len(comp))+1000, n), Limits{}, "runs past"},
		{"local name differs", renamed, Limits{}, `local header names it "../e.md"`},
		{"overlapping entries", overlap, Limits{}, "overlaps"},
	} {
		t.Run(c.name, func(t *testing.T) {
			files, err := InspectZip(c.zip, c.lim)
			t.Log(err)
			if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), c.want) || files != nil {
				t.Errorf("got %v, want ErrUnsafe containing %q", err, c.want)
			}
		})
	}
}

func TestInspectCorruptZip(t *testing.T) {
	good, _ := Zip(entrySets[1].entries)
	corrupt := func(i int) []byte { b := bytes.Clone(good); b[i] ^= 0x55; return b }
	tarGz, _ := TarGz(entrySets[0].entries)
	data := []byte("some data")
	encrypted := rawZip(t, "a", zip.Store, data, crc32.ChecksumIEEE(data), 9, 9)
	encrypted[6] |= 1 // local flags
	i := bytes.LastIndex(encrypted, []byte("PK\x01\x02"))
	encrypted[i+8] |= 1 // central flags
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"not zip", tarGz},
		{"truncated", good[:len(good)-1]},
		{"truncated half", good[:len(good)/2]},
		{"trailing garbage", append(bytes.Clone(good), "garbage"...)},
		{"leading garbage", append([]byte("MZ stub"), good...)},
		{"bad CRC", rawZip(t, "a", zip.Store, data, 1234, 9, 9)},
		{"corrupt data", corrupt(40)},
		{"encrypted", encrypted},
		{"bzip2", rawZip(t, "a", 12, data, crc32.ChecksumIEEE(data), 9, 9)},
	} {
		t.Run(c.name, func(t *testing.T) {
			files, err := InspectZip(c.b, DefaultLimits())
			t.Log(err)
			if err == nil || errors.Is(err, ErrUnsafe) || files != nil {
				t.Errorf("got %v, want a corruption error", err)
			}
		})
	}
}

// TestInspectBombMemory checks that refusing each 100 MB bomb allocates far less than
// 100 MB and takes little time.
func TestInspectBombMemory(t *testing.T) {
	bombs(t)
	for _, c := range []struct {
		name    string
		inspect func() ([]File, error)
	}{
		{"tar.gz declared", func() ([]File, error) { return InspectTarGz(tgzBomb, DefaultLimits()) }},
		{"tar.gz many files", func() ([]File, error) { return InspectTarGz(tgzMany1M, DefaultLimits()) }},
		{"gzip of zeros", func() ([]File, error) { return InspectTarGz(gzZeros, DefaultLimits()) }},
		{"zip declared", func() ([]File, error) { return InspectZip(zipBomb, DefaultLimits()) }},
		{"zip lying", func() ([]File, error) { return InspectZip(zipBombLying, DefaultLimits()) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := c.inspect()
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrUnsafe) {
				t.Fatalf("got %v, want ErrUnsafe", err)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%v: allocated %d KiB in %v", err, alloc>>10, elapsed)
			if alloc > 64<<20 {
				t.Errorf("allocated %d MiB refusing a bomb", alloc>>20)
			}
			if elapsed > 5*time.Second {
				t.Errorf("took %v refusing a bomb", elapsed)
			}
		})
	}
}

// TestInspectOtherTools reads archives made by other tools (testdata/interop: Info-ZIP
// zip 3.0 plain, with data descriptors, with zip64 and streamed to a pipe; GNU tar 1.34
// in PAX, GNU and ustar formats; Python 3.11's zipfile and tarfile) from one skill folder.
func TestInspectOtherTools(t *testing.T) {
	numbers := ""
	for i := 1; i <= 300; i++ {
		numbers += fmt.Sprintf("%d\n", i)
	}
	all := []Entry{
		{Name: "SKILL.md", Data: []byte("---\nname: skill\ndescription: made by other tools\n---\nhi\n")},
		{Name: "refs/café.md", Data: []byte("é\n")},
		{Name: "refs/deep/x.md", Data: []byte("x\n")},
		{Name: "refs/empty", Data: nil},
		{Name: "refs/" + strings.Repeat("l", 150) + ".md", Data: []byte("long")},
		{Name: "refs/numbers.txt", Data: []byte(numbers)},
	}
	some := func(names ...string) []Entry {
		var es []Entry
		for _, e := range all {
			if slices.Contains(names, e.Name) {
				es = append(es, e)
			}
		}
		return es
	}
	for _, c := range []struct {
		file string
		want []Entry
	}{
		{"infozip.zip", all},
		{"infozip-descriptors.zip", all},
		{"infozip-zip64.zip", all},
		{"infozip-streamed.zip", some("SKILL.md", "refs/numbers.txt")},
		{"python.zip", all},
		{"gnutar-pax.tar.gz", all},
		{"gnutar-gnu.tar.gz", all},
		{"gnutar-ustar.tar.gz", some("SKILL.md", "refs/numbers.txt", "refs/deep/x.md")},
		{"python.tar.gz", all},
	} {
		t.Run(c.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "interop", c.file))
			if err != nil {
				t.Fatal(err)
			}
			inspect := InspectTarGz
			if strings.HasSuffix(c.file, ".zip") {
				inspect = InspectZip
			}
			files, err := inspect(b, DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			checkFiles(t, files, c.want)
		})
	}
	// "tar -C skill -czf skill.tar.gz ." names everything "./…": refused.
	b, err := os.ReadFile("testdata/interop/gnutar-dot.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := InspectTarGz(b, DefaultLimits()); !errors.Is(err, ErrUnsafe) {
		t.Errorf("./ names: got %v, want ErrUnsafe", err)
	}
	// archive/zip's own writer (data descriptors with signatures, directories).
	z := zipOf(t, zf("dir/", ""), zf("dir/a.md", "data data data"), zf("SKILL.md", "s"), zipItem{zip.FileHeader{Name: "b", Method: zip.Store}, "stored"})
	files, err := InspectZip(z, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, files, []Entry{{Name: "dir/a.md", Data: []byte("data data data")}, {Name: "SKILL.md", Data: []byte("s")}, {Name: "b", Data: []byte("stored")}})
}
