package edge

import "github.com/skilledge/skilledge/edge/wire"

// ServeHTTP answers one HTTP request. It never fails: every problem becomes a status code
// and, on the MCP endpoint, a JSON-RPC error body.
func (s *Server) ServeHTTP(r *wire.Request) *wire.Response {
	return &wire.Response{Status: 501, Body: []byte("not implemented yet\n")}
}

// HandleMessage answers one JSON-RPC message (or batch) received over a stream transport
// such as stdio. version is the protocol version negotiated earlier on this connection
// ("" before initialize); the result carries the version to remember for the next
// message. reply is nil when nothing is to be sent (notifications, responses).
func (s *Server) HandleMessage(version string, msg []byte) (reply []byte, negotiated string) {
	return nil, version
}
