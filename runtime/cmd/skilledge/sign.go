package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/signing"
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
	fs.StringVar(&f.previous, "sign-previous", "", "the roots.json of the build before (`FILE`): the new roots follow its, each sequence one on")
	fs.DurationVar(&f.expires, "sign-expires", defaultRootLife, "how long the root is valid from its issue, `DURATION`")
}

// signer is the Signer the flags ask for, nil without --sign; code is not 0 after saying
// what is wrong. trustRoot is the catalog's DVS trust root, its identity by default.
func (f *signFlags) signer(trustRoot string, now time.Time, stderr io.Writer) (*compile.Signer, int) {
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
	if f.previous != "" {
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
