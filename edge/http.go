package edge

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// Streamable HTTP, as far as a static catalog needs it: POST carries one JSON-RPC message
// and gets one JSON response; there is no server-initiated stream, so GET and DELETE are
// 405, and no session is ever minted. See
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http

// Headers of the MCP HTTP transport.
const (
	hdrProtocolVersion = "MCP-Protocol-Version"
	hdrMethod          = "Mcp-Method"
	hdrName            = "Mcp-Name"
)

// codeHeaderMismatch is the 2026-07-28 error for request headers that disagree with the
// message body (or are missing).
const codeHeaderMismatch = -32020

// Every response carries X-Content-Type-Options: nosniff, so that a browser never runs a
// file as another type than the one declared, and this Content-Security-Policy, so that
// a skill's HTML, SVG or XML opened from the publisher's origin (the DVS trust root) runs
// no script, loads nothing and gets an opaque origin of its own: no cookies, no storage,
// no same-origin requests. Nothing this server answers is a page meant to run.
const contentSecurityPolicy = "default-src 'none'; sandbox"

// corsAllowHeaders are the request headers a browser client may send.
const corsAllowHeaders = "Content-Type, Accept, Authorization, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id, Last-Event-ID"

// ServeHTTP answers one HTTP request. It never fails: every problem becomes a status code
// and, on the MCP endpoint, a JSON-RPC error body. File contents are not in the response:
// its Refs name the store objects the host splices into the body (wire.Ref).
func (s *Server) ServeHTTP(r *wire.Request) *wire.Response { return s.serveHTTP(r, &reply{}) }

// AppendHTTP answers r like ServeHTTP and appends the response frame (edge/wire, with its
// references) to dst. It answers into a buffer reused across calls, so a request costs no
// allocation that grows with the response: the one copy is into dst. This is what hosts
// call.
//
// It also says whether, and how, a host may give the same answer again to a request that
// differs only in its id (wire.Replay, whose AnswerAt counts from the start of the appended
// frame): the zero wire.Replay when it may not.
func (s *Server) AppendHTTP(dst []byte, r *wire.Request) ([]byte, wire.Replay) {
	dst, replay, _ := s.AppendHTTPFacts(dst, r)
	return dst, replay
}

// AppendHTTPFacts is AppendHTTP, and also says what the answer was (Facts, which refer
// to r: they are valid while r is).
func (s *Server) AppendHTTPFacts(dst []byte, r *wire.Request) ([]byte, wire.Replay, Facts) {
	sc := getScratch()
	sc.replay, sc.caller = wire.Replay{}, caller{}
	resp := s.serveHTTP(r, sc)
	start := len(dst)
	dst = wire.AppendResponse(dst, resp)
	replay := sc.replay
	if sc.caller.authorized && replay.IDLen > 0 {
		// The request frame holds the caller's credential, so a replay goes to that
		// credential alone; it must not outlive it, nor make the answer's ttlMs (sc.c.fresh,
		// of the request post answered) outlive it.
		if exp, ok := replayUntil(sc.caller.expires, sc.caller.checked, sc.c.fresh); ok {
			replay.Expires = exp
		} else {
			replay = wire.Replay{}
		}
	}
	if replay.IDLen > 0 {
		// The body ends the frame.
		replay.AnswerAt += len(dst) - start - len(resp.Body)
	}
	facts := sc.facts
	if facts.route == wire.RouteMCP && facts.code == 0 && resp.Status >= 400 {
		facts.code = errorCode(resp.Body) // refused before a method was answered
	}
	sc.keep(resp.Body, resp.Refs)
	return dst, replay, facts
}

// serveHTTP answers r, building a JSON-RPC response body on rb. Every answer, refusals
// included, carries the security fields (its own, if it sets them); CORS fields go only
// on answers to an allowed Origin.
func (s *Server) serveHTTP(r *wire.Request, rb *reply) *wire.Response {
	hd := scanHeaders(r.Header, s.assertion)
	rb.facts = Facts{route: s.routeOf(r.Target)}
	resp, allowed := s.route(r, &hd, rb)
	if r.Method == "HEAD" {
		resp.Body, resp.Refs = nil, nil
	}
	// An answer that states its own policy (a page meant to be shown) keeps it.
	if _, ok := resp.Header.Get("X-Content-Type-Options"); !ok {
		resp.Header = append(resp.Header, wire.Field{Name: "X-Content-Type-Options", Value: "nosniff"})
	}
	if _, ok := resp.Header.Get("Content-Security-Policy"); !ok {
		resp.Header = append(resp.Header, wire.Field{Name: "Content-Security-Policy", Value: contentSecurityPolicy})
	}
	if rb.caller.authorized {
		s.auth.private(resp, rb.caller)
	}
	if allowed && hd.hasOrigin {
		expose := "MCP-Protocol-Version, Mcp-Session-Id"
		if s.auth != nil {
			expose += ", WWW-Authenticate" // a browser client reads the challenge
		}
		resp.Header = append(resp.Header,
			wire.Field{Name: "Access-Control-Allow-Origin", Value: hd.origin},
			wire.Field{Name: "Access-Control-Expose-Headers", Value: expose},
			wire.Field{Name: "Vary", Value: "Origin"})
	}
	return resp
}

// route checks Host and Origin and answers r; allowed is false for a refusal (403).
func (s *Server) route(r *wire.Request, hd *headers, rb *reply) (resp *wire.Response, allowed bool) {
	// Which name or page a request comes from must be one answer: with two, a check of
	// the first would let the other through.
	if hd.manyHosts || hd.manyOrigins {
		name := "Host"
		if !hd.manyHosts {
			name = "Origin"
		}
		return s.httpError(403, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Forbidden: more than one "+name+" header")), false
	}
	if !s.hostAllowed(hd.host, hd.hasHost) {
		return s.httpError(403, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Forbidden: Host "+strconv.Quote(clip(hd.host))+
			" is not allowed (the server's allowHosts option lists the names it answers to; unset, only loopback names)")), false
	}
	if !s.originAllowed(hd.origin, hd.hasOrigin) {
		return s.httpError(403, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Forbidden: Origin "+strconv.Quote(clip(hd.origin))+
			" is not allowed (the server's allowOrigins option lists the origins it answers; unset, only loopback origins)")), false
	}
	path, _, _ := strings.Cut(r.Target, "?")
	if path == "/" && (r.Method == "GET" || r.Method == "HEAD") && !acceptsHTML(hd.accept) && s.opt.Endpoint != "/" {
		return s.rootText(hd), true // the same words for every caller: nothing of the catalog
	}
	resp, who := s.gate(r, hd, path)
	if resp != nil {
		if path == "/" && acceptsHTML(hd.accept) && (resp.Status == 401 || resp.Status == 403) {
			s.auth.pageRefusal(resp, hd)
		}
		return resp, true
	}
	rb.caller = who
	if who.authorized {
		rb.facts.caller, rb.facts.client = who.subject, who.client
	}
	v := s
	switch {
	case s.views == nil:
	case s.auth == nil:
		return s.privateWithoutAuth(), true
	case who.authorized:
		if v = s.viewFor(who.granted); v == nil {
			return s.auth.challenge(403, true), true
		}
	}
	return v.answerHTTP(r, hd, path, rb), true
}

// answerHTTP answers r once the caller may be answered (route), from s's index.
func (s *Server) answerHTTP(r *wire.Request, hd *headers, path string, rb *reply) *wire.Response {
	resp, site := s.site(r, hd, path, rb)
	switch {
	case site:
	case strings.HasPrefix(path, "/.well-known/"):
		resp = s.wellKnown(r, hd, path, &rb.facts)
		if resp.Status == 404 && s.unlisted != nil {
			resp = s.unlisted.wellKnown(r, hd, path, &rb.facts)
		}
	case path == catalog.ChangesJSON || path == catalog.ChangesAtom:
		resp = s.changes(r, hd, path)
	case path != s.opt.Endpoint:
		resp = s.notFound()
	case r.Method == "POST":
		resp = s.post(r, hd, rb)
	case r.Method == "OPTIONS":
		resp = &wire.Response{Status: 204, Header: header(
			"Access-Control-Allow-Methods", "POST, OPTIONS",
			"Access-Control-Allow-Headers", corsAllowHeaders,
			"Access-Control-Max-Age", "86400")}
	default:
		resp = s.httpError(405, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"Method Not Allowed: this server has no server-initiated stream and no session; POST JSON-RPC messages to "+s.opt.Endpoint))
		resp.Header = append(resp.Header, wire.Field{Name: "Allow", Value: "POST, OPTIONS"})
	}
	return resp
}

// rootText answers a GET of "/" that does not ask for HTML (curl, a script): where the
// catalog page and the MCP endpoint are. It names nothing of the catalog, so it is the same
// for every caller, with or without a credential.
func (s *Server) rootText(hd *headers) *wire.Response {
	base := origin(hd)
	resp := s.httpText(200, "skilledge: a catalog of Agent Skills.\n"+
		"MCP endpoint: POST "+base+s.opt.Endpoint+" (Streamable HTTP; add it to an MCP host)\n"+
		"Catalog page: "+base+"/ in a browser (a request that accepts text/html)\n"+
		"Skills index: "+base+catalog.AgentSkillsIndex+"\n")
	resp.Header = append(resp.Header, wire.Field{Name: "Cache-Control", Value: "no-cache"},
		wire.Field{Name: "Vary", Value: "Accept, X-Forwarded-Proto"})
	return resp
}

func (s *Server) notFound() *wire.Response {
	return s.httpText(404, "skilledge: not found. The MCP endpoint is POST "+s.opt.Endpoint+
		"; skills are also listed at "+catalog.AgentSkillsIndex+"\n")
}

// post answers a POST to the MCP endpoint, building the body on rb.
func (s *Server) post(r *wire.Request, hd *headers, rb *reply) *wire.Response {
	buf := rb.b[:0]
	rb.refs = rb.refs[:0]
	if len(r.Body) > s.opt.MaxBody {
		return s.httpError(413, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"Request body too large: the limit is "+strconv.Itoa(s.opt.MaxBody)+" bytes"))
	}
	if !isJSONContentType(hd.contentType) {
		return s.httpError(415, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"Unsupported Media Type: POST a JSON-RPC message as application/json"))
	}
	headerVersion, hasVersion := hd.protocolVersion, hd.hasVersion
	headerVersion = decodeHeaderValue(headerVersion)
	// A header naming anything but a legacy revision makes the request modern: its _meta
	// must then be valid and agree with the header.
	forceModern := hasVersion && !isLegacy(headerVersion)
	legacy := defaultHTTPVersion
	if hasVersion && !forceModern {
		legacy = headerVersion
	}

	if jsonrpc.IsBatch(r.Body) {
		if legacy != V20250326 || forceModern {
			return s.httpError(400, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
				"JSON-RPC batches are only allowed in protocol version 2025-03-26"))
		}
		elems, err := jsonrpc.SplitBatch(r.Body, wire.MaxBatch)
		if err != nil {
			return s.httpError(400, nil, err)
		}
		out := s.batch(buf, rb, elems, legacy)
		rb.facts.method, rb.facts.version = wire.MethodBatch, legacy
		if len(out) == 0 {
			return &wire.Response{Status: 202}
		}
		return rb.response(200, out)
	}

	msg, perr := jsonrpc.Parse(r.Body)
	if perr != nil {
		return s.httpError(400, msg.ID, perr)
	}
	if msg.Kind != jsonrpc.KindRequest {
		return &wire.Response{Status: 202} // notifications and responses need no answer
	}
	c := &rb.c
	c.read(&msg, &rb.refs)
	c.lifetime, c.bounded = rb.caller.lifetime()
	rb.facts.method = knownMethod(msg.Method)
	version, modern, err := era(c, legacy, forceModern)
	if err != nil {
		return s.httpError(400, msg.ID, err)
	}
	c.version, c.modern = version, modern
	rb.facts.version = knownVersion(version)
	if !modern {
		// Legacy clients turn any non-2xx status into a transport failure, so JSON-RPC
		// errors travel with 200.
		out, code := s.answer(buf, c)
		rb.requestFacts(c, code)
		rb.replay = replayOf(r.Body, msg.ID, out, code, s.opt.MaxBody)
		return rb.response(200, out)
	}
	if err := s.checkModernHeaders(hd, c); err != nil {
		return s.httpError(400, msg.ID, err)
	}
	if err := supported(version); err != nil {
		return s.httpError(400, msg.ID, err)
	}
	out, code := s.answer(buf, c)
	rb.requestFacts(c, code)
	rb.replay = replayOf(r.Body, msg.ID, out, code, s.opt.MaxBody)
	return rb.response(modernStatus(code), out)
}

// modernStatus maps a JSON-RPC outcome to the HTTP status of the 2026-07-28 transport:
// 200 for a result, 404 for an unknown method, 400 for any other error.
func modernStatus(code int64) int {
	switch code {
	case 0:
		return 200
	case jsonrpc.CodeMethodNotFound:
		return 404
	}
	return 400
}

// checkModernHeaders enforces the 2026-07-28 rule that routing headers repeat the body:
// MCP-Protocol-Version equals the _meta version, Mcp-Method equals method, and Mcp-Name
// equals params.uri for resources/read and params.name for tools/call and prompts/get
// (SEP-2243's table).
func (s *Server) checkModernHeaders(hd *headers, c *call) *jsonrpc.Error {
	check := func(name, got string, ok bool, want string) *jsonrpc.Error {
		if !ok {
			return jsonrpc.NewError(codeHeaderMismatch, "Missing "+name+" header (expected "+strconv.Quote(clip(want))+")")
		}
		if decodeHeaderValue(got) != want {
			return jsonrpc.NewError(codeHeaderMismatch, name+" header "+strconv.Quote(clip(got))+" does not match the request body ("+strconv.Quote(clip(want))+")")
		}
		return nil
	}
	if err := check(hdrProtocolVersion, hd.protocolVersion, hd.hasVersion, c.version); err != nil {
		return err
	}
	if err := check(hdrMethod, hd.method, hd.hasMethod, c.msg.Method); err != nil {
		return err
	}
	switch {
	case c.msg.Method == "resources/read" && c.p.uri.Type == gjson.String:
		return check(hdrName, hd.name, hd.hasName, c.p.uri.Str)
	case (c.msg.Method == "tools/call" || c.msg.Method == "prompts/get") && c.p.name.Type == gjson.String:
		// Only where the method is offered: otherwise the answer is -32601, header or not.
		if m, _ := lookup(c.msg.Method); s.offers(m) {
			return check(hdrName, hd.name, hd.hasName, c.p.name.Str)
		}
	}
	return nil
}

// decodeHeaderValue decodes a value sent as "=?base64?<base64>?=" (how clients carry
// values that are not plain ASCII); any other value is returned unchanged.
func decodeHeaderValue(v string) string {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return v
	}
	d, err := base64.StdEncoding.DecodeString(inner)
	if err != nil {
		return v
	}
	return string(d)
}

func isJSONContentType(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}

// response is the JSON response whose body is b, with the references collected in rb,
// made in rb's own room.
func (rb *reply) response(status int, b []byte) *wire.Response {
	rb.hdr[0] = wire.Field{Name: "Content-Type", Value: "application/json"}
	rb.resp = wire.Response{Status: status, Header: rb.hdr[:1], Refs: rb.refs, Body: b}
	return &rb.resp
}

func jsonResponse(status int, body []byte) *wire.Response {
	return &wire.Response{Status: status, Header: header("Content-Type", "application/json"), Body: body}
}

// httpError answers with status and a JSON-RPC error body.
func (s *Server) httpError(status int, id []byte, err *jsonrpc.Error) *wire.Response {
	return jsonResponse(status, jsonrpc.AppendError(nil, id, err))
}

// header builds a header from name, value pairs.
func header(kv ...string) wire.Header {
	h := make(wire.Header, 0, len(kv)/2+5) // room for the security and CORS fields
	for i := 0; i+1 < len(kv); i += 2 {
		h = append(h, wire.Field{Name: kv[i], Value: kv[i+1]})
	}
	return h
}
