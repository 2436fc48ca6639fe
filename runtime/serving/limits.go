package serving

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/runtime/internal/words"
)

// Cloudflare Workers limits, by plan. The script (plugin.wasm, catalog.pack, worker.mjs,
// host.mjs with its modules, and the bundled SDK) is limited after gzip compression;
// static assets (the content store) by count and by the size of each file. See
// https://developers.cloudflare.com/workers/platform/limits/#worker-size and
// https://developers.cloudflare.com/workers/static-assets/#limits
//
// Why does `build` warn over the script size and asset count, but refuse an asset over 25
// MiB? The script and asset-count limits depend on the account's plan, and the same
// output serves serve and the Extism hosts, which have no such limits: a warning names the
// limit crossed, what is large and what to do. The 25 MiB limit on one asset is the same
// on every plan and wrangler refuses the upload, so build refuses the catalog before
// writing anything, naming each file whose content (raw, or in its resources/read form: a
// 13 MiB text of newlines is 26 MiB as a JSON string) would be over, and pointing at
// skilledge serve, which has no such limit. The script estimate adds the Extism SDK's
// bundled size (extismSDKGzipped) to the gzipped files; a test holds it within 3% of
// wrangler's own figure.
const (
	workersFreeLimit = 3 << 20
	workersPaidLimit = 10 << 20
	assetsFreeCount  = 20_000
	assetsPaidCount  = 100_000
	assetMaxSize     = 25 << 20
)

// extismSDKGzipped is about what the Extism JS SDK (the browser build of
// @extism/extism, pinned in build/package-lock.json) adds to the bundle wrangler makes of
// worker.mjs, gzipped. A test in tests/ compares the total with wrangler's own figure.
const extismSDKGzipped = 31 << 10

// artifact is one file Build writes.
type artifact struct {
	path    string
	data    []byte
	gzipped int    // len(gzip(data)) at the default level, as the Workers limit measures
	what    string // what it is, for Report: a host module's or an entry's What
}

func newArtifact(path string, data []byte, what string) artifact {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	zw.Write(data)
	zw.Close()
	return artifact{path: path, data: data, gzipped: buf.Len(), what: what}
}

// reportBundle prints the Worker script's estimated gzipped size on stdout and, when it
// is over a Workers plan limit, a warning on stderr that says what is large and what to
// do. File contents are not in the script (they are assets), so only the plugin and the
// index, which grows with the number of files, count.
func reportBundle(stdout, stderr io.Writer, index, plugin artifact, js []artifact, p *catalog.Pack) {
	total := index.gzipped + plugin.gzipped + extismSDKGzipped
	for _, a := range js {
		total += a.gzipped
	}
	fmt.Fprintf(stdout, "Worker script: about %s gzipped with the Extism JS SDK (Workers limits: %s on the free plan, %s on paid)\n",
		size(total), size(workersFreeLimit), size(workersPaidLimit))
	if total <= workersFreeLimit {
		return
	}
	what := "over the free plan's limit of " + size(workersFreeLimit) + ": it deploys only on a paid plan"
	if total > workersPaidLimit {
		what = "over the paid plan's limit of " + size(workersPaidLimit) + ": wrangler deploy will be refused"
	}
	fmt.Fprintf(stderr, "skilledge build: warning: the Worker script is about %s gzipped, %s.\n", size(total), what)
	fmt.Fprintf(stderr, "  plugin.wasm is %s gzipped; catalog.pack, the index of %s and %s, is %s gzipped (%s raw).\n",
		size(plugin.gzipped), words.Plural(p.NumSkills(), "skill"), words.Plural(p.NumFiles(), "file"), size(index.gzipped), size(len(index.data)))
	fmt.Fprintf(stderr, "  File contents are static assets and do not count; the index grows with the number of skills and files")
	if p.Private() {
		fmt.Fprintf(stderr, ",\n  and a private catalog's with its views (%d: one per combination of scopes a caller can hold)", p.NumViews())
	}
	fmt.Fprintf(stderr, ".\n")
	switch {
	case p.Sharded():
		fmt.Fprintf(stderr, "  The index is sharded already: its root holds the search terms and the well-known documents' rows.\n")
	default:
		fmt.Fprintf(stderr, "  Build with --shard always (or without --shard never): the index then leaves the script.\n")
	}
	fmt.Fprintf(stderr, "  Split the catalog across Workers (a skills folder each).\n")
}

// reportAssetCount prints the content store's size (files objects of bytes together)
// against the Workers static-assets limits, warning on stderr when it has more files than
// a plan allows.
func reportAssetCount(stdout, stderr io.Writer, files int, bytes int64) {
	fmt.Fprintf(stdout, "Worker assets: %s, %s (Workers limits: %s files on the free plan, %s on paid, %s each)\n",
		words.Plural(files, "file"), size(int(bytes)), thousands(assetsFreeCount), thousands(assetsPaidCount), size(assetMaxSize))
	if files <= assetsFreeCount {
		return
	}
	what := "more than the free plan's " + thousands(assetsFreeCount) + ": it deploys only on a paid plan"
	if files > assetsPaidCount {
		what = "more than the paid plan's " + thousands(assetsPaidCount) + ": wrangler deploy will be refused"
	}
	fmt.Fprintf(stderr, "skilledge build: warning: the content store is %s, %s.\n", words.Plural(files, "asset file"), what)
	fmt.Fprintf(stderr, "  Every distinct file is stored about twice (its bytes and its resources/read form), and each skill adds four (its archives).\n")
	fmt.Fprintf(stderr, "  Split the catalog across Workers (a skills folder each).\n")
}

// PacksBinding is the Worker's binding of the R2 bucket that holds a packed catalog's packs
// (the root wrangler.toml, build/worker.mjs); a pack NAME is the bucket's object
// "sha256/NAME".
const PacksBinding = "SKILLEDGE_PACKS"

// reportPacks says, when the build packed the store's objects, where the packs are and what
// a Worker needs of them: the R2 bucket, its binding, and the upload of each pack (which
// packs already there skip: a pack's name is its SHA-256).
func reportPacks(stdout io.Writer, dir string, packs []string, bytes int64) {
	if len(packs) == 0 {
		return
	}
	fmt.Fprintf(stdout, "%s  %s in %s  the store's other objects, packed: a Worker reads them from R2 by range\n", dir, size(int(bytes)), words.Plural(len(packs), "pack"))
	fmt.Fprintf(stdout, "  R2: create a bucket once (npx --prefix build wrangler r2 bucket create skilledge-packs), bind it as %s\n", PacksBinding)
	fmt.Fprintf(stdout, "  (the root wrangler.toml's [[r2_buckets]], commented out), and upload the packs before each deploy:\n")
	for _, name := range packs {
		fmt.Fprintf(stdout, "  npx --prefix build wrangler r2 object put skilledge-packs/%s%s --file %s%s --remote\n", catalog.StoreDir+"/", name, dir, name)
	}
}

// checkAssetSizes refuses a store holding an object larger than a Workers static asset
// may be: the error (ErrAssetSize) names each such object's file and form, and its size.
func checkAssetSizes(st *compile.Store) error {
	var big []string
	for _, name := range st.Names() {
		if n := st.ObjectSize(name); n > assetMaxSize && !st.IsPack(name) {
			big = append(big, fmt.Sprintf("  %s: %s", st.What(name), size(int(n))))
		}
	}
	if len(big) == 0 {
		return nil
	}
	slices.Sort(big)
	return &assetSizeError{big}
}

// assetSizeError is checkAssetSizes' error: a line per object too large.
type assetSizeError struct{ big []string }

func (e *assetSizeError) Error() string {
	return fmt.Sprintf("%s of this catalog would be over %s, the most a Workers static asset may be:\n%s",
		words.Plural(len(e.big), "content"), size(assetMaxSize), strings.Join(e.big, "\n"))
}

func (e *assetSizeError) Is(target error) bool { return target == ErrAssetSize }

// thousands formats n with a comma every three digits: 20,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// size formats n bytes for people: "812 B", "43.8 KiB", "1.07 MiB", "3 MiB".
func size(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	default:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	}
}

// privateNote says, of a private catalog, what its index holds besides the catalog: a
// view per combination of scopes, each an index of its own.
func privateNote(p *catalog.Pack) string {
	if !p.Private() {
		return ""
	}
	return fmt.Sprintf("; private (skilledge.yaml): scopes %q needed, %q named, %s compiled ahead, one per combination of scopes a caller can hold",
		p.DefaultScopes(), p.PolicyScopes(), words.Plural(p.NumViews(), "view"))
}
