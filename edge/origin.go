package edge

import (
	"net/netip"
	"strings"
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
		if o == "*" || strings.EqualFold(o, origin) {
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
		if h == "*" || strings.EqualFold(h, host) || strings.EqualFold(h, stripPort(host)) {
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

// loopbackHost reports whether a Host value (host[:port]) is localhost or a loopback IP.
func loopbackHost(host string) bool {
	h := stripPort(host)
	if strings.EqualFold(h, "localhost") {
		return true
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.Zone() == "" && ip.IsLoopback()
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
