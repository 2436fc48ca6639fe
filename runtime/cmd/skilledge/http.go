package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/front"
	"github.com/skilledge/skilledge/runtime/telemetry"
)

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
func (h *httpFlags) check(server *wire.Options) error {
	switch {
	case h.replays < 0:
		return fmt.Errorf("--replays %d: give a number of answers, or 0 for none", h.replays)
	case h.replays == 0:
		h.replays = -1 // front.Options: none kept
	}
	if h.observe.metrics != "" && !h.public && !loopbackAddr(h.observe.metrics) {
		return fmt.Errorf("refusing to serve metrics on %s without --public: they name the skills, and under --auth the callers, of this catalog. Pass --public if that is what you want.", h.observe.metrics)
	}
	if !h.public && !loopbackAddr(h.addr) {
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

// banner says on stdout where the catalog pack is served.
func (h *httpFlags) banner(stdout io.Writer, ln net.Listener, pack *catalog.Pack, server wire.Options) {
	endpoint := server.Endpoint
	if endpoint == "" {
		endpoint = "/mcp" // the plugin's default
	}
	fmt.Fprintf(stdout, "skilledge: serving %s (%s) at http://%s%s\nskilledge: the catalog page is at http://%s/\n",
		plural(pack.NumSkills(), "skill"), plural(pack.NumFiles(), "file"), displayAddr(ln.Addr()), endpoint, displayAddr(ln.Addr()))
}

// observed serves the metrics on the listener metrics, if any, and says on stdout where
// what serve answers is told.
func (h *httpFlags) observed(stdout io.Writer, metrics net.Listener, tel *telemetry.Telemetry) {
	if tel.Metrics != nil {
		tel.ServeMetrics(metrics)
		fmt.Fprintf(stdout, "skilledge: metrics at http://%s/metrics\n", displayAddr(metrics.Addr()))
	}
	if tel.OTel != nil {
		fmt.Fprintf(stdout, "skilledge: sending %s over OTLP to %s\n", h.observe.otel.What(), h.observe.otel.Where)
	}
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
