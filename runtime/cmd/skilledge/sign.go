package main

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/signing"
	"github.com/skilledge/skilledge/runtime/internal/verify"
	"github.com/skilledge/skilledge/runtime/serving"
)

// signFlags are build's flags that sign the catalog's root.
type signFlags struct {
	key, catalog, previous string
	expires                time.Duration
}

// defaultRootLife is how long a root is valid by default: a publisher must sign again
// within it, and a server cannot serve a root frozen longer.
const defaultRootLife = 30 * 24 * time.Hour

func (f *signFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.key, "sign", "", "sign the catalog's root with the private key in `KEY` (skilledge key --signing --out KEY)")
	fs.StringVar(&f.catalog, "sign-catalog", "", "the catalog's identity in its root, `ID` (default: --trust-root, the deployment's origin)")
	fs.StringVar(&f.previous, "sign-previous", "", "the roots.json of the build before (`FILE`), or the deployment's URL, whose root (signed by KEY) is read: the new\nroots follow those, each sequence one on (a URL serves one root: a public catalog's)")
	fs.DurationVar(&f.expires, "sign-expires", defaultRootLife, "how long the root is valid from its issue, `DURATION`")
}

// signer is the Signer the flags ask for, nil without --sign; code is not 0 after saying
// what is wrong. trustRoot is the catalog's DVS trust root, its identity by default.
func (f *signFlags) signer(ctx context.Context, trustRoot string, now time.Time, stderr io.Writer) (*compile.Signer, int) {
	if f.key == "" {
		if f.catalog != "" || f.previous != "" || f.expires != defaultRootLife {
			fmt.Fprintln(stderr, "skilledge build: --sign-catalog, --sign-previous and --sign-expires go with --sign KEY")
			return nil, 2
		}
		return nil, 0
	}
	key, err := signing.ReadKey(f.key)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge build: --sign: %v\n", err)
		return nil, 1
	}
	sg := &compile.Signer{Key: key, Catalog: f.catalog, Issued: now.UTC().Truncate(time.Second)}
	if sg.Catalog == "" {
		sg.Catalog = trustRoot
	}
	if sg.Catalog == "" {
		fmt.Fprintln(stderr, "skilledge build: --sign: the root names the catalog it signs: pass --trust-root URL (the deployment's origin) or --sign-catalog ID")
		return nil, 2
	}
	if epoch := os.Getenv("SOURCE_DATE_EPOCH"); epoch != "" {
		n, err := strconv.ParseInt(epoch, 10, 64)
		if err != nil || n < 0 {
			fmt.Fprintf(stderr, "skilledge build: $SOURCE_DATE_EPOCH %q is not a count of seconds\n", epoch)
			return nil, 2
		}
		sg.Issued = time.Unix(n, 0).UTC()
	}
	sg.Expires = sg.Issued.Add(f.expires)
	if f.expires <= 0 || !sg.Expires.After(now) {
		fmt.Fprintf(stderr, "skilledge build: --sign: the root would expire at %s, not after now: give a longer --sign-expires, or a later $SOURCE_DATE_EPOCH\n", sg.Expires.Format(time.RFC3339))
		return nil, 2
	}
	if strings.Contains(f.previous, "://") {
		prev, code := previousFromDeployment(ctx, f.previous, sg, stderr)
		if code != 0 {
			return nil, code
		}
		sg.Previous = prev
	} else if f.previous != "" {
		var prev serving.Roots
		b, err := os.ReadFile(f.previous)
		if err == nil {
			err = json.Unmarshal(b, &prev)
		}
		if err == nil && prev.Catalog != sg.Catalog {
			err = fmt.Errorf("the roots of %q, not of %q", prev.Catalog, sg.Catalog)
		}
		if err == nil && len(prev.Roots) == 0 {
			err = errors.New("no root in it")
		}
		for _, r := range prev.Roots {
			if err == nil && (r.Sequence == 0 || !signing.HexSHA256(r.Payload)) {
				err = fmt.Errorf("the root of view %q has sequence %d and payload %q: not what a build writes", r.View, r.Sequence, r.Payload)
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "skilledge build: --sign-previous %s: %v (give the %s an earlier build wrote)\n", f.previous, err, serving.RootsFile)
			return nil, 1
		}
		sg.Previous = map[string]compile.RootInfo{}
		for _, r := range prev.Roots {
			sg.Previous[r.View] = r
		}
	}
	return sg, 0
}

// previousFromDeployment reads the signed root the deployment at url serves, which must be
// signed by sg's key and of sg's catalog, as the previous root of a public catalog (its one
// view, "catalog"); a deployment that serves none yet gives none (the first root).
func previousFromDeployment(ctx context.Context, url string, sg *compile.Signer, stderr io.Writer) (map[string]compile.RootInfo, int) {
	env, status, err := verify.FetchRoot(ctx, url, verify.Options{})
	if err == nil && status != 200 && status != 404 {
		err = fmt.Errorf("its root answers HTTP %d: neither a root nor none (404)", status)
	}
	if err != nil {
		fmt.Fprintf(stderr, "skilledge build: --sign-previous %s: %v\n", url, err)
		return nil, 1
	}
	if status == 404 {
		fmt.Fprintf(stderr, "skilledge build: --sign-previous %s serves no signed root yet: this one is the first (sequence 1)\n", url)
		return nil, 0
	}
	r, err := signing.OpenRoot(env, sg.Key.Public().(ed25519.PublicKey))
	if err == nil && r.Catalog != sg.Catalog {
		err = fmt.Errorf("the root of %q, not of %q", r.Catalog, sg.Catalog)
	}
	if err != nil {
		fmt.Fprintf(stderr, "skilledge build: --sign-previous %s: its root: %v (the new root must follow one this key signed)\n", url, err)
		return nil, 1
	}
	return map[string]compile.RootInfo{"catalog": {View: "catalog", Sequence: r.Sequence, Payload: r.Payload}}, 0
}
