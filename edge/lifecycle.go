package edge

import (
	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// capabilities renders the server's capability declaration, the same in both eras
// (PROTOCOL.md#capabilities: the extension settings sit directly inside the extension
// object, and a server declaring the extension also declares resources). "skills" is the
// SEP-2076 primitive's capability, for the name-keyed generation of clients
// (PROTOCOL.md#sep-2076); "completions" is for the resource templates' arguments
// (PROTOCOL.md#templates). tools and prompts are declared only when the options offer them
// (PROTOCOL.md#fallbacks), and listChanged is true only when the host sends
// notifications/resources/list_changed and notifications/skills/list_changed as the catalog
// changes (wire.Options.ListChanged).
func capabilities(opt wire.Options, searchable bool) []byte {
	lc := `{"listChanged":false}`
	if opt.ListChanged {
		lc = `{"listChanged":true}`
	}
	b := []byte(`{"resources":`)
	if opt.ListChanged {
		b = append(b, lc...)
	} else {
		b = append(b, `{}`...)
	}
	b = append(b, `,"completions":{},"skills":`+lc...)
	if opt.Tools {
		b = append(b, `,"tools":`+lc...)
	}
	if opt.Prompts {
		b = append(b, `,"prompts":`+lc...)
	}
	b = append(b, `,"extensions":{"`+SkillsExtension+`":{"directoryRead":true`...)
	if searchable {
		b = append(b, `,"query":true`...) // skills/list {query} (search.go)
	}
	return append(b, `}}}`...)
}

// initialize answers the legacy handshake: echo the client's revision when we speak it,
// else offer the newest legacy one. See
// https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation
func (s *Server) initialize(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	v := c.p.protocolVersion
	if v.Type != gjson.String {
		return nil, invalidParams("initialize: params.protocolVersion must be a string")
	}
	b = append(b, `"protocolVersion":"`...)
	b = append(b, negotiate(v.Str)...)
	b = append(b, `","capabilities":`...)
	b = append(b, s.caps...)
	b = append(b, `,"serverInfo":`...)
	b = s.appendServerInfo(b)
	return s.appendInstructions(b), nil
}

// negotiate returns the revision initialize answers to a client that asked for requested.
func negotiate(requested string) string {
	if isLegacy(requested) {
		return requested
	}
	return newestLegacy
}

// discover answers server/discover (2026-07-28): the versions, capabilities and identity
// of this server, with no state created.
func (s *Server) discover(c *call, b []byte) ([]byte, *jsonrpc.Error) {
	b = append(b, `"supportedVersions":`+supportedModernJSON+`,"capabilities":`...)
	b = append(b, s.caps...)
	b = s.appendInstructions(b)
	b = append(b, `,"_meta":{"`+metaServerInfo+`":`...)
	b = s.appendServerInfo(b)
	return append(b, '}'), nil
}

func (s *Server) appendServerInfo(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = jsonrpc.AppendString(b, s.opt.Name)
	b = append(b, `,"version":`...)
	b = jsonrpc.AppendString(b, s.opt.Version)
	return append(b, '}')
}

func (s *Server) appendInstructions(b []byte) []byte {
	if s.opt.Instructions == "" {
		return b
	}
	b = append(b, `,"instructions":`...)
	return jsonrpc.AppendString(b, s.opt.Instructions)
}
