package serving

import (
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"

	"github.com/skilledge/skilledge/runtime/internal/words"
)

// Banner says on w, in a line, what s serves and where: "skilledge: serving 6 skills
// (12 files) at http://ADDR/mcp" and the line of the catalog page at http://ADDR/, for
// the listener ln and the plugin's endpoint (wire.Options.Endpoint, "" for its default,
// /mcp); or, when ln is nil, "… on stdio".
func (s *Server) Banner(w io.Writer, ln net.Listener, endpoint string) {
	pack := s.Pack()
	what := words.Plural(pack.NumSkills(), "skill") + " (" + words.Plural(pack.NumFiles(), "file") + ")"
	if ln == nil {
		fmt.Fprintf(w, "skilledge: serving %s on stdio\n", what)
		return
	}
	if endpoint == "" {
		endpoint = "/mcp" // the plugin's default
	}
	fmt.Fprintf(w, "skilledge: serving %s at http://%s%s\nskilledge: the catalog page is at http://%s/\n", what, DisplayAddr(ln.Addr()), endpoint, DisplayAddr(ln.Addr()))
}

// Loopback reports whether a listen address ("HOST:PORT") binds loopback only: HOST is
// localhost, in any case, or a loopback address (127.0.0.0/8, ::1).
func Loopback(addr string) bool {
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

// DisplayAddr formats a listener address for a URL: HOST:PORT, an IPv4 address mapped
// into IPv6 written as IPv4, and an IPv6 one in brackets.
func DisplayAddr(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return netip.AddrPortFrom(ta.AddrPort().Addr().Unmap(), ta.AddrPort().Port()).String()
	}
	return a.String()
}

// SyncWriter returns a writer that serializes writes to w, for a writer written from
// several goroutines: Options.Log, on which the watcher writes, and the lines of the
// requests a front serves.
func SyncWriter(w io.Writer) io.Writer { return &lockedWriter{w: w} }

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
