package edge

import (
	"bytes"
	"unsafe"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// replayOf is the wire.Replay of answer, the response body to the single request whose body is
// body and id id (a slice of body) with JSON-RPC outcome code; the zero wire.Replay when it may
// not be replayed. AnswerAt counts from the start of answer.
func replayOf(body, id, answer []byte, code int64, maxBody int) wire.Replay {
	if code != 0 || wire.ReplayableID(id) == 0 {
		return wire.Replay{}
	}
	at := offsetIn(body, id)
	echo := len(jsonrpc.ResponsePrefix)
	if at < 0 || len(answer) < echo+len(id) || string(answer[:echo]) != jsonrpc.ResponsePrefix || !bytes.Equal(answer[echo:echo+len(id)], id) {
		return wire.Replay{}
	}
	return wire.Replay{IDAt: at, IDLen: len(id), AnswerAt: echo, MaxBody: maxBody}
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
