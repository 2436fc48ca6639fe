package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	deploy "github.com/skilledge/skilledge/build"
	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/internal/require"
	"github.com/skilledge/skilledge/runtime/pluginbuild"
	"github.com/skilledge/skilledge/runtime/serving"
)

// TestMain points the build cache at a temporary directory, so that tests neither use nor
// fill the user's.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "skilledge-cache-")
	if err != nil {
		panic(err)
	}
	buildCache = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// call runs the command line and returns its exit status, stdout and stderr.
func call(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := doMain(args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func expect(t *testing.T, code int, stdout, stderr string, wantCode int, wantOut, wantErr string) {
	t.Helper()
	if code != wantCode || !strings.Contains(stdout, wantOut) || !strings.Contains(stderr, wantErr) {
		t.Fatalf("exit %d (want %d)\nstdout: %s\n(want %q)\nstderr: %s\n(want %q)", code, wantCode, stdout, wantOut, stderr, wantErr)
	}
}

// skillsDir writes a folder with one valid skill and two invalid ones.
func skillsDir(t *testing.T) string {
	dir := t.TempDir()
	for path, data := range map[string]string{
		"good/SKILL.md":       "---\nname: good\ndescription: A fine skill.\n---\nBody\n",
		"good/notes/a.md":     "notes\n",
		"wrong-name/SKILL.md": "---\nname: other\ndescription: Name differs.\n---\nBody\n",
		"nodesc/SKILL.md":     "---\nname: nodesc\n---\nBody\n",
	} {
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{nil, 2, "", "Usage:"},
		{[]string{"help"}, 0, "skilledge serve [DIR]", ""},
		{[]string{"--help"}, 0, "skilledge validate DIR", ""},
		{[]string{"-h"}, 0, "Usage:", ""},
		{[]string{"help", "serve"}, 0, "Usage: skilledge serve [DIR|OUT] [flags]", ""},
		{[]string{"serve", "-h"}, 0, "-allow-origin ORIGIN", ""},
		{[]string{"stdio", "--help"}, 0, "Usage: skilledge stdio", ""},
		{[]string{"validate", "-h"}, 0, "Usage: skilledge validate DIR", ""},
		{[]string{"build", "dir", "--help"}, 0, "-o OUT", ""},
		{[]string{"version"}, 0, "skilledge 0.", ""},
		{[]string{"version", "extra"}, 2, "", "unexpected argument"},
		{[]string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{[]string{"serve", "--bogus"}, 2, "", "flag provided but not defined: -bogus"},
		{[]string{"serve", "a", "b"}, 2, "", "too many arguments"},
		{[]string{"validate"}, 2, "", "missing argument"},
		{[]string{"build", "dir"}, 2, "", "-o OUT is required"},
		{[]string{"serve", "--addr", "0.0.0.0:0"}, 2, "", "refusing to listen on 0.0.0.0:0 without --public"},
		{[]string{"serve", "--addr=[::]:8787"}, 2, "", "without --public"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := call(t, "", tc.args...)
			expect(t, code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
		})
	}
}

// TestUsageErrorOneLine: a bad flag or argument gets one line saying what is wrong and
// where the help is, not the whole help (which --help prints).
func TestUsageErrorOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--bogus"}, "skilledge serve: flag provided but not defined: -bogus (see skilledge serve --help)\n"},
		{[]string{"stdio", "--page-size", "x"}, `skilledge stdio: invalid value "x" for flag -page-size: parse error (see skilledge stdio --help)` + "\n"},
		{[]string{"serve", "a", "b"}, "skilledge serve: too many arguments (see skilledge serve --help)\n"},
		{[]string{"validate"}, "skilledge validate: missing argument (see skilledge validate --help)\n"},
		{[]string{"validate", "--format", "xml", "dir"}, `skilledge validate: --format "xml": want text or github (see skilledge validate --help)` + "\n"},
		{[]string{"build", "dir"}, "skilledge build: -o OUT is required (see skilledge build --help)\n"},
		{[]string{"verify", "--nope", "https://x.example"}, "skilledge verify: flag provided but not defined: -nope (see skilledge verify --help)\n"},
		{[]string{"key", "extra"}, "skilledge key: too many arguments (see skilledge key --help)\n"},
	} {
		code, stdout, stderr := call(t, "", c.args...)
		if code != 2 || stdout != "" || stderr != c.want {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s\nwant: %s", c.args, code, stdout, stderr, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	dir := skillsDir(t)
	want := dir + "/nodesc/SKILL.md:1: missing required field \"description\"\n" +
		dir + "/wrong-name/SKILL.md:2: name \"other\": must equal the skill's directory name \"wrong-name\"\n" +
		"3 skills checked: 2 errors, 0 warnings\n"
	for _, args := range [][]string{{"validate", dir}, {"validate", dir, "--allow-oversize"}, {"validate", "--allow-oversize", dir}, {"validate", "--", dir}} {
		code, stdout, stderr := call(t, "", args...)
		if code != 1 || stdout != want || stderr != "" {
			t.Fatalf("%v: exit %d\nstdout: %s\nstderr: %s\nwant: %s", args, code, stdout, stderr, want)
		}
	}

	code, stdout, stderr := call(t, "", "validate", "../../../catalog/examples/skills")
	expect(t, code, stdout, stderr, 0, "6 skills checked: 0 errors, 0 warnings\n", "")

	code, stdout, stderr = call(t, "", "validate", filepath.Join(dir, "missing"))
	expect(t, code, stdout, stderr, 1, "", "no such file or directory")
}

func TestRefusesInvalidSkills(t *testing.T) {
	dir := skillsDir(t)
	for _, cmd := range [][]string{{"serve", dir}, {"stdio", dir}, {"build", dir, "-o", t.TempDir()}} {
		code, stdout, stderr := call(t, "", cmd...)
		expect(t, code, stdout, stderr, 1, "", "3 skills checked: 2 errors, 0 warnings\n")
		expect(t, code, stdout, stderr, 1, "", "pass --skip-invalid")
		if stdout != "" {
			t.Fatalf("%v wrote to stdout: %s", cmd, stdout)
		}
	}
}

// TestBuildPluginVariant: build ships the public plugin for a catalog without an access
// policy, the full one with --with-auth or for a catalog with one, each the plugin
// pluginbuild builds for that variant, and says which.
func TestBuildPluginVariant(t *testing.T) {
	private := t.TempDir()
	writeFile(t, filepath.Join(private, "skilledge.yaml"), "access:\n  default: [skills:read]\n")
	writeFile(t, filepath.Join(private, "one", "SKILL.md"), "---\nname: one\ndescription: One skill.\n---\nBody\n")
	for _, c := range []struct {
		args []string
		v    pluginbuild.Variant
		says string
	}{
		{nil, pluginbuild.Public, "the public plugin: no auth option (--with-auth for one)"},
		{[]string{"--with-auth"}, pluginbuild.Full, "the full plugin: the auth option checks credentials"},
		{[]string{private}, pluginbuild.Full, "the full plugin: the auth option checks credentials"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := call(t, "", append([]string{"build", "-o", out}, c.args...)...)
		expect(t, code, stdout, stderr, 0, c.says, "")
		path, err := pluginbuild.Ensure(context.Background(), c.v, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(path)
		if got, _ := os.ReadFile(filepath.Join(out, "plugin.wasm")); !bytes.Equal(got, want) {
			t.Errorf("build %v: plugin.wasm (%d bytes) is not the %s plugin (%d bytes)", c.args, len(got), c.v, len(want))
		}
	}
}

// TestRefusesLinkOutOfSkill: a file linked into a public skill from a scoped one
// (`ln -s ../../finance/ledger/secret.txt pub/notes/leak.txt`) is an error of validate,
// build and serve, each naming the link and the file it leads to.
func TestRefusesLinkOutOfSkill(t *testing.T) {
	dir := t.TempDir()
	for path, data := range map[string]string{
		"skilledge.yaml":            "access:\n  rules:\n    - path: finance/\n      scopes: [skills:finance]\n",
		"finance/ledger/SKILL.md":   "---\nname: ledger\ndescription: The books.\n---\nBody\n",
		"finance/ledger/secret.txt": "the ledger\n",
		"pub/SKILL.md":              "---\nname: pub\ndescription: For everyone.\n---\nBody\n",
		"pub/notes/a.md":            "notes\n",
	} {
		writeFile(t, filepath.Join(dir, path), data)
	}
	if err := os.Symlink("../../finance/ledger/secret.txt", filepath.Join(dir, "pub", "notes", "leak.txt")); err != nil {
		t.Skipf("symbolic links not available: %v", err)
	}
	want := dir + "/pub/notes/leak.txt: symbolic link to " + dir + "/finance/ledger/secret.txt, a file of skill finance/ledger: "
	code, stdout, stderr := call(t, "", "validate", dir)
	expect(t, code, stdout, stderr, 1, want, "")
	expect(t, code, stdout, stderr, 1, "2 skills checked: 1 error, 0 warnings\n", "")
	for _, cmd := range [][]string{{"build", dir, "-o", t.TempDir()}, {"serve", dir}} {
		code, stdout, stderr := call(t, "", cmd...)
		expect(t, code, stdout, stderr, 1, "", want)
		expect(t, code, stdout, stderr, 1, "", "2 skills checked: 1 error, 0 warnings\n")
	}
}

func TestStdio(t *testing.T) {
	dir := skillsDir(t)
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"skills/list"}` + "\n"
	code, stdout, stderr := call(t, in, "stdio", "--skip-invalid", dir)
	expect(t, code, stdout, stderr, 0, `"id":1,"result":{"protocolVersion":"2025-06-18"`, "serving 1 skill (2 files) on stdio")
	expect(t, code, stdout, stderr, 0, `"id":2,"result":{"skills":[{"uri":"skill://good/SKILL.md"`, "nodesc/SKILL.md: warning: skipped, not served: missing required field")
	if lines := strings.Split(stdout, "\n"); len(lines) != 3 || lines[2] != "" {
		t.Fatalf("stdout has other things than the two replies: %q", stdout)
	}
}

func TestServe(t *testing.T) {
	dir := skillsDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var stderr require.Buffer // serve writes it from two goroutines while the plugin starts
	exit := make(chan int)
	go func() {
		exit <- run(ctx, []string{"serve", dir, "--addr", "127.0.0.1:0", "--skip-invalid"}, strings.NewReader(""), outW, &stderr)
		outW.Close()
	}()
	out := bufio.NewReader(outR)
	line, err := out.ReadString('\n')
	if err != nil {
		t.Fatalf("no banner: %v; stderr: %s", err, stderr.String())
	}
	page, err := out.ReadString('\n')
	if err != nil {
		t.Fatalf("no second banner line: %v", err)
	}
	go io.Copy(io.Discard, out)
	m := regexp.MustCompile(`^skilledge: serving 1 skill \(2 files\) at (http://127\.0\.0\.1:\d+/mcp)\n$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("banner %q", line)
	}
	if want := "skilledge: the catalog page is at " + strings.TrimSuffix(m[1], "mcp") + "\n"; page != want {
		t.Fatalf("second banner line %q, want %q", page, want)
	}
	if status, body := postMCP(t, m[1], `{"jsonrpc":"2.0","id":1,"method":"ping"}`, ""); status != 200 || !strings.Contains(body, `"id":1`) {
		t.Fatalf("status %d: %s", status, body)
	}
	stopped(t, cancel, exit, &stderr)
}

// stopped cancels a command run in the background (run's exit code comes on exit) and
// fails t unless it exits 0 within 15 seconds, with what it wrote on stderr.
func stopped(t *testing.T, cancel context.CancelFunc, exit <-chan int, stderr fmt.Stringer) {
	t.Helper()
	cancel()
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func TestBuild(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := call(t, "", "build", "-o", out)
	expect(t, code, stdout, stderr, 0, filepath.Join(out, "catalog.pack")+"  ", "")
	expect(t, code, stdout, stderr, 0, "the index: 6 skills, 13 files, catalog digest ", "")
	expect(t, code, stdout, stderr, 0, filepath.Join(out, "assets", "sha256")+"/  ", "")
	expect(t, code, stdout, stderr, 0, filepath.Join(out, "plugin.wasm")+"  ", "")
	expect(t, code, stdout, stderr, 0, filepath.Join(out, "worker.mjs")+"  ", "")
	expect(t, code, stdout, stderr, 0, filepath.Join(out, "host.mjs")+"  ", "")
	expect(t, code, stdout, stderr, 0, "Worker script: about 1.", "")
	expect(t, code, stdout, stderr, 0, "Worker assets: ", "")
	if strings.Contains(stderr, "warning") {
		t.Fatalf("the example catalog fits the free plan, yet:\n%s", stderr)
	}
	for _, name := range []string{"catalog.pack", "plugin.wasm"} {
		if fi, err := os.Stat(filepath.Join(out, name)); err != nil || fi.Size() == 0 {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "worker.mjs")); err != nil || !bytes.Equal(b, deploy.Worker) {
		t.Fatalf("worker.mjs is not build/worker.mjs: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "host.mjs")); err != nil || !bytes.Equal(b, deploy.Host) {
		t.Fatalf("host.mjs is not build/host.mjs: %v", err)
	}
	for _, m := range deploy.HostModules() {
		expect(t, code, stdout, stderr, 0, filepath.Join(out, filepath.FromSlash(m.Name))+"  ", "")
		if b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(m.Name))); err != nil || !bytes.Equal(b, m.Data) {
			t.Fatalf("%s is not build/%s: %v", m.Name, m.Name, err)
		}
	}
	objects := storeFiles(t, out)
	if len(objects) < 13 {
		t.Fatalf("the store has %d objects for 13 files", len(objects))
	}
	// Every object is named by the SHA-256 of its bytes.
	for name, data := range objects {
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != name {
			t.Fatalf("object %s holds bytes hashing to %x", name, sum)
		}
	}
	// A stale object of an earlier build goes; the same build gives the same bytes.
	writeFile(t, filepath.Join(out, "assets", "sha256", strings.Repeat("0", 64)), "stale")
	first, _ := os.ReadFile(filepath.Join(out, "catalog.pack"))
	code, stdout, stderr = call(t, "", "build", "../../../catalog/examples/skills", "-o", out)
	expect(t, code, stdout, stderr, 0, "catalog digest", "")
	second, _ := os.ReadFile(filepath.Join(out, "catalog.pack"))
	if !bytes.Equal(first, second) {
		t.Fatal("the embedded examples and the folder give different indexes")
	}
	if again := storeFiles(t, out); !maps.EqualFunc(again, objects, bytes.Equal) {
		t.Fatalf("the rebuilt store differs: %d objects, not %d", len(again), len(objects))
	}
	// A built catalog is not a skills folder.
	code, stdout, stderr = call(t, "", "build", out, "-o", t.TempDir())
	expect(t, code, stdout, stderr, 2, "", "is already a built catalog")
}

// storeFiles returns the content store of the build in out, by object name.
func storeFiles(t *testing.T, out string) map[string][]byte {
	t.Helper()
	dir := filepath.Join(out, "assets", "sha256")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = b
	}
	return m
}

// TestBuildRefusesLargeAsset: a content whose store object would be over 25 MiB (here a
// 13 MiB text file of newlines, which is 26 MiB as a JSON string) is refused, naming the
// file, before anything is written.
func TestBuildRefusesLargeAsset(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "big", "SKILL.md"), "---\nname: big\ndescription: Large data.\n---\nbody\n")
	writeFile(t, filepath.Join(dir, "big", "lines.txt"), strings.Repeat("\n", 13<<20))
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := call(t, "", "build", dir, "-o", out)
	expect(t, code, stdout, stderr, 1, "", "1 content of this catalog would be over 25 MiB, the most a Workers static asset may be:\n  big/lines.txt as a JSON string (resources/read): 26.00 MiB\n")
	expect(t, code, stdout, stderr, 1, "", "or serve the folder with skilledge serve")
	if _, err := os.Stat(out); err == nil {
		t.Fatal("build wrote output for a refused catalog")
	}
}

// TestBuildPack: --pack always puts the store's objects in packs in OUT/packs, prints an
// upload a pack, and keeps only the index's parts as assets; a catalog with an access policy
// is refused with what to do instead; a bad --pack is a usage error.
func TestBuildPack(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := call(t, "", "build", "-o", out, "--pack", "always")
	expect(t, code, stdout, stderr, 0, "packed: a Worker reads them from R2 by range", "")
	packs, err := os.ReadDir(filepath.Join(out, "packs", "sha256"))
	if err != nil || len(packs) != 1 || strings.Count(stdout, "wrangler r2 object put skilledge-packs/sha256/") != 1 {
		t.Fatalf("%d packs (%v), uploads printed:\n%s", len(packs), err, stdout)
	}
	assets, err := os.ReadDir(filepath.Join(out, "assets", "sha256"))
	if err != nil || len(assets) != 0 {
		t.Fatalf("%d assets beside the pack of a whole index, %v", len(assets), err)
	}
	// Built again without packs, the packs go.
	code, stdout, stderr = call(t, "", "build", "-o", out, "--pack", "never")
	expect(t, code, stdout, stderr, 0, "catalog digest", "")
	if _, err := os.Stat(filepath.Join(out, "packs")); err == nil {
		t.Fatal("the packs of the earlier build are still there")
	}

	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a", "SKILL.md"), "---\nname: a\ndescription: A skill.\n---\nbody\n")
	writeFile(t, filepath.Join(dir, "skilledge.yaml"), "access:\n  default: [skills:read]\n")
	code, stdout, stderr = call(t, "", "build", dir, "-o", filepath.Join(t.TempDir(), "out"), "--pack", "always")
	expect(t, code, stdout, stderr, 0, "wrangler r2 object put skilledge-packs/sha256/", "") // a private catalog is packed as any other
	code, stdout, stderr = call(t, "", "build", "-o", out, "--pack", "sometimes")
	expect(t, code, stdout, stderr, 2, "", `--pack "sometimes": say auto, always, never, or a size in bytes`)
}

// TestSkipInvalidEverything builds a folder whose every skill is invalid with
// --skip-invalid: the result is an empty catalog that the plugin can still load.
func TestSkipInvalidEverything(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "Bad"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Bad", "SKILL.md"), []byte("no frontmatter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := call(t, "", "build", dir, "--skip-invalid", "-o", out)
	expect(t, code, stdout, stderr, 0, "0 skills, 0 files", "skipped, not served")
}

// TestTrustRoot checks that --trust-root is validated and published in the pack: in both
// well-known indexes and the default server instructions.
func TestTrustRoot(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := call(t, "", "build", "-o", out, "--trust-root", "https://github.com/")
	expect(t, code, stdout, stderr, 1, "", "a trust root there must be scoped")
	code, stdout, stderr = call(t, "", "build", "-o", out, "--trust-root", "https://github.com/acme/skills/")
	expect(t, code, stdout, stderr, 0, "catalog digest", "")
	b, err := os.ReadFile(filepath.Join(out, "catalog.pack"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := catalog.Open(b)
	if err != nil {
		t.Fatal(err)
	}
	objects := storeFiles(t, out)
	for _, path := range []string{"/.well-known/agent-skills/index.json", "/.well-known/skills/index.json"} {
		ref, _ := p.HTTPDoc(path, catalog.HTTPObject)
		doc := objects[catalog.RefOf(ref).Name]
		if !bytes.Contains(doc, []byte(`"trustRoot":"https://github.com/acme/skills/"`)) {
			t.Errorf("%s does not publish the trust root: %.200s", path, doc)
		}
	}
	if p.TrustRoot() != "https://github.com/acme/skills/" {
		t.Errorf("TrustRoot() = %q", p.TrustRoot())
	}
	reply, _, _ := edge.New(p, wire.Options{}).HandleMessage("", []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`))
	if !bytes.Contains(reply, []byte("trust root https://github.com/acme/skills/")) {
		t.Errorf("instructions do not state the trust root: %s", reply)
	}
}

// TestWatchNeedsAFolder: --watch is refused without a skills folder to watch.
func TestWatchNeedsAFolder(t *testing.T) {
	code, stdout, stderr := call(t, "", "stdio", "--watch")
	expect(t, code, stdout, stderr, 2, "", "--watch watches a skills folder: give one")
	out := filepath.Join(t.TempDir(), "out")
	writeFile(t, filepath.Join(out, serving.IndexFile), "x")
	code, stdout, stderr = call(t, "", "serve", out, "--watch")
	expect(t, code, stdout, stderr, 2, "", "is a built catalog")
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestServeBuilt: stdio and serve take the output of build and serve it as it is, the
// contents spliced from its store; build flags make no sense there and are refused, and
// a damaged build is reported at start-up.
func TestServeBuilt(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := call(t, "", "build", "-o", out)
	expect(t, code, stdout, stderr, 0, "catalog digest", "")
	in := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://csv-insights/assets/chart-template.png"}}` + "\n"
	code, stdout, stderr = call(t, in, "stdio", out)
	expect(t, code, stdout, stderr, 0, `{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"skill://csv-insights/assets/chart-template.png","mimeType":"image/png","blob":"iVBORw0KGgo`, "serving 6 skills (13 files) on stdio")
	if strings.Contains(stderr, "build") {
		t.Fatalf("stdio OUT built something: %s", stderr)
	}
	code, stdout, stderr = call(t, "", "stdio", out, "--skip-invalid")
	expect(t, code, stdout, stderr, 1, "", "is a built catalog (it holds catalog.pack): --skip-invalid, --allow-oversize, --trust-root, --frozen and --source-token apply when building it")

	// A store missing an object is refused before serving, naming it.
	objects := storeFiles(t, out)
	for name, data := range objects {
		if bytes.HasPrefix(data, []byte("\x89PNG")) {
			os.Remove(filepath.Join(out, "assets", "sha256", name))
		}
	}
	code, stdout, stderr = call(t, in, "stdio", out)
	expect(t, code, stdout, stderr, 1, "", "1 of the ")
	expect(t, code, stdout, stderr, 1, "", "(skill://csv-insights/assets/chart-template.png): missing; build the catalog again")
	os.RemoveAll(filepath.Join(out, "assets"))
	code, stdout, stderr = call(t, in, "stdio", out)
	expect(t, code, stdout, stderr, 1, "", "has no content store")
}

// TestMemoryLimitFlag: --memory-limit takes a whole number of MiB from 16 to 4096 and says
// so otherwise (-1 was reported as an 18-quintillion-byte limit, 0 silently meant the
// default); a limit below what the catalog needs is refused with the figure it needs.
func TestMemoryLimitFlag(t *testing.T) {
	for _, v := range []string{"-1", "0", "15", "4097", "abc", "1.5", ""} {
		code, stdout, stderr := call(t, "", "serve", "--memory-limit", v)
		expect(t, code, stdout, stderr, 2, "", `invalid value "`+v+`" for flag -memory-limit: must be a whole number of MiB from 16 to 4096`)
	}
	code, stdout, stderr := call(t, "", "stdio", "--memory-limit", "16")
	expect(t, code, stdout, stderr, 1, "", "instances are limited to 16.0 MiB of memory")
	expect(t, code, stdout, stderr, 1, "", "; raise the memory limit")
	code, stdout, stderr = call(t, "", "stdio", "--memory-limit", "400")
	expect(t, code, stdout, stderr, 0, "", "serving 6 skills")
}

func TestValidateGitHub(t *testing.T) {
	dir := skillsDir(t)
	for _, tt := range []struct {
		args        []string
		code        int
		out, errOut string // stdout is out exactly, stderr starts with errOut
	}{
		{[]string{"validate", dir, "--format", "github"}, 1,
			"::error file=" + dir + "/nodesc/SKILL.md,line=1,title=skilledge::missing required field \"description\"\n" +
				"::error file=" + dir + "/wrong-name/SKILL.md,line=2,title=skilledge::name \"other\": must equal the skill's directory name \"wrong-name\"\n" +
				"3 skills checked: 2 errors, 0 warnings\n", ""},
		{[]string{"validate", "--format=github", "../../../catalog/examples/skills"}, 0, "6 skills checked: 0 errors, 0 warnings\n", ""},
		{[]string{"validate", "--format=text", dir}, 1, dir + "/nodesc/SKILL.md:1: missing required field \"description\"\n" +
			dir + "/wrong-name/SKILL.md:2: name \"other\": must equal the skill's directory name \"wrong-name\"\n" +
			"3 skills checked: 2 errors, 0 warnings\n", ""},
		{[]string{"validate", "--format=json", dir}, 2, "", "skilledge validate: --format \"json\": want text or github (see skilledge validate --help)\n"},
	} {
		code, stdout, stderr := call(t, "", tt.args...)
		if code != tt.code || stdout != tt.out || !strings.HasPrefix(stderr, tt.errOut) {
			t.Errorf("%v: exit %d (want %d)\nstdout: %s\nwant:   %s\nstderr: %s\nwant:   %s", tt.args, code, tt.code, stdout, tt.out, stderr, tt.errOut)
		}
	}
	// A relative DIR is how the workflow names the folder: the paths are the repository's.
	t.Chdir(filepath.Dir(dir))
	code, stdout, _ := call(t, "", "validate", "./"+filepath.Base(dir), "--format", "github")
	if want := "::error file=" + filepath.Base(dir) + "/nodesc/SKILL.md,line=1,"; code != 1 || !strings.HasPrefix(stdout, want) {
		t.Errorf("relative DIR: exit %d\n%s\nwant prefix %s", code, stdout, want)
	}
}

// TestServeBindsFirst: serve takes its address before it checks and builds the folder, so
// that a busy port is said at once, not after a build (which for a large folder takes
// long) and not behind the folder's problems.
func TestServeBindsFirst(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := skillsDir(t) // invalid skills: serve would refuse them, were it to check them
	code, stdout, stderr := call(t, "", "serve", dir, "--addr", busy.Addr().String())
	expect(t, code, stdout, stderr, 1, "", "skilledge serve: listen tcp "+busy.Addr().String()+": bind: address already in use\n")
	if strings.Contains(stderr, "checked") || strings.Contains(stderr, "SKILL.md") {
		t.Fatalf("serve checked the folder before it bound its address:\n%s", stderr)
	}
}

// postMCP posts the JSON-RPC message body to the MCP endpoint url, with the Authorization
// field Bearer credential unless it is "", and returns the answer's status and body.
func postMCP(t *testing.T, url, body, credential string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if credential != "" {
		req.Header.Set("Authorization", "Bearer "+credential)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestMisplacedPolicy: a skilledge.yaml beside the skills folder, in the git work tree
// that holds it, is not read, and would leave a private catalog public: validate, build
// and serve stop, naming the file and where it belongs. Inside the folder it is read; a
// file above the work tree's root, or outside any work tree, is none of the folder's.
func TestMisplacedPolicy(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	skills := filepath.Join(repo, "skills")
	for p, d := range map[string]string{
		filepath.Join(skills, "greet", "SKILL.md"):        "---\nname: greet\ndescription: Says hello.\n---\nHello!\n",
		filepath.Join(repo, "skilledge.yaml"):             "access:\n  default: [skills:read]\n",
		filepath.Join(repo, ".git", "HEAD"):               "ref: refs/heads/main\n",
		filepath.Join(root, "skilledge.yaml"):             "access:\n  default: [other]\n",
		filepath.Join(root, "loose", "greet", "SKILL.md"): "---\nname: greet\ndescription: Says hello.\n---\nHello!\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := filepath.Join(repo, "skilledge.yaml") + " is not read: skilledge reads skilledge.yaml only in the skills folder, so its access policy and versions would not apply; move it to " + filepath.Join(skills, "skilledge.yaml")
	for _, args := range [][]string{{"validate", skills}, {"build", skills, "-o", t.TempDir()}, {"serve", skills, "--addr", "127.0.0.1:0"}} {
		code, _, errOut := call(t, "", args...)
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("%s with the policy beside the folder: %d\n%s", args[0], code, errOut)
		}
	}
	// The skills folder is a work tree's root: nothing above it is its.
	if err := os.MkdirAll(filepath.Join(root, "loose", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := call(t, "", "validate", filepath.Join(root, "loose")); code != 0 {
		t.Errorf("validate of a work tree's root: %d\n%s%s", code, out, errOut)
	}
	os.RemoveAll(filepath.Join(root, "loose", ".git"))
	// In no work tree: the file above is not the folder's.
	if code, out, errOut := call(t, "", "validate", filepath.Join(root, "loose")); code != 0 {
		t.Errorf("validate outside a work tree: %d\n%s%s", code, out, errOut)
	}
	if err := os.Rename(filepath.Join(repo, "skilledge.yaml"), filepath.Join(skills, "skilledge.yaml")); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := call(t, "", "validate", skills); code != 0 {
		t.Errorf("validate with the policy in the folder: %d\n%s%s", code, out, errOut)
	}
}

// TestNewcomerDetails: `skilledge --version` is `skilledge version`; validate of a folder
// that holds no skill (empty, or not the skills folder) fails, saying so.
func TestNewcomerDetails(t *testing.T) {
	_, want, _ := call(t, "", "version")
	if code, out, _ := call(t, "", "--version"); code != 0 || out != want || !strings.HasPrefix(out, "skilledge ") {
		t.Errorf("--version: %d %q, want %q", code, out, want)
	}
	empty := t.TempDir()
	for _, args := range [][]string{{"validate", empty}, {"validate", "--strict", empty}} {
		if code, _, errOut := call(t, "", args...); code != 1 || !strings.Contains(errOut, "holds no skill (no folder in it has a SKILL.md): is it the skills folder?") {
			t.Errorf("%v: %d %s", args, code, errOut)
		}
	}
}
