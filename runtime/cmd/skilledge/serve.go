package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/edge/auth"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/front"
	"github.com/skilledge/skilledge/runtime/serving"
	"github.com/skilledge/skilledge/runtime/telemetry"
	"github.com/skilledge/skilledge/runtime/wasm"
)

const serveAbout = `Serves the skills in DIR (default: the built-in examples) over MCP Streamable HTTP at
/mcp until interrupted. The folder is refused if it has invalid skills, unless
--skip-invalid. DIR is built into the user cache on first use and that build is reused
until a file changes; OUT, the output of skilledge build, is served as it is.

By default the server listens on loopback only and accepts browser requests only from
loopback origins. With --watch, DIR is rebuilt whenever its files change and the new
catalog replaces the served one atomically; HTTP clients see it on their next request.

With --auth FILE, every request but the OAuth protected resource metadata must carry a
credential the file accepts (a private catalog, one with an access policy, is served
only so): an OAuth access token, a Cloudflare Access assertion, or a static key from
"skilledge key". Signing key sets the file names by URL are fetched when the server
starts, kept as long as their Cache-Control says (1 minute to 1 day, 10 minutes by
default), and fetched again, at most every 30 seconds, when a token names a key they
lack; failures go to stderr, and the tokens they would verify are refused meanwhile.

What it answers is told to an operator (README, "Observe a deployment"): with --log json,
a JSON line per request on stderr; with --metrics ADDR, Prometheus metrics on a listener
of their own; and, when OTEL_EXPORTER_OTLP_ENDPOINT (or its _TRACES_ or _METRICS_ form)
is set, a span per request and the same metrics over OTLP/HTTP, as the standard OTEL_*
variables say (OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER, OTEL_EXPORTER_OTLP_HEADERS, …).
No token, body or file content is ever among them.`

// serverFlags are the flags shared by serve and stdio.
type serverFlags struct {
	build          buildFlags
	plugin         string
	memory         memoryFlag
	watch          bool
	tools, prompts bool
	pageSize       int
	auth           string // --auth FILE
}

func (f *serverFlags) register(fs *flag.FlagSet, stdio bool) {
	f.build.register(fs)
	pluginFlag(fs, &f.plugin)
	fs.Var(&f.memory, "memory-limit", fmt.Sprintf(
		"memory cap of each plugin instance, in `MiB`, %d to %d (default %d, or what the catalog needs if more); each holds its own copy of the catalog index (file contents are held once, outside)",
		serving.MinMemoryMiB, serving.MaxMemoryMiB, wasm.DefaultMemoryLimit>>20))
	fs.BoolVar(&f.tools, "tools", false,
		"also offer the skills as three MCP tools (list_skills, load_skill, read_skill_file), for hosts that speak tools but not the skills extension")
	fs.BoolVar(&f.prompts, "prompts", false,
		"also offer each skill as an MCP prompt (its SKILL.md), for hosts that speak prompts but not the skills extension")
	fs.IntVar(&f.pageSize, "page-size", wire.DefaultPageSize,
		"most `ITEMS` per page of skills/list, resources/list, prompts/list and directory listings")
	fs.BoolVar(&f.watch, "watch", false, "rebuild DIR when its files change and serve the new catalog (an invalid edit keeps the previous one);\nthe server declares listChanged and, on stdio, sends notifications/skills/list_changed and\nnotifications/resources/list_changed after each change")
	registerAuth(fs, &f.auth, stdio)
}

// memoryFlag is --memory-limit: a whole number of MiB in range, or 0 when not given.
type memoryFlag struct{ mib int }

func (m *memoryFlag) String() string {
	if m == nil || m.mib == 0 {
		return ""
	}
	return strconv.Itoa(m.mib)
}

func (m *memoryFlag) Set(v string) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < serving.MinMemoryMiB || n > serving.MaxMemoryMiB {
		return fmt.Errorf("must be a whole number of MiB from %d to %d", serving.MinMemoryMiB, serving.MaxMemoryMiB)
	}
	m.mib = n
	return nil
}

// server returns the plugin options the flags ask for, or an error naming a bad value.
func (f *serverFlags) server() (wire.Options, error) {
	if f.pageSize < 1 || f.pageSize > maxPageSize {
		return wire.Options{}, fmt.Errorf("--page-size %d: give a number of items from 1 to %d", f.pageSize, maxPageSize)
	}
	return wire.Options{Tools: f.tools, Prompts: f.prompts, PageSize: f.pageSize, ListChanged: f.watch}, nil
}

// maxPageSize bounds --page-size: pages stay bounded in bytes anyway (edge's page budget),
// but a count beyond the largest catalog a Worker can hold means nothing.
const maxPageSize = 100000

// check reads the auth option of --auth into server, and refuses --watch without a skills
// folder to watch; ok is false after saying why.
func (f *serverFlags) check(name, dir string, server *wire.Options, stderr io.Writer) (cfg *auth.Config, ok bool) {
	if f.auth != "" {
		if server.Auth, cfg, ok = readAuth(name, f.auth, stderr); !ok {
			return nil, false
		}
	}
	switch {
	case !f.watch:
	case dir == "":
		fmt.Fprintf(stderr, "skilledge %s: --watch watches a skills folder: give one (the built-in examples never change)\n", name)
		return nil, false
	case serving.IsBuilt(dir):
		fmt.Fprintf(stderr, "skilledge %s: --watch watches a skills folder, and %s is a built catalog (it holds %s)\n", name, dir, serving.IndexFile)
		return nil, false
	}
	return cfg, true
}

// open opens the catalog of dir as the flags say, with the pools' options pool, logging
// on log; ok is false after saying why not.
func (f *serverFlags) open(ctx context.Context, name, dir string, pool wasm.Options, log io.Writer) (*serving.Server, bool) {
	return f.build.open(ctx, name, dir, serving.Options{Plugin: f.plugin, MemoryMiB: f.memory.mib, Pool: pool, Watch: f.watch, Log: log})
}

func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("serve", "skilledge serve [DIR|OUT] [flags]", serveAbout)
	var f serverFlags
	f.register(c.fs, false)
	var h httpFlags
	h.register(c.fs)
	pos, code, ok := c.parse(args, 0, 1, stdout, stderr)
	if !ok {
		return code
	}
	server, err := f.server()
	if err == nil {
		err = h.check(&server)
	}
	if err != nil {
		fmt.Fprintf(stderr, "skilledge serve: %v\n", err)
		return 2
	}
	authCfg, ok := f.check("serve", dirArg(pos), &server, stderr)
	if !ok {
		return 2
	}
	// The address first: a busy port is said at once, not after the build. Connections
	// wait in the listen queue until the server is ready.
	ln, metricsLn, err := h.listen()
	if err != nil {
		fmt.Fprintf(stderr, "skilledge serve: %v\n", err)
		return 1
	}
	defer ln.Close() // closed by Serve when served; here for the returns before that
	stderr = &lockedWriter{w: stderr}
	logs := stderr // the requests' lines
	if h.observe.log == "json" {
		stderr = telemetry.NewLines(logs) // every other line, as a JSON line
	}
	keys := front.NewKeySets(stderr, nil) // fetches the key sets the auth option names
	s, ok := f.open(ctx, "serve", dirArg(pos), wasm.Options{Server: server, Keys: keys}, stderr)
	if !ok {
		return 1
	}
	defer s.Close()
	if s.Pack().Private() && f.auth == "" {
		fmt.Fprintf(stderr, "skilledge serve: %s has an access policy (%s): serve it with --auth FILE, which says who is asking (README, \"Private catalogs\");\n"+
			"  without it nobody could be told apart over HTTP. skilledge stdio serves it to a local process without one.\n", dirArg(pos), compile.PolicyFile)
		return 2
	}
	tel, err := telemetry.Start(ctx, h.observe.options(logs, telemetry.Sources{Instances: s.Instances, KeyFetches: keys.Fetches}))
	if err != nil {
		fmt.Fprintf(stderr, "skilledge serve: %v\n", err)
		return 1
	}
	defer tel.Shutdown()
	if err := s.Start(ctx, front.Options{Replays: h.replays, Observer: tel.Observer}); err != nil {
		fmt.Fprintf(stderr, "skilledge serve: %s\n", advised(err))
		return 1
	}
	s.Watch(ctx) // stopped by s.Close, before the front closes
	h.banner(stdout, ln, s.Pack(), server)
	if authCfg != nil {
		fmt.Fprintf(stdout, "skilledge: every request needs a credential (%s): %s\n", f.auth, authSummary(authCfg))
	}
	h.observed(stdout, metricsLn, tel)
	if err := s.ServeHTTP(ctx, ln); err != nil {
		fmt.Fprintf(stderr, "skilledge serve: %v\n", err)
		return 1
	}
	return 0
}

func cmdStdio(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("stdio", "skilledge stdio [DIR|OUT] [flags]", stdioAbout)
	var f serverFlags
	f.register(c.fs, true)
	pos, code, ok := c.parse(args, 0, 1, stdout, stderr)
	if !ok {
		return code
	}
	server, err := f.server()
	if err != nil {
		fmt.Fprintf(stderr, "skilledge stdio: %v\n", err)
		return 2
	}
	// No key set is fetched: over stdio no credential is asked.
	if _, ok := f.check("stdio", dirArg(pos), &server, stderr); !ok {
		return 2
	}
	stderr = &lockedWriter{w: stderr}
	// A stdio message may be a whole line: budget instance memory for the longest.
	s, ok := f.open(ctx, "stdio", dirArg(pos), wasm.Options{Size: 1, MaxBody: front.MaxLine, Server: server}, stderr)
	if !ok {
		return 1
	}
	defer s.Close()
	if err := s.Start(ctx, front.Options{}); err != nil {
		fmt.Fprintf(stderr, "skilledge stdio: %s\n", advised(err))
		return 1
	}
	fmt.Fprintf(stderr, "skilledge: serving %s (%s) on stdio\n", plural(s.Pack().NumSkills(), "skill"), plural(s.Pack().NumFiles(), "file"))
	s.Watch(ctx) // stopped by s.Close, before the front closes
	if err := s.ServeStdio(ctx, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "skilledge stdio: %v\n", err)
		return 1
	}
	return 0
}

const stdioAbout = `Serves the skills in DIR (default: the built-in examples) over the MCP stdio transport:
newline-delimited JSON-RPC on stdin and stdout, logs on stderr. It ends at the end of
stdin. The folder is refused if it has invalid skills, unless --skip-invalid. DIR is
built into the user cache on first use and that build is reused until a file changes;
OUT, the output of skilledge build, is served as it is. With --watch, DIR is rebuilt
whenever its files change, the new catalog replaces the served one atomically, and the
client is sent notifications/skills/list_changed and notifications/resources/list_changed.`
