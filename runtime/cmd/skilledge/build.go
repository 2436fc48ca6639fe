package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	deploy "github.com/skilledge/skilledge/build"
	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/runtime/pluginbuild"
)

func cmdBuild(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("build", "skilledge build [DIR] -o OUT [flags]",
		`Builds the catalog of DIR (default: the built-in examples) into OUT:

  OUT/catalog.pack      the index: metadata, digests, rendered JSON, no file contents
  OUT/assets/sha256/    the content store: one file per distinct content, named by its
                        SHA-256 (file bytes, their resources/read form, archives, indexes)
  OUT/plugin.wasm       the server: the public build, without the code that checks
                        credentials (a quarter of it), unless the catalog has an access
                        policy or --with-auth is given
  OUT/host.mjs          the JavaScript host (any runtime with WebAssembly), with the
                        modules of its roles in OUT/host/
  OUT/worker.mjs        its Cloudflare Workers entry module
  OUT/deno.mjs, OUT/bun.mjs, OUT/node.mjs
                        its entries for Deno, Bun and Node, which read the store from
                        OUT/assets; OUT/package.json names the Extism JS SDK they import
                        ("npm ci --prefix OUT"), OUT/deno.json is Deno's configuration

"skilledge serve OUT" and "skilledge stdio OUT" serve it as it is; Extism hosts load
catalog.pack and put the store's files; "node OUT/node.mjs", "bun OUT/bun.mjs" and
"deno serve -A --config OUT/deno.json OUT/deno.mjs" serve it on port 8787 (Bun and Node:
$PORT), with the options in $SKILLEDGE_OPTIONS; with the repository's wrangler.toml, OUT is a
Worker whose script is plugin.wasm, catalog.pack, worker.mjs and the host (host.mjs, host/)
and whose static assets are OUT/assets ("npx --prefix build wrangler deploy"). Everything
is reproducible.
build reports the sizes against the Workers limits (the script: 3 MiB gzipped on the
free plan, 10 MiB on paid; assets: 20,000 files on the free plan, 100,000 on paid), and
refuses a catalog with a store object over 25 MiB, the most an asset may be. The
folder is refused if it has invalid skills, unless --skip-invalid.`)
	var f catalogFlags
	f.register(c.fs)
	var plugin string
	pluginFlag(c.fs, &plugin)
	withAuth := c.fs.Bool("with-auth", false, "ship the plugin that checks credentials even for a catalog without an access policy, to serve it\nwith the auth option (SKILLEDGE_AUTH); a catalog with one always gets it")
	out := c.fs.String("o", "", "write to directory `OUT` (created if missing; dist for the root wrangler.toml)")
	pos, code, ok := c.parse(args, 0, 1, stdout, stderr)
	if !ok {
		return code
	}
	if *out == "" {
		return c.usageError(stderr, "-o OUT is required")
	}
	dir := dirArg(pos)
	if isBuilt(dir) {
		fmt.Fprintf(stderr, "skilledge build: %s is already a built catalog (it holds %s); build a skills folder\n", dir, indexFile)
		return 2
	}
	l, ok := checkedFolder("build", dir, f, stderr)
	if !ok {
		return 1
	}
	label := dir
	if dir == "" {
		label = "the built-in examples"
	}
	// The store's objects are written as they are made (so that no large file is held in
	// memory) into a staging folder beside OUT, or in it when it exists, and moved into
	// place once the catalog is accepted: a refused catalog leaves nothing behind.
	stageIn := filepath.Dir(filepath.Clean(*out))
	if fi, err := os.Stat(*out); err == nil && fi.IsDir() {
		stageIn = *out
	}
	staging, err := os.MkdirTemp(stageIn, ".skilledge-build-")
	if err != nil {
		fmt.Fprintf(stderr, "skilledge build: %v\n", err)
		return 1
	}
	defer os.RemoveAll(staging)
	enc, err := encode(l.catalog, staging, label, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge build: %s\n", advised(err))
		return 1
	}
	if !checkAssetSizes(enc.Store, stderr) {
		return 1
	}
	variant := pluginbuild.Public
	if *withAuth || l.catalog.Access != nil {
		variant = pluginbuild.Full
	}
	wasm, _, err := pluginbuild.Module(ctx, plugin, variant, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge build: %s\n", advised(err))
		return 1
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "skilledge build: %v\n", err)
		return 1
	}
	assets := filepath.Join(*out, assetsDir)
	// The store first (moved from the staging folder), then the index that names its
	// objects; objects of earlier builds go, so that the assets are exactly this
	// catalog's (a serve of OUT running meanwhile must be restarted).
	keep := map[string]bool{}
	for _, name := range enc.Store.Names() {
		keep[name] = true
	}
	err = enc.Store.WriteDir(assets)
	if err == nil {
		err = compile.PruneDir(assets, keep, time.Time{})
	}
	if err != nil {
		fmt.Fprintf(stderr, "skilledge build: writing the content store: %v\n", err)
		return 1
	}
	index := newArtifact(filepath.Join(*out, indexFile), enc.Index)
	wasmFile := newArtifact(filepath.Join(*out, "plugin.wasm"), wasm)
	host := newArtifact(filepath.Join(*out, deploy.HostName), deploy.Host)
	modules := deploy.HostModules()
	moduleFiles := make([]artifact, len(modules))
	for i, m := range modules {
		moduleFiles[i] = newArtifact(filepath.Join(*out, filepath.FromSlash(m.Name)), m.Data)
	}
	entries := deploy.Entries()
	entryFiles := make([]artifact, len(entries))
	for i, e := range entries {
		entryFiles[i] = newArtifact(filepath.Join(*out, e.Name), e.Data)
	}
	worker := entryFiles[0] // Entries starts with worker.mjs
	for _, a := range slices.Concat([]artifact{index, wasmFile, host}, moduleFiles, entryFiles) {
		err := os.MkdirAll(filepath.Dir(a.path), 0o755)
		if err == nil {
			err = compile.WriteFileAtomic(a.path, a.data)
		}
		if err != nil {
			fmt.Fprintf(stderr, "skilledge build: %v\n", err)
			return 1
		}
	}
	p, err := catalog.Open(enc.Index)
	if err != nil { // a bug in catalog/compile
		fmt.Fprintf(stderr, "skilledge build: the encoded index does not open: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s  %d bytes (%s gzipped)  the index: %s, %s, catalog digest %s%s\n", index.path, len(index.data), size(index.gzipped),
		plural(p.NumSkills(), "skill"), plural(p.NumFiles(), "file"), p.Digest(), privateNote(p))
	fmt.Fprintf(stdout, "%s  %s in %s  the content store\n", filepath.Join(assets, catalog.StoreDir)+string(filepath.Separator),
		size(int(enc.Store.Size())), plural(enc.Store.Len(), "object"))
	fmt.Fprintf(stdout, "%s  %d bytes (%s gzipped)  sha256 %x  %s\n", wasmFile.path, len(wasm), size(wasmFile.gzipped), sha256.Sum256(wasm), variantNote(variant, plugin))
	fmt.Fprintf(stdout, "%s  %d bytes (%s gzipped)  the JavaScript host: the entries' API\n", host.path, len(host.data), size(host.gzipped))
	for i, m := range modules {
		fmt.Fprintf(stdout, "%s  %d bytes (%s gzipped)  %s\n", moduleFiles[i].path, len(m.Data), size(moduleFiles[i].gzipped), m.What)
	}
	for i, e := range entries {
		fmt.Fprintf(stdout, "%s  %d bytes  %s\n", entryFiles[i].path, len(e.Data), e.What)
	}
	historyLine(stdout, l.catalog, true)
	reportBundle(stdout, stderr, index, wasmFile, slices.Concat([]artifact{worker, host}, moduleFiles), p)
	reportAssetCount(stdout, stderr, enc.Store.Len(), enc.Store.Size())
	return 0
}

// variantNote says which plugin build wrote: the variant, or the file given instead.
func variantNote(v pluginbuild.Variant, file string) string {
	switch {
	case file != "" || os.Getenv(pluginbuild.Env) != "":
		return "the plugin named by --plugin or $" + pluginbuild.Env
	case v == pluginbuild.Public:
		return "the public plugin: no auth option (--with-auth for one)"
	}
	return "the full plugin: the auth option checks credentials"
}
