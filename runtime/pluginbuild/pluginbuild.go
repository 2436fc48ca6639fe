package pluginbuild

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skilledge/skilledge/runtime/internal/cachedir"
)

// Env names an environment variable holding the path of a plugin.wasm to use
// instead of building one.
const Env = "SKILLEDGE_PLUGIN"

// ModulePath is the Go module whose source Ensure builds.
const ModulePath = "github.com/skilledge/skilledge"

// Package is the plugin's package, relative to the module root: what Ensure builds.
const Package = "./edge/plugin"

// pluginInputs are the directories, relative to the module root, whose files go into the
// plugin; pluginExcluded are subdirectories of them that do not (build-time only code: the
// compiler and the packages only it imports).
var (
	pluginInputs   = []string{"edge", "catalog", "jsonrpc"}
	pluginExcluded = []string{"catalog/compile", "catalog/examples", "catalog/internal/dirfs", "catalog/internal/mediatype", "catalog/internal/unicodex", "catalog/internal/yamljson"}
)

// Locate returns the path of the plugin.wasm to run: file if not empty, else
// $SKILLEDGE_PLUGIN if set, else Ensure's build of v.
func Locate(ctx context.Context, file string, v Variant, progress io.Writer) (string, error) {
	if file == "" {
		file = os.Getenv(Env)
	}
	if file != "" {
		if _, err := os.Stat(file); err != nil {
			return "", fmt.Errorf("pluginbuild: %w", err)
		}
		return file, nil
	}
	return Ensure(ctx, v, progress)
}

var ensureMu sync.Mutex

// buildFlags are the go build flags of every plugin build, but its -tags and -o: a
// library module for a WASI host (c-shared: _initialize, no _start), the same bytes
// whatever the checkout's path and version control, and no name section (-ldflags=-s).
// build/release builds the released plugins with the same flags.
//
// Why is the plugin built without its name section? The section names the module's
// functions for a WebAssembly engine's own traces, about 110 KB of the public plugin
// (2%; 28 KiB of the Worker's gzipped script), and V8 reads it as it compiles the module:
// the anthropics-shaped catalog's Worker answered first about 1 ms sooner in workerd
// without it, within the starts' spread (BENCHMARKS.md, "Why the plugin has no name
// section"). Nothing shows those names: Go prints a
// panic's trace from its own tables (pclntab, in the data section, which -s keeps), and
// the harness drops wazero's trace from a trap's message. Kept, they would help only
// someone reading an engine's trace of a trap, who can build a plugin with names and
// run it with --plugin (two of the harness's tests build one, to find the Go runtime's
// functions by name). Rejected: stripping the section from the Worker's copy alone (two
// plugins of one source that differ, where a deployment's plugin.wasm is the harness's).
var buildFlags = []string{"-buildmode=c-shared", "-trimpath", "-buildvcs=false", "-ldflags=-s"}

// Flags are the go build flags of a plugin build but its -tags and -o; with names, all
// but -ldflags=-s, for a build whose module keeps its name section (the tests that find
// the Go runtime's functions by name, a person reading an engine's trace of a trap).
func Flags(names bool) []string {
	if names {
		return slices.DeleteFunc(slices.Clone(buildFlags), func(f string) bool { return f == "-ldflags=-s" })
	}
	return slices.Clone(buildFlags)
}

// Ensure returns the path of the plugin.wasm of variant v built from the skilledge source
// this program was built from (or, failing that, the module in the current directory).
// The file is <user cache>/skilledge/plugin-<hash>.wasm (plugin-public-<hash>.wasm for
// Public, built with -tags PublicTag), where the hash covers every input
// of the build: go.mod, go.sum, the files under edge/, catalog/ (but the build-time
// packages: catalog/compile, catalog/examples and those only the compiler imports) and
// jsonrpc/ except tests and testdata, the go command's version,
// GOFLAGS, GOWASM and the build's flags. If the file is missing, Ensure builds it with
// GOOS=wasip1 GOARCH=wasm go build and buildFlags,
// reporting progress on progress (which may be nil); otherwise it returns at once.
// Concurrent callers, in this process or others, share one build. It fails with
// ErrSource when there is no source to build from.
func Ensure(ctx context.Context, v Variant, progress io.Writer) (string, error) {
	ensureMu.Lock()
	defer ensureMu.Unlock()
	src, err := SourceDir()
	if err != nil {
		return "", err
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("%w: building plugin.wasm needs the go command, which is not in PATH", ErrSource)
	}
	hash, err := pluginHash(ctx, goBin, src)
	if err != nil {
		return "", err
	}
	dir := cachedir.Dir("")
	path := filepath.Join(dir, v.cacheName(hash))
	if usable(path) {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("pluginbuild: plugin cache: %w", err)
	}
	unlock, err := lockBuild(ctx, path)
	if err != nil {
		return "", err
	}
	defer unlock()
	if usable(path) { // another process built it while we waited
		return path, nil
	}
	return path, buildPlugin(ctx, goBin, src, path, v, progress)
}

// usable reports whether path exists, and marks it recently used.
func usable(path string) bool {
	if _, err := os.Stat(path); err != nil {
		return false
	}
	now := time.Now()
	_ = os.Chtimes(path, now, now)
	return true
}

func buildPlugin(ctx context.Context, goBin, src, path string, v Variant, progress io.Writer) error {
	if progress == nil {
		progress = io.Discard
	}
	// Whole lines: serve and stdio build the plugin while they open the catalog, which
	// reports on the same stream.
	fmt.Fprintf(progress, "skilledge: building the %s plugin.wasm (first run; later runs reuse it)…\n", v)
	start := time.Now()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".plugin-*.tmp")
	if err != nil {
		return fmt.Errorf("pluginbuild: plugin cache: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	args := append([]string{"build"}, buildFlags...)
	if tags := v.Tags(); tags != "" {
		args = append(args, "-tags="+tags)
	}
	cmd := exec.CommandContext(ctx, goBin, append(args, "-o", tmp.Name(), Package)...)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pluginbuild: building plugin.wasm in %s: %v\n%s", src, err, bytes.TrimSpace(out))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("pluginbuild: plugin cache: %w", err)
	}
	fmt.Fprintf(progress, "skilledge: built the %s plugin.wasm in %.1fs\n", v, time.Since(start).Seconds())
	pruneCache(filepath.Dir(path), path)
	return nil
}

// pruneCache removes plugins built from other sources that have not been used for 30
// days.
func pruneCache(dir, keep string) {
	old, _ := filepath.Glob(filepath.Join(dir, "plugin-*.wasm")) // both variants
	for _, f := range old {
		if fi, err := os.Stat(f); err == nil && f != keep && time.Since(fi.ModTime()) > 30*24*time.Hour {
			os.Remove(f)
		}
	}
}

// lockBuild makes concurrent processes build a given plugin once: the first creates
// path+".lock", the others wait for it to disappear. A lock older than 10 minutes is
// taken to be left by a crashed process.
func lockBuild(ctx context.Context, path string) (unlock func(), err error) {
	lock := path + ".lock"
	for {
		f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(lock) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("pluginbuild: plugin cache: %w", err)
		}
		if fi, err := os.Stat(lock); err == nil && time.Since(fi.ModTime()) > 10*time.Minute {
			os.Remove(lock)
			continue
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// SourceDir returns the root of the skilledge module source: the one this package was
// compiled from, if it is still on disk, else the main module of the current directory.
func SourceDir() (string, error) {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		dir := filepath.Dir(filepath.Dir(filepath.Dir(file))) // file is <root>/runtime/pluginbuild/pluginbuild.go
		if isModuleRoot(dir) {
			return dir, nil
		}
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err == nil {
		if gomod := strings.TrimSpace(string(out)); filepath.IsAbs(gomod) && isModuleRoot(filepath.Dir(gomod)) {
			return filepath.Dir(gomod), nil
		}
	}
	return "", fmt.Errorf("%w: building plugin.wasm needs the %s source, which is neither where this program was built from nor at or above the current directory", ErrSource, ModulePath)
}

// isModuleRoot reports whether dir holds the go.mod of ModulePath.
func isModuleRoot(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "module") {
			return strings.Trim(strings.TrimSpace(strings.TrimPrefix(line, "module")), `"`) == ModulePath
		}
	}
	return false
}

// pluginHash hashes every input of the plugin build (see Ensure).
func pluginHash(ctx context.Context, goBin, src string) (string, error) {
	h := sha256.New()
	field := func(name string, data []byte) {
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
	}
	cmd := exec.CommandContext(ctx, goBin, "version")
	cmd.Dir = src
	ver, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("pluginbuild: go version: %w", err)
	}
	field("go version", ver)
	field("flags", []byte(strings.Join(buildFlags, " ")))
	field("GOFLAGS", []byte(os.Getenv("GOFLAGS")))
	field("GOWASM", []byte(os.Getenv("GOWASM")))
	for _, name := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil && !(name == "go.sum" && errors.Is(err, fs.ErrNotExist)) {
			return "", fmt.Errorf("pluginbuild: hashing the plugin source: %w", err)
		}
		field(name, b)
	}
	for _, top := range pluginInputs {
		// A checkout may link its top-level directories (the deploy tests do); WalkDir
		// does not follow a link, so walk where it leads, under the same names.
		dir, err := filepath.EvalSymlinks(filepath.Join(src, top))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return "", fmt.Errorf("pluginbuild: hashing the plugin source: %w", err)
		}
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			rel = path.Join(top, filepath.ToSlash(rel))
			name := d.Name()
			if d.IsDir() {
				if rel != top && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || excluded(rel)) {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, ".") {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			field(rel, b)
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("pluginbuild: hashing the plugin source: %w", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:12]), nil
}

func excluded(rel string) bool {
	for _, x := range pluginExcluded {
		if rel == x {
			return true
		}
	}
	return false
}
