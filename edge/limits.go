package edge

import (
	"unicode/utf8"

	"github.com/skilledge/skilledge/edge/wire"
)

// The bounds on the work of one request are the contract's (wire.MaxBatch,
// wire.BatchMaxBytes, wire.MaxEcho, wire.MaxReply): decided once, for the plugin and every
// host.

// clip returns s cut to at most wire.MaxEcho bytes, on a UTF-8 boundary, with "…" after it
// when something was cut: what an error message may quote of a request.
func clip(s string) string {
	if len(s) <= wire.MaxEcho {
		return s
	}
	n := wire.MaxEcho
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
