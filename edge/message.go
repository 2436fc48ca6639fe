package edge

import (
	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/jsonrpc"
)

// HandleMessage answers one JSON-RPC message (or batch) received over a stream transport
// such as stdio. version is the protocol version negotiated earlier on this connection
// ("" before initialize); the result carries the version to remember for the next
// message. reply is nil when nothing is to be sent (notifications, responses).
// Modern-era messages are recognised by their _meta and answered statelessly.
func (s *Server) HandleMessage(version string, msg []byte) (reply []byte, negotiated string) {
	return s.handleMessage(nil, version, msg)
}

// AppendMessage is HandleMessage appending the reply to dst, answering into a buffer reused
// across calls. reply is nil when nothing is to be sent; otherwise it is dst extended.
func (s *Server) AppendMessage(dst []byte, version string, msg []byte) (reply []byte, negotiated string) {
	sc := scratch.Get().(*[]byte)
	out, negotiated := s.handleMessage((*sc)[:0], version, msg)
	if out != nil {
		reply = append(dst, out...)
	}
	keep(sc, out)
	return reply, negotiated
}

func (s *Server) handleMessage(buf []byte, version string, msg []byte) (reply []byte, negotiated string) {
	legacy := version
	if legacy == "" {
		legacy = newestLegacy
	}
	if jsonrpc.IsBatch(msg) {
		if version != V20250326 {
			return jsonrpc.AppendError(nil, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
				"JSON-RPC batches are only allowed in protocol version 2025-03-26")), version
		}
		elems, err := jsonrpc.SplitBatch(msg)
		if err != nil {
			return jsonrpc.AppendError(buf, nil, err), version
		}
		if reply = s.batch(buf, elems, legacy); len(reply) == 0 {
			reply = nil
		}
		return reply, version
	}
	m, perr := jsonrpc.Parse(msg)
	if perr != nil {
		return jsonrpc.AppendError(nil, m.ID, perr), version
	}
	if m.Kind != jsonrpc.KindRequest {
		return nil, version
	}
	reply, modern, code := s.request(buf, &m, legacy)
	if m.Method == "initialize" && !modern && code == 0 {
		version = negotiate(gjson.GetBytes(m.Params, "protocolVersion").Str)
	}
	return reply, version
}

// request answers one parsed request on a stream transport, under the connection's legacy
// version unless the message is modern.
func (s *Server) request(dst []byte, m *jsonrpc.Message, legacy string) (out []byte, modern bool, code int64) {
	version, modern, err := era(m, legacy, false)
	if err == nil && modern {
		err = supported(version)
	}
	if err != nil {
		return jsonrpc.AppendError(dst, m.ID, err), modern, err.Code
	}
	c := call{msg: *m, version: version, modern: modern}
	out, code = s.answer(dst, &c)
	return out, modern, code
}

// batch answers the elements of a JSON-RPC batch (2025-03-26 only): one reply element per
// request, in order; empty when the batch held only notifications and responses.
// initialize must not be batched.
func (s *Server) batch(dst []byte, elems [][]byte, legacy string) []byte {
	start := len(dst)
	dst = append(dst, '[')
	n := 0
	for _, e := range elems {
		m, perr := jsonrpc.Parse(e)
		if perr == nil && m.Kind != jsonrpc.KindRequest {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		switch {
		case perr != nil:
			dst = jsonrpc.AppendError(dst, m.ID, perr)
		case m.Method == "initialize":
			dst = jsonrpc.AppendError(dst, m.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "initialize must not be part of a JSON-RPC batch"))
		default:
			dst, _, _ = s.request(dst, &m, legacy)
		}
	}
	if n == 0 {
		return dst[:start]
	}
	return append(dst, ']')
}
