//go:build wasip1

package main

import (
	"runtime"
	"runtime/debug"
)

// The plugin runs its own collections, at the end of a call, never in the background: the
// collector's own trigger is off (GOGC=off), and collectIfDue collects once what the plugin
// allocated since the last collection reaches a budget.
//
// Why does the plugin collect at the end of a call, with the collector's own trigger off?
// Inside wasm the Go runtime is cooperative: a cycle the collector starts in the
// background advances only as the program allocates (mark assists) or blocks, and a
// reactor's answers do neither. Loading the index (megabytes) started a cycle that the
// answers, which allocate nothing, never finished, so every answer ran with the write
// barrier on: each pointer stored went through the barrier's buffer, and a cache-cold read
// of a 10,000-file catalog took twice as long as with the cycle finished (BENCHMARKS.md,
// "Why the plugin collects at the end of a call"). The more pointers an answer stores, the
// more a stalled cycle costs it: that is how the facts of answers came to cost a fifth of
// a read. runtime.GC finishes a cycle in one piece, between two answers, and leaves the
// barrier off until the next. The memory limit a host sets (GOMEMLIMIT) still starts a
// cycle of the collector's own when memory nears it; allocation, which is what brings
// memory there, drives that cycle on, and the budget shrinks as memory fills so that
// collectIfDue comes first. The costs: a look at the memory statistics at every call
// that loads or configures, and at every gcEvery-th answer (amortized, under a tenth of a
// microsecond an answer), and garbage of up to gcEvery answers beyond the budget.
var gc = struct {
	stats runtime.MemStats
	// allocated is what the plugin had allocated, in all, at the end of the last
	// collection; budget is how much more it may allocate before the next: what the last
	// left live, as the collector's default (GOGC=100) would allow, at least minGCBudget,
	// and less as the memory limit nears.
	allocated, budget uint64
	calls             uint64 // calls of collectIfDue
}{budget: minGCBudget}

// minGCBudget is the least a collection lets the plugin allocate before the next: the
// runtime's own least heap goal.
const minGCBudget = 4 << 20

// minGCRoom is the least budget when the memory limit is near: collections come closer
// together as memory fills, but not at every call.
const minGCRoom = 256 << 10

// gcEvery is how many answers pass between two looks at what the plugin allocated: a look
// (runtime.ReadMemStats) costs inside wasm about half of a cache-cold read's answer, and
// answers allocate next to nothing.
const gcEvery = 64

func init() { debug.SetGCPercent(-1) }

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
	live := gc.stats.HeapAlloc
	gc.budget = max(live, minGCBudget)
	if limit := debug.SetMemoryLimit(-1); limit > 0 && uint64(limit) > live {
		gc.budget = max(min(gc.budget, (uint64(limit)-live)/4), minGCRoom)
	}
}
