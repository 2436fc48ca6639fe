package edge

import (
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// call is one JSON-RPC request being answered.
type call struct {
	msg     jsonrpc.Message
	p       params
	version string // the protocol revision this request is answered under
	modern  bool   // the 2026-07-28 era: version came from params._meta
	// refs collects the store objects the reply names (wire.Ref). The reply is built in a
	// buffer that starts with the body, so an offset in it is an offset in the body.
	refs *[]wire.Ref
	// missed is set by a lookup (a read, a get) that found nothing under the key asked:
	// a view with unlisted skills then asks them (Server.retry).
	missed bool
	// lifetime, when bounded, is how long in whole seconds the caller's credential still
	// holds (caller.lifetime): the ttlMs of the answer is at most that less replayHeld. fresh is the ttlMs
	// the answer gave, in seconds (rounded up), for its replay hint (replayUntil).
	lifetime int64
	bounded  bool
	fresh    int64
	// facts are what the answer read (about, aboutSkill), for the host's telemetry.
	facts Facts
}

// params are the members of a request's params that any method reads, found in one pass
// over the params and one over their _meta (first occurrence wins, as with gjson.Get).
// Every Result aliases the message.
type params struct {
	uri, cursor, name, protocolVersion gjson.Result
	version                            gjson.Result // skills/get {name, version}
	query, limit                       gjson.Result // skills/list {query, limit} (search.go)
	arguments                          gjson.Result // tools/call, prompts/get, skills/get {name, arguments}
	ref, argument, context             gjson.Result // completion/complete
	meta                               gjson.Result // _meta
	metaVersion, metaCapabilities      gjson.Result // _meta's protocolVersion and clientCapabilities
}

// read makes c the call of the request msg, its params read. It fills c in place: a
// call is about a kilobyte, which a returned value would have the plugin copy once more
// per request.
func (c *call) read(msg *jsonrpc.Message, refs *[]wire.Ref) {
	*c = call{msg: *msg, refs: refs}
	if len(msg.Params) == 0 || msg.Params[0] != '{' {
		return
	}
	p := &c.p
	for m := jsonrpc.NewMembers(msg.Params); m.Next(); {
		var dst *gjson.Result
		switch m.Key {
		case "uri":
			dst = &p.uri
		case "cursor":
			dst = &p.cursor
		case "name":
			dst = &p.name
		case "protocolVersion":
			dst = &p.protocolVersion
		case "version":
			dst = &p.version
		case "query":
			dst = &p.query
		case "limit":
			dst = &p.limit
		case "arguments":
			dst = &p.arguments
		case "ref":
			dst = &p.ref
		case "argument":
			dst = &p.argument
		case "context":
			dst = &p.context
		case "_meta":
			dst = &p.meta
		default:
			continue
		}
		if !dst.Exists() {
			*dst = jsonrpc.Value(m.Value)
		}
	}
	if p.meta.IsObject() {
		for m := jsonrpc.NewMembers(unsafeBytes(p.meta.Raw)); m.Next(); {
			switch {
			case m.Key == metaProtocolVersion && !p.metaVersion.Exists():
				p.metaVersion = jsonrpc.Value(m.Value)
			case m.Key == metaClientCapabilities && !p.metaCapabilities.Exists():
				p.metaCapabilities = jsonrpc.Value(m.Value)
			}
		}
	}
}

// splice records that the store object named by the reference field cell of the index p
// goes at the end of b, and returns b: the host puts the object's bytes there.
func (c *call) splice(b []byte, p *catalog.Pack, cell []byte) []byte {
	*c.refs = appendRef(*c.refs, len(b), p, cell)
	return b
}

// appendRef appends the reference of the object cell names (a reference field of the
// index p), or of each of its parts, one after another at the same offset
// (catalog.MaxPart); a packed object's names its pack (catalog.Pack.PackName) and offset.
func appendRef(refs []wire.Ref, at int, p *catalog.Pack, cell []byte) []wire.Ref {
	ref := func(r catalog.Ref) wire.Ref {
		w := wire.Ref{At: at, Size: r.Size, Name: r.Name}
		if r.Packed {
			w.Pack, w.Offset = p.PackName(r.Pack), r.Offset
		}
		return w
	}
	// One reference, "SIZE NAME [PACK OFFSET]", is at most 16+1+64+1+10+1+16 bytes; two
	// parts are more.
	if len(cell) <= 109 {
		return append(refs, ref(catalog.RefOf(cell)))
	}
	catalog.EachRef(cell, func(r catalog.Ref) { refs = append(refs, ref(r)) })
	return refs
}

// handler appends the members of a result object (without the braces) to b.
type handler func(s *Server, c *call, b []byte) ([]byte, *jsonrpc.Error)

// method describes one MCP method this server answers.
type method struct {
	handle handler
	// cacheable results carry ttlMs and cacheScope in the modern era (PROTOCOL.md#caching).
	cacheable bool
	// legacyOnly methods do not exist in the modern era.
	legacyOnly bool
	// fallback methods exist only when the options offer them: fallbackTools or
	// fallbackPrompts (wire.Options.Tools, wire.Options.Prompts).
	fallback int
	// byURI methods look a skill or resource up by params.uri: what the latest skills
	// miss, the older versions may have (versions.go).
	byURI bool
}

// Fallbacks a method may need (method.fallback).
const (
	fallbackTools = 1 + iota
	fallbackPrompts
)

// offers reports whether the options offer method m.
func (s *Server) offers(m method) bool {
	switch m.fallback {
	case fallbackTools:
		return s.opt.Tools
	case fallbackPrompts:
		return s.opt.Prompts
	}
	return true
}

// lookup returns the method named name. A switch, not a map: inside the plugin a string
// switch is a few comparisons where a map lookup hashes the name.
func lookup(name string) (method, bool) {
	switch name {
	case "initialize":
		return method{handle: (*Server).initialize, legacyOnly: true}, true
	case "server/discover":
		return method{handle: (*Server).discover, cacheable: true}, true
	case "ping":
		return method{handle: ping, legacyOnly: true}, true
	case "resources/list":
		return method{handle: (*Server).resourcesList, cacheable: true}, true
	case "resources/read":
		return method{handle: (*Server).resourcesRead, cacheable: true, byURI: true}, true
	case "resources/templates/list":
		return method{handle: (*Server).templatesList, cacheable: true}, true
	case "resources/directory/read":
		return method{handle: (*Server).directoryRead, cacheable: true, byURI: true}, true
	case "skills/list":
		return method{handle: (*Server).skillsList, cacheable: true}, true
	case "skills/get":
		return method{handle: (*Server).skillsGet, cacheable: true, byURI: true}, true
	case "tools/list":
		return method{handle: (*Server).toolsList, cacheable: true, fallback: fallbackTools}, true
	case "tools/call":
		return method{handle: (*Server).toolsCall, fallback: fallbackTools}, true
	case "prompts/list":
		return method{handle: (*Server).promptsList, cacheable: true, fallback: fallbackPrompts}, true
	case "prompts/get":
		return method{handle: (*Server).promptsGet, fallback: fallbackPrompts}, true
	case "completion/complete":
		return method{handle: (*Server).complete}, true
	}
	return method{}, false
}

// Cache hints of the modern era. The catalog only changes with a new deployment, so a
// shared cache may keep any answer for a while; a catalog the host watches and replaces
// (wire.Options.ListChanged) may change at any time, so its answers are stale at once.
const (
	cacheTTLMillis        = 300000
	cacheTTLMillisWatched = 0
	cacheScope            = "public"
)

// era works out which protocol revision a request is under. legacy is the revision the
// transport knows (HTTP header or stdio connection). A request is in the modern era when
// params._meta names a protocol version, or when forceModern is set (HTTP: the
// MCP-Protocol-Version header names a non-legacy revision). A modern request must carry
// _meta with a string protocolVersion and an object clientCapabilities, else -32602.
// Whether the version is supported is checked separately (supported), because HTTP
// compares the header with _meta first.
func era(c *call, legacy string, forceModern bool) (version string, modern bool, err *jsonrpc.Error) {
	v := c.p.metaVersion
	if !v.Exists() && !forceModern {
		return legacy, false, nil
	}
	switch {
	case !c.p.meta.IsObject():
		return "", true, invalidParams("Invalid request: params._meta is required in protocol version " + V20260728 +
			" (and whenever MCP-Protocol-Version names no 2024 or 2025 revision)")
	case v.Type != gjson.String:
		return "", true, invalidParams("Invalid request: params._meta[\"" + metaProtocolVersion + "\"] must be a string")
	case !c.p.metaCapabilities.IsObject():
		return "", true, invalidParams("Invalid request: params._meta[\"" + metaClientCapabilities + "\"] must be an object")
	}
	return v.Str, true, nil
}

// supported returns -32022 unless version is a modern revision this server speaks.
func supported(version string) *jsonrpc.Error {
	if isModern(version) {
		return nil
	}
	data := make([]byte, 0, 96)
	data = append(data, `{"supported":`+supportedModernJSON+`,"requested":`...)
	data = jsonrpc.AppendString(data, clip(version))
	data = append(data, '}')
	return jsonrpc.NewError(codeUnsupportedVersion, "Unsupported protocol version: "+clip(version)).WithData(data)
}

// codeUnsupportedVersion is the modern era's error for an unsupported protocol version.
const codeUnsupportedVersion = -32022

// supportedModernJSON lists the revisions a modern request may name. server/discover
// reports the same list, so a client never picks a version that -32022 would refuse.
const supportedModernJSON = `["` + V20260728 + `"]`

// answer appends the response to one request. It never fails: errors become JSON-RPC
// error responses, and code reports the error code (0 for a result) so that transports
// can pick a status.
func (s *Server) answer(dst []byte, c *call) (out []byte, code int64) {
	m, ok := lookup(c.msg.Method)
	if !ok || (c.modern && m.legacyOnly) || !s.offers(m) {
		return jsonrpc.AppendError(dst, c.msg.ID, methodNotFound(c.msg.Method)), jsonrpc.CodeMethodNotFound
	}
	mark, marked := len(dst), len(*c.refs)
	dst = jsonrpc.AppendResultStart(dst, c.msg.ID)
	dst = append(dst, '{')
	start := len(dst)
	var err *jsonrpc.Error
	if h := s.history; h != nil && m.byURI && c.p.uri.Type == gjson.String && strings.Contains(c.p.uri.Str, "/"+catalog.VersionMark) {
		// A version path is never a latest skill's (catalog.VersionMark is reserved in a
		// catalog that keeps history): ask the older versions at once.
		out, err = m.handle(h, c, dst)
	} else {
		out, err = m.handle(s, c, dst)
		if c.missed && s.unlisted != nil {
			out, err = s.unlisted.retry(m, c, dst, out, err, marked)
		}
		if c.missed && s.history != nil && m.byURI && c.p.uri.Exists() {
			out, err = s.history.retry(m, c, dst, out, err, marked)
		}
	}
	if err != nil {
		// Handlers return nil with an error: the error replaces what was started on dst,
		// whose bytes before mark (earlier answers of a batch) are intact.
		*c.refs = (*c.refs)[:marked]
		return jsonrpc.AppendError(dst[:mark], c.msg.ID, err), err.Code
	}
	dst = out
	if c.modern {
		if len(dst) > start {
			dst = append(dst, ',')
		}
		dst = append(dst, `"resultType":"complete"`...)
		if m.cacheable {
			ttl := int64(cacheTTLMillis)
			if s.opt.ListChanged {
				ttl = cacheTTLMillisWatched
			}
			if c.bounded {
				// An answer to a caller is kept no longer than their credential holds,
				// counted from the last time a host may give it again (replayHeld after
				// now): so it says a minute less, and replays go on for their minute
				// (replayUntil) rather than stop when the credential nears its end.
				ttl = min(ttl, max(c.lifetime-int64(replayHeld/time.Second), 0)*1000)
			}
			c.fresh = (ttl + 999) / 1000
			dst = append(dst, `,"ttlMs":`...)
			dst = strconv.AppendInt(dst, ttl, 10)
			dst = append(dst, `,"cacheScope":"`...)
			dst = append(dst, s.cacheScopeOf()...)
			dst = append(dst, '"')
		}
	}
	return append(dst, "}}"...), 0
}

// ping answers with an empty result. The modern era has no ping: a stateless server has
// no connection to keep alive.
func ping(_ *Server, _ *call, b []byte) ([]byte, *jsonrpc.Error) { return b, nil }

func methodNotFound(name string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: "+clip(name))
}

// invalidParams returns -32602 with message msg.
func invalidParams(msg string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, msg)
}
