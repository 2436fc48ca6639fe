package edge

import (
	"slices"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// Per-caller views (catalog/views.go). A private catalog is served one view per caller:
// the server picks the view its credential's scopes give, then answers from that view's
// index exactly as a public server of those skills would, with the caller's authorization
// marked on the answer. A skill outside the view is not filtered out of the answers: it
// is not in the index they come from, so every surface (lists, lookups, completions,
// indexes, archives, the page, the sitemap, the instructions' count, error messages)
// says of it what it says of a skill that never existed. A view showing unlisted skills
// answers a lookup its listed skills miss (a read, a get, by URI, name or well-known
// path) from a second index that has them, and never a listing.

// newViews gives a server for a private catalog one server per view, sharing its options
// and authorization, each made when first asked for (view). opt is the options as given,
// so that each view says its own instructions.
func (s *Server) newViews(opt wire.Options) {
	s.views, s.viewOpt = make([]*Server, s.pack.NumViews()), opt
}

// view returns the server of view i, made on the first call: a sharded index reads the
// view's indexes then (catalog.Pack.View), and a read not at hand stops the request with a
// *catalog.Missing, as a shard's does, before anything is kept.
func (s *Server) view(i int) *Server {
	s.viewsMu.Lock()
	defer s.viewsMu.Unlock()
	if s.views[i] == nil {
		v := s.pack.View(i)
		vs := newServer(v.Listed, s.viewOpt, s.auth)
		if v.All != nil {
			vs.unlisted = newServer(v.All, s.viewOpt, s.auth)
			vs.unlisted.cursorDigest = vs.cursorDigest // its own covers the unlisted skills
			vs.unlisted.history = vs.history           // a version of an unlisted skill, by name
		}
		s.views[i] = vs
	}
	return s.views[i]
}

// viewFor returns the server of the view a caller granted scopes sees, nil when the
// catalog has none for them (never from a build: the caller is refused).
func (s *Server) viewFor(granted []byte) *Server {
	i, ok := s.pack.ViewIndex(granted)
	if !ok {
		return nil
	}
	return s.view(i)
}

// local is the server a local stream transport (stdio) talks to: every skill, since a
// local process needs no credential (the full view of a private catalog).
func (s *Server) local() *Server {
	if len(s.views) > 0 {
		return s.view(len(s.views) - 1)
	}
	return s
}

// retry answers c from u, the view's index with its unlisted skills, after the listed
// ones missed (c.missed): u's answer, error or not (a skill's missing argument, a name two
// unlisted skills share), unless u misses too; then first (out, or err) is given back as
// it was, so that a lookup of something absent says what a public server says.
func (u *Server) retry(m method, c *call, dst, out []byte, err *jsonrpc.Error, marked int) ([]byte, *jsonrpc.Error) {
	var body []byte
	if err == nil {
		body = slices.Clone(out[len(dst):])
	}
	refs := slices.Clone((*c.refs)[marked:])
	*c.refs = (*c.refs)[:marked]
	c.missed = false
	if o, e := m.handle(u, c, dst); !c.missed {
		return o, e
	}
	*c.refs = append((*c.refs)[:marked], refs...)
	if err != nil {
		return nil, err
	}
	return append(dst, body...), nil
}

// privateWithoutAuth answers every HTTP request to a private catalog served without the
// auth option: nobody could be told apart, so nobody is answered.
func (s *Server) privateWithoutAuth() *wire.Response {
	return s.httpError(503, nil, jsonrpc.NewError(jsonrpc.CodeInternalError,
		"Service Unavailable: this catalog has an access policy (skilledge.yaml) and the server has no auth option to tell callers apart, so it answers nobody over HTTP"))
}
