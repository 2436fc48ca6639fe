package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// pseudoText returns n bytes of deterministic markdown-like prose.
func pseudoText(n int, seed uint64) []byte {
	words := strings.Fields(`the a an skill agent file refund policy customer request region
		template email invoice amount days order support team review check verify step
		when if then must should may not never always use run read write list table column
		value error warning report summary chart data script output input example section
		release note change commit branch merge incident severity page owner timeline`)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b bytes.Buffer
	for b.Len() < n {
		switch r.IntN(40) {
		case 0:
			b.WriteString("\n\n## ")
		case 1:
			b.WriteString(".\n- ")
		case 2, 3:
			b.WriteString(". ")
		default:
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.Bytes()[:n]
}

func pseudoRandom(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed+1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

var entrySets = []struct {
	name    string
	entries []Entry
}{
	{"single", []Entry{{Name: "SKILL.md", Data: []byte("---\nname: single\ndescription: d\n---\nbody\n")}}},
	{"nested", []Entry{
		{Name: "SKILL.md", Data: []byte("---\nname: refunds\n---\n")},
		{Name: "policies/regions/us.md", Data: []byte("# US\n")},
		{Name: "policies/regions/eu.md", Data: []byte("# EU\n")},
		{Name: "templates/refund-email.md", Data: []byte("Dear customer,\n")},
		{Name: "policies/README.md", Data: []byte("policies\n")},
		{Name: "a-b/x.md", Data: []byte("dash sorts before slash\n")},
		{Name: "a.md", Data: []byte("dot sorts before slash\n")},
		{Name: "a/b.md", Data: []byte("x\n")},
	}},
	{"unicode", []Entry{
		{Name: "SKILL.md", Data: []byte("# ünïcödé\n")},
		{Name: "références/café.md", Data: []byte("café\n")},
		{Name: "日本語/ファイル.md", Data: []byte("ファイル\n")},
		{Name: "tilde~name.md", Data: []byte("~\n")},
		{Name: "with space/file name.md", Data: []byte("spaces\n")},
		{Name: strings.Repeat("long-dir/", 15) + "file.md", Data: []byte("ustar prefix split\n")},
		{Name: strings.Repeat("x", 150) + ".md", Data: []byte("needs PAX\n")},
	}},
	{"empty", []Entry{{Name: "SKILL.md", Data: []byte("s\n")}, {Name: "empty.txt", Data: nil}, {Name: "dir/empty", Data: []byte{}}}},
	{"large", []Entry{
		{Name: "SKILL.md", Data: []byte("big\n")},
		{Name: "data/big.bin", Data: pseudoRandom(1<<20, 1)},
		{Name: "data/big.md", Data: pseudoText(1<<20, 2)},
	}},
}

// wantMembers lists the archive members expected for entries: every file and directory
// level ("dir/"), sorted byte-wise, computed independently of layout.
func wantMembers(entries []Entry) []string {
	set := map[string]bool{}
	for _, e := range entries {
		set[e.Name] = true
		parts := strings.Split(e.Name, "/")
		for i := 1; i < len(parts); i++ {
			set[strings.Join(parts[:i], "/")+"/"] = true
		}
	}
	var names []string
	for n := range set {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func sortedEntries(entries []Entry) []Entry {
	s := slices.Clone(entries)
	slices.SortFunc(s, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return s
}

func checkFiles(t *testing.T, got []File, want []Entry) {
	t.Helper()
	want = sortedEntries(want)
	if len(got) != len(want) {
		t.Fatalf("got %d files, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Name != want[i].Name || !bytes.Equal(got[i].Data, want[i].Data) {
			t.Errorf("file %d: got %q (%d bytes), want %q (%d bytes)", i, got[i].Name, len(got[i].Data), want[i].Name, len(want[i].Data))
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, set := range entrySets {
		t.Run(set.name, func(t *testing.T) {
			tgz, err := TarGz(set.entries)
			if err != nil {
				t.Fatal(err)
			}
			files, err := InspectTarGz(tgz, DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			checkFiles(t, files, set.entries)
			checkTarStdlib(t, tgz, set.entries)

			z, err := Zip(set.entries)
			if err != nil {
				t.Fatal(err)
			}
			files, err = InspectZip(z, DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			checkFiles(t, files, set.entries)
			checkZipStdlib(t, z, set.entries)
		})
	}
}

// checkTarStdlib unpacks tgz with compress/gzip and archive/tar alone and checks every
// header field the package promises.
func checkTarStdlib(t *testing.T, tgz []byte, entries []Entry) {
	t.Helper()
	// Fixed gzip header: magic, deflate, no flags, MTIME 0, XFL 2 (best), OS 255.
	if want := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255}; !bytes.Equal(tgz[:10], want) {
		t.Errorf("gzip header % x, want % x", tgz[:10], want)
	}
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || zr.Comment != "" || zr.Extra != nil || !zr.ModTime.IsZero() || zr.OS != 255 {
		t.Errorf("gzip header %+v", zr.Header)
	}
	data := map[string][]byte{}
	for _, e := range entries {
		data[e.Name] = e.Data
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, hdr.Name)
		isDir := strings.HasSuffix(hdr.Name, "/")
		wantType, wantMode := byte(tar.TypeReg), int64(0o644)
		if isDir {
			wantType, wantMode = tar.TypeDir, 0o755
		}
		if hdr.Typeflag != wantType || hdr.Mode != wantMode {
			t.Errorf("%s: typeflag %q mode %o", hdr.Name, hdr.Typeflag, hdr.Mode)
		}
		if hdr.Uid != 0 || hdr.Gid != 0 || hdr.Uname != "" || hdr.Gname != "" || hdr.Devmajor != 0 || hdr.Devminor != 0 || hdr.Linkname != "" {
			t.Errorf("%s: owner or device fields set: %+v", hdr.Name, hdr)
		}
		if !hdr.ModTime.Equal(time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)) || !hdr.AccessTime.IsZero() || !hdr.ChangeTime.IsZero() {
			t.Errorf("%s: times %v %v %v", hdr.Name, hdr.ModTime, hdr.AccessTime, hdr.ChangeTime)
		}
		if strings.HasPrefix(hdr.Name, "/") || strings.HasPrefix(hdr.Name, "./") || strings.Contains(hdr.Name, `\`) {
			t.Errorf("%s: not a relative slash-separated name", hdr.Name)
		}
		// ustar unless the name needs PAX, and then only a path record.
		needsPAX := len(hdr.Name) > 100 && !ustarSplittable(hdr.Name) || strings.ContainsFunc(hdr.Name, func(r rune) bool { return r >= 0x80 })
		if needsPAX {
			if hdr.Format != tar.FormatPAX || len(hdr.PAXRecords) != 1 || hdr.PAXRecords["path"] != hdr.Name {
				t.Errorf("%s: format %v, PAX records %v", hdr.Name, hdr.Format, hdr.PAXRecords)
			}
		} else if hdr.Format != tar.FormatUSTAR || hdr.PAXRecords != nil {
			t.Errorf("%s: format %v, PAX records %v", hdr.Name, hdr.Format, hdr.PAXRecords)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if !isDir && !bytes.Equal(b, data[hdr.Name]) {
			t.Errorf("%s: data differs", hdr.Name)
		}
	}
	if want := wantMembers(entries); !slices.Equal(names, want) {
		t.Errorf("members\n got %q\nwant %q", names, want)
	}
}

func ustarSplittable(name string) bool {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '/' && i <= 155 && len(name)-i-1 <= 100 && i > 0 && i < len(name)-1 {
			return true
		}
	}
	return false
}

// checkZipStdlib unpacks z with archive/zip alone and checks the promised header fields.
func checkZipStdlib(t *testing.T, z []byte, entries []Entry) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(z), int64(len(z)))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Comment != "" {
		t.Errorf("zip comment %q", zr.Comment)
	}
	data := map[string][]byte{}
	for _, e := range entries {
		data[e.Name] = e.Data
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		isDir := strings.HasSuffix(f.Name, "/")
		wantMethod, wantMode := zip.Deflate, fs.FileMode(0o644)
		if isDir {
			wantMethod, wantMode = zip.Store, fs.ModeDir|0o755
		}
		if f.Method != wantMethod || f.Mode() != wantMode {
			t.Errorf("%s: method %d mode %v", f.Name, f.Method, f.Mode())
		}
		if !f.Modified.Equal(time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)) || f.ModifiedDate != 0x21 || f.ModifiedTime != 0 {
			t.Errorf("%s: modified %v (%#x %#x)", f.Name, f.Modified, f.ModifiedDate, f.ModifiedTime)
		}
		if len(f.Extra) != 0 || f.Comment != "" {
			t.Errorf("%s: extra % x comment %q", f.Name, f.Extra, f.Comment)
		}
		if f.CreatorVersion != 3<<8|20 || f.ReaderVersion != 20 {
			t.Errorf("%s: versions %#x %d", f.Name, f.CreatorVersion, f.ReaderVersion)
		}
		wantFlags := uint16(0)
		if strings.ContainsFunc(f.Name, func(r rune) bool { return r > 0x7d }) {
			wantFlags = 0x800
		}
		if f.Flags != wantFlags || f.NonUTF8 {
			t.Errorf("%s: flags %#x", f.Name, f.Flags)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if !isDir && !bytes.Equal(b, data[f.Name]) {
			t.Errorf("%s: data differs", f.Name)
		}
	}
	if want := wantMembers(entries); !slices.Equal(names, want) {
		t.Errorf("members\n got %q\nwant %q", names, want)
	}
}

func TestReproducible(t *testing.T) {
	for _, set := range entrySets {
		t.Run(set.name, func(t *testing.T) {
			tgz, _ := TarGz(set.entries)
			z, _ := Zip(set.entries)
			reversed := slices.Clone(set.entries)
			slices.Reverse(reversed)
			shuffled := slices.Clone(set.entries)
			rand.New(rand.NewPCG(7, 7)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			for _, order := range [][]Entry{reversed, shuffled} {
				tgz2, _ := TarGz(order)
				z2, _ := Zip(order)
				if !bytes.Equal(tgz, tgz2) || !bytes.Equal(z, z2) {
					t.Error("input order changes the bytes")
				}
			}
		})
	}
	// Another time zone (time.Local) must not change anything.
	tgz, _ := TarGz(entrySets[1].entries)
	z, _ := Zip(entrySets[1].entries)
	saved := time.Local
	defer func() { time.Local = saved }()
	for _, loc := range []*time.Location{time.FixedZone("UTC+13", 13*3600), time.FixedZone("UTC-11", -11*3600)} {
		time.Local = loc
		tgz2, _ := TarGz(entrySets[1].entries)
		z2, _ := Zip(entrySets[1].entries)
		if !bytes.Equal(tgz, tgz2) || !bytes.Equal(z, z2) {
			t.Errorf("time zone %v changes the bytes", loc)
		}
	}
}

// TestGolden pins the exact bytes of a small archive in each format. The output depends
// on compress/flate, so a Go release that changes flate (or archive/tar, archive/zip)
// fails this test: then check that the change is only that, and refresh the digests
// deliberately, knowing that every published archive digest changes with them.
func TestGolden(t *testing.T) {
	entries := []Entry{
		{Name: "SKILL.md", Data: []byte("---\nname: golden\ndescription: A fixed skill for golden digests.\n---\n\n# Golden\n\nSee [the template](templates/t.md).\n")},
		{Name: "templates/t.md", Data: []byte("Hello, {{name}}.\n")},
		{Name: "scripts/run.sh", Data: []byte("#!/bin/sh\necho ok\n")},
		{Name: "notes/é.md", Data: []byte("accent\n")},
	}
	tgz, err := TarGz(entries)
	if err != nil {
		t.Fatal(err)
	}
	z, err := Zip(entries)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		format string
		b      []byte
		want   string
	}{
		{"tar.gz", tgz, goldenTarGz},
		{"zip", z, goldenZip},
	} {
		sum := sha256.Sum256(c.b)
		if got := hex.EncodeToString(sum[:]); got != c.want {
			t.Errorf("%s: sha256 %s (%d bytes), golden %s", c.format, got, len(c.b), c.want)
		}
	}
}

const (
	goldenTarGz = "6556b43647d268d12f24a8713b6c750e7bacf606c4118cbaacc73c5479cfe1a1"
	goldenZip   = "49e86a8d848f81f8462ecc39ae3a11c6f5d526918bff841304344509bf0881e2"
)

func TestWriteErrors(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{""}, "empty"},
		{[]string{"/abs"}, "absolute"},
		{[]string{"../evil"}, `".." segment`},
		{[]string{"a/../../b"}, `".." segment`},
		{[]string{"./a"}, `"." segment`},
		{[]string{"a//b"}, "empty segment"},
		{[]string{"dir/"}, "empty segment"},
		{[]string{`a\b`}, "backslash"},
		{[]string{"a\x00b"}, "control"},
		{[]string{"a\nb"}, "control"},
		{[]string{"a\u0085b"}, "control"},
		{[]string{"a\u202eb"}, "non-printable"},
		{[]string{"a\xffb"}, "UTF-8"},
		{[]string{"x", "x"}, "twice"},
		{[]string{"a", "a/b"}, "is a file, not a directory"},
		{[]string{"a/b/c", "a/b"}, "is a file, not a directory"},
	} {
		var entries []Entry
		for _, n := range c.names {
			entries = append(entries, Entry{Name: n})
		}
		for _, f := range []func([]Entry) ([]byte, error){TarGz, Zip} {
			b, err := f(entries)
			if err == nil || !strings.Contains(err.Error(), c.want) || b != nil {
				t.Errorf("%q: got %v, want an error containing %q", c.names, err, c.want)
			}
		}
	}
	// No names at all is an empty archive, not an error.
	for _, f := range []func([]Entry) ([]byte, error){TarGz, Zip} {
		if _, err := f(nil); err != nil {
			t.Error(err)
		}
	}
}

// TestDefaultLimitsFitBuild checks that the archive of a skill at the limits of
// PROTOCOL.md#skill-format (512 files, 16 MiB) in a typical two-level layout passes Inspect
// with the default limits.
func TestDefaultLimitsFitBuild(t *testing.T) {
	text := bytes.Repeat([]byte("All work and no play.\n"), 16<<20/512/22+1)[:16<<20/512]
	var entries []Entry
	for i := range 512 {
		entries = append(entries, Entry{Name: fmt.Sprintf("section-%02d/part-%d/file-%03d.md", i/32, i%4, i), Data: text})
	}
	tgz, err := TarGz(entries)
	if err != nil {
		t.Fatal(err)
	}
	z, err := Zip(entries)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := InspectTarGz(tgz, Limits{}); err != nil {
		t.Error(err)
	}
	if _, err := InspectZip(z, Limits{}); err != nil {
		t.Error(err)
	}
	// One more byte is over the limit.
	entries[0].Data = append(slices.Clone(text), 'x')
	tgz, _ = TarGz(entries)
	if _, err := InspectTarGz(tgz, Limits{}); err == nil {
		t.Error("16 MiB + 1 accepted")
	}
}

func TestDefaultLimits(t *testing.T) {
	if l := DefaultLimits(); l.MaxEntries != 1024 || l.MaxBytes != 16<<20 {
		t.Errorf("DefaultLimits() = %+v", l)
	}
	if (Limits{}).withDefaults() != DefaultLimits() {
		t.Error("zero Limits do not mean the defaults")
	}
}

// TestStreamedEntries: entries read through Open while they are written give the same
// bytes as entries held in Data; an entry whose reader gives other than Size bytes is an
// error, not a short or long member.
func TestStreamedEntries(t *testing.T) {
	opened := func(entries []Entry) []Entry {
		out := make([]Entry, len(entries))
		for i, e := range entries {
			data := e.Data
			out[i] = Entry{Name: e.Name, Size: int64(len(data)), Open: func() (io.ReadCloser, error) {
				return io.NopCloser(bytes.NewReader(data)), nil
			}}
		}
		return out
	}
	big := pseudoRandom(zipHoldBytes+100, 9) // read twice by WriteZip
	sets := append(entrySets, struct {
		name    string
		entries []Entry
	}{"streamed twice", []Entry{{Name: "SKILL.md", Data: []byte("s\n")}, {Name: "big.bin", Data: big}, {Name: "big.txt", Data: pseudoText(zipHoldBytes+7, 3)}}})
	for _, set := range sets {
		for _, write := range []struct {
			name string
			f    func([]Entry) ([]byte, error)
		}{{"tar.gz", TarGz}, {"zip", Zip}} {
			held, err := write.f(set.entries)
			if err != nil {
				t.Fatal(err)
			}
			streamed, err := write.f(opened(set.entries))
			if err != nil || !bytes.Equal(held, streamed) {
				t.Errorf("%s %s: streamed entries give other bytes (%v)", set.name, write.name, err)
			}
		}
	}
	for _, size := range []int64{3, 5} {
		bad := []Entry{{Name: "SKILL.md", Size: size, Open: func() (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader("four")), nil
		}}}
		if _, err := TarGz(bad); err == nil {
			t.Errorf("tar.gz of an entry of 4 bytes said to be %d: no error", size)
		}
		if _, err := Zip(bad); err == nil {
			t.Errorf("zip of an entry of 4 bytes said to be %d: no error", size)
		}
	}
}

// TestExecMode: an executable entry is written 0755 in both archives (every other file
// 0644), and inspecting either gives it back as Exec.
func TestExecMode(t *testing.T) {
	entries := []Entry{{Name: "SKILL.md", Data: []byte("---\nname: x\n---\n")}, {Name: "scripts/run.sh", Data: []byte("#!/bin/sh\n"), Exec: true}}
	tgz, err := TarGz(entries)
	if err != nil {
		t.Fatal(err)
	}
	zr, _ := gzip.NewReader(bytes.NewReader(tgz))
	tr := tar.NewReader(zr)
	modes := map[string]int64{}
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		modes[h.Name] = h.Mode
	}
	if modes["SKILL.md"] != 0o644 || modes["scripts/run.sh"] != 0o755 || modes["scripts/"] != 0o755 {
		t.Errorf("tar modes %v", modes)
	}
	z, err := Zip(entries)
	if err != nil {
		t.Fatal(err)
	}
	zf, _ := zip.NewReader(bytes.NewReader(z), int64(len(z)))
	for _, f := range zf.File {
		want := fs.FileMode(0o644)
		if f.Name == "scripts/run.sh" || f.Name == "scripts/" {
			want = 0o755
		}
		if f.Mode().Perm() != want {
			t.Errorf("zip %s: mode %v", f.Name, f.Mode())
		}
	}
	for name, inspect := range map[string]func() ([]File, error){
		"tar": func() ([]File, error) { return InspectTarGz(tgz, Limits{}) },
		"zip": func() ([]File, error) { return InspectZip(z, Limits{}) },
	} {
		files, err := inspect()
		if err != nil || len(files) != 2 || files[0].Exec || !files[1].Exec {
			t.Errorf("%s: %+v %v", name, files, err)
		}
	}
}
