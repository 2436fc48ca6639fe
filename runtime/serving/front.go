package serving

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Handler is the front Start made, as an http.Handler: for a caller that serves it on a
// server of its own (skilledge search serves a folder to itself).
func (s *Server) Handler() http.Handler { return s.front }

// ServeHTTP serves the front Start made over HTTP on ln (which it closes) until ctx ends,
// then shuts down gracefully, giving the requests in flight 10 seconds, and says so on
// Options.Log. It returns the error that stopped it before ctx ended, else nil.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.front,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintln(s.opt.Log, "skilledge: shutting down")
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(s.opt.Log, "skilledge %s: %v\n", s.opt.Command, err)
	}
	return nil
}

// ServeStdio serves the front Start made over the MCP stdio transport, reading in and
// writing out (front.Server.ServeStdio), until in ends or ctx does. It returns the error
// that stopped it, but context.Canceled.
//
// Why not wait for front.Server.ServeStdio to return when ctx ends? Because it notices ctx
// only between messages, and an interrupt must not wait for the next line: this returns at
// once (the process is about to exit), leaving the read behind.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	done := make(chan error, 1)
	go func() { done <- s.front.ServeStdio(ctx, in, out) }()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	case <-ctx.Done():
	}
	return nil
}
