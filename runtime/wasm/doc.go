// Package wasm is the harness's wasm machinery: it runs plugin.wasm (edge/plugin) with
// wazero. It compiles the module once (with wazero's on-disk compilation cache, and the
// per-request deadline instrumented into it: deadline.go), implements the host side of
// both plugin ABIs (the raw one it serves with, instance.go, and the Extism one any Extism
// SDK uses, extism.go), gives each instance a linear memory outside the Go heap
// (linearmem*.go), and lends instances that each hold a loaded catalog index from a Pool,
// one request at a time, under a per-instance memory cap and a per-request deadline. An
// instance that fails is discarded and replaced; only the request it was serving sees the
// error.
//
// It owns the instances and what only a host can enforce on them, and answers request
// frames (edge/wire), nothing more. It may not touch sockets or stdio, keep answers to give
// again, or splice contents into them (runtime/front does), nor read a content store's
// files (runtime/store does; a pool is given its store), nor fetch the key sets the plugin
// wants (runtime/front does; a pool is given their source, Keys, and gives every instance
// the sets in hand, and after a 401 that wants one, has it fetched and asks again). It imports the contract
// (edge/wire) and the catalog reader, never the server (edge) outside tests. Every
// protocol decision is the plugin's.
//
// Why does a first start not answer through wazero's interpreter? Tried and reverted (the
// commits are named in BENCHMARKS.md, "Why not start through the interpreter", with the
// figures). The interpreter takes plugin.wasm several times sooner than a cold compilation
// to machine code does, and answers initialize ten or more times slower; so serve and
// stdio answered through it when the compilation cache did not hold the module (a mark
// Compile left in the cache), compiled in the background and swapped the machine code's
// pool in when it was done. On a one-skill folder the first answer of a stdio launch with
// empty caches came about four times sooner. But the mark is written only when the
// background compilation ends, and the start-up benchmark, like any client that stops a
// server within a second or two, ends every process before that, so every later start
// interpreted again, two to three times slower than loading warm machine code, and the
// interpreter loads a large index slowly (serve OUT of 1,000 skills took about seven times
// as long). The first launch on the ~10 MB catalog was no faster. What would make it work:
// knowing whether wazero's cache holds the module without compiling (wazero 1.12 does not
// say), and waiting for the compilation at exit the first time; either is a change of its
// own.
package wasm
