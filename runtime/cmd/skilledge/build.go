package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"

	skruntime "github.com/skilledge/skilledge/runtime"
)

func cmdBuild(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("build", "skilledge build [DIR] -o OUT [flags]",
		`Writes OUT/catalog.pack, the catalog of DIR (default: the built-in examples), and
OUT/plugin.wasm, the server: the two files any host (the worker, an Extism SDK, serve)
runs. Both are reproducible. The folder is refused if it has invalid skills, unless
--skip-invalid.`)
	var f catalogFlags
	f.register(c.fs)
	var plugin string
	pluginFlag(c.fs, &plugin)
	out := c.fs.String("o", "", "write to directory `OUT` (created if missing)")
	pos, code, ok := c.parse(args, 0, 1, stdout, stderr)
	if !ok {
		return code
	}
	if *out == "" {
		fmt.Fprint(stderr, "skilledge build: -o OUT is required\n\n")
		c.printUsage(stderr)
		return 2
	}
	pack, p, ok := packFolder("build", dirArg(pos), f, stderr)
	if !ok {
		return 1
	}
	path, err := skruntime.LocatePlugin(ctx, plugin, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge build: %v\n", err)
		return 1
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge build: %v\n", err)
		return 1
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "skilledge build: %v\n", err)
		return 1
	}
	packPath, wasmPath := filepath.Join(*out, "catalog.pack"), filepath.Join(*out, "plugin.wasm")
	for _, w := range []struct {
		path string
		data []byte
	}{{packPath, pack}, {wasmPath, wasm}} {
		if err := writeFileAtomic(w.path, w.data); err != nil {
			fmt.Fprintf(stderr, "skilledge build: %v\n", err)
			return 1
		}
	}
	fmt.Fprintf(stdout, "%s  %d bytes  %s, %s, catalog digest %s\n", packPath, len(pack),
		plural(p.NumSkills(), "skill"), plural(p.NumFiles(), "file"), p.Digest())
	fmt.Fprintf(stdout, "%s  %d bytes  sha256 %x\n", wasmPath, len(wasm), sha256.Sum256(wasm))
	return 0
}

// writeFileAtomic writes data to path through a temporary file in the same directory, so
// a reader (a running wrangler dev, say) never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
