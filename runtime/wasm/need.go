package wasm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/tetratelabs/wazero/api"

	"github.com/skilledge/skilledge/edge/wire"
)

// partReader is a store that can read an object without keeping it (runtime/store.Dir):
// the shards an instance is given are kept by the instance, within its budget.
type partReader interface {
	ReadPart(name string) ([]byte, error)
}

// rawGive is the export that gives the plugin a shard of a sharded index it asked for.
const rawGive = "skilledge_give"

// serve passes b to fn (skilledge_http or skilledge_rpc) as callOutput does, and, while
// the plugin answers NEED (its index is sharded and the request reads shards it does not
// hold: edge/wire, "Need"), gives it the objects named from store and calls again, at most
// wire.MaxNeedRounds rounds of giving. An object the store lacks, one the plugin refuses, or a plugin
// still in need after the last round fail as the instance does (wrapping ErrInstance):
// the request cannot be answered, and the instance, which may hold what it was given, is
// made again.
func (in *instance) serve(ctx context.Context, fn api.Function, b, dst []byte, store wire.Store) ([]byte, error) {
	start := len(dst)
	for round := 0; ; round++ {
		var err error
		if dst, err = in.callOutput(ctx, fn, b, dst[:start]); err != nil {
			return dst, err
		}
		refs, need, err := wire.ParseNeed(dst[start:])
		if !need {
			return dst, nil
		}
		if err != nil {
			return dst, fmt.Errorf("%w: the plugin answered a malformed NEED", ErrInstance)
		}
		if round == wire.MaxNeedRounds {
			return dst, fmt.Errorf("%w: the plugin still needed index shards after %d rounds", ErrInstance, wire.MaxNeedRounds)
		}
		if in.give == nil {
			return dst, fmt.Errorf("%w: plugin.wasm asks for index shards but does not export %s", ErrNotPlugin, rawGive)
		}
		for _, r := range refs {
			read := store.Object
			if pr, ok := store.(partReader); ok {
				read = pr.ReadPart
			}
			obj, err := read(r.Name)
			if err == nil {
				if sum := sha256.Sum256(obj); hex.EncodeToString(sum[:]) != r.Name {
					err = fmt.Errorf("the store's bytes do not hash to its name")
				}
			}
			if err != nil {
				return dst, fmt.Errorf("%w: index shard %s: %w", ErrInstance, r.Name, err)
			}
			if err := in.callStatus(ctx, in.give, wire.AppendGive(nil, r.Name, obj)); err != nil {
				return dst, fmt.Errorf("%w: index shard %s: %w", ErrInstance, r.Name, err)
			}
		}
	}
}
