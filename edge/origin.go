package edge

import (
	"net/netip"
	"strings"

	"github.com/skilledge/skilledge/edge/wire"
)

// Origin and Host checks protect a locally served catalog from DNS rebinding: a web page
// on another origin must not be able to drive the server through the victim's browser.
// See https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning

// originAllowed reports whether a request carrying Origin origin may be answered.
// A request without Origin (not from a browser) is always allowed.
func (s *Server) originAllowed(origin string, present bool) bool {
	if !present {
		return true
	}
	if len(s.opt.AllowOrigins) == 0 {
		return loopbackOrigin(origin)
	}
	for _, o := range s.opt.AllowOrigins {
		if o == wire.Loopback {
			if loopbackOrigin(origin) {
				return true
			}
		} else if o == "*" || wire.EqualFold(o, origin) {
			return true
		}
	}
	return false
}

// hostAllowed reports whether the Host header names this server. With no AllowHosts
// configured only loopback names are accepted, which is what defeats DNS rebinding of a
// local server; a public deployment configures "*" or its own names.
func (s *Server) hostAllowed(host string, present bool) bool {
	if len(s.opt.AllowHosts) == 0 {
		return !present || loopbackHost(host)
	}
	for _, h := range s.opt.AllowHosts {
		if h == wire.Loopback {
			if loopbackHost(host) {
				return true
			}
		} else if h == "*" || wire.EqualFold(h, host) || wire.EqualFold(h, stripPort(host)) {
			return true
		}
	}
	return false
}

// loopbackOrigin reports whether origin is http(s) on a loopback host, any port.
func loopbackOrigin(origin string) bool {
	rest, ok := strings.CutPrefix(origin, "http://")
	if !ok {
		if rest, ok = strings.CutPrefix(origin, "https://"); !ok {
			return false
		}
	}
	if strings.ContainsAny(rest, "/@?#") {
		return false
	}
	return loopbackHost(rest)
}

// loopbackHost reports whether a Host value (host[:port]) is localhost, a loopback IPv4
// address, or a bracketed loopback IPv6 address ("[::1]").
func loopbackHost(host string) bool {
	h := stripPort(host)
	if h == "127.0.0.1" || wire.EqualFold(h, "localhost") {
		return true
	}
	if inner, ok := strings.CutPrefix(h, "["); ok {
		inner, ok = strings.CutSuffix(inner, "]")
		ip, err := netip.ParseAddr(inner)
		return ok && err == nil && ip.Is6() && ip.Zone() == "" && ip.IsLoopback()
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.Is4() && ip.IsLoopback()
}

// stripPort removes a trailing ":port" from a Host value, leaving IPv6 brackets.
func stripPort(host string) string {
	i := strings.LastIndexByte(host, ':')
	if i < 0 || strings.LastIndexByte(host, ']') > i {
		return host
	}
	for _, c := range host[i+1:] {
		if c < '0' || c > '9' {
			return host
		}
	}
	return host[:i]
}
