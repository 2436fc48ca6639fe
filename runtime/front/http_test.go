package front

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/internal/require"
	"github.com/skilledge/skilledge/runtime/store"
	"github.com/skilledge/skilledge/runtime/wasm"
)

func newTestServer(t *testing.T, pool *wasm.Pool) (*httptest.Server, *require.Buffer) {
	t.Helper()
	ts, _, log := newTestServerWith(t, pool, Options{})
	return ts, log
}

// newTestServerWith is newTestServer with options, also returning the Server.
func newTestServerWith(t *testing.T, pool *wasm.Pool, opt Options) (*httptest.Server, *Server, *require.Buffer) {
	t.Helper()
	log := new(require.Buffer)
	srv := NewServer(pool, log, opt)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts, srv, log
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readBody(t *testing.T, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	return string(b)
}

func TestServeHTTP(t *testing.T) {
	ts, _ := newTestServer(t, testPool(t, wasm.Options{Size: 2}))

	resp := post(t, ts.URL+"/mcp", initialize)
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	requireInitialized(t, []byte(readBody(t, resp)))

	// A notification is accepted with no body, and net/http adds no Content-Type.
	resp = post(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(t, 202, resp.StatusCode)
	require.Equal(t, "", readBody(t, resp))
	require.Equal(t, []string(nil), resp.Header.Values("Content-Type"))

	resp, err := http.Get(ts.URL + "/mcp")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 405, resp.StatusCode)

	// The Host header reaches the plugin, which refuses non-loopback names by default.
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(initialize))
	req.Host = "evil.example"
	req.Header.Set("Content-Type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 403, resp.StatusCode)
}

func TestServeHTTPBodyCap(t *testing.T) {
	ts, _ := newTestServer(t, testPool(t, wasm.Options{Size: 1, MaxBody: 1024}))
	resp := post(t, ts.URL+"/mcp", initialize+strings.Repeat(" ", 1024))
	require.Equal(t, 413, resp.StatusCode)
	resp = post(t, ts.URL+"/mcp", initialize+strings.Repeat(" ", 1024-len(initialize)))
	require.Equal(t, 200, resp.StatusCode)
}

// countingReader is an endless body that counts what was read from it.
type countingReader struct{ n int }

func (c *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	c.n += len(p)
	return len(p), nil
}

func TestAppendRequestFrame(t *testing.T) {
	body := &countingReader{}
	r := httptest.NewRequest("POST", "http://example.com:8787/mcp?x=1", io.NopCloser(body))
	r.Header.Set("Zeta", "z")
	r.Header.Add("Accept", "a")
	r.Header.Add("Accept", "b")
	out, err := appendRequestFrame(nil, r, 1000, newFraming(nil))
	require.NoError(t, err)
	require.Equal(t, 1001, body.n, "the host reads at most MaxBody+1 bytes")
	f, err := wire.ParseRequest(out)
	require.NoError(t, err)
	require.Equal(t, "POST", f.Method)
	require.Equal(t, "/mcp?x=1", f.Target)
	// Host first; then each name's values in order, the names in any order.
	require.Equal(t, wire.Field{Name: "Host", Value: "example.com:8787"}, f.Header[0])
	rest := slices.Clone(f.Header[1:])
	slices.SortStableFunc(rest, func(a, b wire.Field) int { return strings.Compare(a.Name, b.Name) })
	require.Equal(t, wire.Header{{Name: "Accept", Value: "a"}, {Name: "Accept", Value: "b"}, {Name: "Zeta", Value: "z"}}, wire.Header(rest))
	require.Equal(t, 1001, len(f.Body))

	r = httptest.NewRequest("GET", "/", nil)
	out, err = appendRequestFrame(nil, r, 1000, newFraming(nil))
	require.NoError(t, err)
	require.Equal(t, "GET /\nHost: example.com\n\n", string(out))

	// With the plugin's names, only those fields, as every host frames them
	// (wire.AppendRequestHead: lowercase, in the order of the names, a repeated field's
	// values joined): the same request is framed as the same bytes every time (replays
	// need it). Keys are looked up in canonical form, as http.Header.Get does: a key set
	// in process in another case is not seen.
	var first string
	for i := range 32 {
		r = httptest.NewRequest("POST", "/mcp", strings.NewReader("{}"))
		r.Header.Set("User-Agent", "u")
		r.Header.Add("Origin", "o1")
		r.Header.Add("Origin", "o2")
		r.Header["mcp-method"] = []string{"m"} // set in process, not canonical
		r.Header.Set("Accept", "a")
		r.Header["accept"] = []string{"a2"}
		r.Header.Set("Content-Type", "application/json")
		out, err = appendRequestFrame(nil, r, 1000, newFraming([]string{"host", "content-type", "origin", "mcp-method", "accept"}))
		require.NoError(t, err)
		if i == 0 {
			first = string(out)
		}
		require.Equal(t, first, string(out), "the same request framed again")
	}
	require.Equal(t, "POST /mcp\nhost: example.com\ncontent-type: application/json\norigin: o1, o2\naccept: a\n\n{}", first)
}

// An instance failure is a 500 with a JSON-RPC internal error for that request only.
func TestServeHTTPInstanceFailure(t *testing.T) {
	_, cat := testPlugin(t)
	ctx := context.Background()
	limit := wasm.MinMemoryLimit(cat.Index, wasm.DefaultMaxBody) // the smallest the pool accepts
	small, err := wasm.Compile(ctx, shared.wasm, wasm.Config{MemoryLimit: limit, Stderr: io.Discard})
	require.NoError(t, err)
	defer small.Close(ctx)
	pool, err := small.NewPool(ctx, cat, wasm.Options{Size: 1})
	require.NoError(t, err)
	defer pool.Close(ctx)
	ts, srv, log := newTestServerWith(t, pool, Options{})
	srv.cur.Load().maxBody = 64 << 20 // past what NewPool allows: the body will not fit the instance

	resp := post(t, ts.URL+"/mcp", strings.Repeat(" ", int(limit)+1<<20))
	require.Equal(t, 500, resp.StatusCode)
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	require.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the server instance failed","data":{"failure":"instance"}}}`, readBody(t, resp))
	require.Contains(t, log.String(), "skilledge: POST /mcp: wasm: plugin instance failed: plugin crashed")

	resp = post(t, ts.URL+"/mcp", initialize)
	require.Equal(t, 200, resp.StatusCode)
}

func TestServerSwap(t *testing.T) {
	first := testPool(t, wasm.Options{Size: 2})
	srv := NewServer(first, io.Discard, Options{})
	ts := httptest.NewServer(srv)
	defer ts.Close()

	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp := post(t, ts.URL+"/mcp", initialize)
				if resp.StatusCode != 200 {
					t.Errorf("status %d during swaps: %s", resp.StatusCode, readBody(t, resp))
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	p, cat := testPlugin(t)
	pools := []*wasm.Pool{first}
	for i := 0; i < 5; i++ {
		next, err := p.NewPool(context.Background(), cat, wasm.Options{Size: 2})
		require.NoError(t, err)
		srv.Swap(next)
		pools = append(pools, next)
	}
	close(stop)
	wg.Wait()
	require.NoError(t, srv.Close(context.Background()))
	for _, pl := range pools {
		_, err := pl.HTTP(context.Background(), postFrame(initialize), nil)
		require.ErrorIs(t, err, wasm.ErrClosed)
	}
}

// When every instance stayed busy for the whole Timeout, the pool turns the request away
// (wasm.ErrBusy; wasm's TestPoolBusy makes one), and the HTTP front answers a 503 to retry.
func TestServeHTTPBusy(t *testing.T) {
	w := httptest.NewRecorder()
	writeFailure(w, failureOf(fmt.Errorf("%w (50ms): %w", wasm.ErrBusy, context.DeadlineExceeded)), nil)
	require.Equal(t, 503, w.Code)
	require.Equal(t, "1", w.Header().Get("Retry-After"))
	require.Equal(t, "application/json", w.Header().Get("Content-Type"))
	body := `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: server busy, retry later","data":{"failure":"busy"}}}`
	require.Equal(t, body, w.Body.String())
	require.Equal(t, fmt.Sprint(len(body)), w.Header().Get("Content-Length"))
}

// failureOf reads what went wrong from the pool's errors, and the store's.
func TestFailureOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want wire.Failure
	}{
		{fmt.Errorf("%w: %w", wasm.ErrInstance, wasm.ErrTimeout), wire.FailTimeout},
		{fmt.Errorf("%w (10s): %w", wasm.ErrBusy, context.DeadlineExceeded), wire.FailBusy},
		{fmt.Errorf("%w: plugin crashed", wasm.ErrInstance), wire.FailInstance},
		{fmt.Errorf("%w: x is missing", wire.ErrObject), wire.FailStore},
		{context.Canceled, wire.FailOther},
		{wasm.ErrClosed, wire.FailOther},
	} {
		require.Equal(t, c.want, failureOf(c.err), c.err.Error())
	}
}

// TestServeHTTPConcurrentHeaders sends concurrent requests, each from its own loopback
// origin, and checks every response carries its own CORS origin and content type. Response
// headers once aliased a pooled buffer that the next request overwrote before net/http
// wrote them (run with -race to see the race itself).
func TestServeHTTPConcurrentHeaders(t *testing.T) {
	ts, _ := newTestServer(t, testPool(t, wasm.Options{Size: 2}))
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				origin := fmt.Sprintf("http://127.0.0.1:%d", 10000+g*100+i)
				req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(initialize))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Origin", origin)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- err.Error()
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if got := resp.Header.Get("Access-Control-Allow-Origin"); got != origin || resp.Header.Get("Content-Type") != "application/json" {
					errs <- fmt.Sprintf("origin %s: got Access-Control-Allow-Origin %q, Content-Type %q", origin, got, resp.Header.Get("Content-Type"))
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestServeHTTPStore: answers naming store objects go out with the objects spliced in
// and a Content-Length that counts them; HEAD sends the header alone; an object missing
// from the store, or damaged, is a 500 with a JSON-RPC error, logged with its name, and
// the instance stays in service.
func TestServeHTTPStore(t *testing.T) {
	p, cat := testPlugin(t)
	dir := t.TempDir()
	st := cat.Store.(interface{ WriteDir(string) error })
	require.NoError(t, st.WriteDir(dir))
	objects, err := store.Open(dir)
	require.NoError(t, err)
	pool, err := p.NewPool(context.Background(), wasm.Catalog{Index: cat.Index, Store: objects}, wasm.Options{Size: 1})
	require.NoError(t, err)
	t.Cleanup(func() { pool.Close(context.Background()) })
	ts, srv, log := newTestServerWith(t, pool, Options{})

	read := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://csv-insights/assets/chart-template.png"}}`
	resp := post(t, ts.URL+"/mcp", read)
	body := readBody(t, resp)
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, fmt.Sprint(len(body)), resp.Header.Get("Content-Length"))
	require.Contains(t, body, `"mimeType":"image/png","blob":"iVBORw0KGgo`)

	resp, err = http.Get(ts.URL + "/.well-known/skills/git-workflow/SKILL.md")
	require.NoError(t, err)
	md := readBody(t, resp)
	require.Equal(t, fmt.Sprint(len(md)), resp.Header.Get("Content-Length"))
	require.Equal(t, true, strings.HasPrefix(md, "---\nname: git-workflow\n"))
	head, err := http.Head(ts.URL + "/.well-known/skills/git-workflow/SKILL.md")
	require.NoError(t, err)
	require.Equal(t, "", readBody(t, head))
	require.Equal(t, resp.Header.Get("ETag"), head.Header.Get("ETag"))

	// Take the PNG's resources/read object out of the store: the next read of it fails
	// alone (the rest, including other objects, is served). The pool swapped in serves
	// the same catalog from a store that has not loaded it yet.
	r, err := wire.ParseResponse(mustHTTP(t, pool, read))
	require.NoError(t, err)
	require.Equal(t, 1, len(r.Refs))
	missing := r.Refs[0].Name
	objects2, err := store.Open(dir)
	require.NoError(t, err)
	pool, err = p.NewPool(context.Background(), wasm.Catalog{Index: cat.Index, Store: objects2}, wasm.Options{Size: 1})
	require.NoError(t, err)
	t.Cleanup(func() { pool.Close(context.Background()) })
	srv.Swap(pool)
	require.NoError(t, os.Remove(filepath.Join(dir, "sha256", missing)))
	resp = post(t, ts.URL+"/mcp", read)
	body = readBody(t, resp)
	require.Equal(t, 500, resp.StatusCode)
	require.Contains(t, body, `"code":-32603`)
	require.Contains(t, body, "content store is incomplete or damaged")
	require.Contains(t, log.String(), missing)
	resp = post(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"skill://git-workflow/SKILL.md"}}`)
	require.Equal(t, 200, resp.StatusCode)
	_, failed := pool.Stats()
	require.Equal(t, int64(0), failed)
}

// mustHTTP answers a POST of body through the pool and returns the frame, references
// unresolved.
func mustHTTP(t *testing.T, pool *wasm.Pool, body string) []byte {
	t.Helper()
	out, err := pool.HTTP(context.Background(), postFrame(body), nil)
	require.NoError(t, err)
	return out
}
