package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// modulePath is the main module; a pattern in importRules without a dot in its first
// element names a package of it, by its path below the module.
const modulePath = "github.com/skilledge/skilledge"

// gjsonModules are gjson and the modules it imports.
var gjsonModules = []string{"github.com/tidwall/gjson", "github.com/tidwall/match", "github.com/tidwall/pretty"}

// importRule is one boundary between the rooms, checked over what `go list -deps` says.
// A pattern is an import path, or a package of this module by its path below the module
// ("edge", "runtime/..." for runtime and everything below it, "..." for every package of
// the module). A package links what it imports, directly or not; its tests' imports are
// not linked, and count only where a row says so.
type importRule struct {
	rule, why string
	// build is the listing the rule reads: "host" (this machine, tags e2e and
	// benchreport), "plugin" (GOOS=wasip1 GOARCH=wasm, ./edge/plugin), "public" (the
	// same with the tag skilledge_public: the public plugin) or "extism" (the module
	// tests/extism).
	build string
	// of and except select the packages the rule is about.
	of, except []string
	// never: the packages link none of these.
	never []string
	// tests: never applies to the imports of the packages' tests too.
	tests bool
	// onlyOurs, when not nil: the packages link, of this module, only these.
	onlyOurs []string
	// onlyModules, when not nil: the packages link, besides the standard library and this
	// module, only packages of these modules.
	onlyModules []string
	// importedBy, when not nil: the packages are imported (by code, not by tests) only by
	// these.
	importedBy []string
}

var importRules = []importRule{
	{
		rule:  "the public plugin links neither edge/auth nor the crypto of credentials",
		why:   "the public plugin (tag skilledge_public) is what a catalog without an access policy ships: the code that checks tokens, with RSA, ECDSA, math/big and ASN.1, was a quarter of the module, compiled at every cold start",
		build: "public",
		of:    []string{"edge/plugin"},
		never: []string{"edge/auth", "math/big", "crypto/rsa", "crypto/ecdsa", "crypto/ed25519", "crypto/x509", "encoding/asn1", "vendor/golang.org/x/crypto/cryptobyte"},
	},
	{
		rule:  "the plugin never links yaml.v3",
		why:   "YAML is read at build time (catalog/compile); the plugin reads the compiled index, and every package it links is in every instance, at every cold start",
		build: "plugin",
		of:    []string{"edge/plugin"},
		never: []string{"gopkg.in/yaml.v3/..."},
	},
	{
		rule:  "the plugin never links wazero",
		why:   "wazero is the Go host's runtime, which runs the plugin; the plugin itself runs under any Extism host",
		build: "plugin",
		of:    []string{"edge/plugin"},
		never: []string{"github.com/tetratelabs/wazero/..."},
	},
	{
		rule:  "the plugin never links the compiler or what only the compiler uses",
		why:   "build-time code; runtime/pluginbuild leaves catalog/compile, catalog/examples and the packages only the compiler imports out of the plugin's hash",
		build: "plugin",
		of:    []string{"edge/plugin"},
		never: []string{"catalog/compile/...", "catalog/internal/...", "catalog/examples"},
	},
	{
		rule:     "the plugin links, of this module, only the server and what it reads",
		why:      "edge, edge/auth, edge/wire, jsonrpc, catalog and catalog/search are the plugin; the hosts, the compiler and the tests stay out of every instance",
		build:    "plugin",
		of:       []string{"edge/plugin"},
		onlyOurs: []string{"edge", "edge/auth", "edge/wire", "jsonrpc", "catalog", "catalog/search"},
	},
	{
		rule:        "the plugin links no module but go-pdk and gjson",
		why:         "the plugin's dependencies are fixed: the Extism PDK and gjson (with the two modules gjson imports)",
		build:       "plugin",
		of:          []string{"edge/plugin"},
		onlyModules: append([]string{"github.com/extism/go-pdk"}, gjsonModules...),
	},
	{
		rule:  "hosts never link the server (edge): they import edge/wire",
		why:   "a host follows the contract, edge/wire, and its vectors, as the JavaScript host does, which cannot link edge at all; a Go host that called the server would answer what only the plugin may (runtime/wasm's tests may run the server in process, to compare)",
		build: "host",
		of:    []string{"runtime/...", "build"},
		never: []string{"edge", "edge/plugin"},
	},
	{
		rule:        "jsonrpc links nothing of this module, and no module but gjson",
		why:         "JSON-RPC 2.0 on gjson, under the server: the server builds on it, never the other way",
		build:       "host",
		of:          []string{"jsonrpc"},
		never:       []string{"..."},
		onlyModules: gjsonModules,
	},
	{
		rule:        "the catalog reader links nothing of this module, and no module but gjson",
		why:         "the index format and its reader are linked into the plugin, the compiler and the hosts; an import upward would pull the server or the compiler into each",
		build:       "host",
		of:          []string{"catalog"},
		never:       []string{"..."},
		onlyModules: gjsonModules,
	},
	{
		rule:        "the terms of search link nothing of this module, and no module",
		why:         "the build's index and the plugin's queries must make terms alike, so both link catalog/search; it stands on the standard library alone, under both",
		build:       "host",
		of:          []string{"catalog/search"},
		never:       []string{"..."},
		onlyModules: []string{},
	},
	{
		rule:        "the signing of a catalog's root links nothing of this module, and no module",
		why:         "a catalog's root is signed at build and checked by the consumers (verify, pull): catalog/signing stands on the standard library alone, and the plugin serves a root as bytes the build prepared, never linking it",
		build:       "host",
		of:          []string{"catalog/signing"},
		never:       []string{"..."},
		onlyModules: []string{},
	},
	{
		rule:       "edge/auth is imported only by edge and the CLI",
		why:        "who is asking is the plugin's to decide, on every request; the CLI only parses an --auth file, to refuse a bad one and say what it accepts before it starts, and mints static keys (skilledge key). Tests may import it anywhere",
		build:      "host",
		of:         []string{"edge/auth"},
		importedBy: []string{"edge", "runtime/cmd/skilledge"},
	},
	{
		rule:       "runtime/serving is the CLI's, and links neither edge/auth nor runtime/telemetry",
		why:        "it builds, caches, starts and watches the catalog serve and stdio answer from, and writes build's deployment, for the CLI alone; the auth option reaches it as bytes for the plugin (who is asking is the plugin's to decide; the CLI parses --auth), and what an operator is told reaches it as a front.Observer, so that it links neither the credential code nor OpenTelemetry and Prometheus",
		build:      "host",
		of:         []string{"runtime/serving"},
		never:      []string{"edge/auth", "runtime/telemetry"},
		importedBy: []string{"runtime/cmd/skilledge"},
	},
	{
		rule:  "edge never links the harness",
		why:   "the server is host-neutral: runtime/ is one host of several, and whatever edge links, the plugin links",
		build: "host",
		of:    []string{"edge/..."},
		never: []string{"runtime/...", "build"},
	},
	{
		rule:   "only runtime/telemetry and the CLI link OpenTelemetry and Prometheus",
		why:    "what an operator is told is the harness's telemetry room (serve --metrics, --log, OTLP) and skilledge stats; the plugin, the contract, the fronts and the pool stay free of it, and so does every host that does not ask for it",
		build:  "host",
		of:     []string{"..."},
		except: []string{"runtime/telemetry", "runtime/cmd/skilledge", "tests/..."},
		never:  []string{"go.opentelemetry.io/...", "github.com/prometheus/..."},
	},
	{
		rule:  "pull and verify never link the compiler",
		why:   "they read what a deployment serves and write what an agent installs; a folder or git source is read by the loader the CLI gives pull (runtime/internal/pull/loaddir), so the compiler, 4,800 lines and a YAML resolver, is not linked for the nine lines of archive.FileKey",
		build: "host",
		of:    []string{"runtime/internal/pull", "runtime/internal/verify"},
		never: []string{"catalog/compile/..."},
	},
	{
		rule:   "nothing outside tests/ imports tests/, not even its tests",
		why:    "tests/ drives the product from outside, as users and hosts do; a package that imported it would test itself with its own test harness",
		build:  "host",
		of:     []string{"..."},
		except: []string{"tests/..."},
		never:  []string{"tests/..."},
		tests:  true,
	},
	{
		rule:  "tests/extism imports nothing of this module",
		why:   "it runs plugin.wasm through the Extism Go SDK as a third-party host would, from the file and its exports alone",
		build: "extism",
		of:    []string{modulePath + "/tests/extism/..."},
		never: []string{"..."},
		tests: true,
	},
}

// listedPackage is what go list says of a package.
type listedPackage struct {
	ImportPath   string
	Standard     bool
	DepOnly      bool
	Module       *struct{ Path string }
	Imports      []string
	TestImports  []string
	XTestImports []string
}

func (p *listedPackage) module() string {
	if p.Module == nil {
		return ""
	}
	return p.Module.Path
}

// listing is one go list -deps: every package by import path.
type listing map[string]*listedPackage

// goList lists pkgs and every package they link, with env added to the environment and
// dir relative to the module root.
func goList(t *testing.T, dir string, env []string, args ...string) listing {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goBin, append([]string{"list", "-deps",
		"-json=ImportPath,Standard,DepOnly,Module,Imports,TestImports,XTestImports"}, args...)...)
	cmd.Dir = "../" + dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s in %s: %v\n%s", strings.Join(args, " "), cmd.Dir, err, stderr.Bytes())
	}
	l := listing{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(listedPackage)
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		l[p.ImportPath] = p
	}
	return l
}

// matches reports whether the package p matches the pattern.
func (l listing) matches(pattern, p string) bool {
	full := pattern
	if first, _, _ := strings.Cut(pattern, "/"); pattern == "..." || !strings.Contains(first, ".") {
		// A package of this module, not of a module nested in it (tests/extism). A test's
		// import may not be listed: its path decides.
		if pkg := l[p]; pkg != nil && pkg.module() != modulePath {
			return false
		}
		full = modulePath + "/" + pattern
	}
	if prefix, ok := strings.CutSuffix(full, "/..."); ok {
		return p == prefix || strings.HasPrefix(p, prefix+"/")
	}
	return p == full
}

func (l listing) matchesAny(patterns []string, p string) bool {
	return slices.ContainsFunc(patterns, func(pattern string) bool { return l.matches(pattern, p) })
}

// links returns every package root links, directly or not, each with the chain of
// imports that leads to it from root.
func (l listing) links(root string) map[string][]string {
	chains := map[string][]string{root: {root}}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		pkg := l[p]
		if pkg == nil {
			continue
		}
		for _, imp := range pkg.Imports {
			if _, seen := chains[imp]; !seen {
				chains[imp] = append(slices.Clip(chains[p]), imp)
				queue = append(queue, imp)
			}
		}
	}
	delete(chains, root)
	return chains
}

// short is p without the module's path.
func short(p string) string {
	if s, ok := strings.CutPrefix(p, modulePath+"/"); ok {
		return s
	}
	return p
}

func shortChain(chain []string) string {
	s := make([]string, len(chain))
	for i, p := range chain {
		s[i] = short(p)
	}
	return strings.Join(s, " → ")
}

// check returns what breaks r in l.
func (r importRule) check(l listing) []string {
	var subjects []string
	for p, pkg := range l {
		if !pkg.DepOnly && l.matchesAny(r.of, p) && !l.matchesAny(r.except, p) {
			subjects = append(subjects, p)
		}
	}
	slices.Sort(subjects)
	if len(subjects) == 0 {
		return []string{"the rule is about no package: " + strings.Join(r.of, ", ")}
	}
	var broken []string
	for _, p := range subjects {
		links := l.links(p)
		deps := make([]string, 0, len(links))
		for d := range links {
			deps = append(deps, d)
		}
		slices.Sort(deps)
		for _, d := range deps {
			dep := l[d]
			switch {
			case l.matchesAny(r.never, d):
				broken = append(broken, short(p)+" links "+short(d)+": "+shortChain(links[d]))
			case r.onlyOurs != nil && dep != nil && dep.module() == modulePath && !l.matchesAny(r.onlyOurs, d):
				broken = append(broken, short(p)+" links "+short(d)+", not one of "+strings.Join(r.onlyOurs, ", ")+": "+shortChain(links[d]))
			case r.onlyModules != nil && dep != nil && !dep.Standard && dep.module() != modulePath && !slices.Contains(r.onlyModules, dep.module()):
				broken = append(broken, short(p)+" links "+d+" of module "+dep.module()+": "+shortChain(links[d]))
			}
		}
		if r.tests {
			pkg := l[p]
			for _, imp := range append(slices.Clip(pkg.TestImports), pkg.XTestImports...) {
				if l.matchesAny(r.never, imp) {
					broken = append(broken, "the tests of "+short(p)+" import "+short(imp))
				}
			}
		}
	}
	if r.importedBy != nil {
		var importers []string
		for p, pkg := range l {
			if pkg.DepOnly || l.matchesAny(r.importedBy, p) {
				continue
			}
			for _, imp := range pkg.Imports {
				if slices.Contains(subjects, imp) {
					importers = append(importers, short(p)+" imports "+short(imp))
				}
			}
		}
		slices.Sort(importers)
		broken = append(broken, importers...)
	}
	return broken
}

// TestImportRules checks the boundaries between the rooms (README, "Layout"), each rule a
// row of importRules with its reason, over what `go list -deps` says each package links:
// this machine's build with every test tag, the plugin's (GOOS=wasip1 GOARCH=wasm), and
// the module tests/extism.
func TestImportRules(t *testing.T) {
	listings := map[string]listing{
		"host":   goList(t, "", nil, "-tags", "e2e,benchreport", "./..."),
		"plugin": goList(t, "", []string{"GOOS=wasip1", "GOARCH=wasm"}, "./edge/plugin"),
		"public": goList(t, "", []string{"GOOS=wasip1", "GOARCH=wasm"}, "-tags", "skilledge_public", "./edge/plugin"),
		"extism": goList(t, "tests/extism", nil, "./..."),
	}
	for _, r := range importRules {
		t.Run(r.rule, func(t *testing.T) {
			l := listings[r.build]
			if l == nil {
				t.Fatalf("no listing %q", r.build)
			}
			if broken := r.check(l); len(broken) > 0 {
				t.Errorf("%s\n%s\nwhy: %s", r.rule, strings.Join(broken, "\n"), r.why)
			}
		})
	}
}
