package compile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skilledge/skilledge/catalog"
)

// loadMap loads a folder given as path -> content.
func loadMap(t *testing.T, files map[string]string) *Catalog {
	t.Helper()
	fsys := fstest.MapFS{}
	for p, data := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(data)}
	}
	c, problems, err := Load(fsys, "test", Options{})
	if err != nil || HasErrors(problems) {
		t.Fatalf("Load: %v %v", err, problems)
	}
	return c
}

func skill(name string) string {
	return "---\nname: " + name + "\ndescription: Skill " + name + ".\n---\nBody of " + name + ".\n"
}

// TestEncodeStore: every object is named by the SHA-256 of its bytes, the index refers to
// exactly the store's objects, the index holds no file contents, and a content that
// several files share is stored once.
func TestEncodeStore(t *testing.T) {
	shared := bytes.Repeat([]byte("A schema several skills ship, byte for byte the same.\n"), 100)
	c := loadMap(t, map[string]string{
		"a/SKILL.md":      skill("a"),
		"a/schema.xsd":    string(shared),
		"b/SKILL.md":      skill("b"),
		"b/ref/schema.md": string(shared),
		"b/icon.bin":      "\x00\x01\x02\xff",
	})
	enc := mustEncode(t, c)
	for _, name := range enc.Store.Names() {
		b, _ := enc.Store.Object(name)
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != name {
			t.Fatalf("object %s holds bytes hashing to %x", name, sum)
		}
	}
	p, err := catalog.Open(enc.Index)
	if err != nil {
		t.Fatal(err)
	}
	var referred []string
	for _, u := range p.Objects() {
		b, err := enc.Store.Object(u.Name)
		if err != nil || int64(len(b)) != u.Size {
			t.Fatalf("%s (%s): %v, %d bytes, referred to as %d", u.Name, u.What, err, len(b), u.Size)
		}
		referred = append(referred, u.Name)
	}
	if !slices.Equal(referred, enc.Store.Names()) {
		t.Fatalf("the index refers to %d objects, the store holds %d", len(referred), enc.Store.Len())
	}
	if bytes.Contains(enc.Index, shared[:200]) {
		t.Fatal("the index holds file contents")
	}
	// The shared bytes are one raw object (and one resources/read form, both files
	// being text), whichever file they came from.
	raw := 0
	for _, name := range enc.Store.Names() {
		if b, _ := enc.Store.Object(name); bytes.Equal(b, shared) {
			raw++
		}
	}
	if raw != 1 {
		t.Fatalf("the shared content is stored %d times", raw)
	}
	if got := enc.Store.What(referred[0]); got == "" {
		t.Fatal("objects have no description for messages")
	}
}

func TestStoreWriteDir(t *testing.T) {
	enc := mustEncode(t, loadMap(t, map[string]string{"a/SKILL.md": skill("a"), "a/x.md": "some text\n"}))
	dir := t.TempDir()
	objDir := filepath.Join(dir, catalog.StoreDir)
	if err := enc.Store.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	names := enc.Store.Names()
	// A damaged object of the right size, a missing one and a stranger.
	damaged := filepath.Join(objDir, names[0])
	good, _ := enc.Store.Object(names[0])
	if err := os.WriteFile(damaged, bytes.Repeat([]byte{0}, len(good)), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(objDir, names[1]))
	stranger := filepath.Join(objDir, "stranger")
	os.WriteFile(stranger, []byte("x"), 0o644)

	// Writing again repairs the store and leaves the stranger; pruning removes it.
	if err := enc.Store.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stranger); err != nil {
		t.Fatal("WriteDir removed a file it does not own")
	}
	keep := map[string]bool{}
	for _, n := range names {
		keep[n] = true
	}
	if err := PruneDir(dir, keep, time.Time{}); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(objDir)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
		b, _ := os.ReadFile(filepath.Join(objDir, e.Name()))
		if want, _ := enc.Store.Object(e.Name()); !bytes.Equal(b, want) {
			t.Fatalf("%s holds the wrong bytes", e.Name())
		}
	}
	if !slices.Equal(got, names) {
		t.Fatalf("the folder holds %v, the store %v", got, names)
	}

	// With a time, only objects last written before it go: a stranger written just now
	// stays (another skilledge version's build may use it), one written long ago goes.
	os.WriteFile(stranger, []byte("x"), 0o644)
	old := filepath.Join(objDir, "old-stranger")
	os.WriteFile(old, []byte("y"), 0o644)
	week := time.Now().Add(-7 * 24 * time.Hour)
	os.Chtimes(old, week, week)
	os.Chtimes(filepath.Join(objDir, names[0]), week, week)
	if err := enc.Store.WriteDir(dir); err != nil { // renews the objects it uses
		t.Fatal(err)
	}
	if err := PruneDir(dir, map[string]bool{}, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("PruneDir kept an unreferenced object older than the limit")
	}
	for _, p := range []string{stranger, filepath.Join(objDir, names[0])} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("PruneDir removed %s, written (or renewed by WriteDir) within the limit", filepath.Base(p))
		}
	}
}

// TestFingerprint: the fingerprint is the same for the same folder and changes with any
// byte, path or skill layout, and with the trust root.
func TestFingerprint(t *testing.T) {
	base := map[string]string{"a/SKILL.md": skill("a"), "a/x.md": "x", "b/SKILL.md": skill("b")}
	fp := func(files map[string]string, root string) [32]byte {
		c := loadMap(t, files)
		c.TrustRoot = root
		return c.Fingerprint()
	}
	want := fp(base, "")
	if fp(base, "") != want {
		t.Fatal("not deterministic")
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for p, d := range base {
			m[p] = d
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	for name, files := range map[string]map[string]string{
		"a byte":          with("a/x.md", "y"),
		"a new file":      with("b/y.md", "y"),
		"a file gone":     with("a/x.md", ""),
		"a path":          func() map[string]string { m := with("a/x.md", ""); m["a/y.md"] = "x"; return m }(),
		"a nested skill":  with("a/n/SKILL.md", skill("n")),
		"a skill's bytes": with("b/SKILL.md", skill("b")+"more\n"),
	} {
		if fp(files, "") == want {
			t.Errorf("%s does not change the fingerprint", name)
		}
	}
	if fp(base, "https://skills.example.com/") == want {
		t.Error("the trust root does not change the fingerprint")
	}
}

// mustEncode is Encode, failing t on an error.
func mustEncode(t testing.TB, c *Catalog) *Encoded {
	t.Helper()
	enc, err := Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}
