package auth

import "errors"

// ErrInvalid is wrapped by every error of a credential that does not hold.
var ErrInvalid = errors.New("invalid credential")

// ErrUnknownKey is wrapped (with ErrInvalid) by the error of a token signed with a kid
// the key set does not hold: the host may fetch the key set again (the issuer may have
// rotated its keys), at most as often as it allows.
var ErrUnknownKey = errors.New("no key of the key set has the token's kid")

// invalid wraps ErrInvalid with a reason.
type invalid struct {
	reason string
	also   error
}

func (e *invalid) Error() string { return "invalid credential: " + e.reason }

func (e *invalid) Unwrap() []error {
	if e.also != nil {
		return []error{ErrInvalid, e.also}
	}
	return []error{ErrInvalid}
}

func fail(reason string) error { return &invalid{reason: reason} }
