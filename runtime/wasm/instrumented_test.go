package wasm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// deadlineDigest is the SHA-256 of the instrumenter's output for testModule(true). When a
// change to the instrumenter changes it, bump deadlineFormat (a start would otherwise
// compile the earlier instrumentation it kept on disk) and write the new digest here.
const deadlineDigest = "997c4b07264fe9b5a9a719fda89a3872cb527afab99183365845202e01242a00"

func TestDeadlineFormat(t *testing.T) {
	out, err := instrumentDeadline(testModule(true))
	if err != nil {
		t.Fatal(err)
	}
	if got := sha256.Sum256(out); hex.EncodeToString(got[:]) != deadlineDigest {
		t.Fatalf("the instrumenter's output changed (sha256 %x): bump deadlineFormat (%s) and set deadlineDigest", got, deadlineFormat)
	}
}

// TestInstrumentCached: the first start writes the instrumented module into the cache
// folder, a later one reads the same bytes back; "" keeps nothing; a kept module of an
// earlier format, or one nobody read for instrumentedKeep, goes.
func TestInstrumentCached(t *testing.T) {
	in := testModule(true)
	want, err := instrumentDeadline(in)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	old := filepath.Join(dir, "skilledge-deadline-0-0123.wasm")
	stale := filepath.Join(dir, instrumentedPrefix+"0123.wasm")
	other := filepath.Join(dir, "wazero-v1.12.0-amd64-linux")
	for _, f := range []string{old, stale, other} {
		if err := os.WriteFile(f, []byte("\x00asm"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-instrumentedKeep - time.Hour)
	os.Chtimes(stale, long, long)

	out, kept, err := instrumentCached(in, dir)
	if err != nil || kept != "" || !bytes.Equal(out, want) {
		t.Fatalf("first: kept %q, %v, same bytes %v", kept, err, bytes.Equal(out, want))
	}
	out, kept, err = instrumentCached(in, dir)
	if err != nil || kept == "" || !bytes.Equal(out, want) {
		t.Fatalf("again: kept %q, %v, same bytes %v", kept, err, bytes.Equal(out, want))
	}
	for f, there := range map[string]bool{old: false, stale: false, other: true, kept: true} {
		if _, err := os.Stat(f); (err == nil) != there {
			t.Errorf("%s: there %v, want %v", filepath.Base(f), err == nil, there)
		}
	}
	none := t.TempDir()
	if out, kept, err := instrumentCached(in, ""); err != nil || kept != "" || !bytes.Equal(out, want) {
		t.Fatalf("no folder: kept %q, %v", kept, err)
	}
	if ents, _ := os.ReadDir(none); len(ents) != 0 {
		t.Errorf("no folder: %d files written", len(ents))
	}
}

// TestCompileMendsInstrumented: an instrumented module on disk that does not compile (a
// disk that changed it) is made again, and the plugin compiles.
func TestCompileMendsInstrumented(t *testing.T) {
	testPlugin(t)
	ctx := context.Background()
	dir := t.TempDir()
	p, err := Compile(ctx, shared.wasm, Config{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	p.Close(ctx)
	kept, _ := filepath.Glob(filepath.Join(dir, instrumentedPrefix+"*.wasm"))
	if len(kept) != 1 {
		t.Fatalf("kept %v", kept)
	}
	good, _ := os.ReadFile(kept[0])
	bad := bytes.Clone(good)
	for i := len(bad) / 2; i < len(bad)/2+64; i++ {
		bad[i] = 0xff
	}
	if err := os.WriteFile(kept[0], bad, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err = Compile(ctx, shared.wasm, Config{CacheDir: dir})
	if err != nil {
		t.Fatalf("a damaged instrumented module: %v", err)
	}
	p.Close(ctx)
	if again, _ := os.ReadFile(kept[0]); !bytes.Equal(again, good) {
		t.Error("the damaged instrumented module was not written again")
	}
}
