package compile

import (
	"bytes"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// TestWriteJSONString: the streamed JSON string of a text is jsonString's, byte for byte,
// whatever the chunk size (runes cut by a chunk's end, escapes, U+2028); base64 likewise.
func TestWriteJSONString(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "é", "€", "😀", "\u2028", "\u2029", "\"", "\\", "\n", "\t", "\r", "\f", "<&>", " ", "日本"}
	for range 300 {
		var b strings.Builder
		for range rnd.IntN(200) {
			b.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		text := b.String()
		want := jsonString(text)
		for _, chunk := range []int{1, 2, 3, 5, 64 << 10} {
			var got bytes.Buffer
			if err := writeJSONString(&got, strings.NewReader(text), chunk); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("chunk %d, %+q: %s, want %s", chunk, text, got.Bytes(), want)
			}
		}
		var got bytes.Buffer
		if err := writeBase64(&got, strings.NewReader(text)); err != nil || !bytes.Equal(got.Bytes(), readValue([]byte(text), false)) {
			t.Fatalf("base64 of %+q: %s (%v)", text, got.Bytes(), err)
		}
	}
}

// largeCatalog is a folder with files over KeepBytes (text with runes across every
// chunk boundary, binary), a nested skill and small files, written to disk.
func largeCatalog(t *testing.T) string {
	dir := t.TempDir()
	rnd := rand.NewChaCha8([32]byte{7})
	bin := make([]byte, 3*KeepBytes+5)
	rnd.Read(bin)
	text := strings.Repeat("line é 😀 \u2028 \"quoted\"\n", 3*KeepBytes/20)
	for rel, data := range map[string]string{
		"big/SKILL.md":         "---\nname: big\ndescription: Large files.\n---\nbody\n",
		"big/data.bin":         string(bin),
		"big/text.md":          text,
		"big/small.txt":        "small",
		"big/inner/SKILL.md":   "---\nname: inner\ndescription: Nested.\n---\n",
		"big/inner/copy.bin":   string(bin), // the same content twice: one object
		"other/SKILL.md":       "---\nname: other\ndescription: Small.\n---\n",
		"other/notes/today.md": "notes",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestEncodeDirSameBytes: encoding into a directory, large files read again and streamed,
// gives the index and objects that encoding in memory gives; the loaded catalog holds the
// large files' bytes nowhere.
func TestEncodeDirSameBytes(t *testing.T) {
	dir := largeCatalog(t)
	c, ps, err := LoadDir(dir, Options{})
	if err != nil || HasErrors(ps) {
		t.Fatalf("%v %v", err, ps)
	}
	for _, s := range c.Skills {
		for _, f := range s.Files {
			if (f.Data == nil) != (f.Size > KeepBytes) {
				t.Errorf("%s: %d bytes, Data held: %v", f.Path, f.Size, f.Data != nil)
			}
		}
	}
	mem := mustEncode(t, c)
	out := t.TempDir()
	disk, err := EncodeWith(c, EncodeOptions{Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mem.Index, disk.Index) {
		t.Fatal("the index differs")
	}
	names := mem.Store.Names()
	if strings.Join(names, " ") != strings.Join(disk.Store.Names(), " ") || disk.Store.Size() != mem.Store.Size() {
		t.Fatalf("objects differ: %d and %d", len(names), len(disk.Store.Names()))
	}
	files, err := os.ReadDir(filepath.Join(out, "sha256"))
	if err != nil || len(files) != len(names) {
		t.Fatalf("%d files for %d objects (%v)", len(files), len(names), err)
	}
	for _, name := range names {
		want, _ := mem.Store.Object(name)
		got, err := os.ReadFile(filepath.Join(out, "sha256", name))
		if err != nil || !bytes.Equal(got, want) || disk.Store.ObjectSize(name) != int64(len(want)) {
			t.Fatalf("object %s (%s): %d bytes on disk, %d in memory (%v)", name, mem.Store.What(name), len(got), len(want), err)
		}
	}
	// The objects move into another folder of the same file system.
	moved := filepath.Join(t.TempDir(), "assets")
	if err := disk.Store.WriteDir(moved); err != nil {
		t.Fatal(err)
	}
	if b, err := disk.Store.Object(names[0]); err != nil || len(b) != int(mem.Store.ObjectSize(names[0])) {
		t.Fatalf("after the move: %v", err)
	}
}

// TestEncodeFileChanged: a large file that changes between Load and Encode is an error
// naming it (ErrChanged), never an object whose bytes do not match the listed digest.
func TestEncodeFileChanged(t *testing.T) {
	dir := largeCatalog(t)
	c, _, err := LoadDir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big", "text.md"), []byte(strings.Repeat("x", 3*KeepBytes)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = EncodeWith(c, EncodeOptions{Dir: t.TempDir()})
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "big/text.md") {
		t.Fatalf("%v", err)
	}
	// Removed, it cannot be read again.
	os.Remove(filepath.Join(dir, "big", "text.md"))
	if _, err = Encode(c); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%v", err)
	}
	// Files loaded from an fs.FS are read again from it.
	fsys := fstest.MapFS{"s/SKILL.md": {Data: []byte("---\nname: s\ndescription: d\n---\n")}, "s/big.txt": {Data: bytes.Repeat([]byte("z"), KeepBytes+1)}}
	c, _, err = Load(fsys, "m", Options{})
	if err != nil {
		t.Fatal(err)
	}
	fsys["s/big.txt"].Data[0] = 'y'
	if _, err = Encode(c); !errors.Is(err, ErrChanged) {
		t.Fatalf("%v", err)
	}
}
