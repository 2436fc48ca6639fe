package build

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
)

// TestHostLimits: host.mjs's limits are the contract's. (build/host.test.mjs holds them to
// edge/wire/testdata/limits.json too; this catches a drift in a plain go test.)
func TestHostLimits(t *testing.T) {
	m := regexp.MustCompile(`(?s)export const limits = \{\n(.*?)\n\};`).FindSubmatch(Host)
	if m == nil {
		t.Fatal("host.mjs has no `export const limits = {…};`")
	}
	got := map[string]int{}
	for _, line := range regexp.MustCompile(`(?m)^\t(\w+): ([0-9 *]+),`).FindAllSubmatch(m[1], -1) {
		n := 1
		for _, f := range strings.Split(string(line[2]), "*") {
			k, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				t.Fatalf("limits.%s: %q", line[1], line[2])
			}
			n *= k
		}
		got[string(line[1])] = n
	}
	want := map[string]int{
		"DefaultMaxBody": wire.DefaultMaxBody, "MaxBatch": wire.MaxBatch, "HintSize": wire.HintSize, "HintSizeExpiring": wire.HintSizeExpiring,
		"ReplayEntries": wire.ReplayEntries, "ReplayEntryMax": wire.ReplayEntryMax,
		"ReplayBudget": wire.ReplayBudget, "ReplayShapesMax": wire.ReplayShapesMax,
		"KeySetMax": wire.KeySetMax, "KeysRedirects": wire.KeysRedirects,
		"KeysTimeout": int(wire.KeysTimeout / time.Second), "KeysRefetch": int(wire.KeysRefetch / time.Second),
		"KeysMinAge": int(wire.KeysMinAge / time.Second), "KeysMaxAge": int(wire.KeysMaxAge / time.Second),
		"KeysDefaultAge": int(wire.KeysDefaultAge / time.Second),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("host.mjs limits.%s = %d, wire.%s = %d", k, got[k], k, v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("host.mjs limits has %d entries, the contract %d: %v", len(got), len(want), got)
	}
}

// TestImports: the entry module imports exactly the files build writes beside it and the
// Extism SDK the root wrangler.toml aliases; the host imports nothing, so that any
// runtime's entry can use it.
func TestImports(t *testing.T) {
	imports := func(src []byte) []string {
		var got []string
		for _, m := range regexp.MustCompile(`(?m)^import .* from "([^"]+)";$`).FindAllSubmatch(src, -1) {
			got = append(got, string(m[1]))
		}
		return got
	}
	if got, want := imports(Worker), []string{"@extism/extism", "./plugin.wasm", "./catalog.pack", "./" + HostName}; !slices.Equal(got, want) {
		t.Errorf("worker.mjs imports %q, want %q", got, want)
	}
	if got := imports(Host); got != nil {
		t.Errorf("host.mjs imports %q, want nothing", got)
	}
}

// TestHostStoreDir: the host fetches objects where build writes them in the assets.
func TestHostStoreDir(t *testing.T) {
	m := regexp.MustCompile(`(?m)^export const storeDir = "([^"]*)";$`).FindSubmatch(Host)
	if m == nil {
		t.Fatal(`host.mjs has no line export const storeDir = "…";`)
	}
	if want := "/" + catalog.StoreDir + "/"; string(m[1]) != want {
		t.Fatalf("host.mjs storeDir = %q, want %q", m[1], want)
	}
}
