package trust

import (
	"net"
	"net/url"
	"strings"
)

// Origin renders u's origin: scheme and host in lower case, and the port unless it is
// the scheme's default ("https://skills.example.com", "http://127.0.0.1:8787"). It is the
// one rule by which a credential is bound to where it may be sent: pull's and verify's
// tokens, and a catalog's sources' (catalog/sources).
func Origin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if port == "" || scheme == "https" && port == "443" || scheme == "http" && port == "80" {
		if strings.Contains(host, ":") {
			return scheme + "://[" + host + "]"
		}
		return scheme + "://" + host
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
