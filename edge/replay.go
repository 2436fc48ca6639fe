package edge

import (
	"bytes"
	"unsafe"

	"github.com/skilledge/skilledge/jsonrpc"
)

// Replay says how a host may give an answer again without asking the server: the answer
// to a JSON-RPC request depends on the request frame alone (the server keeps no state
// between requests), and on the request's id only where the answer echoes it.
//
// The promise, for an answer AppendHTTP gave with Replay r (r.IDLen > 0): a request whose
// frame is byte for byte the one answered except that the id token (r.IDLen bytes at
// r.IDAt of the body) is replaced by a token t with ReplayableID(t) == ReplayableID of
// the original, and whose body is at most r.MaxBody bytes, gets the same response frame
// except that t stands at r.AnswerAt in place of the original token, so that every
// reference after it moves by len(t) - r.IDLen. Hosts that replay must therefore frame the
// same request as the same bytes every time (fields in a fixed order).
//
// Only answers to one JSON-RPC request with a result carry a Replay: errors, batches,
// notifications and every other route do not, so that nothing an error quotes from the
// request is ever replayed.
type Replay struct {
	// IDAt and IDLen place the id token in the request body.
	IDAt, IDLen int
	// AnswerAt places the echoed id in the response frame, counting from its first byte.
	AnswerAt int
	// MaxBody is the longest request body for which the promise holds (Options.MaxBody:
	// a longer one is refused with 413).
	MaxBody int
}

// Kinds of replayable ids (ReplayableID).
const (
	IDNumber = 'n'
	IDString = 's'
)

// maxReplayID is the longest id token an answer may be replayed for.
const maxReplayID = 64

// ReplayableID reports the kind of the id token t when an answer may be replayed for it:
// IDNumber for an integer of at most 15 digits without sign of zero or leading zeros
// (0, 7, -42), IDString for a string of at most 62 printable ASCII characters without
// '"' or '\' (no escapes), and 0 for any other token. Every such token is a valid
// JSON-RPC id that parses alone, so one may stand for another.
func ReplayableID(t []byte) byte {
	switch {
	case len(t) == 0 || len(t) > maxReplayID:
		return 0
	case t[0] == '"':
		if len(t) < 2 || t[len(t)-1] != '"' {
			return 0
		}
		for _, c := range t[1 : len(t)-1] {
			if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
				return 0
			}
		}
		return IDString
	}
	digits := t
	if t[0] == '-' {
		digits = t[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || digits[0] == '0' && (len(digits) > 1 || len(t) > 1) {
		return 0
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0
		}
	}
	return IDNumber
}

// replayOf is the Replay of answer, the response body to the single request whose body is
// body and id id (a slice of body) with JSON-RPC outcome code; the zero Replay when it may
// not be replayed. AnswerAt counts from the start of answer.
func replayOf(body, id, answer []byte, code int64, maxBody int) Replay {
	if code != 0 || ReplayableID(id) == 0 {
		return Replay{}
	}
	at := offsetIn(body, id)
	echo := len(jsonrpc.ResponsePrefix)
	if at < 0 || len(answer) < echo+len(id) || string(answer[:echo]) != jsonrpc.ResponsePrefix || !bytes.Equal(answer[echo:echo+len(id)], id) {
		return Replay{}
	}
	return Replay{IDAt: at, IDLen: len(id), AnswerAt: echo, MaxBody: maxBody}
}

// offsetIn returns where part starts in b, or -1 when part is not a slice of b.
func offsetIn(b, part []byte) int {
	if len(part) == 0 || len(b) == 0 {
		return -1
	}
	d := uintptr(unsafe.Pointer(unsafe.SliceData(part))) - uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if d > uintptr(len(b)-len(part)) || len(part) > len(b) {
		return -1
	}
	return int(d)
}
