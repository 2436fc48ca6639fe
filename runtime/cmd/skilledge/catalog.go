package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/skilledge/skilledge/catalog/trust"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/pluginbuild"
	"github.com/skilledge/skilledge/runtime/serving"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// buildFlags are the flags of every command that builds a catalog.
type buildFlags struct {
	skipInvalid, allowOversize bool
	trustRoot                  string
	frozen                     bool
	sourceTokens               *stringList
}

// given reports whether any of the flags was given.
func (f *buildFlags) given() bool {
	return f.skipInvalid || f.allowOversize || f.trustRoot != "" || f.frozen || f.sourceTokens != nil && len(*f.sourceTokens) > 0
}

func (f *buildFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.skipInvalid, "skip-invalid", false, "leave out invalid skills, reporting each, instead of refusing the folder")
	fs.BoolVar(&f.allowOversize, "allow-oversize", false, "accept skills over 512 files or 16 MiB (reported as warnings)")
	f.sourceTokens = &stringList{}
	fs.Var(f.sourceTokens, "source-token", sourceTokenUsage)
	fs.BoolVar(&f.frozen, "frozen", false, "build the sources (sources: in skilledge.yaml) at the commits sources.lock holds, and fail, writing nothing,\nwhen the lock does not hold them as configured or a ref no longer leads to its locked commit")
	fs.StringVar(&f.trustRoot, "trust-root", "", "publish `URL` (an https prefix the deployment controls, e.g. https://skills.example.com/) as the\nDomain-Verified Skills trust root, in both well-known indexes and the server instructions")
}

// options are the build options the flags ask for; ok is false after saying why not, for
// command name. The trust root is checked here, not in serving: the error names the flag.
func (f *buildFlags) options(name string, stderr io.Writer) (_ serving.BuildOptions, ok bool) {
	opt := serving.BuildOptions{SkipInvalid: f.skipInvalid, AllowOversize: f.allowOversize, Frozen: f.frozen}
	tokens, err := sourceTokens(*f.sourceTokens)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge %s: %v\n", name, err)
		return opt, false
	}
	opt.SourceTokens = tokens
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

// serverFlags are the flags shared by serve and stdio.
type serverFlags struct {
	build          buildFlags
	plugin         string
	memoryMiB      int // --memory-limit, 0 when not given
	watch          bool
	tools, prompts bool
	pageSize       int
	auth           string // --auth FILE
}

func (f *serverFlags) register(fs *flag.FlagSet, stdio bool) {
	f.build.register(fs)
	pluginFlag(fs, &f.plugin)
	fs.Func("memory-limit", fmt.Sprintf(
		"memory cap of each plugin instance, in `MiB`, %d to %d (default %d, or what the catalog needs if more); each holds its own copy of the catalog index (file contents are held once, outside)",
		serving.MinMemoryMiB, serving.MaxMemoryMiB, wasm.DefaultMemoryLimit>>20), func(v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < serving.MinMemoryMiB || n > serving.MaxMemoryMiB {
			return fmt.Errorf("must be a whole number of MiB from %d to %d", serving.MinMemoryMiB, serving.MaxMemoryMiB)
		}
		f.memoryMiB = n
		return nil
	})
	fs.BoolVar(&f.tools, "tools", false,
		"also offer the skills as three MCP tools (list_skills, load_skill, read_skill_file), for hosts that speak tools but not the skills extension")
	fs.BoolVar(&f.prompts, "prompts", false,
		"also offer each skill as an MCP prompt (its SKILL.md), for hosts that speak prompts but not the skills extension")
	fs.IntVar(&f.pageSize, "page-size", wire.DefaultPageSize,
		"most `ITEMS` per page of skills/list, resources/list, prompts/list and directory listings")
	fs.BoolVar(&f.watch, "watch", false, "rebuild DIR when its files change and serve the new catalog (an invalid edit keeps the previous one);\nthe server declares listChanged and, on stdio, sends notifications/skills/list_changed and\nnotifications/resources/list_changed after each change")
	registerAuth(fs, &f.auth, stdio)
}

// server returns the plugin options the flags ask for, or an error naming a bad value.
func (f *serverFlags) server() (wire.Options, error) {
	if f.pageSize < 1 || f.pageSize > maxPageSize {
		return wire.Options{}, fmt.Errorf("--page-size %d: give a number of items from 1 to %d", f.pageSize, maxPageSize)
	}
	return wire.Options{Tools: f.tools, Prompts: f.prompts, PageSize: f.pageSize, ListChanged: f.watch}, nil
}

// maxPageSize bounds --page-size: pages stay bounded in bytes anyway (edge's page budget),
// but a count beyond the largest catalog a Worker can hold means nothing.
const maxPageSize = 100000

// check reads the auth option of --auth into server, and refuses --watch without a skills
// folder to watch; ok is false after saying why. authLine is serve's line on what
// credential every request needs ("" without --auth).
func (f *serverFlags) check(name, dir string, server *wire.Options, stderr io.Writer) (authLine string, ok bool) {
	if f.auth != "" {
		b, cfg, ok := readAuth(name, f.auth, stderr)
		if !ok {
			return "", false
		}
		server.Auth = b
		authLine = fmt.Sprintf("skilledge: every request needs a credential (%s): %s\n", f.auth, cfg.Summary())
	}
	switch {
	case !f.watch:
	case dir == "":
		fmt.Fprintf(stderr, "skilledge %s: --watch watches a skills folder: give one (the built-in examples never change)\n", name)
		return "", false
	case serving.IsBuilt(dir):
		fmt.Fprintf(stderr, "skilledge %s: --watch watches a skills folder, and %s is a built catalog (it holds %s)\n", name, dir, serving.IndexFile)
		return "", false
	}
	return authLine, true
}

// buildCache is the build cache serve and stdio use (serving.Options.Cache): the user
// cache's; tests point it elsewhere.
var buildCache = ""

// open opens the catalog of dir for command name with serving.Open, as the flags say and
// with the pools' options pool, logging on log; ok is false after saying why not there.
func (f *serverFlags) open(ctx context.Context, name, dir string, pool wasm.Options, log io.Writer) (_ *serving.Server, ok bool) {
	opt := serving.Options{Dir: dir, Cache: buildCache, Plugin: f.plugin, MemoryMiB: f.memoryMiB, Pool: pool, Watch: f.watch, Log: log, Command: name, Advise: advised}
	if serving.IsBuilt(dir) && f.build.given() {
		fmt.Fprintf(log, "skilledge %s: %s is a built catalog (it holds %s): --skip-invalid, --allow-oversize, --trust-root, --frozen and --source-token apply when building it, with skilledge build\n", name, dir, serving.IndexFile)
		return nil, false
	}
	if opt.Build, ok = f.build.options(name, log); !ok {
		return nil, false
	}
	s, err := serving.Open(ctx, opt)
	if err != nil {
		fmt.Fprintf(log, "skilledge %s: %s\n", name, advised(err))
		return nil, false
	}
	return s, true
}

func dirArg(pos []string) string {
	if len(pos) == 0 {
		return ""
	}
	return pos[0]
}
