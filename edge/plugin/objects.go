package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"strconv"
	"strings"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
)

// objectSet is the content store of the self-contained (Extism) ABI: the objects a host
// gave with put, by name. It implements wire.Store.
//
// Why does the Extism ABI hold the objects itself (`put`), instead of a host function or
// WASI files? The README promises embedding in any Extism host with no custom host
// function, and an Extism host SDK gives the plugin nothing to splice with: its http
// export must return the whole answer. A host function would break that promise; WASI
// preopened directories work in some SDKs but not in browsers or Workers. So the host puts
// each file of the store, the plugin names it by its SHA-256 (and refuses bytes the index
// does not refer to), and http and rpc splice from what it holds. The costs: an Extism
// instance's memory grows with the catalog, and crypto/sha256 adds to plugin.wasm
// (BENCHMARKS.md, "Why the Extism ABI holds the objects").
type objectSet struct {
	byName map[string][]byte
	wanted map[string]catalog.ObjectUse // what the loaded index refers to; nil until needed
	of     *catalog.Pack                // the index wanted was computed for
}

var objects objectSet

// Object implements wire.Store; the error (a missingObject) names the missing object and
// what it holds.
func (o *objectSet) Object(name string) ([]byte, error) {
	if b, ok := o.byName[name]; ok {
		return b, nil
	}
	what := ""
	if pack != nil {
		if u, ok := o.uses(pack)[name]; ok {
			what = " (" + u.What + ")"
		}
	}
	return nil, missingObject("skilledge: store object " + name + what + " was not given to the plugin; " + putAdvice())
}

// putAdvice says which files a host puts: those of OUT/packs/ too when the loaded index's
// objects are packed.
func putAdvice() string {
	if pack != nil && len(pack.Packs()) > 0 {
		return "call put with every file of OUT/assets/" + catalog.StoreDir + "/ and OUT/packs/" + catalog.StoreDir + "/"
	}
	return "call put with every file of OUT/assets/" + catalog.StoreDir + "/"
}

// Packed implements wire.PackStore: the bytes of a packed object, sliced from its pack as
// put. They need no check of their own: put named the pack by its SHA-256, and the index
// (in the host's hands since load, as the pack's name and the object's place are) is
// what says where in it the object lies.
func (o *objectSet) Packed(r wire.Ref) ([]byte, error) { return wire.SliceOf(o, r) }

// missingObject is the error of an object a host did not put: its message says which and
// what to do, and it wraps fs.ErrNotExist (as wire.Store asks) without saying so.
type missingObject string

func (e missingObject) Error() string { return string(e) }
func (e missingObject) Unwrap() error { return fs.ErrNotExist }

// message is what err says to the embedder: a missingObject's own words, without the
// wrapping of wire.Objects.
func message(err error) string {
	var m missingObject
	if errors.As(err, &m) {
		return string(m)
	}
	return err.Error()
}

// uses returns what p refers to, by object name.
func (o *objectSet) uses(p *catalog.Pack) map[string]catalog.ObjectUse {
	if o.of != p {
		o.wanted = map[string]catalog.ObjectUse{}
		for _, u := range p.Objects() {
			o.wanted[u.Name] = u
		}
		o.of = p
	}
	return o.wanted
}

// put keeps b, which the plugin owns from now on, as an object of p's store.
func (o *objectSet) put(p *catalog.Pack, b []byte) error {
	if p == nil {
		return errors.New("skilledge: put: no catalog loaded; call load with catalog.pack first")
	}
	sum := sha256.Sum256(b)
	name := hex.EncodeToString(sum[:])
	// The objects a sharded index refers to are named in shards (and views) it may not
	// hold yet: any object is kept (a host wastes only its own memory), and read when
	// named; its Objects are not asked for, which would read what was put so far.
	if !p.Sharded() {
		if _, ok := o.uses(p)[name]; !ok {
			return errors.New("skilledge: put: the loaded catalog refers to no object with these bytes (" +
				strconv.Itoa(len(b)) + " bytes, sha256 " + name + "); put the files of the same build's assets/" + catalog.StoreDir + "/")
		}
	}
	if o.byName == nil {
		o.byName = map[string][]byte{}
	}
	o.byName[name] = b
	return nil
}

// retain drops the objects the loaded index does not refer to. With none put yet, it does
// nothing: a host that never puts (the Worker, which splices itself) pays nothing.
func (o *objectSet) retain() {
	if len(o.byName) == 0 || pack.Sharded() {
		return
	}
	want := o.uses(pack)
	for name := range o.byName {
		if _, ok := want[name]; !ok {
			delete(o.byName, name)
		}
	}
}

// resolveHTTP turns a response frame with references into a complete one, or into a 500
// naming the object it lacks.
func (o *objectSet) resolveHTTP(frame []byte) []byte {
	if refs, need, _ := wire.ParseNeed(frame); need {
		return wire.AppendResponse(nil, &wire.Response{
			Status: 500,
			Header: wire.Header{{Name: "Content-Type", Value: "text/plain; charset=utf-8"}, {Name: "Cache-Control", Value: "no-store"}},
			Body:   []byte(notPut(refs) + "\n"),
		})
	}
	resp, err := wire.ParseResponse(frame)
	if err != nil || len(resp.Refs) == 0 {
		return frame
	}
	out, err := wire.ResolveResponse(nil, &resp, o)
	if err != nil {
		return wire.AppendResponse(nil, &wire.Response{
			Status: 500,
			Header: wire.Header{{Name: "Content-Type", Value: "text/plain; charset=utf-8"}, {Name: "Cache-Control", Value: "no-store"}},
			Body:   []byte(message(err) + "\n"),
		})
	}
	return out
}

// resolveRPC turns an rpc output frame with references into a complete one.
func (o *objectSet) resolveRPC(frame []byte) ([]byte, error) {
	if refs, need, _ := wire.ParseNeed(frame); need {
		return nil, errors.New(notPut(refs))
	}
	r, err := wire.ParseRPCOutput(frame)
	if err != nil || len(r.Refs) == 0 {
		return frame, err
	}
	objs, err := wire.Objects(r.Refs, o)
	if err != nil {
		return nil, errors.New(message(err))
	}
	msg := wire.AppendResolved(nil, r.Message, r.Refs, objs)
	return wire.AppendRPC(nil, &wire.RPC{Version: r.Version, Message: msg}), nil
}

// notPut says which shards of a sharded index a request needed that were not put.
func notPut(refs []catalog.Ref) string {
	names := make([]string, len(refs))
	for i, r := range refs {
		names[i] = r.Name
	}
	return "skilledge: index shard " + strings.Join(names, ", ") + " was not given to the plugin; " + putAdvice()
}
