package front

import (
	"errors"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// failureOf is the host's answer to a request that failed with err (wire.Failure): the
// pool's errors say what went wrong, the contract what to answer.
func failureOf(err error) wire.Failure {
	switch {
	case errors.Is(err, wasm.ErrTimeout):
		return wire.FailTimeout
	case errors.Is(err, wasm.ErrBusy):
		return wire.FailBusy
	case errors.Is(err, wasm.ErrInstance):
		return wire.FailInstance
	case errors.Is(err, wire.ErrObject):
		return wire.FailStore
	}
	return wire.FailOther
}
