package edge

import (
	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/jsonrpc"
)

// call is one JSON-RPC request being answered.
type call struct {
	msg     jsonrpc.Message
	version string // the protocol revision this request is answered under
	modern  bool   // the 2026-07-28 era: version came from params._meta
}

// param returns params.<path> (a gjson path).
func (c *call) param(path string) gjson.Result { return gjson.GetBytes(c.msg.Params, path) }

// handler appends the members of a result object (without the braces) to b.
type handler func(s *Server, c *call, b []byte) ([]byte, *jsonrpc.Error)

// method describes one MCP method this server answers.
type method struct {
	handle handler
	// cacheable results carry ttlMs and cacheScope in the modern era (SPEC §3).
	cacheable bool
	// legacyOnly methods do not exist in the modern era.
	legacyOnly bool
}

var methods map[string]method

func init() {
	methods = map[string]method{
		"initialize":               {handle: (*Server).initialize, legacyOnly: true},
		"server/discover":          {handle: (*Server).discover},
		"ping":                     {handle: func(*Server, *call, []byte) ([]byte, *jsonrpc.Error) { return nil, nil }},
		"resources/list":           {handle: (*Server).resourcesList, cacheable: true},
		"resources/read":           {handle: (*Server).resourcesRead, cacheable: true},
		"resources/templates/list": {handle: (*Server).templatesList, cacheable: true},
		"resources/directory/read": {handle: (*Server).directoryRead, cacheable: true},
		"skills/list":              {handle: (*Server).skillsList, cacheable: true},
		"skills/get":               {handle: (*Server).skillsGet, cacheable: true},
	}
}

// Cache hints of the modern era. The catalog only changes with a new deployment, so a
// shared cache may keep any answer for a while.
const (
	cacheTTLMillis = "300000"
	cacheScope     = "public"
)

// era works out which protocol revision a request is under. legacy is the revision known
// from the transport (HTTP header or the stdio connection). A request whose params._meta
// names a protocol version is in the modern era; an unsupported one is error -32022.
func era(msg *jsonrpc.Message, legacy string) (version string, modern bool, err *jsonrpc.Error) {
	v := gjson.GetBytes(msg.Params, `_meta.io\.modelcontextprotocol/protocolVersion`)
	if !v.Exists() {
		return legacy, false, nil
	}
	if v.Type != gjson.String || !isModern(v.Str) {
		return "", true, unsupportedVersion(v.Raw)
	}
	return v.Str, true, nil
}

// ErrUnsupportedVersion is the modern era's error for an unsupported protocol version.
const codeUnsupportedVersion = -32022

func unsupportedVersion(requestedRaw string) *jsonrpc.Error {
	data := make([]byte, 0, 96)
	data = append(data, `{"supported":`...)
	data = append(data, supportedModernJSON...)
	data = append(data, `,"requested":`...)
	data = append(data, requestedRaw...)
	data = append(data, '}')
	return jsonrpc.NewError(codeUnsupportedVersion, "Unsupported protocol version").WithData(data)
}

const supportedModernJSON = `["2026-07-28"]`

// answer appends the response to one request. It never fails: errors become JSON-RPC
// error responses.
func (s *Server) answer(dst []byte, c *call) []byte {
	m, ok := methods[c.msg.Method]
	if !ok || (c.modern && m.legacyOnly) {
		return jsonrpc.AppendError(dst, c.msg.ID, methodNotFound(c.msg.Method))
	}
	mark := len(dst)
	dst = jsonrpc.AppendResultStart(dst, c.msg.ID)
	dst = append(dst, '{')
	start := len(dst)
	dst, err := m.handle(s, c, dst)
	if err != nil {
		return jsonrpc.AppendError(dst[:mark], c.msg.ID, err)
	}
	if c.modern {
		if len(dst) > start {
			dst = append(dst, ',')
		}
		dst = append(dst, `"resultType":"complete"`...)
		if m.cacheable {
			dst = append(dst, `,"ttlMs":`+cacheTTLMillis+`,"cacheScope":"`+cacheScope+`"`...)
		}
	}
	return append(dst, "}}"...)
}

func methodNotFound(name string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: "+name)
}

// invalidParams returns -32602 with message msg.
func invalidParams(msg string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, msg)
}
