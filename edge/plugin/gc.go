//go:build wasip1

package main

import "runtime"

// The plugin finishes its collections at the end of a call (collectIfDue): once what it
// allocated since the last collection nears what starts one, it collects before it returns.
//
// Why does the plugin collect at the end of a call? Inside wasm the Go runtime is
// cooperative: a cycle the collector starts in the background advances only as the program
// allocates (mark assists) or blocks, and a reactor's answers do neither. Loading the index
// (megabytes) started a cycle that the answers, which allocate nothing, never finished, so
// every answer ran with the write barrier on: each pointer stored went through the
// barrier's buffer, and a cache-cold read of a 10,000-file catalog took twice as long as
// with the cycle finished (BENCHMARKS.md, "Why the plugin collects at the end of a call").
// The more pointers an answer stores, the more a stalled cycle costs it: that is how the
// facts of answers came to cost a fifth of a read. runtime.GC at the end of a call finishes
// a cycle in one piece, between two answers, and leaves the barrier off until the next.
// The collector's own trigger stays on: a call that allocates a great deal (a batch of
// large answers) is collected while it runs, as the memory limit a host sets (GOMEMLIMIT)
// requires; the budget of the end of a call is read from the collector's own heap goal, so
// that it comes first whatever GOGC and the memory limit are. Rejected: the collector's trigger off, with collections only at
// the end of a call: within one call, garbage then grew until the memory limit started a
// cycle, which the collector's CPU limit can slow until the instance runs out of memory
// (TestMinMemoryLimitWorstRequests crashed so, once in a few runs on a loaded machine).
// The costs: a look at the memory statistics at every call that loads or configures, and
// at every gcEvery-th answer (amortized, under a tenth of a microsecond an answer); a cycle
// a call left running may run on for up to gcEvery answers; a collection the end of a call
// makes comes a little before the collector's own would; and while runtime.GC blocks, the
// runtime's scavenger runs and may sleep on a timer, after which the runtime polls a clock
// that has expired (WASI poll_oneoff, timeout 0) at each start of the world, which a host
// must answer (the JavaScript hosts' own poll_oneoff, build/host/poll.mjs, says why).
var gc = struct {
	stats runtime.MemStats
	// allocated is what the plugin had allocated, in all, at the end of the last
	// collection; budget is how much more it may allocate before the end of a call collects
	// (collectIfDue: less than the collector lets it before a cycle of its own).
	allocated, budget uint64
	calls             uint64 // calls of collectIfDue
}{budget: 1 << 20} // before the first collection: under the runtime's least heap goal, 4 MiB

// gcEvery is how many answers pass between two looks at what the plugin allocated: a look
// (runtime.ReadMemStats) costs inside wasm about half of a cache-cold read's answer, and
// answers allocate next to nothing.
const gcEvery = 64

// collectIfDue collects when what the plugin allocated since the last collection has
// reached the budget. It looks every time when each is set (load, configure, keys: calls
// that allocate as much as they keep), otherwise at every gcEvery-th call. Exports call it
// last, after their output is made.
func collectIfDue(each bool) {
	if gc.calls++; !each && gc.calls%gcEvery != 0 {
		return
	}
	runtime.ReadMemStats(&gc.stats)
	if gc.stats.TotalAlloc-gc.allocated < gc.budget {
		return
	}
	runtime.GC()
	runtime.ReadMemStats(&gc.stats)
	gc.allocated = gc.stats.TotalAlloc
	// The collector starts its next cycle no sooner than 45/64 of the way from what is
	// live to its heap goal (NextGC, which GOGC and the memory limit both set): the budget
	// is 5/8 of that way, so the end of a call always collects first.
	gc.budget = 0
	if next, live := gc.stats.NextGC, gc.stats.HeapAlloc; next > live {
		gc.budget = (next - live) / 8 * 5
	}
}
