package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/skilledge/skilledge/catalog/build"
)

// Cloudflare Workers limits on a Worker's size after gzip compression, by plan. See
// https://developers.cloudflare.com/workers/platform/limits/#worker-size
const (
	workersFreeLimit = 3 << 20
	workersPaidLimit = 10 << 20
)

// extismSDKGzipped is about what the Extism JS SDK (the browser build of
// @extism/extism, pinned in build/package-lock.json) adds to the bundle wrangler makes of
// worker.mjs, gzipped. A test in tests/ compares the total with wrangler's own figure.
const extismSDKGzipped = 31 << 10

// artifact is one file build writes.
type artifact struct {
	path    string
	data    []byte
	gzipped int // len(gzip(data)) at the default level, as the Workers limit measures
}

func newArtifact(path string, data []byte) artifact {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	zw.Write(data)
	zw.Close()
	return artifact{path, data, buf.Len()}
}

// reportBundle prints the Worker bundle's estimated gzipped size on stdout and, when it
// is over a Workers plan limit, a warning on stderr that names what is large: the plugin,
// the pack, and the pack's largest files.
func reportBundle(stdout, stderr io.Writer, pack, plugin, worker artifact, c *build.Catalog) {
	total := pack.gzipped + plugin.gzipped + worker.gzipped + extismSDKGzipped
	fmt.Fprintf(stdout, "Worker bundle: about %s gzipped with the Extism JS SDK (Workers limits: %s on the free plan, %s on paid)\n",
		size(total), size(workersFreeLimit), size(workersPaidLimit))
	if total <= workersFreeLimit {
		return
	}
	what := "over the free plan's limit of " + size(workersFreeLimit) + ": it deploys only on a paid plan"
	if total > workersPaidLimit {
		what = "over the paid plan's limit of " + size(workersPaidLimit) + ": wrangler deploy will be refused"
	}
	fmt.Fprintf(stderr, "skilledge build: warning: the Worker bundle is about %s gzipped, %s.\n", size(total), what)
	fmt.Fprintf(stderr, "  plugin.wasm is %s gzipped; catalog.pack is %s gzipped (%s raw).\n", size(plugin.gzipped), size(pack.gzipped), size(len(pack.data)))
	if big := largestFiles(c, 5, total/100); len(big) > 0 {
		fmt.Fprintf(stderr, "  The pack holds every file encoded for resources/read and again in its skill's .tar.gz and .zip; the largest files:\n")
		for _, f := range big {
			fmt.Fprintf(stderr, "    %s  %s\n", f.Path, size(len(f.Data)))
		}
	}
	fmt.Fprintf(stderr, "  Move large data out of the skills folder, or split the catalog across Workers.\n")
}

// largestFiles returns the n largest files of c of at least floor bytes, largest first,
// each once (a nested skill's files appear in two skills).
func largestFiles(c *build.Catalog, n, floor int) []*build.File {
	seen := map[*build.File]bool{}
	var all []*build.File
	for _, s := range c.Skills {
		for _, f := range s.Files {
			if !seen[f] && len(f.Data) >= floor {
				seen[f] = true
				all = append(all, f)
			}
		}
	}
	slices.SortStableFunc(all, func(a, b *build.File) int {
		if d := len(b.Data) - len(a.Data); d != 0 {
			return d
		}
		return strings.Compare(a.Path, b.Path)
	})
	return all[:min(n, len(all))]
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
