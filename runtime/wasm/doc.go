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
package wasm
