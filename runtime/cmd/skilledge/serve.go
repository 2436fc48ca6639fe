package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/skilledge/skilledge/edge"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	skruntime "github.com/skilledge/skilledge/runtime"
)

// serverFlags are the flags shared by serve and stdio.
type serverFlags struct {
	catalogFlags
	plugin string
	memory memoryFlag
}

func (f *serverFlags) register(fs *flag.FlagSet) {
	f.catalogFlags.register(fs)
	pluginFlag(fs, &f.plugin)
	fs.Var(&f.memory, "memory-limit", fmt.Sprintf(
		"memory cap of each plugin instance, in `MiB`, %d to %d (default %d, or what the catalog needs if more); each holds its own copy of the catalog index (file contents are held once, outside)",
		minMemoryMiB, maxMemoryMiB, skruntime.DefaultMemoryLimit>>20))
}

// The range of --memory-limit, as runtime.Compile accepts it.
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
// serving index with request bodies up to maxBody needs (runtime.MinMemoryLimit).
func (m *memoryFlag) limit(index []byte, maxBody int) uint64 {
	if m.mib != 0 {
		return uint64(m.mib) << 20
	}
	if maxBody <= 0 {
		maxBody = skruntime.DefaultMaxBody
	}
	return min(max(skruntime.DefaultMemoryLimit, skruntime.MinMemoryLimit(index, maxBody)), maxMemoryMiB<<20)
}

func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("serve", "skilledge serve [DIR|OUT] [flags]",
		`Serves the skills in DIR (default: the built-in examples) over MCP Streamable HTTP at
/mcp until interrupted. The folder is refused if it has invalid skills, unless
--skip-invalid. DIR is built into the user cache on first use and that build is reused
until a file changes; OUT, the output of skilledge build, is served as it is.

By default the server listens on loopback only and accepts browser requests only from
loopback origins.`)
	var f serverFlags
	f.register(c.fs)
	addr := c.fs.String("addr", "127.0.0.1:8787", "listen on `HOST:PORT`")
	public := c.fs.Bool("public", false, "allow listening on a non-loopback address")
	var origins, hosts stringList
	c.fs.Var(&origins, "allow-origin", "also accept browser requests from `ORIGIN` (repeatable; \"*\" for any; loopback origins are always accepted)")
	c.fs.Var(&hosts, "allow-host", "also accept requests whose Host header is `HOST` (repeatable; \"*\" for any; loopback names are always accepted, and any with --public)")
	pos, code, ok := c.parse(args, 0, 1, stdout, stderr)
	if !ok {
		return code
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
		origins = append(stringList{edge.Loopback}, origins...)
	}
	if len(hosts) > 0 {
		hosts = append(stringList{edge.Loopback}, hosts...)
	}
	src, ok := openSource("serve", dirArg(pos), f.catalogFlags, stderr)
	if !ok {
		return 1
	}
	pool, err := startPool(ctx, f.plugin, f.memory, src.catalog(), skruntime.Options{Server: edge.Options{AllowOrigins: origins, AllowHosts: hosts}}, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge serve: %v\n", err)
		return 1
	}
	srv := skruntime.NewServer(pool, stderr)
	defer srv.Close(context.Background())

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge serve: %v\n", err)
		return 1
	}
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	fmt.Fprintf(stdout, "skilledge: serving %s (%s) at http://%s%s\n",
		plural(src.pack.NumSkills(), "skill"), plural(src.pack.NumFiles(), "file"), displayAddr(ln.Addr()), endpoint(pool))
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
func endpoint(pool *skruntime.Pool) string {
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
OUT, the output of skilledge build, is served as it is.`)
	var f serverFlags
	f.register(c.fs)
	pos, code, ok := c.parse(args, 0, 1, stdout, stderr)
	if !ok {
		return code
	}
	src, ok := openSource("stdio", dirArg(pos), f.catalogFlags, stderr)
	if !ok {
		return 1
	}
	// A stdio message may be a whole line: budget instance memory for the longest.
	pool, err := startPool(ctx, f.plugin, f.memory, src.catalog(), skruntime.Options{Size: 1, MaxBody: skruntime.MaxLine}, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge stdio: %v\n", err)
		return 1
	}
	srv := skruntime.NewServer(pool, stderr)
	defer srv.Close(context.Background())
	fmt.Fprintf(stderr, "skilledge: serving %s (%s) on stdio\n", plural(src.pack.NumSkills(), "skill"), plural(src.pack.NumFiles(), "file"))
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
