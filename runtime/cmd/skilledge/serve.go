package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/edge/auth"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/front"
	"github.com/skilledge/skilledge/runtime/telemetry"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// serverFlags are the flags shared by serve and stdio.
type serverFlags struct {
	catalogFlags
	plugin         string
	memory         memoryFlag
	watch          bool
	tools, prompts bool
	pageSize       int
	auth           string // --auth FILE
	// watchFirst is the snapshot of the folder taken before it was built (checkWatch):
	// the watcher compares with it first, so an edit during start-up is not missed.
	watchFirst [32]byte
}

func (f *serverFlags) register(fs *flag.FlagSet) {
	f.catalogFlags.register(fs)
	pluginFlag(fs, &f.plugin)
	fs.Var(&f.memory, "memory-limit", fmt.Sprintf(
		"memory cap of each plugin instance, in `MiB`, %d to %d (default %d, or what the catalog needs if more); each holds its own copy of the catalog index (file contents are held once, outside)",
		minMemoryMiB, maxMemoryMiB, wasm.DefaultMemoryLimit>>20))
	fs.BoolVar(&f.tools, "tools", false,
		"also offer the skills as three MCP tools (list_skills, load_skill, read_skill_file), for hosts that speak tools but not the skills extension")
	fs.BoolVar(&f.prompts, "prompts", false,
		"also offer each skill as an MCP prompt (its SKILL.md), for hosts that speak prompts but not the skills extension")
	fs.IntVar(&f.pageSize, "page-size", wire.DefaultPageSize,
		"most `ITEMS` per page of skills/list, resources/list, prompts/list and directory listings")
	fs.BoolVar(&f.watch, "watch", false, "rebuild DIR when its files change and serve the new catalog (an invalid edit keeps the previous one);\nthe server declares listChanged and, on stdio, sends notifications/skills/list_changed and\nnotifications/resources/list_changed after each change")
}

// The range of --memory-limit, as wasm.Compile accepts it.
const (
	minMemoryMiB = 16
	maxMemoryMiB = 4096
)

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
	if err != nil || n < minMemoryMiB || n > maxMemoryMiB {
		return fmt.Errorf("must be a whole number of MiB from %d to %d", minMemoryMiB, maxMemoryMiB)
	}
	m.mib = n
	return nil
}

// limit returns the memory cap in bytes: the one given, or the default raised to what
// serving an index of indexSize bytes with request bodies up to maxBody needs
// (wasm.MinMemoryLimit).
func (m *memoryFlag) limit(indexSize int, maxBody int) uint64 {
	if m.mib != 0 {
		return uint64(m.mib) << 20
	}
	if maxBody <= 0 {
		maxBody = wasm.DefaultMaxBody
	}
	return min(max(wasm.DefaultMemoryLimit, wasm.MinMemoryLimitOf(indexSize, maxBody)), maxMemoryMiB<<20)
}

// checkWatch refuses --watch without a skills folder to watch, and takes the folder's
// first snapshot, before anything reads it. ok is false after saying why.
func (f *serverFlags) checkWatch(name, dir string, stderr io.Writer) bool {
	switch {
	case !f.watch:
	case dir == "":
		fmt.Fprintf(stderr, "skilledge %s: --watch watches a skills folder: give one (the built-in examples never change)\n", name)
		return false
	case isBuilt(dir):
		fmt.Fprintf(stderr, "skilledge %s: --watch watches a skills folder, and %s is a built catalog (it holds %s)\n", name, dir, indexFile)
		return false
	}
	if f.watch {
		f.watchFirst = snapshot(dir)
	}
	return true
}

// beforeWatch runs when the catalog is built and the watcher not yet started: where an
// edit used to go unseen. Tests edit the folder there.
var beforeWatch = func() {}

// startWatching runs a watcher of dir for srv in the background when --watch was given,
// until ctx ends or stop is called; stop returns once the watcher has (so that no catalog
// is swapped in after it).
func (f *serverFlags) startWatching(ctx context.Context, name, dir string, src *source, plugin *wasm.Plugin, opt wasm.Options, srv *front.Server, stderr io.Writer) (stop func()) {
	if !f.watch {
		return func() {}
	}
	beforeWatch()
	w := &watcher{name: name, dir: dir, flags: f.catalogFlags, plugin: plugin, opt: opt, srv: srv, stderr: stderr, served: src.pack.Digest(), store: src.store, first: f.watchFirst}
	fmt.Fprintf(stderr, "skilledge: watching %s for changes\n", dir)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); w.run(ctx) }()
	return func() { cancel(); <-done }
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

func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("serve", "skilledge serve [DIR|OUT] [flags]",
		`Serves the skills in DIR (default: the built-in examples) over MCP Streamable HTTP at
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
No token, body or file content is ever among them.`)
	var f serverFlags
	f.register(c.fs)
	registerAuth(c.fs, &f.auth, false)
	addr := c.fs.String("addr", "127.0.0.1:8787", "listen on `HOST:PORT`")
	public := c.fs.Bool("public", false, "allow listening on a non-loopback address")
	replays := c.fs.Int("replays", front.DefaultReplays,
		"keep up to `N` answers to give again, without running the plugin, to requests that repeat one but for their JSON-RPC id; 0 runs the plugin for every request")
	var observe observeFlags
	observe.register(c.fs)
	var origins, hosts stringList
	c.fs.Var(&origins, "allow-origin", "also accept browser requests from `ORIGIN` (repeatable; \"*\" for any; loopback origins are always accepted)")
	c.fs.Var(&hosts, "allow-host", "also accept requests whose Host header is `HOST` (repeatable; \"*\" for any; loopback names are always accepted, and any with --public)")
	pos, code, ok := c.parse(args, 0, 1, stdout, stderr)
	if !ok {
		return code
	}
	server, err := f.server()
	if err != nil {
		fmt.Fprintf(stderr, "skilledge serve: %v\n", err)
		return 2
	}
	if *replays < 0 {
		fmt.Fprintf(stderr, "skilledge serve: --replays %d: give a number of answers, or 0 for none\n", *replays)
		return 2
	}
	if observe.metrics != "" && !*public && !loopbackAddr(observe.metrics) {
		fmt.Fprintf(stderr, "skilledge serve: refusing to serve metrics on %s without --public: they name the skills, and under --auth the callers, of this catalog. Pass --public if that is what you want.\n", observe.metrics)
		return 2
	}
	if !*public && !loopbackAddr(*addr) {
		fmt.Fprintf(stderr, "skilledge serve: refusing to listen on %s without --public: the catalog would be reachable from other machines, not only this one. Pass --public if that is what you want.\n", *addr)
		return 2
	}
	if *public && len(hosts) == 0 {
		hosts = stringList{"*"}
	}
	// The flags add to the loopback defaults: the URL this command prints keeps working.
	if len(origins) > 0 {
		origins = append(stringList{wire.Loopback}, origins...)
	}
	if len(hosts) > 0 {
		hosts = append(stringList{wire.Loopback}, hosts...)
	}
	var authCfg *auth.Config
	if f.auth != "" {
		if server.Auth, authCfg, ok = readAuth("serve", f.auth, stderr); !ok {
			return 2
		}
	}
	if !f.checkWatch("serve", dirArg(pos), stderr) {
		return 2
	}
	// The address first: a busy port is said at once, not after the build. Connections
	// wait in the listen queue until the server is ready.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge serve: %v\n", err)
		return 1
	}
	defer ln.Close() // closed by Serve when served; here for the returns before that
	var metricsLn net.Listener
	if observe.metrics != "" {
		if metricsLn, err = net.Listen("tcp", observe.metrics); err != nil {
			fmt.Fprintf(stderr, "skilledge serve: --metrics: %v\n", err)
			return 1
		}
		defer metricsLn.Close()
	}
	// The plugin is found and compiled while the catalog is opened (pluginStart).
	stderr = &lockedWriter{w: stderr}
	logs := stderr // the requests' lines
	if observe.log == "json" {
		stderr = telemetry.NewLines(logs) // every other line, as a JSON line
	}
	early := startPlugin(ctx, f.plugin, variantFor(f.auth), f.memory.limit(guessIndexSize(dirArg(pos), f.catalogFlags), 0), stderr)
	defer early.abandon()
	src, ok := openSource("serve", dirArg(pos), f.catalogFlags, stderr)
	if !ok {
		return 1
	}
	if src.pack.Private() && f.auth == "" {
		fmt.Fprintf(stderr, "skilledge serve: %s has an access policy (%s): serve it with --auth FILE, which says who is asking (README, \"Private catalogs\");\n"+
			"  without it nobody could be told apart over HTTP. skilledge stdio serves it to a local process without one.\n", dirArg(pos), compile.PolicyFile)
		return 2
	}
	server.AllowOrigins, server.AllowHosts = origins, hosts
	// The key sets the auth option names by URL are fetched here, for every catalog served.
	keys := front.NewKeySets(stderr, nil)
	opt := wasm.Options{Server: server, Keys: keys}
	pool, plugin, err := startPool(ctx, early, f.memory, src.catalog(), opt, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge serve: %s\n", advised(err))
		return 1
	}
	srvOpt := front.Options{Replays: *replays}
	if *replays == 0 {
		srvOpt.Replays = -1
	}
	var srv *front.Server
	obs, err := observe.start(ctx, logs, func() *front.Server { return srv }, keys)
	if err != nil {
		pool.Close(context.Background())
		fmt.Fprintf(stderr, "skilledge serve: %v\n", err)
		return 1
	}
	defer obs.stop()
	srvOpt.Observer = obs.observer
	srv = front.NewServer(pool, stderr, srvOpt)
	defer srv.Close(context.Background())
	defer f.startWatching(ctx, "serve", dirArg(pos), src, plugin, opt, srv, stderr)() // stopped before srv closes

	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	fmt.Fprintf(stdout, "skilledge: serving %s (%s) at http://%s%s\nskilledge: the catalog page is at http://%s/\n",
		plural(src.pack.NumSkills(), "skill"), plural(src.pack.NumFiles(), "file"), displayAddr(ln.Addr()), endpoint(pool), displayAddr(ln.Addr()))
	if authCfg != nil {
		fmt.Fprintf(stdout, "skilledge: every request needs a credential (%s): %s\n", f.auth, authSummary(authCfg))
	}
	if obs.metrics != nil {
		obs.serveMetrics(metricsLn)
		fmt.Fprintf(stdout, "skilledge: metrics at http://%s/metrics\n", displayAddr(metricsLn.Addr()))
	}
	if obs.otel != nil {
		fmt.Fprintf(stdout, "skilledge: sending %s over OTLP to %s\n", otelWhat(obs.otelCfg), obs.otelCfg.Where)
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "skilledge serve: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	fmt.Fprintln(stderr, "skilledge: shutting down")
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "skilledge serve: %v\n", err)
	}
	return 0
}

// endpoint is the MCP endpoint path (the plugin's default unless configured).
func endpoint(pool *wasm.Pool) string {
	if e := pool.Options().Server.Endpoint; e != "" {
		return e
	}
	return "/mcp"
}

func cmdStdio(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("stdio", "skilledge stdio [DIR|OUT] [flags]",
		`Serves the skills in DIR (default: the built-in examples) over the MCP stdio transport:
newline-delimited JSON-RPC on stdin and stdout, logs on stderr. It ends at the end of
stdin. The folder is refused if it has invalid skills, unless --skip-invalid. DIR is
built into the user cache on first use and that build is reused until a file changes;
OUT, the output of skilledge build, is served as it is. With --watch, DIR is rebuilt
whenever its files change, the new catalog replaces the served one atomically, and the
client is sent notifications/skills/list_changed and notifications/resources/list_changed.`)
	var f serverFlags
	f.register(c.fs)
	registerAuth(c.fs, &f.auth, true)
	pos, code, ok := c.parse(args, 0, 1, stdout, stderr)
	if !ok {
		return code
	}
	server, err := f.server()
	if err != nil {
		fmt.Fprintf(stderr, "skilledge stdio: %v\n", err)
		return 2
	}
	if f.auth != "" {
		// No key set is fetched: over stdio no credential is asked.
		if server.Auth, _, ok = readAuth("stdio", f.auth, stderr); !ok {
			return 2
		}
	}
	if !f.checkWatch("stdio", dirArg(pos), stderr) {
		return 2
	}
	// A stdio message may be a whole line: budget instance memory for the longest.
	opt := wasm.Options{Size: 1, MaxBody: front.MaxLine, Server: server}
	// The plugin is found and compiled while the catalog is opened (pluginStart).
	stderr = &lockedWriter{w: stderr}
	early := startPlugin(ctx, f.plugin, variantFor(f.auth), f.memory.limit(guessIndexSize(dirArg(pos), f.catalogFlags), opt.MaxBody), stderr)
	defer early.abandon()
	src, ok := openSource("stdio", dirArg(pos), f.catalogFlags, stderr)
	if !ok {
		return 1
	}
	pool, plugin, err := startPool(ctx, early, f.memory, src.catalog(), opt, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge stdio: %s\n", advised(err))
		return 1
	}
	srv := front.NewServer(pool, stderr, front.Options{})
	defer srv.Close(context.Background())
	fmt.Fprintf(stderr, "skilledge: serving %s (%s) on stdio\n", plural(src.pack.NumSkills(), "skill"), plural(src.pack.NumFiles(), "file"))
	defer f.startWatching(ctx, "stdio", dirArg(pos), src, plugin, opt, srv, stderr)() // stopped before srv closes
	// ServeStdio notices ctx only between messages; an interrupt must not wait for
	// the next line, so on one return at once (the process is about to exit).
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(ctx, stdin, stdout) }()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "skilledge stdio: %v\n", err)
			return 1
		}
	case <-ctx.Done():
	}
	return 0
}

func dirArg(pos []string) string {
	if len(pos) == 0 {
		return ""
	}
	return pos[0]
}

// loopbackAddr reports whether a listen address binds loopback only.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// displayAddr formats a listener address for a URL.
func displayAddr(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return netip.AddrPortFrom(ta.AddrPort().Addr().Unmap(), ta.AddrPort().Port()).String()
	}
	return a.String()
}
