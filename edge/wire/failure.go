package wire

import (
	"strconv"

	"github.com/skilledge/skilledge/jsonrpc"
)

// A host's own answers: what a host says when the plugin cannot answer. Every other answer
// is the plugin's. All have one shape, on every host, so a client sees the same failure
// whichever host it reached: the status, and a JSON-RPC error -32603 (Internal error) with
// id null whose message is "Internal error: " and the failure's reason and whose data is
// {"failure": NAME}, the failure's Name (by which a client, such as `skilledge verify`,
// tells one failure from another without reading the message), with the fields
//
//	Content-Type: application/json
//	Cache-Control: no-store
//	X-Content-Type-Options: nosniff
//
// (and Retry-After: 1 for FailBusy). Over a stream transport the host replies with the
// same error, echoing the request's id when it is a string or a number (FailureReply).
// The reason names the kind of failure only, never what the request or the store said:
// what went wrong in detail goes to the host's log.

// Failure is a kind of failure a host answers on its own.
type Failure struct {
	Name   string // how the vectors name it (testdata/failures.json)
	Status int
	Reason string
}

// The failures. A host answers FailInstance when the plugin trapped (a panic, running out
// of memory) or gave a response frame that does not parse (it then discards the instance:
// only this request fails); FailTimeout when it stopped the plugin at its deadline;
// FailBusy when no instance was free in time; FailStore when an object the answer names is
// missing from its store or not of the size named (it checks every object before the first
// byte of the answer goes out, so a client never gets a truncated body); FailBody when it
// could not read the request's body; FailAuth when the auth option it was given cannot be
// used (the plugin refuses it, or it is not a JSON object); and StartFailure when the
// plugin could not start for any other reason (other options it refuses, an index it
// refuses).
//
// FailAuth says nothing of why: the plugin's reason quotes the option's values (a key set
// URL and its query, an issuer, a header's name), and an auth option is the operator's
// secret even when it is wrong. The reason goes to the host's log only. A host that is a
// process (serve, the Deno, Bun and Node entries) refuses to start instead, saying why on
// its operator's terminal, and never answers either.
var (
	FailInstance = Failure{"instance", 500, "the server instance failed"}
	FailTimeout  = Failure{"timeout", 500, "request timed out"}
	FailBusy     = Failure{"busy", 503, "server busy, retry later"}
	FailStore    = Failure{"store", 500, "the server's content store is incomplete or damaged"}
	FailBody     = Failure{"body", 400, "could not read the request body"}
	FailOther    = Failure{"other", 500, "the server could not handle the request"}
	FailAuth     = Failure{"auth", 500, "the server's auth option is invalid; see its log"}
)

// Failures lists every fixed Failure, for the vectors.
var Failures = []Failure{FailInstance, FailTimeout, FailBusy, FailStore, FailBody, FailOther, FailAuth}

// StartFailure is the failure of a plugin that did not start, saying why (the plugin's
// own error: it names the option or the index problem, never a request's contents). Not
// for a refused auth option, whose reason quotes it: that is FailAuth.
func StartFailure(why string) Failure {
	return Failure{"start", 500, "the plugin did not start: " + why}
}

// Response is f as an HTTP response frame's parts.
func (f Failure) Response() Response {
	h := Header{
		{Name: "Content-Type", Value: "application/json"},
		{Name: "Cache-Control", Value: "no-store"},
		{Name: "X-Content-Type-Options", Value: "nosniff"},
	}
	if f.Status == 503 {
		h = append(h, Field{Name: "Retry-After", Value: "1"})
	}
	return Response{Status: f.Status, Header: h, Body: f.Reply(nil)}
}

// Reply is the JSON-RPC error of f answering the request whose raw JSON id is id (nil for
// null).
func (f Failure) Reply(id []byte) []byte {
	if id == nil {
		id = []byte("null")
	}
	b := make([]byte, 0, 128+len(id)+len(f.Reason)+len(f.Name))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(jsonrpc.CodeInternalError), 10)
	b = append(b, `,"message":`...)
	b = jsonrpc.AppendString(b, "Internal error: "+f.Reason)
	b = append(b, `,"data":{"failure":`...)
	b = jsonrpc.AppendString(b, f.Name)
	return append(b, "}}}"...)
}
