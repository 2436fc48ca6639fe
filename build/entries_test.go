package build

import (
	"bytes"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
)

// TestHostLimits: the host's limits (host/limits.mjs) are the contract's.
// (build/host.test.mjs holds them to edge/wire/testdata/limits.json too; this catches a
// drift in a plain go test.)
func TestHostLimits(t *testing.T) {
	src, err := hostFiles.ReadFile("host/limits.mjs")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)export const limits = \{\n(.*?)\n\};`).FindSubmatch(src)
	if m == nil {
		t.Fatal("host/limits.mjs has no `export const limits = {…};`")
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
		"KeysTimeout": int(wire.KeysTimeout / time.Second), "KeysRefetch": int(wire.KeysRefetch / time.Second), "KeysRetry": int(wire.KeysRetry / time.Second),
		"KeysMinAge": int(wire.KeysMinAge / time.Second), "KeysMaxAge": int(wire.KeysMaxAge / time.Second),
		"KeysDefaultAge": int(wire.KeysDefaultAge / time.Second),
		"MaxNeedRounds":  wire.MaxNeedRounds,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("host/limits.mjs limits.%s = %d, wire.%s = %d", k, got[k], k, v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("host/limits.mjs limits has %d entries, the contract %d: %v", len(got), len(want), got)
	}
}

// imports is what a module imports or re-exports from, in its order.
func imports(src []byte) []string {
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^(?:import|export) .* from "([^"]+)";$`).FindAllSubmatch(src, -1) {
		got = append(got, string(m[1]))
	}
	return got
}

// TestImports: the entry module imports exactly the files build writes beside it and the
// Extism SDK the root wrangler.toml aliases, the index before the plugin (worker.mjs says
// why: wrangler lists the modules in that order); the host imports only its own modules, which
// import only each other, so that any runtime's entry can use it; and what an entry
// imports, the host's modules included, is exactly what build writes.
func TestImports(t *testing.T) {
	if got, want := imports(Worker), []string{"@extism/extism", "./catalog.pack", "./plugin.wasm", "./" + HostName}; !slices.Equal(got, want) {
		t.Errorf("worker.mjs imports %q, want %q", got, want)
	}
	// The modules reached from host.mjs, by relative imports only, each resolved against
	// the module that imports it.
	modules := map[string][]byte{HostName: Host}
	for _, e := range HostModules() {
		modules[e.Name] = e.Data
	}
	reached := map[string]bool{}
	var walk func(name string)
	walk = func(name string) {
		if reached[name] {
			return
		}
		reached[name] = true
		src, ok := modules[name]
		if !ok {
			t.Errorf("%s is imported, and build does not write it", name)
			return
		}
		for _, imp := range imports(src) {
			if !strings.HasPrefix(imp, "./") || !strings.HasSuffix(imp, ".mjs") {
				t.Errorf("%s imports %q: the host imports only its own modules, by a relative path with .mjs", name, imp)
				continue
			}
			walk(path.Join(path.Dir(name), imp))
		}
	}
	walk(HostName)
	for name := range modules {
		if !reached[name] {
			t.Errorf("build writes %s, and host.mjs does not import it", name)
		}
	}
	// The other entries import the host and their runtime's own modules, and load the
	// SDK's browser build beside the package's entry (import.meta.resolve).
	for _, tc := range []struct {
		src  []byte
		want []string
	}{
		{deno, []string{"./" + HostName}},
		{bun, []string{"./" + HostName}},
		{node, []string{"node:http", "node:fs/promises", "node:stream", "./" + HostName}},
	} {
		if got := imports(tc.src); !slices.Equal(got, tc.want) {
			t.Errorf("%.40q… imports %q, want %q", tc.src, got, tc.want)
		}
		if !bytes.Contains(tc.src, []byte(`new URL("../browser/mod.js", import.meta.resolve("@extism/extism"))`)) {
			t.Errorf("%.40q… does not load the SDK's browser build", tc.src)
		}
	}
}

// TestEntries: build writes each entry and each module of the host (every file of
// build/host/) under its own name, and the manifests pin the SDK build/package.json pins,
// with build/package-lock.json's integrity.
func TestEntries(t *testing.T) {
	files, err := fs.Glob(hostFiles, "host/*.mjs")
	if err != nil {
		t.Fatal(err)
	}
	var modules []string
	for _, e := range HostModules() {
		modules = append(modules, e.Name)
	}
	if slices.Sort(files); !slices.Equal(slices.Sorted(slices.Values(modules)), files) {
		t.Errorf("HostModules are %q, build/host/ holds %q", modules, files)
	}
	names := map[string]bool{HostName: true}
	for _, e := range append(HostModules(), Entries()...) {
		if names[e.Name] || len(e.Data) == 0 || e.What == "" {
			t.Errorf("entry %q: repeated, empty or undescribed", e.Name)
		}
		names[e.Name] = true
	}
	if v := SDKVersion(); !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(v) {
		t.Fatalf("SDKVersion() = %q, want an exact version", v)
	}
	pkg, lock := distPackage(), distLock()
	for _, doc := range [][]byte{pkg, lock, Entries()[len(Entries())-1].Data} {
		if !gjson.ValidBytes(doc) {
			t.Fatalf("not JSON:\n%s", doc)
		}
	}
	if got := gjson.GetBytes(pkg, `dependencies.\@extism/extism`).Str; got != SDKVersion() {
		t.Errorf("package.json pins %q, want %q", got, SDKVersion())
	}
	sdk := gjson.GetBytes(lock, `packages.node_modules/\@extism/extism`)
	if sdk.Get("version").Str != SDKVersion() || !strings.HasPrefix(sdk.Get("integrity").Str, "sha512-") ||
		sdk.Get("integrity").Str != sdkLock().Get("integrity").Str {
		t.Errorf("package-lock.json's SDK entry %s, want version %s and build/package-lock.json's integrity", sdk.Raw, SDKVersion())
	}
}

// TestHostPrivateMagic: the host tells a private catalog by the magic the build opens its
// index with, to refuse to start one without an auth option as serve does.
func TestHostPrivateMagic(t *testing.T) {
	src, err := hostFiles.ReadFile("host/start.mjs")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^const privateMagic = ("[^"]*");$`).FindSubmatch(src)
	if m == nil {
		t.Fatal(`host/start.mjs has no line const privateMagic = "…";`)
	}
	if got, err := strconv.Unquote(string(m[1])); err != nil || got != catalog.MagicPrivate {
		t.Fatalf("host/start.mjs privateMagic = %s (%v), want %q", m[1], err, catalog.MagicPrivate)
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

// TestHostLength: host.mjs, the entries' API, stays at most 600 lines; a role that grows
// it past them is a module of its own in build/host/.
func TestHostLength(t *testing.T) {
	if n := bytes.Count(Host, []byte("\n")); n > 600 {
		t.Errorf("host.mjs has %d lines, want at most 600: move a role into build/host/", n)
	}
}
