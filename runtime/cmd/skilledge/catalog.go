package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sync"

	"github.com/skilledge/skilledge/catalog/trust"
	"github.com/skilledge/skilledge/runtime/pluginbuild"
	"github.com/skilledge/skilledge/runtime/serving"
)

// buildFlags are the flags of every command that builds a catalog.
type buildFlags struct {
	skipInvalid, allowOversize bool
	trustRoot                  string
}

func (f *buildFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.skipInvalid, "skip-invalid", false, "leave out invalid skills, reporting each, instead of refusing the folder")
	fs.BoolVar(&f.allowOversize, "allow-oversize", false, "accept skills over 512 files or 16 MiB (reported as warnings)")
	fs.StringVar(&f.trustRoot, "trust-root", "", "publish `URL` (an https prefix the deployment controls, e.g. https://skills.example.com/) as the\nDomain-Verified Skills trust root, in both well-known indexes and the server instructions")
}

// options are the build options the flags ask for, --trust-root checked; ok is false
// after saying why not, for command name.
func (f *buildFlags) options(name string, stderr io.Writer) (_ serving.BuildOptions, ok bool) {
	opt := serving.BuildOptions{SkipInvalid: f.skipInvalid, AllowOversize: f.allowOversize}
	if f.trustRoot != "" {
		r, err := trust.ParseRoot(f.trustRoot)
		if err != nil {
			fmt.Fprintf(stderr, "skilledge %s: --trust-root: %v\n", name, err)
			return opt, false
		}
		opt.TrustRoot = r.String()
	}
	return opt, true
}

// pluginFlag is the --plugin flag of commands that need plugin.wasm.
func pluginFlag(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "plugin", "", "use `FILE` as plugin.wasm instead of the one a release binary carries or one built from the source (also $"+pluginbuild.Env+")")
}

// buildCache is the build cache serve and stdio use (serving.Options.Cache): the user
// cache's; tests point it elsewhere.
var buildCache = ""

// open opens, for command name, the catalog of dir with serving.Open as opt says, the
// build options taken from f (a built catalog takes none); ok is false after saying why
// not on opt.Log.
func (f *buildFlags) open(ctx context.Context, name, dir string, opt serving.Options) (_ *serving.Server, ok bool) {
	if serving.IsBuilt(dir) && *f != (buildFlags{}) {
		fmt.Fprintf(opt.Log, "skilledge %s: %s is a built catalog (it holds %s): --skip-invalid, --allow-oversize and --trust-root apply when building it, with skilledge build\n", name, dir, serving.IndexFile)
		return nil, false
	}
	if opt.Build, ok = f.options(name, opt.Log); !ok {
		return nil, false
	}
	opt.Dir, opt.Cache, opt.Command, opt.Advise = dir, buildCache, name, advised
	s, err := serving.Open(ctx, opt)
	if err != nil {
		fmt.Fprintf(opt.Log, "skilledge %s: %s\n", name, advised(err))
		return nil, false
	}
	return s, true
}

// lockedWriter serializes writes to w: serve and stdio write on stderr from several
// goroutines (serving.Options.Log).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func dirArg(pos []string) string {
	if len(pos) == 0 {
		return ""
	}
	return pos[0]
}
