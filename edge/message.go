package edge

import (
	"strconv"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// HandleMessage answers one JSON-RPC message (or batch) received over a stream transport
// such as stdio. version is the protocol version negotiated earlier on this connection
// ("" before initialize); the result carries the version to remember for the next
// message. out is nil when nothing is to be sent (notifications, responses); refs name
// the store objects the host splices into it (wire.Ref). Modern-era messages are
// recognised by their _meta and answered statelessly.
func (s *Server) HandleMessage(version string, msg []byte) (out []byte, refs []wire.Ref, negotiated string) {
	s = s.local()
	rb := new(reply)
	out, negotiated = s.handleMessage(rb, version, msg)
	if out == nil {
		return nil, nil, negotiated
	}
	return out, rb.refs, negotiated
}

// AppendRPC answers the message of an rpc input frame like HandleMessage and appends the
// rpc output frame (wire.RPC: the version to remember, the references, the reply) to dst.
// version holds no LF (it comes from an input frame's first line). It answers into a
// buffer reused across calls; the one copy is into dst.
func (s *Server) AppendRPC(dst []byte, version string, msg []byte) []byte {
	s = s.local()
	sc := getScratch()
	out, negotiated := s.handleMessage(sc, version, msg)
	refs := sc.refs
	if out == nil {
		refs = nil
	}
	dst = wire.AppendRPC(dst, &wire.RPC{Version: negotiated, Refs: refs, Message: out})
	sc.keep(out, sc.refs)
	return dst
}

// handleMessage answers msg, building the reply on rb (references in rb.refs).
func (s *Server) handleMessage(rb *reply, version string, msg []byte) (out []byte, negotiated string) {
	buf := rb.b[:0]
	rb.refs = rb.refs[:0]
	legacy := version
	if legacy == "" {
		legacy = newestLegacy
	}
	if jsonrpc.IsBatch(msg) {
		if version != V20250326 {
			return jsonrpc.AppendError(nil, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
				"JSON-RPC batches are only allowed in protocol version 2025-03-26")), version
		}
		elems, err := jsonrpc.SplitBatch(msg, wire.MaxBatch)
		if err != nil {
			return jsonrpc.AppendError(buf, nil, err), version
		}
		if out = s.batch(buf, rb, elems, legacy); len(out) == 0 {
			out = nil
		}
		return out, version
	}
	m, perr := jsonrpc.Parse(msg)
	if perr != nil {
		return jsonrpc.AppendError(nil, m.ID, perr), version
	}
	if m.Kind != jsonrpc.KindRequest {
		return nil, version
	}
	out, modern, code := s.request(buf, rb, &m, legacy)
	if m.Method == "initialize" && !modern && code == 0 {
		version = negotiate(rb.c.p.protocolVersion.Str) // the string initialize answered
	}
	return out, version
}

// request answers one parsed request on a stream transport, under the connection's legacy
// version unless the message is modern.
func (s *Server) request(dst []byte, rb *reply, m *jsonrpc.Message, legacy string) (out []byte, modern bool, code int64) {
	c := &rb.c
	c.read(m, &rb.refs)
	version, modern, err := era(c, legacy, false)
	if err == nil && modern {
		err = supported(version)
	}
	if err != nil {
		return jsonrpc.AppendError(dst, m.ID, err), modern, err.Code
	}
	c.version, c.modern = version, modern
	out, code = s.answer(dst, c)
	return out, modern, code
}

// batch answers the elements of a JSON-RPC batch (2025-03-26 only; at most wire.MaxBatch of
// them, SplitBatch checks): one reply element per request, in order; empty when the batch
// held only notifications and responses. initialize must not be batched. After the first
// answer, the answers may add wire.BatchMaxBytes bytes, built and spliced (limits.go).
func (s *Server) batch(dst []byte, rb *reply, elems [][]byte, legacy string) []byte {
	refs := &rb.refs
	start := len(dst)
	dst = append(dst, '[')
	n := 0
	var spent int64 // bytes of the answers after the first, built and spliced
	for _, e := range elems {
		m, perr := jsonrpc.Parse(e)
		if perr == nil && m.Kind != jsonrpc.KindRequest {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		mark, marked := len(dst), len(*refs)
		switch {
		case perr != nil:
			dst = jsonrpc.AppendError(dst, m.ID, perr)
		case m.Method == "initialize":
			dst = jsonrpc.AppendError(dst, m.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "initialize must not be part of a JSON-RPC batch"))
		default:
			dst, _, _ = s.request(dst, rb, &m, legacy)
		}
		if n == 1 {
			continue // the first answer goes whole
		}
		size := int64(len(dst) - mark)
		for _, r := range (*refs)[marked:] {
			size += r.Size
		}
		if spent+size > wire.BatchMaxBytes {
			*refs = (*refs)[:marked]
			dst = jsonrpc.AppendError(dst[:mark], m.ID, errBatchTooLarge)
			size = int64(len(dst) - mark)
		}
		spent += size
	}
	if n == 0 {
		return dst[:start]
	}
	return append(dst, ']')
}

// errBatchTooLarge replaces an answer that would take a batch past its budget.
var errBatchTooLarge = jsonrpc.NewError(jsonrpc.CodeInternalError,
	"Response too large: after the first, the answers to one batch may carry at most "+
		strconv.Itoa(wire.BatchMaxBytes>>20)+" MiB; send this request on its own")
