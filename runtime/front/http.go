package front

import (
	"bytes"
	"io"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// ServeHTTP implements http.Handler: it frames the request, has the plugin answer it (or
// replays the answer the pool gave a request that differed only in its id: replays)
// and writes the answer back, with the store objects it names spliced in straight from
// the pool's store, and a Content-Length. The host decides only what the plugin cannot: the
// body cap (it reads at most MaxBody+1 bytes, so it never buffers more), the wait for a
// free instance (bounded by the pool's Timeout: 503 after it), instance failures, and a
// store missing a named object (both 500 with a JSON-RPC -32603 body).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := states.Get().(*httpState)
	defer st.put()
	var rec *Record
	if s.observer != nil {
		st.rec = Record{Request: r, Start: time.Now()}
		rec = &st.rec
		defer s.observe(rec) // before st.put: rec is st's
	}
	cur := s.cur.Load()
	frame, err := appendRequestFrame(st.in[:0], r, cur.maxBody, cur.framing)
	st.in = frame[:0]
	if err != nil {
		s.logf("skilledge: %s %s: reading the body: %v", r.Method, r.RequestURI, err)
		writeFailure(w, wire.FailBody, rec)
		return
	}
	var (
		pool  *wasm.Pool
		resp  []byte
		f     wire.Response
		owned bool // f's fields are interned already
	)
	if e, id := cur.replays.lookup(frame); e != nil {
		pool, owned = cur.pool, true
		f = e.Answer(st.out[:0], id, st.refs[:0])
		resp = f.Body
		if rec != nil {
			rec.Replayed, rec.Facts = true, e.Facts
		}
	} else {
		err = s.call(func(sv *served) error {
			var (
				err   error
				hint  wire.Hint
				facts wire.Facts
				ask   = s.ask
			)
			if sv.replays != nil {
				ask |= wasm.AskHint
			}
			pool = sv.pool
			resp, f, hint, facts, err = sv.pool.HTTPAnswer(r.Context(), frame, st.out[:0], st.header[:0], st.refs[:0], ask)
			if err == nil && hint.IDLen > 0 {
				// Kept once the instance is back in the pool: keeping copies and takes the
				// replays' lock, which no other request need wait for.
				sv.replays.keep(frame, hint, resp, f, facts)
			}
			if rec != nil {
				rec.Facts = facts
			}
			return err
		})
	}
	st.out = resp[:0]
	if rec != nil {
		rec.Body = frame[bytesIndexBody(frame):]
		rec.BodyBytes = int64(len(rec.Body))
	}
	if err != nil {
		if r.Context().Err() != nil {
			if rec != nil {
				rec.Failure = "gone" // the client went away: nothing was answered
			}
			return
		}
		s.logf("skilledge: %s %s: %v", r.Method, r.RequestURI, err)
		writeFailure(w, failureOf(err), rec)
		return
	}
	if !owned {
		st.header = f.Header[:0]
	}
	st.refs = f.Refs[:0]
	objs, err := wire.Objects(f.Refs, pool.Store())
	if err != nil {
		s.logf("skilledge: %s %s: %v", r.Method, r.RequestURI, err)
		writeFailure(w, wire.FailStore, rec)
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
	if rec != nil {
		rec.Status = f.Status
		if r.Method != "HEAD" {
			rec.Bytes = wire.BodySize(f.Body, f.Refs)
		}
	}
}

// observe completes rec and tells the observer of it.
func (s *Server) observe(rec *Record) {
	rec.Duration = time.Since(rec.Start)
	s.observer.Observe(rec)
}

// bytesIndexBody is where the body of a request frame starts: after its blank line.
func bytesIndexBody(frame []byte) int {
	if i := bytes.Index(frame, []byte("\n\n")); i >= 0 {
		return i + 2
	}
	return len(frame)
}

// httpState is what one request needs, recycled: the request and response frames and the
// room the response frame is parsed into.
type httpState struct {
	in, out []byte
	header  wire.Header
	refs    []wire.Ref
	rec     Record // the answer's, for the observer
}

var states = sync.Pool{New: func() any { return &httpState{in: make([]byte, 0, 8<<10), out: make([]byte, 0, 8<<10)} }}

// put recycles st unless a frame made it large: one big request or answer does not keep
// its memory for the next.
func (st *httpState) put() {
	st.rec = Record{} // hold on to no request
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

// framing is how the HTTP front frames requests for one pool: the fields its plugin reads
// (nil for every field: a plugin without skilledge_fields) and their keys in net/http's
// header map, canonicalized once when the pool is served (canonicalizing a lowercase name
// allocates).
type framing struct {
	fields []string
	keys   map[string]string // lowercase field -> canonical key
}

func newFraming(fields []string) framing {
	fr := framing{fields: fields, keys: make(map[string]string, len(fields))}
	for _, f := range fields {
		fr.keys[f] = textproto.CanonicalMIMEHeaderKey(f)
	}
	return fr
}

// appendRequestFrame appends the wire frame of r to dst: the head as every host frames it
// (wire.AppendRequestHead: the fields fr names, in their order, lowercase, a repeated
// field's values joined), with the request target as received, and at most maxBody+1
// bytes of body. Without fields (a plugin without skilledge_fields) it frames every field,
// Host first, then the others in sorted order, each value on a line of its own. The same
// request is framed as the same bytes, which replays need.
func appendRequestFrame(dst []byte, r *http.Request, maxBody int, fr framing) ([]byte, error) {
	target := r.RequestURI
	if !strings.HasPrefix(target, "/") && target != "*" {
		target = r.URL.RequestURI() // absolute-form ("http://host/path"), or a request made in-process
	}
	if fr.fields != nil {
		rf := requestFields{r: r, keys: fr.keys}
		dst = wire.AppendRequestHead(dst, r.Method, target, fr.fields, rf.value)
	} else {
		dst = appendEveryField(dst, r, target)
	}
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

// requestFields gives a request's fields as wire.AppendRequestHead asks for them.
type requestFields struct {
	r    *http.Request
	keys map[string]string // framing.keys
}

// value returns the value of field (a lowercase name) in the request: Host from r.Host,
// any other field's values joined by ", ". Keys are looked up in canonical form, as
// http.Header.Get does (net/http parses every key into it).
func (rf requestFields) value(field string) (string, bool) {
	if field == "host" {
		return rf.r.Host, true // framed always, empty when missing (wire.AppendRequestHead)
	}
	vs := rf.r.Header[rf.keys[field]]
	switch len(vs) {
	case 0:
		return "", false
	case 1:
		return vs[0], true
	}
	return strings.Join(vs, ", "), true
}

// appendEveryField appends the head of r's frame with every field, for a plugin that does
// not name the fields it reads: Host first, then every key in sorted order, a line for
// each of its values.
func appendEveryField(dst []byte, r *http.Request, target string) []byte {
	dst = append(dst, r.Method...)
	dst = append(dst, ' ')
	dst = append(dst, target...)
	dst = append(dst, "\nHost: "...)
	dst = append(dst, r.Host...)
	dst = append(dst, '\n')
	keys := make([]string, 0, len(r.Header))
	for k := range r.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		dst = appendField(dst, k, r.Header[k])
	}
	return append(dst, '\n')
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

// writeFailure answers f, the host's own failure answer (wire.Failure), and records it
// on rec, when not nil.
func writeFailure(w http.ResponseWriter, f wire.Failure, rec *Record) {
	resp := f.Response()
	if rec != nil {
		rec.Status, rec.Bytes, rec.Failure, rec.Facts = resp.Status, int64(len(resp.Body)), f.Name, wire.Facts{}
	}
	h := w.Header()
	for _, fl := range resp.Header {
		h.Set(fl.Name, fl.Value)
	}
	h.Set("Content-Length", strconv.Itoa(len(resp.Body)))
	w.WriteHeader(resp.Status)
	w.Write(resp.Body)
}
