package wasm

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
)

// Defaults of Options.
const (
	DefaultTimeout = 10 * time.Second
	DefaultMaxBody = wire.DefaultMaxBody
)

// Options configure a Pool: its size and limits, and the server options passed to the
// plugin's configure export.
type Options struct {
	// Size is the most instances alive at once, hence the most requests served at once.
	// Default runtime.GOMAXPROCS(0).
	Size int
	// Timeout bounds each request's run inside an instance; an instance that exceeds it
	// is stopped and discarded. Default DefaultTimeout.
	Timeout time.Duration
	// MaxBody is the largest request body accepted, in bytes. The HTTP front reads at most
	// MaxBody+1 bytes and the plugin answers 413 when it gets more than MaxBody. Default
	// DefaultMaxBody.
	MaxBody int

	// Server holds the plugin's options, passed to its configure export; zero values take
	// the plugin's defaults. Its MaxBody is replaced by the pool's, which host and plugin
	// must share.
	Server wire.Options

	// Keys brings the plugin the key sets its auth option names by URL (Pool.KeyURLs). Nil
	// brings none: tokens those sets would verify are then all refused, which suits only a
	// pool that serves stream transports (RPC), where no credential is asked.
	Keys Keys
}

// configJSON renders the options object of the configure export.
func (o *Options) configJSON() []byte {
	s := o.Server
	s.MaxBody = o.MaxBody
	return s.JSON()
}

// MinMemoryLimit is the smallest per-instance memory limit NewPool accepts for a catalog
// index with request bodies up to maxBody (and the default instructions). It is sized for
// the worst request edge's bounds allow (wire.MaxReply: a batch of wire.MaxBatch messages,
// the bytes its answers may build), not for a typical one, so that no request can make an
// instance run out of memory. An instance keeps its own copy of the index but no file
// contents (those stay in the host's store). While it answers it holds the request frame
// (twice: the input buffer grows with room to spare), and the reply twice over as it is
// built (the body, then the frame around it) plus what growing them leaves for the
// collector; the Go runtime needs a few MiB. The result is a whole number of 64 KiB pages.
//
// Why is the memory cap sized for the worst request, not a typical one? At the smallest
// memory limit the harness accepted, three reads in one batch crashed an instance: the
// check sized one answer. TestMinMemoryLimitWorstRequests runs the worst batches (64
// skills/list of a catalog whose page is most of its 4 MiB index, 64 reads of 3 MiB, 64
// long echoes with ids that fill the body) at exactly this limit, over HTTP and stdio,
// three times each, with no failure; at the old limit the first of them crashed. Measured
// there, HTTP needed about four fifths of what the formula asks, so the margin is about a
// quarter (BENCHMARKS.md, "Why the memory cap is sized for the worst request"). The cost:
// the smallest limit for a small catalog went from 18 MiB to 50 MiB over HTTP (1 MiB
// bodies) and 170 MiB over stdio (16 MiB lines), both under DefaultMemoryLimit; a catalog
// with a 20 MiB index needs about 190 MiB over HTTP and 310 MiB over stdio, so without
// --memory-limit the CLI raises the default to what the catalog needs (a limit given is
// checked: a whole number of MiB from 16 to 4096, and at least what is needed). Linear
// memory is reserved, not used: an instance touches only what its requests make it grow
// into.
func MinMemoryLimit(index []byte, maxBody int) uint64 {
	return minMemory(len(index), maxBody, 0)
}

// MinMemoryLimitOf is MinMemoryLimit for an index of indexSize bytes: a host can compile
// the plugin (Config.MemoryLimit) while it is still reading the index.
func MinMemoryLimitOf(indexSize, maxBody int) uint64 {
	return minMemory(indexSize, maxBody, 0)
}

// minMemory is MinMemoryLimit for an index of index bytes and Options.Server.Instructions
// of instructions bytes.
func minMemory(index, maxBody, instructions int) uint64 {
	maxBody = max(maxBody, 0)
	reply := uint64(wire.MaxReply(index, maxBody, instructions))
	need := uint64(index) + 2*(uint64(maxBody)+frameSlack) + 3*reply + 16<<20
	return (need + pageSize - 1) &^ (pageSize - 1)
}

// frameSlack bounds what a request frame adds to its body: the request line and header.
const frameSlack = 64 << 10

// Catalog is what a pool serves: the index every instance loads (catalog.pack), and the
// content store its references name, which the pool's fronts splice from. The store is
// shared, never copied into an instance.
type Catalog struct {
	Index []byte
	Store wire.Store
	// Pack is Index opened (catalog.Open), when the caller has opened it already: NewPool
	// then does not open it again. Nil: NewPool opens it.
	Pack *catalog.Pack
	// Checked says the caller has checked that Store holds every object Index refers to
	// (store.Dir's CheckPresent), say while the plugin compiled: NewPool does not again.
	Checked bool
}

// storeChecker is a store that can verify, at start-up, that it holds the objects an
// index refers to (store.Dir does, without reading them: their sizes and contents are
// checked when first used).
type storeChecker interface {
	CheckPresent(p *catalog.Pack) error
}

// Pool is a set of plugin instances that each hold the same index, and the store they
// name contents in. It lends an instance to one request at a time, creates instances on
// demand up to its size, and makes callers wait when all are busy. An instance that fails
// is discarded; only the request it was serving sees the error. A Pool is safe for
// concurrent use.
type Pool struct {
	plugin *Plugin
	pack   []byte
	store  wire.Store
	config []byte
	opt    Options
	// fields are the request header fields the plugin reads (instance.fields), nil for
	// every field: the HTTP front frames only these.
	fields []string
	// keyURLs are the URLs of the key sets the plugin wants (instance.keysWanted, asked
	// of the first instance), which opt.Keys brings every instance before its next request.
	keyURLs []string
	slots   chan *instance // Size entries; nil means "not created yet"
	logMu   sync.Mutex
	mu      sync.Mutex
	users   int
	closed  bool
	drained chan struct{} // closed when closed and users == 0
	once    sync.Once
	created atomic.Int64
	failed  atomic.Int64
	memory  atomic.Int64 // the linear memory of the instances alive, as of their last return
	facts   factsCache
}

// NewPool makes a pool serving cat. It opens the index and checks the store holds what
// it refers to, and creates one instance right away, so a corrupt index, an incomplete
// store, bad options or too small a memory limit fail here rather than on a request. The
// pool keeps cat.Index (which must not change) to load it into later instances.
func (p *Plugin) NewPool(ctx context.Context, cat Catalog, opt Options) (*Pool, error) {
	pack := cat.Index
	index := cat.Pack
	if index == nil {
		var err error
		if index, err = catalog.Open(pack); err != nil {
			return nil, fmt.Errorf("wasm: catalog.pack: %w", err)
		}
	}
	if cat.Store == nil {
		return nil, errors.New("wasm: no content store")
	}
	if c, ok := cat.Store.(storeChecker); ok && !cat.Checked {
		if err := c.CheckPresent(index); err != nil {
			return nil, err
		}
	}
	if opt.Size <= 0 {
		opt.Size = runtime.GOMAXPROCS(0)
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.MaxBody <= 0 {
		opt.MaxBody = DefaultMaxBody
	}
	indexSize, shards := len(pack), 0
	if index.Sharded() {
		// An instance holds the root and at most its budget of shards; an answer is made of
		// the root's bytes and a page of the shards' (a listing's page budget, 4 MiB).
		indexSize, shards = len(pack)+4<<20, wire.ShardBudget
	}
	if need := minMemory(indexSize, opt.MaxBody, len(opt.Server.Instructions)) + uint64(shards); p.MemoryLimit() < need {
		return nil, fmt.Errorf("%w: instances are limited to %s of memory, but the catalog index is %s (every instance keeps its own copy) and request bodies may be %s, which with the largest answer a request may ask for needs at least %s",
			ErrMemoryLimit, mib(p.MemoryLimit()), mib(uint64(indexSize+shards)), mib(uint64(opt.MaxBody)), mib(need))
	}
	pl := &Pool{
		plugin:  p,
		pack:    pack,
		store:   cat.Store,
		config:  opt.configJSON(),
		opt:     opt,
		slots:   make(chan *instance, opt.Size),
		drained: make(chan struct{}),
	}
	first, err := pl.newInstance(ctx)
	if err != nil {
		return nil, err
	}
	if pl.fields, err = first.fields(ctx); err != nil {
		first.close()
		return nil, err
	}
	if err := pl.startKeys(ctx, first); err != nil {
		first.close()
		return nil, err
	}
	pl.slots <- first
	for i := 1; i < opt.Size; i++ {
		pl.slots <- nil
	}
	return pl, nil
}

func mib(n uint64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func (pl *Pool) newInstance(ctx context.Context) (*instance, error) {
	// Instantiating and loading the pack is not the caller's request: do not let its
	// cancellation kill the instance half made, but do bound the time: each call by the
	// deadline, and all of it by ctx, which also stops the module's start-up where wazero's
	// own checks are on (a plugin the deadline could not be compiled into).
	d := max(pl.opt.Timeout, 30*time.Second)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d)
	defer cancel()
	in, err := pl.plugin.newInstance(ctx, pl.pack, pl.config, &pl.logMu, d)
	if err == nil {
		pl.created.Add(1)
	}
	return in, err
}

// Store returns the content store the pool's responses name objects of.
func (pl *Pool) Store() wire.Store { return pl.store }

// Stats reports how many instances the pool has created and how many it discarded
// because they failed.
func (pl *Pool) Stats() (created, failed int64) { return pl.created.Load(), pl.failed.Load() }

// Instances reports how many instances are alive (made and not discarded), and the bytes
// of linear memory they held when each last went back to the pool.
func (pl *Pool) Instances() (alive, memory int64) {
	return pl.created.Load() - pl.failed.Load(), pl.memory.Load()
}

// Options returns the pool's options, defaults filled in.
func (pl *Pool) Options() Options { return pl.opt }

// Fields returns the names of the request header fields the plugin reads, the only ones
// a request frame need carry (wire.AppendRequestHead frames them, in this order), or nil
// when the plugin does not name them (a plugin older than skilledge_fields): then a frame
// carries every field. The result must not be modified.
func (pl *Pool) Fields() []string { return pl.fields }

// acquire lends an instance, waiting until one is free, ctx is done (ctx.Err()), or the
// pool's Timeout has passed (ErrBusy). A free instance is lent without a timer.
func (pl *Pool) acquire(ctx context.Context) (*instance, error) {
	pl.mu.Lock()
	if pl.closed {
		pl.mu.Unlock()
		return nil, ErrClosed
	}
	pl.users++
	pl.mu.Unlock()
	var in *instance
	select {
	case in = <-pl.slots:
	default:
		t := time.NewTimer(pl.opt.Timeout)
		select {
		case in = <-pl.slots:
			t.Stop()
		case <-ctx.Done():
			t.Stop()
			pl.leave()
			return nil, ctx.Err()
		case <-t.C:
			pl.leave()
			return nil, fmt.Errorf("%w (%v): %w", ErrBusy, pl.opt.Timeout, context.DeadlineExceeded)
		}
	}
	if in != nil {
		return in, nil
	}
	in, err := pl.newInstance(ctx)
	if err != nil {
		pl.slots <- nil
		pl.leave()
		return nil, err
	}
	return in, nil
}

// release returns in to the pool, or discards it when err shows it failed.
func (pl *Pool) release(in *instance, err error) {
	if errors.Is(err, ErrInstance) {
		pl.failed.Add(1)
		pl.memory.Add(-int64(in.memSize))
		in.close()
		in = nil
	} else if size := in.mem.Size(); size != in.memSize {
		pl.memory.Add(int64(size) - int64(in.memSize))
		in.memSize = size
	}
	pl.slots <- in
	pl.leave()
}

func (pl *Pool) leave() {
	pl.mu.Lock()
	pl.users--
	if pl.closed && pl.users == 0 {
		pl.once.Do(func() { close(pl.drained) })
	}
	pl.mu.Unlock()
}

// do runs f on a lent instance under the pool's deadline, once the instance has the key
// sets in hand.
func (pl *Pool) do(ctx context.Context, f func(ctx context.Context, in *instance) error) error {
	in, err := pl.acquire(ctx)
	if err != nil {
		return err
	}
	err = in.bounded(ctx, pl.opt.Timeout, func(ctx context.Context) error {
		if len(pl.keyURLs) > 0 && pl.opt.Keys != nil {
			if err := pl.syncKeys(ctx, in); err != nil {
				return err
			}
		}
		return f(ctx, in)
	})
	pl.release(in, err)
	return err
}

// HTTP answers one request frame (package edge/wire) and appends the response frame to
// dst; its references name objects of Store(), which the caller splices in
// (wire.ResolveResponse, wire.WriteResolved). An error means no response was produced:
// ctx ended while waiting for an instance (ctx.Err()), none became free within the
// pool's Timeout (ErrBusy, context.DeadlineExceeded), the pool is closed (ErrClosed), or
// the instance failed (wraps ErrInstance; ErrTimeout too when it ran out of time), which
// includes answering with a malformed frame. A returned frame always parses.
func (pl *Pool) HTTP(ctx context.Context, frame, dst []byte) ([]byte, error) {
	dst, _, _, _, err := pl.HTTPAnswer(ctx, frame, dst, nil, nil, 0)
	return dst, err
}

// Ask says what HTTPAnswer asks the plugin besides the answer.
type Ask uint8

const (
	AskHint  Ask = 1 << iota // the replay hint (wire.Hint)
	AskFacts                 // the facts of the answer (wire.Facts)
)

// HTTPAnswer is HTTP for a front, which splices the answer and may keep it to give again:
// it also returns the response frame parsed, its fields and references appended to h and
// refs (wire.ParseResponseInto: the check that the frame parses is the parse a front
// needs; the Response aliases the frame), and, as ask says, the plugin's replay hint for
// this answer (AskHint: wire.Hint) and its facts (AskFacts: wire.Facts), asked of the
// instance that answered before it goes back to the pool: the zero Hint when the answer
// may not be replayed, or when the plugin does not say (a plugin older than
// skilledge_replay); the zero Facts when it says nothing. Keeping the answer is the
// caller's business; the pool keeps nothing. Errors are as for HTTP.
//
// When the plugin answers 401 and wants a key set again (a token named a key the set in
// hand lacks: the issuer rotated its keys), the pool has Options.Keys fetch it, when the
// schedule allows, and asks the plugin once more; the second answer is the one returned
// (edge/wire, "Key sets").
func (pl *Pool) HTTPAnswer(ctx context.Context, frame, dst []byte, h wire.Header, refs []wire.Ref, ask Ask) ([]byte, wire.Response, wire.Hint, wire.Facts, error) {
	var (
		resp   wire.Response
		start  = len(dst)
		hint   wire.Hint
		facts  wire.Facts
		wanted []string
		had    []uint64 // the versions of the key sets the instance had when it wanted some
		retry  bool
	)
	answer := func(ctx context.Context, in *instance) error {
		var err error
		if dst, err = in.serve(ctx, in.http, frame, dst[:start], pl.store); err != nil {
			return err
		}
		if resp, err = wire.ParseResponseInto(dst[start:], h, refs); err != nil {
			return fmt.Errorf("%w: the plugin answered a malformed frame", ErrInstance)
		}
		if ask&AskHint != 0 {
			hint, err = in.replayHint(ctx)
		}
		if err == nil && ask&AskFacts != 0 {
			facts, err = in.answerFacts(ctx, &pl.facts)
		}
		if err == nil && resp.Status == 401 && !retry && pl.opt.Keys != nil && len(pl.keyURLs) > 0 {
			wanted, err = in.keysWanted(ctx)
			had = slices.Clone(in.keyVersions)
		}
		return err
	}
	err := pl.do(ctx, answer)
	if err == nil && len(wanted) > 0 && pl.wantKeys(ctx, wanted, had) {
		retry = true
		err = pl.do(ctx, answer)
	}
	return dst, resp, hint, facts, err
}

// RPC answers one JSON-RPC message (or batch) from a stream transport. version is the
// protocol version negotiated earlier on the connection ("" before initialize); the
// result's Version is the one to remember, its Message the reply (nil when nothing is to
// be sent) and its Refs the objects of Store() to splice into it. Errors are as for HTTP.
func (pl *Pool) RPC(ctx context.Context, version string, msg []byte) (wire.RPC, error) {
	frame := wire.AppendRPC(make([]byte, 0, len(version)+1+len(msg)), &wire.RPC{Version: version, Message: msg})
	var out wire.RPC
	err := pl.do(ctx, func(ctx context.Context, in *instance) error {
		b, err := in.serve(ctx, in.rpc, frame, nil, pl.store)
		if err != nil {
			return err
		}
		// Checked here, so that the instance is discarded.
		if out, err = wire.ParseRPCOutput(b); err != nil {
			return fmt.Errorf("%w: the plugin answered a malformed rpc frame", ErrInstance)
		}
		return nil
	})
	if err != nil {
		return wire.RPC{Version: version}, err
	}
	if len(out.Message) == 0 {
		out.Message, out.Refs = nil, nil
	}
	return out, nil
}

// Close stops lending instances, waits for the requests in flight (or for ctx) and
// closes every instance. Later calls fail with ErrClosed.
func (pl *Pool) Close(ctx context.Context) error {
	pl.mu.Lock()
	pl.closed = true
	if pl.users == 0 {
		pl.once.Do(func() { close(pl.drained) })
	}
	pl.mu.Unlock()
	select {
	case <-pl.drained:
	case <-ctx.Done():
		// Requests still in flight return their instances later: close them then.
		go func() {
			<-pl.drained
			pl.closeIdle()
		}()
		return ctx.Err()
	}
	pl.closeIdle()
	return nil
}

// closeIdle closes every instance in the pool. Called once the pool has drained.
func (pl *Pool) closeIdle() {
	for {
		select {
		case in := <-pl.slots:
			if in != nil {
				in.close()
			}
		default:
			return
		}
	}
}

// startKeys asks the first instance which key sets the plugin wants, has Options.Keys
// fetch those not in hand yet (a pool swapped in finds them in hand), and gives them to
// the instance. A fetch that fails does not stop the pool: the plugin refuses the tokens
// that set would verify until a later fetch brings it, and Options.Keys says why.
func (pl *Pool) startKeys(ctx context.Context, first *instance) error {
	urls, err := first.keysWanted(ctx)
	if err != nil || len(urls) == 0 {
		return err
	}
	pl.keyURLs = urls
	if pl.opt.Keys == nil {
		return nil
	}
	for _, u := range urls {
		if _, v := pl.opt.Keys.Keys(u); v == 0 {
			pl.opt.Keys.Want(ctx, u)
		}
	}
	return pl.syncKeys(ctx, first)
}
