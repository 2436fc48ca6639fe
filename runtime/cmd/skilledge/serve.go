package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"

	"github.com/skilledge/skilledge/catalog/compile"
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

// privateWithoutAuth is serve's refusal of a private catalog without --auth: the folder,
// and its policy file.
const privateWithoutAuth = "skilledge serve: %s has an access policy (%s): serve it with --auth FILE, which says who is asking (README, \"Private catalogs\");\n" +
	"  without it nobody could be told apart over HTTP. skilledge stdio serves it to a local process without one.\n"

// cmdServe serves a catalog over MCP Streamable HTTP until ctx ends.
//
// Why does serve listen before it builds? A busy port was reported after the folder was
// checked and built, which for a large folder takes long, and behind the folder's own
// problems. The listener is taken first: the port is said at once, and connections that
// arrive during the build wait in the listen queue until the server serves. Rejected:
// checking the port by binding and closing it (another process can take it in between).
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
	dir := dirArg(pos)
	server, err := f.server()
	if err == nil {
		err = h.check(&server)
	}
	if err != nil {
		fmt.Fprintf(stderr, "skilledge serve: %v\n", err)
		return 2
	}
	authLine, ok := f.check("serve", dir, &server, stderr)
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
	defer ln.Close() // closed by ServeHTTP; here for the returns before that
	if metricsLn != nil {
		defer metricsLn.Close() // closed by the metrics server; here for the returns before that
	}
	logs := serving.SyncWriter(stderr)    // the requests' lines
	stderr = h.observe.lines(logs)        // every other line
	keys := front.NewKeySets(stderr, nil) // fetches the key sets the auth option names
	s, ok := f.open(ctx, "serve", dir, wasm.Options{Server: server, Keys: keys}, stderr)
	if !ok {
		return 1
	}
	defer s.Close()
	if s.Pack().Private() && f.auth == "" {
		fmt.Fprintf(stderr, privateWithoutAuth, dir, compile.PolicyFile)
		return 2
	}
	tel, err := telemetry.Start(ctx, h.observe.options(logs, telemetry.Sources{Instances: s.Instances, KeyFetches: keys.Fetches}))
	if err == nil {
		defer tel.Shutdown()
		err = s.Start(ctx, front.Options{Replays: h.replays, Observer: tel.Observer})
	}
	if err != nil {
		fmt.Fprintf(stderr, "skilledge serve: %s\n", advised(err))
		return 1
	}
	s.Watch(ctx) // stopped by s.Close, before the front closes
	h.banner(stdout, ln, metricsLn, s, server.Endpoint, authLine, tel)
	if err := s.ServeHTTP(ctx, ln); err != nil {
		fmt.Fprintf(stderr, "skilledge serve: %v\n", err)
		return 1
	}
	return 0
}

// httpFlags are serve's flags of the HTTP side: where it listens, whom it answers, what
// it keeps, and what it tells an operator.
type httpFlags struct {
	addr           string
	public         bool
	replays        int
	origins, hosts stringList
	observe        observeFlags
}

func (h *httpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.addr, "addr", "127.0.0.1:8787", "listen on `HOST:PORT`")
	fs.BoolVar(&h.public, "public", false, "allow listening on a non-loopback address")
	fs.IntVar(&h.replays, "replays", front.DefaultReplays,
		"keep up to `N` answers to give again, without running the plugin, to requests that repeat one but for their JSON-RPC id; 0 runs the plugin for every request")
	h.observe.register(fs)
	fs.Var(&h.origins, "allow-origin", "also accept browser requests from `ORIGIN` (repeatable; \"*\" for any; loopback origins are always accepted)")
	fs.Var(&h.hosts, "allow-host", "also accept requests whose Host header is `HOST` (repeatable; \"*\" for any; loopback names are always accepted, and any with --public)")
}

// check refuses what the flags must not ask without another (a non-loopback address
// without --public), and adds to server whom it answers: the flags add to the loopback
// defaults, so that the URL serve prints keeps working.
//
// Why does `serve` refuse a non-loopback address without `--public`? Exposing a catalog to
// the network should be a decision, not a typo. --public also widens the accepted Host
// names, since the loopback-only Host check would otherwise refuse every request arriving
// by another name.
func (h *httpFlags) check(server *wire.Options) error {
	switch {
	case h.replays < 0:
		return fmt.Errorf("--replays %d: give a number of answers, or 0 for none", h.replays)
	case h.replays == 0:
		h.replays = -1 // front.Options: none kept
	}
	if h.observe.metrics != "" && !h.public && !serving.Loopback(h.observe.metrics) {
		return fmt.Errorf("refusing to serve metrics on %s without --public: they name the skills, and under --auth the callers, of this catalog. Pass --public if that is what you want.", h.observe.metrics)
	}
	if !h.public && !serving.Loopback(h.addr) {
		return fmt.Errorf("refusing to listen on %s without --public: the catalog would be reachable from other machines, not only this one. Pass --public if that is what you want.", h.addr)
	}
	if h.public && len(h.hosts) == 0 {
		h.hosts = stringList{"*"}
	}
	if len(h.origins) > 0 {
		server.AllowOrigins = append([]string{wire.Loopback}, h.origins...)
	}
	if len(h.hosts) > 0 {
		server.AllowHosts = append([]string{wire.Loopback}, h.hosts...)
	}
	return nil
}

// listen takes --addr, and --metrics when given (nil otherwise).
func (h *httpFlags) listen() (ln, metrics net.Listener, err error) {
	if ln, err = net.Listen("tcp", h.addr); err != nil {
		return nil, nil, err
	}
	if h.observe.metrics != "" {
		if metrics, err = net.Listen("tcp", h.observe.metrics); err != nil {
			ln.Close()
			return nil, nil, fmt.Errorf("--metrics: %w", err)
		}
	}
	return ln, metrics, nil
}

// banner says on stdout where the catalog of s is served, what credential it needs (auth,
// the --auth line, or ""), and where what it answers is told; it serves the metrics on
// the listener metrics from here on.
func (h *httpFlags) banner(stdout io.Writer, ln, metrics net.Listener, s *serving.Server, endpoint, auth string, tel *telemetry.Telemetry) {
	s.Banner(stdout, ln, endpoint)
	fmt.Fprint(stdout, auth)
	if tel.Metrics != nil {
		tel.ServeMetrics(metrics)
		fmt.Fprintf(stdout, "skilledge: metrics at http://%s/metrics\n", serving.DisplayAddr(metrics.Addr()))
	}
	if tel.OTel != nil {
		fmt.Fprintf(stdout, "skilledge: sending %s over OTLP to %s\n", h.observe.otel.What(), h.observe.otel.Where)
	}
}
