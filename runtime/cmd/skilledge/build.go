package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"

	deploy "github.com/skilledge/skilledge/build"
	skruntime "github.com/skilledge/skilledge/runtime"
)

func cmdBuild(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("build", "skilledge build [DIR] -o OUT [flags]",
		`Writes OUT/catalog.pack, the catalog of DIR (default: the built-in examples),
OUT/plugin.wasm, the server, and OUT/worker.mjs, the Cloudflare Workers entry module that
serves the two. catalog.pack and plugin.wasm are all any host (an Extism SDK, serve)
needs; with worker.mjs, OUT is a Worker: "npx --prefix build wrangler deploy" deploys
dist/ with the repository's wrangler.toml. All three are reproducible. build reports
their sizes, raw and gzipped, and warns when the Worker is over the Workers size limits.
The folder is refused if it has invalid skills, unless --skip-invalid.`)
	var f catalogFlags
	f.register(c.fs)
	var plugin string
	pluginFlag(c.fs, &plugin)
	out := c.fs.String("o", "", "write to directory `OUT` (created if missing; dist for the root wrangler.toml)")
	pos, code, ok := c.parse(args, 0, 1, stdout, stderr)
	if !ok {
		return code
	}
	if *out == "" {
		fmt.Fprint(stderr, "skilledge build: -o OUT is required\n\n")
		c.printUsage(stderr)
		return 2
	}
	pk, ok := packFolder("build", dirArg(pos), f, stderr)
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
	pack := newArtifact(filepath.Join(*out, "catalog.pack"), pk.bytes)
	wasmFile := newArtifact(filepath.Join(*out, "plugin.wasm"), wasm)
	worker := newArtifact(filepath.Join(*out, deploy.WorkerName), deploy.Worker)
	for _, a := range []artifact{pack, wasmFile, worker} {
		if err := writeFileAtomic(a.path, a.data); err != nil {
			fmt.Fprintf(stderr, "skilledge build: %v\n", err)
			return 1
		}
	}
	p := pk.pack
	fmt.Fprintf(stdout, "%s  %d bytes (%s gzipped)  %s, %s, catalog digest %s\n", pack.path, len(pack.data), size(pack.gzipped),
		plural(p.NumSkills(), "skill"), plural(p.NumFiles(), "file"), p.Digest())
	fmt.Fprintf(stdout, "%s  %d bytes (%s gzipped)  sha256 %x\n", wasmFile.path, len(wasm), size(wasmFile.gzipped), sha256.Sum256(wasm))
	fmt.Fprintf(stdout, "%s  %d bytes (%s gzipped)  the Workers entry module\n", worker.path, len(worker.data), size(worker.gzipped))
	reportBundle(stdout, stderr, pack, wasmFile, worker, pk.catalog)
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
