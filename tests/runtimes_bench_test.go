//go:build e2e && benchreport

package tests

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The runtimes benchmark: skilledge's Deno, Bun and Node entries, each beside the floor of
// its runtime (tests/loadbench/plain-runtime.mjs: that runtime's plain server answering
// with skilledge's bytes, the request's id in place) and the TS SDK v2 server on the same
// runtime, in one run, the servers taken in turn.
//
//	go test -tags 'e2e benchreport' -run RuntimesReport -count=1 -timeout 60m ./tests/
//
// writes the runtimes section of BENCHMARKS.md. Nothing here fails on a timing.

const runtimeStarts = 5 // process starts per server, for the time to the first answer

// runtimeBin is the pinned binary of rt (build/package-lock.json).
func runtimeBin(t *testing.T, rt jsRuntime) string {
	if rt.name == "node" {
		return nodeBin(t)
	}
	p := filepath.Join(repoRoot(t), "build", "node_modules", ".bin", rt.name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s missing (%v): run `npm ci --prefix build`", rt.name, err)
	}
	return p
}

// runtimeVersion is what rt's binary says its version is.
func runtimeVersion(t *testing.T, rt jsRuntime) string {
	out, err := exec.Command(runtimeBin(t, rt), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	v := strings.Fields(string(out))
	if rt.name == "deno" && len(v) > 1 {
		return v[1]
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
}

// runtimeServer is how to start one server of the benchmark on a given port: the
// runtime's binary run directly (no npx between), so that its process is the server's.
type runtimeServer struct {
	name string
	cmd  func(port int) *exec.Cmd
}

// runtimeServers are the three servers measured on rt: its floor, skilledge's entry
// serving out (a build whose node_modules holds the SDK), and the TS SDK v2 server on
// skills.
func benchRuntimeServers(t *testing.T, rt jsRuntime, out, skills, answers string) []runtimeServer {
	bin, root := runtimeBin(t, rt), repoRoot(t)
	plain := filepath.Join(root, "tests", "loadbench", "plain-runtime.mjs")
	ts := filepath.Join(root, "tests", "loadbench", "ts-server.mjs")
	env := func(cmd *exec.Cmd, port int) *exec.Cmd {
		cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port), "HOST=127.0.0.1", "SKILLEDGE_OPTIONS="+deployedOptions(t))
		return cmd
	}
	var entry, floor, tsCmd func(port int) *exec.Cmd
	switch rt.name {
	case "deno":
		entry = func(port int) *exec.Cmd {
			return env(exec.Command(bin, "serve", "-A", "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--config", filepath.Join(out, "deno.json"), filepath.Join(out, "deno.mjs")), port)
		}
		floor = func(port int) *exec.Cmd {
			return exec.Command(bin, "run", "-A", "--no-config", plain, answers, strconv.Itoa(port))
		}
		// The TS SDK's packages resolve through build/package.json, which Deno reads from
		// the working directory.
		tsCmd = func(port int) *exec.Cmd {
			cmd := exec.Command(bin, "run", "-A", "--node-modules-dir=manual", ts, skills, strconv.Itoa(port))
			cmd.Dir = filepath.Join(root, "build")
			return cmd
		}
	default:
		entry = func(port int) *exec.Cmd {
			var flags []string
			if rt.name == "bun" { // as the README runs it
				flags = []string{"--max-http-header-size=65536"}
			}
			return env(exec.Command(bin, append(flags, filepath.Join(out, rt.name+".mjs"))...), port)
		}
		floor = func(port int) *exec.Cmd { return exec.Command(bin, plain, answers, strconv.Itoa(port)) }
		tsCmd = func(port int) *exec.Cmd { return exec.Command(bin, ts, skills, strconv.Itoa(port)) }
	}
	return []runtimeServer{{rt.name + " floor", floor}, {"skilledge " + rt.name + ".mjs", entry}, {"TS SDK v2 server", tsCmd}}
}

// freePort is a loopback port nothing listens on (just now).
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startTimed starts srv on a free port and returns the time from the process's start to
// the first 200 answer to c, and the running process with its MCP URL; stop is the
// caller's.
func startTimed(t *testing.T, srv runtimeServer, c loadCase) (time.Duration, *exec.Cmd, string) {
	port := freePort(t)
	cmd := srv.cmd(port)
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	client := &http.Client{Timeout: time.Minute}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for {
		status, _, err := c.post(client, url, firstID)
		if err == nil && status == 200 {
			return time.Since(start), cmd, url
		}
		if time.Since(start) > time.Minute {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%s: no 200 within a minute: %d %v\n%s", srv.name, status, err, logs.String())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestRuntimesReport measures each runtime's servers and writes the runtimes section of
// BENCHMARKS.md.
func TestRuntimesReport(t *testing.T) {
	root := repoRoot(t)
	skills := loadCatalog(t)
	cli, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	run(t, root, nil, cli, "build", skills, "-o", out)
	if err := os.Symlink(filepath.Join(root, "build", "node_modules"), filepath.Join(out, "node_modules")); err != nil {
		t.Fatal(err)
	}
	// skilledge serve's answers are the ones every server must give, and the floors'.
	addr, _ := startProcess(t, "skilledge serve", exec.Command(cli, "serve", out, "--addr", "127.0.0.1:0"), servingLine)
	want := map[string][]byte{}
	type floorAnswer struct {
		Headers [][2]string `json:"headers"` // the header fields skilledge answers with
		Body    string      `json:"body"`
	}
	byKey := map[string]floorAnswer{}
	for _, c := range loadCases() {
		req, err := c.request(addr, firstID)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v %s", c.name, resp.StatusCode, err, body)
		}
		want[c.name] = body
		a := floorAnswer{Body: string(body)}
		for name, values := range resp.Header {
			switch name {
			case "Content-Length", "Date", "Connection", "Keep-Alive":
				continue // the HTTP layer's own
			}
			for _, v := range values {
				a.Headers = append(a.Headers, [2]string{name, v})
			}
		}
		byKey[c.method+" "+c.uri] = a
	}
	answers := filepath.Join(t.TempDir(), "answers.json")
	if b, err := json.Marshal(byKey); err != nil || os.WriteFile(answers, b, 0o644) != nil {
		t.Fatal(err)
	}
	cases := loadCases()[:2] // the small read and skills/list
	list := cases[1]

	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (%d CPUs), %s; Deno %s, Bun %s, Node %s (build/package-lock.json). Each runtime\n",
		time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), runtime.Version(),
		runtimeVersion(t, jsRuntimes[0]), runtimeVersion(t, jsRuntimes[1]), runtimeVersion(t, jsRuntimes[2]))
	b.WriteString("serves the load benchmark's catalog three ways, each process the runtime's own binary: the floor (its plain\n")
	b.WriteString("server, `Deno.serve`, `Bun.serve` or `node:http`, answering with skilledge's bytes, its header fields and its\n")
	b.WriteString("body with the request's id in place:\n")
	b.WriteString("`tests/loadbench/plain-runtime.mjs`), skilledge's entry for it (`skilledge build`'s `deno.mjs`, `bun.mjs`,\n")
	b.WriteString("`node.mjs`, options as wrangler.toml deploys them), and the TS SDK v2 server (`tests/loadbench/ts-server.mjs`)\n")
	b.WriteString("run by the same runtime.\n\n")
	fmt.Fprintf(&b, "Time from process start to the first 200 answer to `skills/list` (the process polled every millisecond;\n")
	fmt.Fprintf(&b, "skilledge's compiles plugin.wasm, instantiates it and loads the index first), median (min–max) of %d starts:\n\n", runtimeStarts)
	b.WriteString("| runtime | floor | skilledge | TS SDK v2 server |\n|---|---|---|---|\n")
	for _, rt := range jsRuntimes {
		fmt.Fprintf(&b, "| %s |", rt.name)
		for _, srv := range benchRuntimeServers(t, rt, out, skills, answers) {
			var times []time.Duration
			for range runtimeStarts {
				d, cmd, _ := startTimed(t, srv, list)
				cmd.Process.Kill()
				cmd.Wait()
				times = append(times, d)
			}
			slices.Sort(times)
			fmt.Fprintf(&b, " %s (%s–%s) |", ms(quantile(times, 0.5)), ms(times[0]), ms(times[len(times)-1]))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nLoad: %d clients, each on a keep-alive connection, in a Go net/http client in the benchmark's process on the\n", manyClients)
	fmt.Fprintf(&b, "same cores; %d rounds of %v per server, the servers in turn, after %v of warm-up each; 2026-07-28 requests,\n", loadRounds, loadRound, loadWarm)
	b.WriteString("each with an id of its own, every answer checked. Each cell: requests per second (× the runtime's floor), p50 and\n")
	b.WriteString("p99 latency, and the server process's own CPU time per request.\n")
	for _, rt := range jsRuntimes {
		var servers []loadServer
		for _, srv := range benchRuntimeServers(t, rt, out, skills, answers) {
			_, cmd, url := startTimed(t, srv, list)
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			ls := loadServer{name: srv.name, url: url, pid: cmd.Process.Pid}
			ls.expect(t, want)
			servers = append(servers, ls)
		}
		fmt.Fprintf(&b, "\n%s:\n\n", rt.name)
		loadTable(t, &b, servers, cases, manyClients)
	}
	writeReport(t, "runtimes", b.String())
}
