package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// Server serves the current Pool over HTTP (ServeHTTP) and stdio (ServeStdio). The pool
// can be swapped at any time: each request runs entirely on one pool, so no request sees
// a half-replaced catalog, and a replaced pool is closed once its requests finish.
type Server struct {
	cur    atomic.Pointer[Pool]
	log    io.Writer
	logMu  sync.Mutex
	drains sync.WaitGroup
	// conns are the stdio connections being served, for Notify.
	connsMu sync.Mutex
	conns   map[*stdioConn]struct{}
}

// NewServer returns a Server answering from pool. Errors are logged to log (os.Stderr
// in the CLI; never the stdio protocol stream).
func NewServer(pool *Pool, log io.Writer) *Server {
	s := &Server{log: log}
	s.cur.Store(pool)
	return s
}

// Pool returns the pool serving new requests.
func (s *Server) Pool() *Pool { return s.cur.Load() }

// Swap makes pool serve every request from now on. The previous pool finishes the
// requests it has and is closed in the background.
func (s *Server) Swap(pool *Pool) {
	old := s.cur.Swap(pool)
	if old == nil || old == pool {
		return
	}
	s.drains.Add(1)
	go func() {
		defer s.drains.Done()
		if err := old.Close(context.Background()); err != nil {
			s.logf("skilledge: closing the previous catalog: %v", err)
		}
	}()
}

// Close closes the current pool after its requests in flight, and waits for pools
// replaced earlier to close, or for ctx.
func (s *Server) Close(ctx context.Context) error {
	err := s.cur.Load().Close(ctx)
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
func (s *Server) call(f func(*Pool) error) error {
	for {
		pool := s.cur.Load()
		err := f(pool)
		if !errors.Is(err, ErrClosed) || s.cur.Load() == pool {
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
