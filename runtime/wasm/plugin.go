package wasm

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"

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
	//
	// Why a per-instance memory cap that depends on the index, plus `GOMEMLIMIT`? Each
	// instance keeps its own copy of the index and, while answering, a few copies of the
	// response it builds, which holds no file contents: it is made of the index's
	// fragments. A fixed cap would either refuse very large indexes or waste memory on
	// small ones, so NewPool refuses a cap below MinMemoryLimit with a clear message.
	// Without a soft limit the Go GC lets the heap grow to twice what is live and crashes
	// into the hard cap; GOMEMLIMIT at 90% of the cap makes it collect first.
	MemoryLimit uint64
	// CacheDir is where wazero keeps compiled machine code between runs, and Compile the
	// module with the deadline instrumented in (instrumented.go). "" means
	// <user cache dir>/skilledge/wazero; "-" disables the on-disk cache.
	CacheDir string
	// Stderr receives what the plugin writes to its stdout and stderr (a panic's stack
	// trace) and its Extism log messages. Default os.Stderr. Never the protocol stream.
	Stderr io.Writer
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
	// instanceConfig, when a test sets it, is applied last to each instance's module
	// configuration (a clock that stands still, a sleep that fails).
	instanceConfig func(wazero.ModuleConfig) wazero.ModuleConfig
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
	dir := cacheDir(cfg.CacheDir)
	instrumented, kept, err := instrumentCached(wasm, dir)
	p, err := compileModule(ctx, wasm, instrumented, err, cfg, pages, dir)
	if err != nil && kept != "" {
		// The instrumented module kept on disk does not compile (a disk that changed it):
		// made again, and kept again.
		os.Remove(kept)
		instrumented, _, err = instrumentCached(wasm, dir)
		p, err = compileModule(ctx, wasm, instrumented, err, cfg, pages, dir)
	}
	return p, err
}

// compileModule compiles instrumented (wasm with the deadline instrumented in), or wasm
// with wazero's termination checks when the instrumenter failed with ierr.
func compileModule(ctx context.Context, wasm, instrumented []byte, ierr error, cfg Config, pages uint32, dir string) (*Plugin, error) {
	if ierr == nil {
		wasm = instrumented
	}
	rc := wazero.NewRuntimeConfig().
		WithMemoryLimitPages(pages).
		WithCloseOnContextDone(ierr != nil)
	if cache := compilationCache(dir); cache != nil {
		rc = rc.WithCompilationCache(cache)
	}
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
		return nil, fmt.Errorf("wasm: compiling plugin.wasm: %w", err)
	}
	exports := compiled.ExportedFunctions()
	for _, name := range []string{"_initialize", rawAlloc, rawLoad, rawConfigure, rawHTTP, rawRPC, rawError} {
		if _, ok := exports[name]; !ok {
			rt.Close(ctx)
			return nil, fmt.Errorf("%w: plugin.wasm does not export %s", ErrNotPlugin, name)
		}
	}
	return &Plugin{rt: rt, compiled: compiled, cfg: cfg, pages: pages, instrumented: ierr == nil}, nil
}

// Close releases the compiled code. Pools made from p must be closed first.
func (p *Plugin) Close(ctx context.Context) error { return p.rt.Close(ctx) }

// MemoryLimit returns the per-instance memory cap in bytes.
func (p *Plugin) MemoryLimit() uint64 { return uint64(p.pages) * pageSize }

// cacheDir is the folder of the on-disk caches Config.CacheDir names: "" when it is "-".
func cacheDir(dir string) string {
	switch dir {
	case "-":
		return ""
	case "":
		return cachedir.Dir("wazero")
	}
	return dir
}

// compilationCache returns the on-disk cache in dir, or nil when dir is "" or the cache
// directory cannot be created (wazero then compiles in memory).
func compilationCache(dir string) wazero.CompilationCache {
	if dir == "" {
		return nil
	}
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil
	}
	return cache
}

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
	if p.instanceConfig != nil {
		mc = p.instanceConfig(mc)
	}
	return p.rt.InstantiateModule(experimental.WithMemoryAllocator(ctx, linearMemory), p.compiled, mc)
}
