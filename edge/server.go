// Package edge is the skills server, independent of any host: it turns an HTTP request
// (wire.Request) or one stdio JSON-RPC message into a response, answering from a
// catalog.Pack. Every protocol decision lives here: routing, Streamable HTTP rules, both MCP
// eras, errors, Origin and Host checks, and the caching hints of the modern era. Hosts only
// move bytes (DESIGN.md#the-boundary).
package edge

import (
	"strconv"
	"sync"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/search"
	"github.com/skilledge/skilledge/edge/wire"
)

// Server answers MCP and HTTP requests from one pack. It holds no per-session state and is
// safe for concurrent use.
type Server struct {
	pack *catalog.Pack
	opt  wire.Options
	caps []byte // the capabilities object, by the options
	// auth tells callers apart (authz.go); nil serves every caller alike.
	auth *authz
	// views are a private catalog's servers, one per view of pack.Views() (views.go), each
	// made when a caller of its view is first answered (view), with viewOpt; a server with
	// views answers nothing from its own index. unlisted, in a view's server, answers the
	// lookups its listed skills miss.
	views    []*Server
	viewsMu  sync.Mutex
	viewOpt  wire.Options
	unlisted *Server
	// history answers the lookups by URI that the latest skills miss from the index of
	// the older versions (catalog.Pack.Versions), nil without history.
	history *Server
	// assertion is the field an Access assertion comes in (assertionField).
	assertion string
	// cursorDigest is what cursors carry of the catalog (digestPrefix).
	cursorDigest string
	// rooted is set when the index has a signed root (catalog.RootURI), which skills/list
	// points to.
	rooted bool
	// search is the view's search index, opened on first use (searchIndex).
	searchOnce sync.Once
	search     *search.Index
}

// New returns a Server for pack p. p must stay valid for the Server's lifetime.
func New(p *catalog.Pack, opt wire.Options) *Server {
	if opt.Endpoint == "" {
		opt.Endpoint = "/mcp"
	}
	if opt.MaxBody <= 0 {
		opt.MaxBody = wire.DefaultMaxBody
	}
	if opt.PageSize <= 0 {
		opt.PageSize = wire.DefaultPageSize
	}
	if opt.Name == "" {
		opt.Name = "skilledge"
	}
	if opt.Version == "" {
		opt.Version = wire.Version
	}
	return newServer(p, opt, newAuthz(p, opt))
}

// newServer returns the server of p with opt (defaults set) and a, and of its views.
func newServer(p *catalog.Pack, opt wire.Options, a *authz) *Server {
	d := p.Digest()
	s := &Server{pack: p, opt: opt, caps: capabilities(opt, p.Search() != nil), auth: a, assertion: a.assertionHeader(), cursorDigest: d[:min(len(d), 8)]}
	if p.Private() {
		s.newViews(opt) // the views say their own instructions; this server answers nothing
		return s
	}
	if h := p.Versions(); h != nil {
		s.history = newServer(h, opt, a)
	}
	_, s.rooted = p.HTTPDoc(catalog.RootJSON, catalog.HTTPObject) // the root's own tables, never a shard
	if s.opt.Instructions == "" {
		s.opt.Instructions = defaultInstructions(p)
	}
	return s
}

// defaultInstructions tells a client what this server is and how to use it.
func defaultInstructions(p *catalog.Pack) string {
	return "This server publishes " + strconv.Itoa(p.NumSkills()) + " Agent Skills through the MCP Skills extension (" +
		SkillsExtension + "). Call skills/list to see them, skills/get with a SKILL.md URI for one skill, " +
		"and resources/read to fetch its files; verify each file against the sha256 digest in the skill entry." +
		trustRootSentence(p.TrustRoot())
}

func trustRootSentence(root string) string {
	if root == "" {
		return ""
	}
	return " These skills are published under the trust root " + root +
		" (Domain-Verified Skills): trust only skill URLs under it."
}
