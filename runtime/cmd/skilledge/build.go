package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/skilledge/skilledge/runtime/serving"
)

const buildAbout = `Builds the catalog of DIR (default: the built-in examples) into OUT:

  OUT/catalog.pack      the index: metadata, digests, rendered JSON, no file contents
  OUT/assets/sha256/    the content store: one file per distinct content, named by its
                        SHA-256 (file bytes, their resources/read form, archives, indexes)
  OUT/packs/sha256/     for a catalog of more objects than a Worker may have assets (--pack):
                        those objects in packs, for an R2 bucket; build prints the uploads
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
folder is refused if it has invalid skills, unless --skip-invalid.

--sign KEY signs the catalog's root with the key "skilledge key --signing" made: a
statement of every skill listed, by URI and manifest digest, with the catalog's identity,
a sequence, and issue and expiry times, served as skill://root.json and at
/.well-known/agent-skills/root.json (each view of a private catalog has its own, naming
only its skills). OUT/roots.json records what was signed: give it to the next build as
--sign-previous, so that its roots follow these (sequence after sequence, each naming the
one before); without it the sequence starts at 1, and consumers that hold a later root
refuse the new one. The issue time is now, or $SOURCE_DATE_EPOCH for a reproducible
build.`

func cmdBuild(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("build", "skilledge build [DIR] -o OUT [flags]", buildAbout)
	var f buildFlags
	f.register(c.fs)
	var opt serving.DeployOptions
	pluginFlag(c.fs, &opt.Plugin)
	c.fs.BoolVar(&opt.WithAuth, "with-auth", false, "ship the plugin that checks credentials even for a catalog without an access policy, to serve it\nwith the auth option (SKILLEDGE_AUTH); a catalog with one always gets it")
	out := c.fs.String("o", "", "write to directory `OUT` (created if missing; dist for the root wrangler.toml)")
	shard := c.fs.String("shard", "auto", "split the index into shards read on demand, `WHEN`: auto (an index too large for the\nscript of a Worker on the free plan), always, never, or a size in bytes (always, in shards of\nabout that size rather than 256 KiB)")
	pack := c.fs.String("pack", "auto", "put the content store's objects in packs for R2, read by range, `WHEN`: auto (more objects\nthan a Worker on the free plan may have assets), always, never, or a size in bytes (always, in packs\nof about that size rather than 64 MiB)")
	var sf signFlags
	sf.register(c.fs)
	pos, code, ok := c.parse(args, 0, 1, stdout, stderr)
	if !ok {
		return code
	}
	if *out == "" {
		return c.usageError(stderr, "-o OUT is required")
	}
	switch n, err := strconv.Atoi(*shard); {
	case *shard == "auto":
	case *shard == "always", *shard == "never":
		opt.Shard = serving.Shard(*shard)
	case err == nil && n > 0:
		opt.Shard, opt.ShardSize = serving.ShardAlways, n
	default:
		return c.usageError(stderr, fmt.Sprintf("--shard %q: say auto, always, never, or a size in bytes", *shard))
	}
	switch n, err := strconv.ParseInt(*pack, 10, 64); {
	case *pack == "auto":
	case *pack == "always", *pack == "never":
		opt.Pack = serving.Pack(*pack)
	case err == nil && n > 0:
		opt.Pack, opt.PackSize = serving.PackAlways, n
	default:
		return c.usageError(stderr, fmt.Sprintf("--pack %q: say auto, always, never, or a size in bytes", *pack))
	}
	if dir := dirArg(pos); serving.IsBuilt(dir) {
		fmt.Fprintf(stderr, "skilledge build: %s is already a built catalog (it holds %s); build a skills folder\n", dir, serving.IndexFile)
		return 2
	}
	build, ok := f.options("build", stderr)
	if !ok {
		return 1
	}
	if opt.Sign, code = sf.signer(ctx, build.TrustRoot, time.Now(), stderr); code != 0 {
		return code
	}
	folder, err := serving.Check(dirArg(pos), build, stderr)
	if err == nil && folder.Catalog.Access != nil && strings.Contains(sf.previous, "://") {
		fmt.Fprintln(stderr, "skilledge build: --sign-previous URL reads one root, and a catalog with an access policy signs one for each view: give the roots.json of the build before")
		return 2
	}
	if err == nil {
		var d *serving.Deployment
		if d, err = serving.Build(ctx, folder, *out, opt, stderr); err == nil {
			d.Report(stdout, stderr)
			return 0
		}
	}
	switch {
	case errors.Is(err, serving.ErrInvalid):
		fmt.Fprintf(stderr, "skilledge build: %v; fix them, or pass --skip-invalid to build the valid ones\n", err)
	case errors.Is(err, serving.ErrAssetSize):
		fmt.Fprintf(stderr, "skilledge build: %v\nskilledge build: make those files smaller or split them (the MCP Skills extension allows 16 MiB per skill), or serve the folder with skilledge serve, which has no such limit.\n", err)
	default:
		fmt.Fprintf(stderr, "skilledge build: %s\n", advised(err))
	}
	return 1
}
