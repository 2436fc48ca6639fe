package serving

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/skilledge/skilledge/runtime/pluginbuild"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// pluginStart is plugin.wasm being found (or built from source) and compiled on a
// goroutine of its own while serve and stdio open the catalog.
//
// Why do `serve` and `stdio` compile the plugin while they open or build the catalog?
// Neither needs the other until the pool is made, and on a first run both take seconds
// (compiling the module with a cold compilation cache, building the folder), on every run
// tens of milliseconds. Doing both at once took about two fifths off the first stdio
// launch on a ~10 MB catalog with empty caches, and about a quarter off a warm launch
// (BENCHMARKS.md, "Why compile while the catalog opens"). What it costs: the memory limit
// the plugin is compiled with depends on the index's size, which is guessed from the
// index on disk (guessIndexSize); when the catalog turns out to need another limit, the
// module is compiled again, from the warm cache (wait). Progress is said in whole lines
// ("compiling plugin.wasm …", then "compiled plugin.wasm in 1.2s"), since two goroutines
// write to stderr. A cold compile also uses GOMAXPROCS workers (runtime/wasm, with
// wazero's experimental.WithCompilationWorkers), which takes about two fifths off it on
// two cores.
type pluginStart struct {
	cancel context.CancelFunc
	done   chan struct{}
	out    *gatedWriter
	limit  uint64 // the memory limit it compiles with
	module []byte // plugin.wasm, once found: wait compiles it again with another limit
	mu     sync.Mutex
	plugin *wasm.Plugin // nil once taken or abandoned
	err    error
	left   bool // abandoned: close the plugin when it is done
}

// startPlugin starts finding and compiling plugin.wasm (pluginFile, or the variant v
// pluginbuild.Module finds) with memory limit limit, saying what takes long on progress in
// whole lines.
func startPlugin(ctx context.Context, pluginFile string, v pluginbuild.Variant, limit uint64, progress io.Writer) *pluginStart {
	ctx, cancel := context.WithCancel(ctx)
	s := &pluginStart{cancel: cancel, done: make(chan struct{}), out: &gatedWriter{w: progress}, limit: limit}
	go func() {
		defer close(s.done)
		lines := &lineWriter{w: s.out}
		var plugin *wasm.Plugin
		module, _, err := pluginbuild.Module(ctx, pluginFile, v, lines)
		if err == nil {
			plugin, err = compilePlugin(ctx, module, wasm.Config{MemoryLimit: limit, Stderr: progress}, lines)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.left {
			if plugin != nil {
				plugin.Close(context.Background())
			}
			return
		}
		s.plugin, s.module, s.err = plugin, module, err
	}()
	return s
}

// wait returns the compiled plugin, which the caller then owns. When the catalog turned
// out to need another memory limit than the one guessed at the start, it compiles the
// module it found again with limit: the compilation cache makes that quick, as the machine code
// does not depend on the limit (wazero keys it by the module's bytes alone).
func (s *pluginStart) wait(ctx context.Context, limit uint64, progress io.Writer) (*wasm.Plugin, error) {
	<-s.done
	s.mu.Lock()
	plugin, module, err := s.plugin, s.module, s.err
	s.plugin = nil
	s.mu.Unlock()
	if err != nil || plugin.MemoryLimit() == limit {
		return plugin, err
	}
	plugin.Close(ctx)
	return compilePlugin(ctx, module, wasm.Config{MemoryLimit: limit, Stderr: progress}, progress)
}

// abandon gives the start up, when serving fails before it needs the plugin: the
// build is stopped, nothing more is said on progress, and the plugin, compiled or still
// compiling, is closed. It does not wait. After wait it does nothing.
func (s *pluginStart) abandon() {
	s.out.close()
	s.cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.left = true
	if s.plugin != nil {
		s.plugin.Close(context.Background())
		s.plugin = nil
	}
}

// guessIndexSize is the size of the index Open will load from dir, as far as can be told
// before opening it: the built catalog's index, else the newest index of the folder's
// build in the build cache cache (the one reused when nothing changed), else 0.
func guessIndexSize(dir, cache string, opt BuildOptions) int {
	if IsBuilt(dir) {
		if fi, err := os.Stat(filepath.Join(dir, IndexFile)); err == nil {
			return int(fi.Size())
		}
		return 0
	}
	ents, err := os.ReadDir(filepath.Join(cacheRoot(cache), folderKey(dir, opt)))
	if err != nil {
		return 0
	}
	size, newest := 0, int64(0)
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "index-") || !strings.HasSuffix(e.Name(), ".pack") {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().UnixNano() > newest {
			size, newest = int(fi.Size()), fi.ModTime().UnixNano()
		}
	}
	return size
}

// gatedWriter writes to w until closed, then drops what it is given.
type gatedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return len(p), nil
	}
	return g.w.Write(p)
}

func (g *gatedWriter) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// lineWriter writes whole lines to w, each in one call, so that they never break into
// another goroutine's.
type lineWriter struct {
	w   io.Writer
	buf []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	if i := bytes.LastIndexByte(l.buf, '\n'); i >= 0 {
		_, err := l.w.Write(l.buf[:i+1])
		l.buf = append(l.buf[:0], l.buf[i+1:]...)
		if err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}

// compilePlugin compiles module (plugin.wasm), saying so on progress, in whole lines, when
// it takes more than a second (a cold compilation cache).
func compilePlugin(ctx context.Context, module []byte, cfg wasm.Config, progress io.Writer) (*wasm.Plugin, error) {
	start := time.Now()
	var mu sync.Mutex
	said := false
	t := time.AfterFunc(time.Second, func() {
		mu.Lock()
		defer mu.Unlock()
		said = true
		fmt.Fprintln(progress, "skilledge: compiling plugin.wasm (first run; later runs reuse it)…")
	})
	p, err := wasm.Compile(ctx, module, cfg)
	t.Stop()
	mu.Lock()
	defer mu.Unlock()
	if said && err == nil {
		fmt.Fprintf(progress, "skilledge: compiled plugin.wasm in %.1fs\n", time.Since(start).Seconds())
	}
	return p, err
}
