package serving

import (
	"bytes"
	"strings"
	"testing"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/examples"
)

// TestBuildLimits: build reports the Worker script and assets against the Workers limits:
// a warning (it still builds) over a plan's script size or asset count, saying which and
// what to do.
func TestBuildLimits(t *testing.T) {
	p := examplesIndex(t)
	art := func(gz int) artifact { return artifact{path: "x", data: make([]byte, gz), gzipped: gz} }
	for _, tc := range []struct {
		name       string
		index      int // gzipped bytes
		assets     int // files
		out, err   string
		noWarnings bool
	}{
		{"fits", 100 << 10, 500, "Worker script: about 1.", "", true},
		{"script over free", 2 << 20, 500, "Worker script: about 3.", "over the free plan's limit of 3 MiB: it deploys only on a paid plan", false},
		{"script over paid", 9 << 20, 500, "Worker script: about 10.", "over the paid plan's limit of 10 MiB: wrangler deploy will be refused", false},
		{"assets over free", 100 << 10, 20_001, "Worker assets: 20001 files", "more than the free plan's 20,000: it deploys only on a paid plan", false},
		{"assets over paid", 100 << 10, 100_001, "Worker assets: 100001 files", "more than the paid plan's 100,000: wrangler deploy will be refused", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			reportBundle(&stdout, &stderr, art(tc.index), art(1200<<10), []artifact{art(2 << 10)}, p)
			reportAssetCount(&stdout, &stderr, tc.assets, 1<<20)
			if !strings.Contains(stdout.String(), tc.out) || !strings.Contains(stderr.String(), tc.err) {
				t.Fatalf("stdout: %s\n(want %q)\nstderr: %s\n(want %q)", stdout.String(), tc.out, stderr.String(), tc.err)
			}
			if tc.noWarnings != (stderr.Len() == 0) {
				t.Fatalf("warnings: %q", stderr.String())
			}
			if !tc.noWarnings && !strings.Contains(stderr.String(), "Split the catalog across Workers") {
				t.Fatalf("the warning does not say what to do: %s", stderr.String())
			}
		})
	}
}

// examplesIndex is the opened index of the built-in examples.
func examplesIndex(t *testing.T) *catalog.Pack {
	t.Helper()
	c, _, err := compile.Load(examples.FS, "examples", compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := compile.Encode(c)
	if err != nil {
		t.Fatal(err)
	}
	p, err := catalog.Open(enc.Index)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
