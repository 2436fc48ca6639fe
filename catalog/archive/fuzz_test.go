package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"testing"
)

// fuzzLimits keep each fuzz input cheap: whatever the input, Inspect holds at most
// MaxBytes of file data and decompresses at most about MaxBytes + 8 KiB per entry.
var fuzzLimits = Limits{MaxEntries: 64, MaxBytes: 1 << 20}

// checkInspected checks what Inspect returned: valid, unique, sorted names, within the
// limits, and a set of files that TarGz or Zip (arch) can write back, which Inspect (insp)
// then reads back the same.
func checkInspected(t *testing.T, files []File, arch func([]Entry) ([]byte, error), insp func([]byte, Limits) ([]File, error)) {
	var total int
	entries := make([]Entry, len(files))
	for i, f := range files {
		if why := checkName(f.Name); why != "" {
			t.Fatalf("returned %q: %s", f.Name, why)
		}
		if i > 0 && files[i-1].Name >= f.Name {
			t.Fatalf("names not sorted and unique: %q, %q", files[i-1].Name, f.Name)
		}
		total += len(f.Data)
		entries[i] = Entry{Name: f.Name, Data: f.Data}
	}
	if len(files) > fuzzLimits.MaxEntries || int64(total) > fuzzLimits.MaxBytes {
		t.Fatalf("%d files, %d bytes: over the limits", len(files), total)
	}
	b, err := arch(entries)
	if err != nil {
		t.Fatalf("cannot archive what Inspect returned: %v", err)
	}
	back, err := insp(b, Limits{MaxEntries: 1 << 20, MaxBytes: fuzzLimits.MaxBytes})
	if err != nil {
		t.Fatalf("cannot inspect the archive of what Inspect returned: %v", err)
	}
	if len(back) != len(files) {
		t.Fatalf("round trip: %d files, want %d", len(back), len(files))
	}
	for i := range back {
		if back[i].Name != files[i].Name || !bytes.Equal(back[i].Data, files[i].Data) {
			t.Fatalf("round trip changed %q", files[i].Name)
		}
	}
}

func fuzzSeeds(f *testing.F, arch func([]Entry) ([]byte, error)) {
	for _, set := range entrySets {
		if set.name == "large" {
			continue
		}
		b, err := arch(set.entries)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
}

func FuzzInspectTarGz(f *testing.F) {
	fuzzSeeds(f, TarGz)
	f.Add(tgz(f, tarHeaders(reg("../evil"))))
	f.Add(tgz(f, tarHeaders(&tar.Header{Typeflag: tar.TypeSymlink, Name: "l", Linkname: "/"})))
	f.Add(tgz(f, tarHeaders(reg("a"), reg("a/b"))))
	f.Add(tgz(f, tarHeaders(&tar.Header{Typeflag: tar.TypeReg, Name: "é/" + string(bytes.Repeat([]byte("x"), 200)), Size: 3, Format: tar.FormatPAX})))
	f.Add(gz(append(padBlock(append(rawTarHeader("a", tar.TypeReg, 1), 'x')), make([]byte, 10240)...)))
	// Also seed the tar streams themselves: an input that is not gzip is gzipped first,
	// so that mutations reach archive/tar and the checks behind it.
	var raws [][]byte
	for _, set := range entrySets[:4] {
		b, _ := TarGz(set.entries)
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			f.Fatal(err)
		}
		raw, _ := io.ReadAll(zr)
		raws = append(raws, raw)
	}
	for _, raw := range raws {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			b = gz(b)
		}
		files, err := InspectTarGz(b, fuzzLimits)
		if err != nil {
			if files != nil {
				t.Fatal("files and an error")
			}
			return
		}
		checkInspected(t, files, TarGz, InspectTarGz)
	})
}

func FuzzInspectZip(f *testing.F) {
	fuzzSeeds(f, Zip)
	f.Add(zipOf(f, zf("../evil", "x")))
	f.Add(zipOf(f, zmode("link", fs.ModeSymlink|0o777, "/etc/passwd")))
	f.Add(zipOf(f, zf("a", "x"), zf("a/", "")))
	f.Add(zipOf(f, zf("dir/", ""), zf("dir/a", "data data data data"), zf("b", "")))
	items := make([]zipItem, 10)
	for i := range items {
		items[i] = zf(fmt.Sprintf("d/f%d", i), "same same same")
	}
	f.Add(zipOf(f, items...)) // archive/zip's own writer: data descriptors
	f.Fuzz(func(t *testing.T, b []byte) {
		files, err := InspectZip(b, fuzzLimits)
		if err != nil {
			if files != nil {
				t.Fatal("files and an error")
			}
			return
		}
		checkInspected(t, files, Zip, InspectZip)
	})
}

// benchSkill is a ~1 MB text skill: SKILL.md and 20 reference files.
func benchSkill() []Entry {
	entries := []Entry{{Name: "SKILL.md", Data: pseudoText(8<<10, 10)}}
	for i := range 20 {
		entries = append(entries, Entry{Name: fmt.Sprintf("reference/part-%02d.md", i), Data: pseudoText(50<<10, uint64(11+i))})
	}
	return entries
}

func BenchmarkTarGz(b *testing.B) {
	entries := benchSkill()
	for b.Loop() {
		if _, err := TarGz(entries); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkZip(b *testing.B) {
	entries := benchSkill()
	for b.Loop() {
		if _, err := Zip(entries); err != nil {
			b.Fatal(err)
		}
	}
}
