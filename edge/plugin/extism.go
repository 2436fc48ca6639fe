//go:build wasip1

package main

import "github.com/extism/go-pdk"

// The Extism ABI: what any Extism host SDK calls. See the package comment in main.go.

//go:wasmexport load
func extismLoad() int32 {
	// pdk.Input returns a fresh copy of the host's input, which the plugin may keep.
	err := loadPack(pdk.Input())
	if err == nil {
		objects.retain()
	}
	collectIfDue(true)
	return extismResult(err)
}

//go:wasmexport configure
func extismConfigure() int32 {
	err := configure(pdk.Input())
	collectIfDue(true)
	return extismResult(err)
}

//go:wasmexport put
func extismPut() int32 {
	err := objects.put(pack, pdk.Input())
	collectIfDue(false) // one call a file of the store: look as often as at answers
	return extismResult(err)
}

//go:wasmexport keys
func extismKeys() int32 {
	err := setKeys(pdk.Input())
	collectIfDue(true)
	return extismResult(err)
}

//go:wasmexport keys_wanted
func extismKeysWanted() int32 {
	if w := keysWanted(); len(w) > 0 {
		pdk.Output(w) // none: no output at all, which an Extism host reads as empty
	}
	return 0
}

//go:wasmexport http
func extismHTTP() int32 {
	out, _ := serveHTTP(nil, pdk.Input()) // an Extism host cannot ask how to replay
	pdk.Output(objects.resolveHTTP(out))
	collectIfDue(false)
	return 0
}

//go:wasmexport facts
func extismFacts() int32 {
	if b := lastFacts.Append(nil); len(b) > 0 {
		pdk.Output(b)
	}
	return 0
}

//go:wasmexport rpc
func extismRPC() int32 {
	out, err := handleRPC(nil, pdk.Input())
	if err == nil {
		out, err = objects.resolveRPC(out)
	}
	collectIfDue(false)
	if err != nil {
		return extismResult(err)
	}
	pdk.Output(out)
	return 0
}

func extismResult(err error) int32 {
	if err != nil {
		pdk.SetError(err)
		return 1
	}
	return 0
}
