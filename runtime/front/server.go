package front

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// DefaultReplays is the default of Options.Replays.
const DefaultReplays = wire.ReplayEntries

// Options configure a Server.
type Options struct {
	// Replays is the most answers the HTTP front keeps to give again to requests that
	// repeat one but for their JSON-RPC id, without calling an instance (wire.Hint says
	// which answers may be). Default DefaultReplays; negative keeps none, so that every
	// request reaches the plugin. The answers kept are the serving pool's: a pool swapped
	// in starts with none.
	Replays int
	// Observer, when not nil, is told of every HTTP answer (Record), replays and the
	// host's own failures included; then the front asks the plugin for the facts of each
	// answer (wire.Facts) and keeps them with its replays. Nil asks for nothing.
	Observer Observer
}

// Server serves the current Pool over HTTP (ServeHTTP) and stdio (ServeStdio). The pool
// can be swapped at any time: each request runs entirely on one pool, so no request sees
// a half-replaced catalog, and a replaced pool is closed once its requests finish.
type Server struct {
	cur      atomic.Pointer[served]
	replays  int // Options.Replays, the default filled in
	observer Observer
	ask      wasm.Ask // what the HTTP front asks the plugin besides the answer, but the hint
	log      io.Writer
	logMu    sync.Mutex
	drains   sync.WaitGroup
	// conns are the stdio connections being served, for Notify.
	connsMu sync.Mutex
	conns   map[*stdioConn]struct{}
}

// served is a pool with what the fronts keep for it: the request fields and the body cap
// its frames are made with, and the answers it gave that may be given again. A swap
// replaces the whole, so that a pool swapped in starts with no replays and no answer of
// one pool is ever kept for, or given from, another.
type served struct {
	pool    *wasm.Pool
	framing framing
	maxBody int
	replays *replays // nil keeps none
}

// NewServer returns a Server answering from pool. Errors are logged to log (os.Stderr
// in the CLI; never the stdio protocol stream).
func NewServer(pool *wasm.Pool, log io.Writer, opt Options) *Server {
	if opt.Replays == 0 {
		opt.Replays = DefaultReplays
	}
	s := &Server{log: log, replays: opt.Replays, observer: opt.Observer}
	if opt.Observer != nil {
		s.ask = wasm.AskFacts
	}
	s.cur.Store(s.serve(pool))
	return s
}

// serve returns pool as the Server serves it, with no replays yet.
func (s *Server) serve(pool *wasm.Pool) *served {
	if pool == nil {
		return &served{}
	}
	return &served{pool: pool, framing: newFraming(pool.Fields()), maxBody: pool.Options().MaxBody, replays: newReplays(s.replays)}
}

// Pool returns the pool serving new requests.
func (s *Server) Pool() *wasm.Pool { return s.cur.Load().pool }

// Swap makes pool serve every request from now on, with no replays yet. The previous
// pool finishes the requests it has and is closed in the background.
func (s *Server) Swap(pool *wasm.Pool) {
	next := s.serve(pool)
	var old *served
	for {
		old = s.cur.Load()
		if old != nil && old.pool == pool {
			return
		}
		if s.cur.CompareAndSwap(old, next) {
			break
		}
	}
	if old == nil || old.pool == nil {
		return
	}
	s.drains.Add(1)
	go func() {
		defer s.drains.Done()
		if err := old.pool.Close(context.Background()); err != nil {
			s.logf("skilledge: closing the previous catalog: %v", err)
		}
	}()
}

// Close closes the current pool after its requests in flight, and waits for pools
// replaced earlier to close, or for ctx.
func (s *Server) Close(ctx context.Context) error {
	err := s.cur.Load().pool.Close(ctx)
	done := make(chan struct{})
	go func() { s.drains.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return err
}

// call runs f on the current pool, moving to the new one if the pool was swapped out
// between loading it and lending an instance.
func (s *Server) call(f func(*served) error) error {
	for {
		sv := s.cur.Load()
		err := f(sv)
		if !errors.Is(err, wasm.ErrClosed) || s.cur.Load() == sv {
			return err
		}
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.log, format+"\n", args...)
}
