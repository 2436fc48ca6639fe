package edge

import (
	"bytes"
	"html"
	"strconv"
	"strings"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// For people and for crawlers (PROTOCOL.md#catalog-page): the catalog page at "/", for a
// browser (a GET whose Accept names text/html), and /sitemap.xml (DVS §3.2: skills MAY be
// indexed in the domain's sitemap). Both are rendered at build time but for the URLs, which
// depend on the host the request was made to.

// sitemapMax is the most URLs one sitemap holds. A catalog with more published skills gets
// a sitemap index at /sitemap.xml naming /sitemap-1.xml, … .
// See https://www.sitemaps.org/protocol.html#index
//
// Why 1,000 URLs a sitemap, when sitemaps.org allows 50,000? Each URL is a skill's name,
// read from its row: a sitemap of 50,000 reads every shard of a sharded index in one
// request, more than an instance keeps. A part of 1,000 reads a few dozen, and an answer
// of 80 KiB; crawlers read a sitemap index as they read a sitemap.
const sitemapMax = 1000

// site answers GET and HEAD of "/" and of the sitemaps; ok is false for any other request,
// which the caller routes as usual.
func (s *Server) site(r *wire.Request, hd *headers, path string, rb *reply) (resp *wire.Response, ok bool) {
	if r.Method != "GET" && r.Method != "HEAD" {
		if path == catalog.SitemapPath {
			resp := s.httpText(405, "skilledge: the sitemap answers GET and HEAD\n")
			resp.Header = append(resp.Header, wire.Field{Name: "Allow", Value: "GET, HEAD"})
			return resp, true
		}
		return nil, false
	}
	switch {
	case path == "/" && acceptsHTML(hd.accept):
		return s.catalogPage(r, hd, rb), true
	case path == catalog.SitemapPath:
		return s.sitemap(hd, 0, rb), true
	}
	if n, found := strings.CutPrefix(path, "/sitemap-"); found {
		if n, found = strings.CutSuffix(n, ".xml"); found {
			k, err := strconv.Atoi(n)
			if err == nil && strconv.Itoa(k) == n && k >= 1 && (k-1)*sitemapMax < s.pack.NumHTTPSkills() && s.pack.NumHTTPSkills() > sitemapMax {
				return s.sitemap(hd, k, rb), true
			}
		}
	}
	return nil, false
}

// acceptsHTML reports whether an Accept header asks for HTML, as every browser's does
// when it navigates.
func acceptsHTML(accept string) bool {
	for _, r := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(r, ";")
		if wire.EqualFold(strings.TrimSpace(mt), "text/html") {
			return true
		}
	}
	return false
}

// origin returns the scheme and authority a request was made to, "https://skills.example":
// the scheme a proxy in front says (X-Forwarded-Proto), else http for a loopback host or an
// explicit port other than 443 (a local server, wrangler dev), else https (a deployment).
// The Host header has passed hostAllowed.
func origin(hd *headers) string {
	host := hd.host
	if !hd.hasHost || !hostSyntax(host) {
		host = "localhost" // none, or nothing a client could have connected to
	}
	scheme := "https"
	switch p := strings.ToLower(strings.TrimSpace(hd.forwardedProto)); {
	case hd.hasForwardedProto && (p == "http" || p == "https"):
		scheme = p
	case loopbackHost(host):
		scheme = "http"
	default:
		if h := stripPort(host); h != host && host[len(h)+1:] != "443" {
			scheme = "http"
		}
	}
	return scheme + "://" + host
}

// hostSyntax reports whether h is a host name, an IPv4 address or a bracketed IPv6
// address, with or without a port: the only characters it may hold are letters, digits,
// '.', '-', ':' and the brackets. Browsers send international names in their ASCII form.
// Anything else, or anything longer than a host can be (a value only a hostile client
// sends), is never written into a URL: the page puts it into a shell command line as well
// as HTML and JSON.
func hostSyntax(h string) bool {
	// A DNS name is at most 253 bytes, and a port 6 more: a longer value is no host, and
	// the sitemap writes it once per skill.
	if h == "" || len(h) > 260 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == ':' || c == '[' || c == ']') {
			return false
		}
	}
	return true
}

// rootOrigin is the scheme and authority of a trust root with the path "/"
// ("https://skills.example.com" of "https://skills.example.com/"), or "".
func rootOrigin(root string) string {
	i := strings.Index(root, "://")
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(root[i+3:], '/')
	if j < 0 || root[i+3+j:] != "/" {
		return ""
	}
	return root[:i+3+j]
}

// cacheControl is how long caches may keep the page, the sitemap and well-known files:
// five minutes, or not without asking again when the catalog may change at any moment
// (wire.Options.ListChanged: skilledge serve --watch).
func (s *Server) cacheControl() string {
	if s.opt.ListChanged {
		return "no-cache"
	}
	return "public, max-age=300"
}

// catalogPage answers the catalog page: catalog.SitePage with the MCP URL written where its
// markers are, and the skills section spliced from the store; or, asked with ?q=WORDS, the
// skills a search for WORDS finds in its place (sitesearch.go), with WORDS in the search
// box, and status 400 when the search is refused.
func (s *Server) catalogPage(r *wire.Request, hd *headers, rb *reply) *wire.Response {
	url := origin(hd) + s.opt.Endpoint
	urlHTML := html.EscapeString(url)
	urlJSON := html.EscapeString(string(jsonrpc.AppendString(nil, url)))
	words, ok := pageQuery(r.Target)
	status := 200
	tmpl := s.pack.Site(catalog.SitePage)
	b := rb.b[:0]
	rb.refs = rb.refs[:0]
	for {
		i := bytes.IndexByte(tmpl, catalog.PageMarker)
		if i < 0 || i+1 >= len(tmpl) {
			b = append(b, tmpl...)
			break
		}
		b = append(b, tmpl[:i]...)
		switch tmpl[i+1] {
		case catalog.PageURLHTML:
			b = append(b, urlHTML...)
		case catalog.PageURLJSON:
			b = append(b, urlJSON...)
		case catalog.PageQueryHTML:
			b = appendHTMLText(b, clip(words))
		case catalog.PageSkillsMarker:
			if words == "" && ok {
				rb.refs = appendRef(rb.refs, len(b), s.pack, s.pack.Site(catalog.SitePageSkills))
			} else {
				b, status = s.appendPageResults(b, words, !ok)
			}
		}
		tmpl = tmpl[i+2:]
	}
	return &wire.Response{Status: status, Body: b, Refs: rb.refs, Header: header(
		"Content-Type", "text/html; charset=utf-8",
		"Content-Security-Policy", string(s.pack.Site(catalog.SitePageCSP)),
		"X-Content-Type-Options", "nosniff",
		"Referrer-Policy", "no-referrer",
		"Cache-Control", s.cacheControl(),
		"Vary", "Accept, X-Forwarded-Proto")}
}

// sitemap answers /sitemap.xml (part 0) or /sitemap-<part>.xml: the absolute URL of every
// SKILL.md published under /.well-known/skills/, on the request's origin, whose scheme the
// trust root gives when it names the same host. A sitemap lists URLs of its own host
// (sitemaps.org), so a trust root on another host, or with a path under which
// /.well-known/ does not lie, is not used. With more than sitemapMax skills, /sitemap.xml
// is the index of the parts.
func (s *Server) sitemap(hd *headers, part int, rb *reply) *wire.Response {
	base := origin(hd)
	if root := rootOrigin(s.pack.TrustRoot()); root != "" && hd.hasHost && strings.EqualFold(root[strings.Index(root, "://")+3:], hd.host) {
		base = root // the canonical scheme of this host
	}
	base = html.EscapeString(base) // XML's five escapes are HTML's
	n := s.pack.NumHTTPSkills()
	b := append(rb.b[:0], "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"...)
	if part == 0 && n > sitemapMax {
		b = append(b, "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"...)
		for k := 1; (k-1)*sitemapMax < n; k++ {
			b = append(b, "<sitemap><loc>"...)
			b = append(b, base...)
			b = append(b, "/sitemap-"...)
			b = strconv.AppendInt(b, int64(k), 10)
			b = append(b, ".xml</loc></sitemap>\n"...)
		}
		b = append(b, "</sitemapindex>\n"...)
	} else {
		from, to := 0, n
		if part > 0 {
			from, to = (part-1)*sitemapMax, min(n, part*sitemapMax)
		}
		b = append(b, "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"...)
		s.pack.WantPublished(from, to)
		for k := from; k < to; k++ {
			b = append(b, "<url><loc>"...)
			b = append(b, base...)
			b = append(b, catalog.SkillsPrefix...)
			b = append(b, s.pack.Skill(s.pack.HTTPSkill(k), catalog.SkillName)...) // [a-z0-9-]: nothing to escape
			b = append(b, "/"+catalog.SkillMD+"</loc></url>\n"...)
		}
		b = append(b, "</urlset>\n"...)
	}
	return &wire.Response{Status: 200, Body: b, Header: header(
		"Content-Type", "application/xml; charset=utf-8",
		"X-Content-Type-Options", "nosniff",
		"Cache-Control", s.cacheControl(),
		"Vary", "X-Forwarded-Proto")}
}
