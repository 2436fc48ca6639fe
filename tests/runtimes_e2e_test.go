//go:build e2e

package tests

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The JavaScript runtimes: `skilledge build`'s output served by its Deno, Bun and Node
// entries (build/deno.mjs, bun.mjs, node.mjs), each started with DEPLOY.md's own command
// for it, by the runtime build/package-lock.json pins.

// jsRuntime is one of them.
type jsRuntime struct {
	name  string
	entry string // the entry module, under dist/
	// resolvesDots: the runtime's Request URL has its dot segments resolved before the
	// entry sees it, as in workerd (Deno's and Bun's servers build a WHATWG URL; node:http
	// hands over the target as it came, as `skilledge serve` does).
	resolvesDots bool
}

var jsRuntimes = []jsRuntime{
	{"deno", "dist/deno.mjs", true},
	{"bun", "dist/bun.mjs", true},
	{"node", "dist/node.mjs", false},
}

// runtimeCommands returns DEPLOY.md's command for each runtime (the code block that runs
// its entry) and the block that builds dist/ and installs the SDK.
func runtimeCommands(t testing.TB) (build string, commands map[string]string) {
	readme, err := os.ReadFile(filepath.Join(repoRoot(t), "DEPLOY.md"))
	if err != nil {
		t.Fatal(err)
	}
	commands = map[string]string{}
	for _, b := range codeBlocks(string(readme)) {
		if strings.Contains(b, "npm ci --prefix dist") {
			build = b
		}
		for _, rt := range jsRuntimes {
			if strings.Contains(b, rt.entry) && !strings.Contains(b, "\n") {
				commands[rt.name] = b
			}
		}
	}
	if build == "" || len(commands) != len(jsRuntimes) {
		t.Fatalf("DEPLOY.md has no block with `npm ci --prefix dist`, or not one one-line block per runtime entry: %q", commands)
	}
	return build, commands
}

var listening = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)

// loopbackCommand is DEPLOY.md's command for rt, made to listen on a free loopback port,
// and the environment it needs for that: Deno listens where deno serve's flags say, Bun
// and Node where $PORT and $HOST do; the runtimes are found on a reader's PATH (userPath).
func loopbackCommand(t *testing.T, rt jsRuntime) (command string, env []string) {
	t.Helper()
	needCommand(t, rt.name)
	_, commands := runtimeCommands(t)
	command = commands[rt.name]
	if rt.name == "deno" {
		if !strings.Contains(command, "--port 8787") {
			t.Fatalf("DEPLOY.md's deno command has no --port 8787: %q", command)
		}
		command = strings.Replace(command, "--port 8787", "--host 127.0.0.1 --port 0", 1)
	}
	path, err := userPath()
	if err != nil {
		t.Fatal(err)
	}
	return command, []string{"PORT=0", "HOST=127.0.0.1", path}
}

// startRuntime runs DEPLOY.md's command for rt in dir (a checkout whose dist/ holds a
// build with the SDK installed) on a free loopback port, with options as
// SKILLEDGE_OPTIONS ("" for none), and returns its base URL. It stops when the test ends.
func startRuntime(t *testing.T, rt jsRuntime, dir, options string, env ...string) string {
	t.Helper()
	command, listen := loopbackCommand(t, rt)
	env = append(env, listen...)
	if options != "" {
		env = append(env, "SKILLEDGE_OPTIONS="+options)
	}
	logs := startCommand(t, dir, command, "http://127.0.0.1:", 2*time.Minute, env...)
	base := listening.FindString(logs.String())
	if base == "" {
		t.Fatalf("no address in the output of %s:\n%s", command, logs.String())
	}
	return base
}

// sdkLinks holds, by checkout, the result of giving its dist/ the SDK.
var sdkLinks sync.Map // dir -> func() error

// withSDK gives the dist/ of the deployment d the Extism JS SDK its entries import: a link
// to build/node_modules, which holds the version dist/package-lock.json pins (DEPLOY.md's
// `npm ci --prefix dist` is run by TestREADMERuntimes; the protocol cases' many
// deployments share the tooling's copy instead).
func withSDK(t *testing.T, d *deployment) string {
	f, _ := sdkLinks.LoadOrStore(d.dir, sync.OnceValue(func() error {
		link := filepath.Join(d.dir, "dist", "node_modules")
		if _, err := os.Lstat(link); err == nil {
			return nil
		}
		return os.Symlink(filepath.Join(repoRoot(nil), "build", "node_modules"), link)
	}))
	if err := f.(func() error)(); err != nil {
		t.Fatal(err)
	}
	return d.dir
}

// runtimeTarget is a runtime serving a case's catalog, spoken to over HTTP as the Worker is.
type runtimeTarget struct {
	workerTarget
	rt jsRuntime
}

// unsupported: no runtime has stdio; where the runtime resolves dot segments the plugin's
// own refusal of them is unreachable, as in workerd.
func (r runtimeTarget) unsupported(section string, data []byte) string {
	switch {
	case section == "stdio":
		return "the entries serve HTTP only; stdio is the runtime's transport"
	case r.rt.resolvesDots && dotSegment.Match(data):
		return r.rt.name + "'s server resolves dot segments in the URL before the entry sees it"
	}
	return ""
}

// TestCasesRuntimes runs the protocol cases against each runtime, each case file in a
// fresh process serving the case's deployment (the README's build) with the case's options.
func TestCasesRuntimes(t *testing.T) {
	for _, rt := range jsRuntimes {
		t.Run(rt.name, func(t *testing.T) {
			runCases(t, func(t *testing.T, options []byte, skills *caseSkills) target {
				d := deployed(t)
				if skills != nil {
					d = caseDeployment(t, skills)
				}
				o := strings.TrimSpace(string(options))
				if o == "" {
					o = "{}"
				}
				return runtimeTarget{workerTarget{startRuntime(t, rt, withSDK(t, d), o)}, rt}
			}, false)
		})
	}
}

// runtimeServers starts the example catalog on each runtime, once with the options
// wrangler.toml deploys (every Host and Origin) and once without any, for e2eServers.
func runtimeServers(t *testing.T) []e2eServer {
	dir := withSDK(t, deployed(t))
	var out []e2eServer
	for _, rt := range jsRuntimes {
		out = append(out, e2eServer{rt.name, startRuntime(t, rt, dir, deployedOptions(t)) + "/mcp", startRuntime(t, rt, dir, "") + "/mcp"})
	}
	return out
}

// TestREADMERuntimes runs DEPLOY.md's commands for Deno, Bun and Node as written, in a
// scratch checkout, on two catalogs: one shaped like a popular public skills repository
// (about 11 MB) and one of awkward names (nested skills, spaces, a percent sign, non-ASCII
// letters, a binary file). The build block (skilledge build, then npm ci --prefix dist
// from the lockfile build wrote) must succeed; then each runtime must serve the catalog so
// that the Inspector verifies every file of every skill against its digest in both eras,
// and every well-known artifact matches its digest.
func TestREADMERuntimes(t *testing.T) {
	build, _ := runtimeCommands(t)
	odd, _ := oddCatalog(t)
	real := t.TempDir()
	if _, err := writeRealisticCatalog(real); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, skills string
		n            int // skills
		wellKnown    int // artifacts of the well-known indexes, which list only skills whose names are unique
	}{{"realistic", real, 16, 2 * 16}, {"odd", odd, 4, 6}} {
		t.Run(c.name, func(t *testing.T) {
			dir, out, err := runBlock(build, c.skills)
			if err != nil {
				failOrSkip(t, err)
			}
			if !strings.Contains(out, "added 1 package") {
				t.Fatalf("npm ci --prefix dist did not install the SDK:\n%s", out)
			}
			for _, rt := range jsRuntimes {
				t.Run(rt.name, func(t *testing.T) {
					base := startRuntime(t, rt, dir, `{"allowOrigins":["*"],"allowHosts":["*"]}`)
					for _, era := range []string{"legacy", "modern"} {
						inspectList(t, base+"/mcp", era, c.n)
					}
					if n := checkWellKnown(t, base); n < c.wellKnown {
						t.Fatalf("checked %d well-known artifacts", n)
					}
				})
			}
		})
	}
}

// TestRuntimesBadOptions: an entry given options it cannot serve with stops at once,
// saying what is wrong (and nothing of a secret's content), rather than serving errors.
func TestRuntimesBadOptions(t *testing.T) {
	dir := withSDK(t, deployed(t))
	for _, rt := range jsRuntimes {
		for _, tc := range []struct {
			name string
			env  []string
			want string
		}{
			{"options not JSON", []string{"SKILLEDGE_OPTIONS=[1]"}, "skilledge: the SKILLEDGE_OPTIONS is not a JSON object (the plugin's options)"},
			{"an unknown option", []string{`SKILLEDGE_OPTIONS={"pageSise":5}`}, "pageSise"},
			{"auth not JSON", []string{"SKILLEDGE_AUTH=HIDDEN-SECRET"}, "skilledge: the SKILLEDGE_AUTH is not a JSON object (the auth option)"},
		} {
			t.Run(rt.name+"/"+tc.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				command, listen := loopbackCommand(t, rt)
				cmd := exec.CommandContext(ctx, "sh", "-c", "exec "+command)
				cmd.Dir = dir
				cmd.Env = append(append(append(os.Environ(), toolEnv...), listen...), tc.env...)
				out, err := cmd.CombinedOutput()
				if ctx.Err() != nil || err == nil {
					t.Fatalf("the entry did not stop (%v):\n%s", err, out)
				}
				if !strings.Contains(string(out), tc.want) || strings.Contains(string(out), "HIDDEN") {
					t.Fatalf("it said\n%s\nwant it to say %q, and nothing of the secret", out, tc.want)
				}
			})
		}
	}
}

// TestRuntimesPrivateWithoutAuth: an entry serving a private catalog (one with an access
// policy) without SKILLEDGE_AUTH stops at once, saying so as `skilledge serve` does without
// --auth, rather than start, say it is serving, and answer every request 503.
func TestRuntimesPrivateWithoutAuth(t *testing.T) {
	dir := withSDK(t, privateDeployment(t))
	for _, rt := range jsRuntimes {
		t.Run(rt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			command, listen := loopbackCommand(t, rt)
			cmd := exec.CommandContext(ctx, "sh", "-c", "exec "+command)
			cmd.Dir = dir
			cmd.Env = append(append(os.Environ(), toolEnv...), listen...)
			// An entry that serves does not stop: at the deadline its whole process group
			// goes (npx runs the runtime as a child, which holds the output open).
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
			cmd.WaitDelay = 5 * time.Second
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil || err == nil {
				t.Fatalf("the entry did not stop (%v):\n%s", err, out)
			}
			const want = `has an access policy (skilledge.yaml): serve it with SKILLEDGE_AUTH, which says who is asking (README, "Private catalogs");` + "\n" +
				"  without it nobody could be told apart over HTTP. skilledge stdio serves it to a local process without one.\n"
			if !strings.Contains(string(out), "skilledge: ") || !strings.Contains(string(out), want) || strings.Contains(string(out), "serving") {
				t.Fatalf("it said\n%s\nwant it to say %q, and not that it is serving", out, want)
			}
		})
	}
}

// TestQuietStart: the JavaScript entries and the Worker print, at start and on a first
// request, only what they mean to (the address they serve): no debug line of the Extism
// SDK's WASI shim ("wasi: 0 0"), which it prints when made without its debug option.
func TestQuietStart(t *testing.T) {
	dir := withSDK(t, deployed(t))
	ping := func(t *testing.T, base string) {
		req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("ping: %d", resp.StatusCode)
		}
	}
	for _, rt := range jsRuntimes {
		t.Run(rt.name, func(t *testing.T) {
			command, listen := loopbackCommand(t, rt)
			logs := startCommand(t, dir, command, "http://127.0.0.1:", 2*time.Minute, listen...)
			ping(t, listening.FindString(logs.String()))
			if strings.Contains(logs.String(), "wasi:") {
				t.Fatalf("the entry printed the WASI shim's debug lines:\n%s", logs.String())
			}
		})
	}
	t.Run("workerd", func(t *testing.T) {
		p := workerdProcessWith(t, deployed(t), nil, "{}")
		ping(t, p.urls[0])
		if strings.Contains(p.logs.String(), "wasi:") {
			t.Fatalf("the Worker printed the WASI shim's debug lines:\n%s", p.logs.String())
		}
	})
}
