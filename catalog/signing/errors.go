package signing

import "errors"

var (
	// ErrMalformed is an envelope, statement or key that is not in its format.
	ErrMalformed = errors.New("signing: malformed")
	// ErrSignature is an envelope no signature of which the key verifies.
	ErrSignature = errors.New("signing: no signature verifies with the key")
	// ErrPayloadType is an envelope whose payload is not of the type expected.
	ErrPayloadType = errors.New("signing: unexpected payload type")
)
