package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/skilledge/skilledge/edge/wire"
)

// ServeHTTP implements http.Handler: it frames the request, has the plugin answer it and
// writes the answer back, with the store objects it names spliced in straight from the
// pool's store, and a Content-Length. The host decides only what the plugin cannot: the
// body cap (it reads at most MaxBody+1 bytes, so it never buffers more), the wait for a
// free instance (bounded by the pool's Timeout: 503 after it), instance failures, and a
// store missing a named object (both 500 with a JSON-RPC -32603 body).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	pool := s.cur.Load()
	in := bufs.Get().(*[]byte)
	out := bufs.Get().(*[]byte)
	defer putBuf(in)
	defer putBuf(out)

	frame, err := appendRequestFrame((*in)[:0], r, pool.opt.MaxBody)
	*in = frame[:0]
	if err != nil {
		s.logf("skilledge: %s %s: reading the body: %v", r.Method, r.RequestURI, err)
		http.Error(w, "skilledge: could not read the request body", http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), pool.opt.Timeout)
	defer cancel()
	var resp []byte
	var store wire.Store
	err = s.call(func(p *Pool) error {
		var err error
		resp, err = p.HTTP(ctx, frame, (*out)[:0])
		store = p.Store()
		return err
	})
	*out = resp[:0]
	if err != nil {
		if r.Context().Err() != nil {
			return // the client is gone
		}
		s.logf("skilledge: %s %s: %v", r.Method, r.RequestURI, err)
		status := http.StatusInternalServerError
		if errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, ErrInstance) {
			status = http.StatusServiceUnavailable
			w.Header().Set("Retry-After", "1")
			err = errBusy
		}
		writeInternalError(w, status, err)
		return
	}
	f, _ := wire.ParseResponse(resp) // Pool.HTTP only returns frames that parse
	objs, err := wire.Objects(f.Refs, store)
	if err != nil {
		s.logf("skilledge: %s %s: %v", r.Method, r.RequestURI, err)
		writeInternalError(w, http.StatusInternalServerError, err)
		return
	}
	h := w.Header()
	for _, fl := range f.Header {
		// Clone: f aliases out, which goes back to the pool before net/http writes headers.
		h.Add(strings.Clone(fl.Name), strings.Clone(fl.Value))
	}
	if _, ok := h["Content-Type"]; !ok {
		h["Content-Type"] = nil // the plugin decides; net/http must not sniff one
	}
	if f.Status != http.StatusNoContent && f.Status != http.StatusNotModified && r.Method != "HEAD" {
		h["Content-Length"] = []string{strconv.FormatInt(wire.BodySize(f.Body, f.Refs), 10)}
	}
	w.WriteHeader(f.Status)
	// Contents go from the store to the connection as they are, never through the plugin.
	wire.WriteResolved(w, f.Body, f.Refs, objs)
}

var errBusy = errors.New("server busy")

// bufs recycles request and response frames.
var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

func putBuf(b *[]byte) {
	if cap(*b) <= 1<<20 {
		bufs.Put(b)
	}
}

// appendRequestFrame appends the wire frame of r to dst: method, request target, every
// header (Host first, as "Host"; the rest sorted by name) and at most maxBody+1 bytes
// of body.
func appendRequestFrame(dst []byte, r *http.Request, maxBody int) ([]byte, error) {
	target := r.RequestURI
	if !strings.HasPrefix(target, "/") && target != "*" {
		target = r.URL.RequestURI() // absolute-form ("http://host/path"), or a request made in-process
	}
	names := make([]string, 0, len(r.Header))
	n := 1
	for name, vs := range r.Header {
		names = append(names, name)
		n += len(vs)
	}
	sort.Strings(names)
	h := make(wire.Header, 0, n)
	h = append(h, wire.Field{Name: "Host", Value: r.Host})
	for _, name := range names {
		for _, v := range r.Header[name] {
			h = append(h, wire.Field{Name: name, Value: v})
		}
	}
	dst = wire.AppendRequest(dst, &wire.Request{Method: r.Method, Target: target, Header: h})
	if r.Body == nil || r.Body == http.NoBody {
		return dst, nil
	}
	body := io.LimitReader(r.Body, int64(maxBody)+1)
	for {
		if len(dst) == cap(dst) {
			dst = slices.Grow(dst, 16<<10)
		}
		k, err := body.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+k]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// writeInternalError answers status with a JSON-RPC internal error (-32603, id null).
func writeInternalError(w http.ResponseWriter, status int, err error) {
	body := internalError(nil, reasonOf(err))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(body)
}

func reasonOf(err error) string {
	if err == errBusy {
		return "server busy, retry later"
	}
	return reason(err)
}

// internalError renders a JSON-RPC -32603 response. id is the raw JSON id, nil for null.
func internalError(id []byte, msg string) []byte {
	if id == nil {
		id = []byte("null")
	}
	b := make([]byte, 0, 96+len(id)+len(msg))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":{"code":-32603,"message":`...)
	b = strconv.AppendQuote(b, "Internal error: "+msg)
	return append(b, "}}"...)
}
