package wasm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skilledge/skilledge/edge/wire"
)

// Keys brings a pool's plugin the signing key sets its auth option names by URL, which
// the plugin cannot fetch (edge/wire's package doc, "Key sets"); runtime/front's KeySets
// fetches them over HTTPS. One Keys may serve many pools (a pool swapped in for a new
// catalog gets the sets in hand at once). Its methods are called concurrently.
type Keys interface {
	// Keys returns the set in hand for url and its version, which changes whenever the set
	// does (0 and nil before the first). The pool asks before every request, and gives an
	// instance the set when its version is not the one the instance has: it must be cheap.
	Keys(url string) (doc []byte, version uint64)
	// Want says the plugin wants url's set: it has none, or a token named a key the set
	// lacks. It fetches the set when the schedule allows it now (wire.KeysState.Refetch),
	// and returns once that fetch, or one under way, has ended. When the set in hand is
	// then not the one the instance had, the pool asks it again.
	Want(ctx context.Context, url string)
	// Refused says the plugin refused that version of url's set (the document is no key
	// set): err is its reason. The instance keeps the set it had.
	Refused(url string, version uint64, err error)
}

// Raw ABI exports of the key sets.
const (
	rawKeys       = "skilledge_keys"
	rawKeysWanted = "skilledge_keys_wanted"
)

// keysWanted asks the instance which key sets it wants (skilledge_keys_wanted): nil for
// none, and from a plugin older than the export.
func (in *instance) keysWanted(ctx context.Context) ([]string, error) {
	if in.wanted == nil {
		return nil, nil
	}
	if err := in.wanted.CallWithStack(ctx, in.stack[:]); err != nil {
		return nil, instanceError(err)
	}
	if in.stack[0] == 0 {
		return nil, nil
	}
	b, ok := in.packed()
	if !ok {
		return nil, fmt.Errorf("%w: %s gave a result outside memory", ErrInstance, rawKeysWanted)
	}
	return strings.Split(string(b), "\n"), nil
}

// setKeys gives the instance the key set doc fetched from url (skilledge_keys). An error
// wraps ErrInstance if the instance broke; otherwise it is the plugin's reason to refuse.
func (in *instance) setKeys(ctx context.Context, url string, doc []byte) error {
	if in.keys == nil {
		return fmt.Errorf("%w: plugin.wasm does not export %s", ErrNotPlugin, rawKeys)
	}
	in.keyFrame = wire.AppendKeys(in.keyFrame[:0], url, doc)
	return in.callStatus(ctx, in.keys, in.keyFrame)
}

// syncKeys gives in every key set of the pool's source whose version it does not have.
// Only an error of the instance's is returned; a set the plugin refuses is reported to
// the source, and the instance keeps the one it had.
func (pl *Pool) syncKeys(ctx context.Context, in *instance) error {
	if len(in.keyVersions) != len(pl.keyURLs) {
		in.keyVersions = make([]uint64, len(pl.keyURLs))
	}
	for i, url := range pl.keyURLs {
		doc, v := pl.opt.Keys.Keys(url)
		if v == in.keyVersions[i] {
			continue
		}
		in.keyVersions[i] = v
		if err := in.setKeys(ctx, url, doc); err != nil {
			if errors.Is(err, ErrInstance) {
				return err
			}
			pl.opt.Keys.Refused(url, v, err)
		}
	}
	return nil
}

// KeyURLs returns the URLs of the key sets the plugin's options name (nil without
// auth, or with an inline key set): the pool's Options.Keys brings them. The result must
// not be modified.
func (pl *Pool) KeyURLs() []string { return pl.keyURLs }

// wantKeys tells the pool's source that the plugin wants the sets of urls, and reports
// whether one of them is now another than the instance had (had: its keyVersions when it
// answered).
func (pl *Pool) wantKeys(ctx context.Context, urls []string, had []uint64) bool {
	for _, u := range urls {
		pl.opt.Keys.Want(ctx, u)
	}
	for i, u := range pl.keyURLs {
		if _, v := pl.opt.Keys.Keys(u); v != had[i] && slices.Contains(urls, u) {
			return true
		}
	}
	return false
}
