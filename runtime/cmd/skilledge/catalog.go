package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/examples"
	"github.com/skilledge/skilledge/catalog/trust"
	"github.com/skilledge/skilledge/runtime/pluginbuild"
	"github.com/skilledge/skilledge/runtime/store"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// catalogFlags are the flags of every command that builds a pack.
type catalogFlags struct {
	skipInvalid, allowOversize bool
	strict                     bool // validate --strict: the Agent Skills limits are errors
	trustRoot                  string
}

func (f *catalogFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.skipInvalid, "skip-invalid", false, "leave out invalid skills, reporting each, instead of refusing the folder")
	fs.BoolVar(&f.allowOversize, "allow-oversize", false, "accept skills over 512 files or 16 MiB (reported as warnings)")
	fs.StringVar(&f.trustRoot, "trust-root", "", "publish `URL` (an https prefix the deployment controls, e.g. https://skills.example.com/) as the\nDomain-Verified Skills trust root, in both well-known indexes and the server instructions")
}

// pluginFlag is the --plugin flag of commands that need plugin.wasm.
func pluginFlag(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "plugin", "", "use `FILE` as plugin.wasm instead of the one a release binary carries or one built from the source (also $"+pluginbuild.Env+")")
}

// loaded is a checked skills folder.
type loaded struct {
	catalog  *compile.Catalog
	problems []compile.Problem // without the "skipped" warnings unless SkipInvalid was asked
	checked  int               // skills found, valid or not
	errors   int
	warnings int // not counting the "skipped" warnings, which repeat errors
	skipped  int // skills left out, with --skip-invalid
}

// loadCatalog loads dir, or the built-in examples when dir is "".
func loadCatalog(dir string, f catalogFlags) (*loaded, error) {
	// Always ask for the Skipped warnings: they are how invalid skills are counted.
	opt := compile.Options{SkipInvalid: true, AllowOversize: f.allowOversize, Strict: f.strict}
	var (
		c        *compile.Catalog
		problems []compile.Problem
		err      error
	)
	if dir == "" {
		c, problems, err = compile.Load(examples.FS, "examples", opt)
	} else if err = misplacedPolicy(dir); err == nil {
		c, problems, err = compile.LoadDir(dir, opt)
	}
	if err != nil {
		return nil, err
	}
	if c.Keep > 0 && dir != "" {
		hp, err := attachHistory(c, dir, f.strict)
		if err != nil {
			return nil, err
		}
		problems = append(problems, hp...)
	}
	l := &loaded{catalog: c, checked: len(c.Skills)}
	for _, p := range problems {
		if p.Skipped {
			l.checked++
			if f.skipInvalid {
				// Said, and counted as a skill skipped: its errors are counted already.
				l.skipped++
				l.problems = append(l.problems, p)
			}
			continue
		}
		if p.Severity == compile.Error {
			l.errors++
		} else {
			l.warnings++
		}
		l.problems = append(l.problems, p)
	}
	return l, nil
}

// report prints every problem and the summary line.
func (l *loaded) report(w io.Writer) {
	l.print(w, compile.Problem.String)
}

// print prints every problem formatted by line, and the summary line.
func (l *loaded) print(w io.Writer, line func(compile.Problem) string) {
	for _, p := range l.problems {
		fmt.Fprintln(w, line(p))
	}
	fmt.Fprintf(w, "%s checked: %s, %s", plural(l.checked, "skill"), plural(l.errors, "error"), plural(l.warnings, "warning"))
	if l.skipped > 0 {
		fmt.Fprintf(w, "; %s skipped", plural(l.skipped, "skill"))
	}
	fmt.Fprintln(w)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// checkedFolder loads dir (the examples when ""), prints its problems on stderr, and
// returns it with the trust root set. It refuses a folder with invalid skills unless
// --skip-invalid. ok is false after printing why.
func checkedFolder(name, dir string, f catalogFlags, stderr io.Writer) (_ *loaded, ok bool) {
	var root string
	if f.trustRoot != "" {
		r, err := trust.ParseRoot(f.trustRoot)
		if err != nil {
			fmt.Fprintf(stderr, "skilledge %s: --trust-root: %v\n", name, err)
			return nil, false
		}
		root = r.String()
	}
	l, err := loadCatalog(dir, f)
	if err != nil {
		fmt.Fprintf(stderr, "skilledge %s: %v\n", name, err)
		return nil, false
	}
	l.catalog.TrustRoot = root
	if a := l.catalog.Access; a != nil && a.Broken {
		l.report(stderr)
		fmt.Fprintf(stderr, "skilledge %s: %v; --skip-invalid does not skip it\n", name, compile.ErrPolicy)
		return nil, false
	}
	if l.errors > 0 && !f.skipInvalid {
		l.report(stderr)
		fmt.Fprintf(stderr, "skilledge %s: the folder has invalid skills; fix them, or pass --skip-invalid to %s the valid ones\n", name, map[bool]string{true: "build", false: "serve"}[name == "build"])
		return nil, false
	}
	if len(l.problems) > 0 {
		l.report(stderr)
	}
	return l, true
}

// How encode reports progress: a first line once building has taken progressAfter, then
// a line at most every progressEvery. Tests shorten them.
var (
	progressAfter = time.Second
	progressEvery = 3 * time.Second
)

// encode encodes c, its store objects written into dir/sha256 as they are made (see
// compile.EncodeOptions), saying so on progress when it takes more than progressAfter
// (archiving a large catalog), with a line per progressEvery on how far it got.
func encode(c *compile.Catalog, dir, label string, progress io.Writer) (*compile.Encoded, error) {
	start := time.Now()
	var mu sync.Mutex
	said, last := false, start
	files, bytes := c.Size()
	announce := func() {
		if !said {
			said = true
			fmt.Fprintf(progress, "skilledge: building the catalog of %s (%s, %s, %s)…\n", label,
				plural(len(c.Skills), "skill"), plural(files, "file"), size(int(bytes)))
		}
	}
	t := time.AfterFunc(progressAfter, func() {
		mu.Lock()
		defer mu.Unlock()
		announce()
	})
	enc, err := compile.EncodeWith(c, compile.EncodeOptions{Dir: dir, Progress: func(done int) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		if now.Sub(start) >= progressAfter {
			announce()
		}
		if said && now.Sub(last) >= progressEvery {
			last = now
			fmt.Fprintf(progress, "skilledge: archived %d of %d skills…\n", done, len(c.Skills))
		}
	}})
	t.Stop()
	mu.Lock()
	defer mu.Unlock()
	announce = func() {} // a timer that fires now, after the build, says nothing
	if said && err == nil {
		fmt.Fprintf(progress, "skilledge: built in %.1fs\n", time.Since(start).Seconds())
	}
	return enc, err
}

// startPool takes the plugin early compiled (compiling it again if cat needs another
// memory limit) and makes a pool serving cat. It returns the compiled plugin too, for the
// pools of later catalogs (--watch).
func startPool(ctx context.Context, early *pluginStart, memory memoryFlag, cat wasm.Catalog, opt wasm.Options, stderr io.Writer) (*wasm.Pool, *wasm.Plugin, error) {
	// The store is checked while the plugin may still be compiling: a listing of its folder,
	// which for a large catalog takes tens of milliseconds.
	if st, ok := cat.Store.(*store.Dir); ok && cat.Pack != nil {
		if err := st.CheckPresent(cat.Pack); err != nil {
			return nil, nil, err
		}
		cat.Checked = true
	}
	plugin, err := early.wait(ctx, memory.limit(len(cat.Index), opt.MaxBody), stderr)
	if err != nil {
		return nil, nil, err
	}
	pool, err := plugin.NewPool(ctx, cat, opt)
	if err != nil {
		plugin.Close(ctx)
		return nil, nil, err
	}
	return pool, plugin, nil
}

// compilePlugin compiles module (plugin.wasm), saying so on progress, in whole lines, when
// it takes more than a second (a cold compilation cache).
func compilePlugin(ctx context.Context, module []byte, cfg wasm.Config, progress io.Writer) (*wasm.Plugin, error) {
	start := time.Now()
	var mu sync.Mutex
	said := false
	t := time.AfterFunc(time.Second, func() {
		mu.Lock()
		defer mu.Unlock()
		said = true
		fmt.Fprintln(progress, "skilledge: compiling plugin.wasm (first run; later runs reuse it)…")
	})
	p, err := wasm.Compile(ctx, module, cfg)
	t.Stop()
	mu.Lock()
	defer mu.Unlock()
	if said && err == nil {
		fmt.Fprintf(progress, "skilledge: compiled plugin.wasm in %.1fs\n", time.Since(start).Seconds())
	}
	return p, err
}
