package wasm

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/skilledge/skilledge/runtime/internal/cachedir"
)

// DefaultMemoryLimit is the default cap on each instance's linear memory.
const DefaultMemoryLimit = 256 << 20

const pageSize = 64 << 10

// Config configures Compile.
type Config struct {
	// MemoryLimit caps the linear memory of each instance, in bytes, rounded down to
	// whole 64 KiB pages; an instance that needs more crashes and is replaced. Default
	// DefaultMemoryLimit; 16 MiB to 4 GiB. Each instance keeps its own copy of the pack, so
	// the limit must exceed the pack size substantially (NewPool checks MinMemoryLimit).
	// The Go runtime inside is given GOMEMLIMIT at 90% of it.
	MemoryLimit uint64
	// CacheDir is where wazero keeps compiled machine code between runs. "" means
	// <user cache dir>/skilledge/wazero; "-" disables the on-disk cache.
	CacheDir string
	// Stderr receives what the plugin writes to its stdout and stderr (a panic's stack
	// trace) and its Extism log messages. Default os.Stderr. Never the protocol stream.
	Stderr io.Writer
	// Interpret compiles for wazero's interpreter instead of to machine code: ready in a
	// fraction of a cold compilation (no machine code, no cache), and runs each request
	// several times slower. For answering while the compilation proper runs (Compiled).
	Interpret bool
}

// Plugin is a compiled plugin.wasm. It is safe for concurrent use; pools created from it
// share the compiled code.
type Plugin struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	cfg      Config
	pages    uint32
	// instrumented says the module carries the deadline global (deadline.go); else
	// wazero's termination checks enforce the deadline.
	instrumented bool
}

// Compile compiles wasm (the bytes of plugin.wasm) and checks that it has the exports
// this package calls. With the on-disk cache a second run skips most of the compilation.
func Compile(ctx context.Context, wasm []byte, cfg Config) (*Plugin, error) {
	if cfg.MemoryLimit == 0 {
		cfg.MemoryLimit = DefaultMemoryLimit
	}
	if cfg.MemoryLimit > 1<<32 || cfg.MemoryLimit < 16<<20 {
		return nil, fmt.Errorf("%w: %d bytes is out of range (16 MiB to 4 GiB)", ErrMemoryLimit, cfg.MemoryLimit)
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	pages := uint32(cfg.MemoryLimit / pageSize)
	// The deadline by an instrumented global costs a load and a branch per loop; wazero's
	// termination checks, the fallback for a module the instrumenter cannot read, cost a
	// call per loop.
	module := wasm // as given: Compiled's mark names these bytes
	instrumented, err := instrumentDeadline(wasm)
	if err == nil {
		wasm = instrumented
	}
	rc := wazero.NewRuntimeConfig()
	var cache wazero.CompilationCache
	if cfg.Interpret {
		rc = wazero.NewRuntimeConfigInterpreter()
	} else if cache = compilationCache(cfg.CacheDir); cache != nil {
		rc = rc.WithCompilationCache(cache)
	}
	rc = rc.WithMemoryLimitPages(pages).WithCloseOnContextDone(err != nil)
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, err
	}
	if _, err := instantiateHostModule(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, err
	}
	// A cold compilation cache compiles every function (seconds, the first run's biggest
	// cost): on as many goroutines as the process may run at once.
	compiled, err := rt.CompileModule(experimental.WithCompilationWorkers(ctx, runtime.GOMAXPROCS(0)), wasm)
	if err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("runtime: compiling plugin.wasm: %w", err)
	}
	exports := compiled.ExportedFunctions()
	for _, name := range []string{"_initialize", rawAlloc, rawLoad, rawConfigure, rawHTTP, rawRPC, rawError} {
		if _, ok := exports[name]; !ok {
			rt.Close(ctx)
			return nil, fmt.Errorf("runtime: plugin.wasm does not export %s; is it a skilledge plugin built with -buildmode=c-shared?", name)
		}
	}
	if cache != nil {
		markCompiled(cfg.CacheDir, module)
	}
	return &Plugin{rt: rt, compiled: compiled, cfg: cfg, pages: pages, instrumented: instrumented != nil}, nil
}

// Close releases the compiled code. Pools made from p must be closed first.
func (p *Plugin) Close(ctx context.Context) error { return p.rt.Close(ctx) }

// MemoryLimit returns the per-instance memory cap in bytes.
func (p *Plugin) MemoryLimit() uint64 { return uint64(p.pages) * pageSize }

// compilationCache returns the on-disk cache in dir, or nil when dir is "-" or the cache
// directory cannot be created (wazero then compiles in memory).
func compilationCache(dir string) wazero.CompilationCache {
	if dir == "-" {
		return nil
	}
	cache, err := wazero.NewCompilationCacheWithDir(cacheDirOf(dir))
	if err != nil {
		return nil
	}
	return cache
}

// cacheDirOf is Config.CacheDir's folder ("" is the default one).
func cacheDirOf(dir string) string {
	if dir == "" {
		return cachedir.Dir("wazero")
	}
	return dir
}

// Compiled reports whether a compilation of wasm (plugin.wasm's bytes) with the on-disk
// cache in cacheDir (as Config.CacheDir; "-" has none) has finished before, so that
// Compile would load its machine code rather than compile every function (seconds). It
// reads a mark Compile leaves beside wazero's own files, named by the bytes' SHA-256 and
// this wazero's version: wazero says nothing of what its cache holds. A cache emptied by
// hand since leaves a stale mark, and then a compilation as slow as without it.
func Compiled(wasm []byte, cacheDir string) bool {
	if cacheDir == "-" {
		return false
	}
	_, err := os.Stat(compiledMark(cacheDirOf(cacheDir), wasm))
	return err == nil
}

// markCompiled leaves Compiled's mark for module, compiled; best effort: without it, the
// next start compiles as before.
func markCompiled(cacheDir string, module []byte) {
	name := compiledMark(cacheDirOf(cacheDir), module)
	if os.MkdirAll(filepath.Dir(name), 0o755) == nil {
		os.WriteFile(name, nil, 0o644)
	}
}

// compiledMark is the mark's path for a module's bytes (plugin.wasm as given to Compile).
func compiledMark(dir string, module []byte) string {
	sum := sha256.Sum256(module)
	return filepath.Join(dir, "skilledge-compiled", wazeroVersion()+"-"+hex.EncodeToString(sum[:16]))
}

// wazeroVersion is the version of wazero built in, whose cache the marks speak for.
var wazeroVersion = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/tetratelabs/wazero" {
				return d.Version
			}
		}
	}
	return "wazero"
})

// instantiate makes one module instance: WASI wired to the configured stderr, real clocks
// and randomness, and _initialize run (the module is a reactor).
func (p *Plugin) instantiate(ctx context.Context) (api.Module, error) {
	mc := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions("_initialize").
		WithStdout(p.cfg.Stderr).
		WithStderr(p.cfg.Stderr).
		WithSysWalltime().
		WithSysNanotime().
		WithSysNanosleep().
		WithRandSource(rand.Reader)
	if p.pages > 0 {
		// A soft limit below the hard cap makes the Go GC inside collect harder as
		// memory fills up, instead of growing the heap into the cap and crashing.
		mc = mc.WithEnv("GOMEMLIMIT", strconv.FormatUint(p.MemoryLimit()/10*9, 10))
	}
	return p.rt.InstantiateModule(experimental.WithMemoryAllocator(ctx, linearMemory), p.compiled, mc)
}
