//go:build wasip1 && skilledge_test

package main

// Exports for tests only, in a plugin built with -tags skilledge_test; the plugin a host
// runs has none of them.

// spins counts what skilledge_spin did, so that its loop is not optimized away.
var spins uint64

// skilledge_spin never returns: what a bug that loops forever looks like to a host. The
// harness must stop it at the request's deadline.
//
//go:wasmexport skilledge_spin
func rawSpin() {
	for {
		spins++
	}
}
