package runtime

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/skilledge/skilledge/edge/wire"
)

// ServeHTTP implements http.Handler: it frames the request, has the plugin answer it (or
// replays the answer the plugin gave a request that differed only in its id: replays)
// and writes the answer back, with the store objects it names spliced in straight from
// the pool's store, and a Content-Length. The host decides only what the plugin cannot: the
// body cap (it reads at most MaxBody+1 bytes, so it never buffers more), the wait for a
// free instance (bounded by the pool's Timeout: 503 after it), instance failures, and a
// store missing a named object (both 500 with a JSON-RPC -32603 body).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := states.Get().(*httpState)
	defer st.put()
	cur := s.cur.Load()
	frame, err := appendRequestFrame(st.in[:0], r, cur.opt.MaxBody, cur.fields)
	st.in = frame[:0]
	if err != nil {
		s.logf("skilledge: %s %s: reading the body: %v", r.Method, r.RequestURI, err)
		http.Error(w, "skilledge: could not read the request body", http.StatusBadRequest)
		return
	}
	var (
		pool  *Pool
		resp  []byte
		f     wire.Response
		owned bool // f's fields are interned already
	)
	if e, id := cur.replays.lookup(frame); e != nil {
		pool, owned = cur, true
		f = e.answer(st.out[:0], id, st.refs[:0])
		resp = f.Body
	} else {
		err = s.call(func(p *Pool) error {
			var err error
			pool = p
			resp, f, err = p.httpInto(r.Context(), frame, st.out[:0], st.header[:0], st.refs[:0])
			return err
		})
	}
	st.out = resp[:0]
	if err != nil {
		if r.Context().Err() != nil {
			return // the client is gone
		}
		s.logf("skilledge: %s %s: %v", r.Method, r.RequestURI, err)
		status := http.StatusInternalServerError
		if errors.Is(err, errWait) {
			status = http.StatusServiceUnavailable
			w.Header().Set("Retry-After", "1")
			err = errBusy
		}
		writeInternalError(w, status, err)
		return
	}
	if !owned {
		st.header = f.Header[:0]
	}
	st.refs = f.Refs[:0]
	objs, err := wire.Objects(f.Refs, pool.Store())
	if err != nil {
		s.logf("skilledge: %s %s: %v", r.Method, r.RequestURI, err)
		writeInternalError(w, http.StatusInternalServerError, err)
		return
	}
	h := w.Header()
	// Every value goes into one slice made for the purpose (one allocation, not one per
	// field): a field's values are a sub-slice of it whose capacity ends with them, so an
	// append to them elsewhere copies rather than overwrites the next field's.
	values := make([]string, len(f.Header)+1)
	for i, fl := range f.Header {
		// f aliases st.out, which is reused after this handler returns and before
		// net/http may write the header: keep strings of our own.
		name := fl.Name
		values[i] = fl.Value
		if !owned {
			name, values[i] = internName(name), internValue(values[i])
		}
		if vs, ok := h[name]; ok {
			h[name] = append(vs, values[i])
		} else {
			h[name] = values[i : i+1 : i+1]
		}
	}
	if _, ok := h["Content-Type"]; !ok {
		h["Content-Type"] = nil // the plugin decides; net/http must not sniff one
	}
	if f.Status != http.StatusNoContent && f.Status != http.StatusNotModified && r.Method != "HEAD" {
		n := len(f.Header)
		values[n] = strconv.FormatInt(wire.BodySize(f.Body, f.Refs), 10)
		h["Content-Length"] = values[n : n+1 : n+1]
	}
	w.WriteHeader(f.Status)
	// Contents go from the store to the connection as they are, never through the plugin.
	wire.WriteResolved(w, f.Body, f.Refs, objs)
}

// httpState is what one request needs, recycled: the request and response frames and the
// room the response frame is parsed into.
type httpState struct {
	in, out []byte
	header  wire.Header
	refs    []wire.Ref
}

var states = sync.Pool{New: func() any { return &httpState{in: make([]byte, 0, 8<<10), out: make([]byte, 0, 8<<10)} }}

// put recycles st unless a frame made it large: one big request or answer does not keep
// its memory for the next.
func (st *httpState) put() {
	if cap(st.in) <= 1<<20 && cap(st.out) <= 1<<20 {
		states.Put(st)
	}
}

// internName returns the header name n as a string of its own, without allocating for
// the names the plugin sends (all canonical already).
func internName(n string) string {
	switch n {
	case "Content-Type":
		return "Content-Type"
	case "Cache-Control":
		return "Cache-Control"
	case "Etag", "ETag":
		return "Etag"
	case "Access-Control-Allow-Origin":
		return "Access-Control-Allow-Origin"
	case "Access-Control-Expose-Headers":
		return "Access-Control-Expose-Headers"
	case "Vary":
		return "Vary"
	case "Allow":
		return "Allow"
	case "X-Content-Type-Options":
		return "X-Content-Type-Options"
	case "Content-Security-Policy":
		return "Content-Security-Policy"
	}
	return http.CanonicalHeaderKey(strings.Clone(n))
}

// internValue returns v as a string of its own, without allocating for the values the
// plugin sends most.
func internValue(v string) string {
	switch v {
	case "application/json":
		return "application/json"
	case "public, max-age=300":
		return "public, max-age=300"
	case "Origin":
		return "Origin"
	case "MCP-Protocol-Version, Mcp-Session-Id":
		return "MCP-Protocol-Version, Mcp-Session-Id"
	case "text/markdown; charset=utf-8":
		return "text/markdown; charset=utf-8"
	case "nosniff":
		return "nosniff"
	case "default-src 'none'; sandbox": // edge's Content-Security-Policy
		return "default-src 'none'; sandbox"
	}
	return strings.Clone(v)
}

var errBusy = errors.New("server busy")

// appendRequestFrame appends the wire frame of r to dst: method, request target, the
// header (Host first, as "Host"; then the fields whose names are in fields, compared
// ignoring case, in the order of fields, or every field when fields is nil, in the map's
// order; each name's values in order) and at most maxBody+1 bytes of body. The plugin
// reads only the fields it names (Pool.fields): every other line would be framed for it
// to skip. The same request is framed as the same bytes (with fields), which replays
// need.
func appendRequestFrame(dst []byte, r *http.Request, maxBody int, fields []string) ([]byte, error) {
	target := r.RequestURI
	if !strings.HasPrefix(target, "/") && target != "*" {
		target = r.URL.RequestURI() // absolute-form ("http://host/path"), or a request made in-process
	}
	dst = append(dst, r.Method...)
	dst = append(dst, ' ')
	dst = append(dst, target...)
	dst = append(dst, "\nHost: "...)
	dst = append(dst, r.Host...)
	dst = append(dst, '\n')
	// The key of each listed field, by its place in fields; of several keys for one field
	// (keys that differ in case, set in-process) the first in sort order, and the others
	// in more, framed after, sorted.
	var (
		byField [16]string
		more    []string
	)
	for name := range r.Header {
		i := 0
		if fields != nil {
			if i = listed(fields, name); i < 0 {
				continue
			}
		}
		switch {
		case fields == nil || i >= len(byField):
			more = append(more, name)
		case byField[i] == "":
			byField[i] = name
		default: // the key that sorts first keeps the place
			if name < byField[i] {
				name, byField[i] = byField[i], name
			}
			more = append(more, name)
		}
	}
	if fields != nil {
		slices.Sort(more)
	}
	for _, name := range byField {
		if name != "" {
			dst = appendField(dst, name, r.Header[name])
		}
	}
	for _, name := range more {
		dst = appendField(dst, name, r.Header[name])
	}
	dst = append(dst, '\n')
	if r.Body == nil || r.Body == http.NoBody {
		return dst, nil
	}
	body := io.LimitedReader{R: r.Body, N: int64(maxBody) + 1} // a value: io.LimitReader allocates one
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

// appendField appends a line for each of the values of the field name.
func appendField(dst []byte, name string, values []string) []byte {
	for _, v := range values {
		dst = append(dst, name...)
		dst = append(dst, ": "...)
		dst = append(dst, v...)
		dst = append(dst, '\n')
	}
	return dst
}

// listed returns the index of name in fields, ignoring ASCII case as edge does, or -1.
func listed(fields []string, name string) int {
	for i, f := range fields {
		if wire.EqualFold(f, name) {
			return i
		}
	}
	return -1
}

// writeInternalError answers status with a JSON-RPC internal error (-32603, id null).
func writeInternalError(w http.ResponseWriter, status int, err error) {
	body := internalError(nil, reasonOf(err))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
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
