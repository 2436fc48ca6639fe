package serving

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/front"
	"github.com/skilledge/skilledge/runtime/pluginbuild"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// The range of Options.MemoryMiB, as wasm.Compile accepts it.
const (
	MinMemoryMiB = 16
	MaxMemoryMiB = 4096
)

// Options say what a Server serves, and how.
type Options struct {
	// Dir is what to serve: a skills folder, the output of Build (IsBuilt) served as it
	// is, or "" for the built-in examples.
	Dir string
	// Build says how a skills folder is checked and built (not used for a built catalog).
	Build BuildOptions
	// Cache is the build cache's folder; "" is the user cache's skilledge/catalogs.
	Cache string
	// Plugin is the plugin.wasm file to run; "" is the one pluginbuild.Module finds
	// (carried by a release binary, or built from the source): the full plugin when
	// Pool.Server has the auth option, the public one otherwise (pluginVariant).
	Plugin string
	// MemoryMiB is each instance's memory cap, from MinMemoryMiB to MaxMemoryMiB; 0 is
	// wasm.DefaultMemoryLimit, or what the catalog needs if more (wasm.MinMemoryLimitOf).
	MemoryMiB int
	// Pool holds the options of every pool made (Server.Start, and each rebuild of Watch).
	Pool wasm.Options
	// Watch takes a snapshot of Dir, a skills folder, before anything reads it, for
	// Server.Watch to compare with first: an edit made while the server starts is seen.
	Watch bool
	// Log is told, in whole lines, what takes long (finding, building and compiling the
	// plugin, building the catalog), the folder's problems, and what the watcher does;
	// the front logs its errors there too. It is written from several goroutines at once,
	// and must be safe for that.
	Log io.Writer
	// Command names the command in the watcher's lines ("skilledge serve: …").
	Command string
	// Advise is how the watcher writes an error on Log: the error, then what to do when
	// the caller knows (the CLI's advice names its flags). Nil writes the error as it is.
	//
	// Why a function, when Open and Start return their errors for the caller to print?
	// Because the watcher's rebuilds fail on a goroutine of their own, long after Open
	// returned: there is no caller to return to, and the failure is a line on the log,
	// worded as the same failure is at start-up.
	Advise func(error) string
}

// Server is a catalog opened to be served: Start makes the pool and the front that serve
// it, Watch keeps it in step with its folder, Close ends all of it.
type Server struct {
	opt       Options
	src       *source
	first     [32]byte // the folder's snapshot before it was read, with Options.Watch
	early     *pluginStart
	plugin    *wasm.Plugin
	front     *front.Server
	watchOnce sync.Once
	stopWatch func()
}

// Open starts finding and compiling plugin.wasm on a goroutine of its own and, meanwhile,
// opens the catalog of opt.Dir: a built catalog as it is; a skills folder checked (its
// problems printed on opt.Log; ErrInvalid, ErrBrokenPolicy) and built into the build
// cache, or the previous build reused when nothing changed. On error nothing is left
// running; otherwise Close ends what Open started.
//
// Why are Open and Start two steps? Because what is served decides whether it may be:
// serve refuses a private catalog (Pack().Private()) without the auth option, and says so
// at once, without waiting for the plugin's compilation or making a pool.
func Open(ctx context.Context, opt Options) (*Server, error) {
	s := &Server{opt: opt, stopWatch: func() {}}
	if opt.Advise == nil {
		s.opt.Advise = error.Error
	}
	if opt.Watch {
		s.first = snapshot(opt.Dir)
	}
	guess := guessIndexSize(opt.Dir, opt.Cache, opt.Build)
	s.early = startPlugin(ctx, opt.Plugin, pluginVariant(opt.Pool.Server), memoryLimit(opt.MemoryMiB, guess, opt.Pool.MaxBody), opt.Log)
	src, err := openSource(opt.Dir, opt.Build, opt.Cache, opt.Log)
	if err != nil {
		s.early.abandon()
		return nil, err
	}
	s.src = src
	return s, nil
}

// Pack is the catalog served, opened.
func (s *Server) Pack() *catalog.Pack { return s.src.pack }

// Start takes the plugin Open started (compiling it again if the catalog needs another
// memory limit), makes a pool serving the catalog with Options.Pool, and the front that
// serves it with opt (ServeHTTP, ServeStdio), which logs on Options.Log. It is called
// once.
func (s *Server) Start(ctx context.Context, opt front.Options) error {
	cat := s.src.catalog()
	// The store is checked while the plugin may still be compiling: a listing of its
	// folder, which for a large catalog takes tens of milliseconds.
	if err := s.src.store.CheckPresent(s.src.pack); err != nil {
		return err
	}
	cat.Checked = true
	plugin, err := s.early.wait(ctx, memoryLimit(s.opt.MemoryMiB, len(cat.Index), s.opt.Pool.MaxBody), s.opt.Log)
	if err != nil {
		return err
	}
	pool, err := plugin.NewPool(ctx, cat, s.opt.Pool)
	if err != nil {
		plugin.Close(ctx)
		return err
	}
	s.plugin = plugin
	s.front = front.NewServer(pool, s.opt.Log, opt)
	return nil
}

// Instances reports the instances of the pool serving now, alive and the memory they
// hold (wasm.Pool.Instances); none before Start.
func (s *Server) Instances() (alive, memory int64) {
	if s.front == nil || s.front.Pool() == nil {
		return 0, 0
	}
	return s.front.Pool().Instances()
}

// beforeWatch runs when the catalog is served and the watcher not yet started: where an
// edit used to go unseen. Tests edit the folder there.
var beforeWatch = func() {}

// Watch, after Start and with Options.Watch, watches the folder on a goroutine of its
// own until ctx ends or stop is called (stop returns once the watcher has, so that no
// catalog is swapped in after it; Close calls it), and says so on Options.Log. Each
// change is checked and built as Open does: problems are reported, a folder with invalid
// skills keeps the previous catalog in service, a catalog equal to the one served changes
// nothing, and any other is swapped in atomically (front.Server.Swap), after which every
// stdio connection is sent the list_changed notifications. Without Options.Watch it does
// nothing.
func (s *Server) Watch(ctx context.Context) (stop func()) {
	if !s.opt.Watch || s.front == nil {
		return func() {}
	}
	beforeWatch()
	w := &watcher{opt: s.opt, plugin: s.plugin, srv: s.front, served: s.src.pack.Digest(), store: s.src.store, first: s.first}
	fmt.Fprintf(s.opt.Log, "skilledge: watching %s for changes\n", s.opt.Dir)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); w.run(ctx) }()
	s.stopWatch = func() { s.watchOnce.Do(func() { cancel(); <-done }) }
	return s.stopWatch
}

// Close stops the watcher, closes the front (its pool once its requests in flight are
// answered), and gives up the plugin's start if Start never took it.
func (s *Server) Close() {
	s.stopWatch()
	if s.front != nil {
		s.front.Close(context.Background())
	}
	s.early.abandon()
}

// pluginVariant is the plugin that serves with server: the full one when it has the auth
// option, the public one otherwise, which a private catalog needs no more of over stdio
// (no credential is asked; serve refuses it without the auth option).
func pluginVariant(server wire.Options) pluginbuild.Variant {
	if server.Auth != nil {
		return pluginbuild.Full
	}
	return pluginbuild.Public
}

// memoryLimit is each instance's memory cap in bytes: mib MiB when given, else the
// default raised to what serving an index of indexSize bytes with request bodies up to
// maxBody (0: wasm.DefaultMaxBody) needs (wasm.MinMemoryLimitOf), at most MaxMemoryMiB.
func memoryLimit(mib, indexSize, maxBody int) uint64 {
	if mib != 0 {
		return uint64(mib) << 20
	}
	if maxBody <= 0 {
		maxBody = wasm.DefaultMaxBody
	}
	return min(max(wasm.DefaultMemoryLimit, wasm.MinMemoryLimitOf(indexSize, maxBody)), MaxMemoryMiB<<20)
}
