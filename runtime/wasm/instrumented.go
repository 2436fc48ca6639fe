package wasm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The instrumented module, kept beside the compiled code.
//
// Every start instruments plugin.wasm anew (instrumentDeadline reads every instruction of
// every function and writes the module again): about a third of a start's Compile when
// wazero's cache holds the machine code. The result depends only on the module and on the
// instrumenter, so Compile keeps it in the compilation cache's folder, named by both
// (deadlineFormat and the SHA-256 of the module), and a later start reads it instead. What
// it reads is the input of CompileModule as the instrumenter's output would be: wazero
// decodes and validates it in full, as any module, before it looks its machine code up
// (by the SHA-256 of these bytes).
//
// Why does `Compile` keep the instrumented module on disk? Instrumenting took more of a
// warm start than loading the machine code from wazero's cache; kept, a warm Compile of
// the public plugin went from about 79 ms to 60 ms in new processes (BENCHMARKS.md, "Why
// keep the instrumented module"). A kept module that does not compile (a damaged disk) is
// made and written again. Rejected: shipping the plugin instrumented (the Worker and the
// Extism hosts would carry a counter in every loop for nothing), and checking a digest of
// the kept file on every read (as long again as the time saved is worth, for a file the
// user's own cache holds beside machine code that is trusted as it is).

// deadlineFormat names what instrumentDeadline writes: a change to the instrumenter that
// changes its output changes it, or a start would compile an earlier instrumentation kept
// on disk. TestDeadlineFormat holds the two together.
const deadlineFormat = "deadline-1"

// instrumentedPrefix begins the names of the instrumented modules in a cache folder.
const instrumentedPrefix = "skilledge-" + deadlineFormat + "-"

// instrumentedKeep is how long an instrumented module nobody has read is kept.
const instrumentedKeep = 30 * 24 * time.Hour

// instrumentCached is instrumentDeadline(wasm), read from dir when an earlier start wrote
// it there (kept names the file then), else made and written there (atomically: a start
// running meanwhile reads the whole file or none). dir "" keeps nothing. A file that
// cannot be read or written costs only the time: the module is instrumented in memory.
func instrumentCached(wasm []byte, dir string) (out []byte, kept string, err error) {
	if dir == "" {
		out, err = instrumentDeadline(wasm)
		return out, "", err
	}
	sum := sha256.Sum256(wasm)
	name := filepath.Join(dir, instrumentedPrefix+hex.EncodeToString(sum[:16])+".wasm")
	if b, err := os.ReadFile(name); err == nil && bytes.HasPrefix(b, []byte("\x00asm")) {
		now := time.Now()
		_ = os.Chtimes(name, now, now) // recently used: not pruned
		return b, name, nil
	}
	out, err = instrumentDeadline(wasm)
	if err != nil {
		return nil, "", err
	}
	if os.MkdirAll(dir, 0o755) == nil {
		if tmp, err := os.CreateTemp(dir, ".skilledge-instrumented-*"); err == nil {
			_, err = tmp.Write(out)
			if cerr := tmp.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				err = os.Rename(tmp.Name(), name)
			}
			if err != nil {
				os.Remove(tmp.Name())
			}
		}
		pruneInstrumented(dir, name)
	}
	return out, "", nil
}

// pruneInstrumented removes the instrumented modules in dir but keep that nobody has read
// for instrumentedKeep, and any of an earlier deadlineFormat.
func pruneInstrumented(dir, keep string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		p := filepath.Join(dir, name)
		if !strings.HasPrefix(name, "skilledge-deadline-") || !strings.HasSuffix(name, ".wasm") || p == keep {
			continue
		}
		if info, err := e.Info(); err == nil && (!strings.HasPrefix(name, instrumentedPrefix) || time.Since(info.ModTime()) > instrumentedKeep) {
			os.Remove(p)
		}
	}
}
