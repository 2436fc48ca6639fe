package wasm

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/edge"
	"github.com/skilledge/skilledge/edge/auth"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/internal/require"
)

func TestPoolHTTPAndRPC(t *testing.T) {
	pool := testPool(t, Options{Size: 2})
	ctx := context.Background()

	out, err := pool.HTTP(ctx, postFrame(initialize), nil)
	require.NoError(t, err)
	resp := parseResponse(t, out)
	require.Equal(t, 200, resp.Status)
	requireInitialized(t, resp.Body)

	out, err = pool.HTTP(ctx, frame("GET", "/mcp", ""), nil)
	require.NoError(t, err)
	require.Equal(t, 405, parseResponse(t, out).Status)

	out0, err := pool.RPC(ctx, "", []byte(initialize))
	reply, version := out0.Message, out0.Version
	require.NoError(t, err)
	requireInitialized(t, reply)
	require.Equal(t, "2025-06-18", version)

	out0, err = pool.RPC(ctx, version, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	reply, version = out0.Message, out0.Version
	require.NoError(t, err)
	require.Equal(t, 0, len(reply), string(reply))
	require.Equal(t, "2025-06-18", version)
}

// HTTPAnswer parses the answer it appends, and asks the plugin how it may be replayed and
// what the answer was only when told to; HTTP answers the same frame.
func TestPoolHTTPAnswer(t *testing.T) {
	pool := testPool(t, Options{Size: 1})
	ctx := context.Background()
	req := postFrame(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://git-workflow/SKILL.md"}}`)
	out, resp, hint, facts, err := pool.HTTPAnswer(ctx, req, []byte("before"), nil, nil, AskHint|AskFacts)
	require.NoError(t, err)
	require.Equal(t, "before", string(out[:6]))
	want := parseResponse(t, out[6:])
	require.Equal(t, [2]int{200, 1}, [2]int{resp.Status, len(resp.Refs)})
	require.Equal(t, want.Body, resp.Body)
	require.Equal(t, want.Refs, resp.Refs)
	require.Equal(t, true, hint.IDLen > 0, "a read may be replayed")
	require.Equal(t, wire.Facts{Route: "mcp", Method: "resources/read", Version: "2025-03-26", Read: "activation", Skill: "git-workflow", URI: "skill://git-workflow/SKILL.md"}, facts)

	again, _, hint, facts, err := pool.HTTPAnswer(ctx, req, nil, nil, nil, 0)
	require.NoError(t, err)
	require.Equal(t, wire.Hint{}, hint)
	require.Equal(t, wire.Facts{}, facts)
	require.Equal(t, out[6:], again)
	plain, err := pool.HTTP(ctx, req, nil)
	require.NoError(t, err)
	require.Equal(t, out[6:], plain)
}

// The pool names the fields the plugin's skilledge_fields names: edge.Fields of its options.
func TestPoolFields(t *testing.T) {
	pool := testPool(t, Options{})
	require.Equal(t, edge.Fields(wire.Options{}), pool.Fields())
}

func TestPoolConcurrent(t *testing.T) {
	pool := testPool(t, Options{Size: 4})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				out, err := pool.HTTP(ctx, postFrame(initialize), nil)
				if err != nil {
					errs <- err
					return
				}
				if r := parseResponse(t, out); r.Status != 200 || !strings.Contains(string(r.Body), `"2025-06-18"`) {
					t.Errorf("status %d body %s", r.Status, r.Body)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	created, failed := pool.Stats()
	if created > 4 || failed != 0 {
		t.Fatalf("created %d instances (size 4), %d failed", created, failed)
	}
}

func TestPoolWaitsForAFreeInstance(t *testing.T) {
	pool := testPool(t, Options{Size: 1})
	in, err := pool.acquire(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = pool.HTTP(ctx, postFrame(initialize), nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	done := make(chan error)
	go func() {
		_, err := pool.HTTP(context.Background(), postFrame(initialize), nil)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	pool.release(in, nil)
	require.NoError(t, <-done)
}

// A call whose deadline passes as it runs but that ends before the next check (checks
// come every tickEvery iterations of a loop; a small request has none that long) keeps
// its answer, and its instance, the deadline flag cleared, serves the next request.
// Runaway calls are stopped: TestRunawayCall.
func TestPoolDeadlinePassedAtTheEnd(t *testing.T) {
	pool := testPool(t, Options{Size: 1})
	ctx := context.Background()
	pool.opt.Timeout = time.Nanosecond
	for range 3 {
		out, err := pool.HTTP(ctx, postFrame(initialize), nil)
		require.NoError(t, err)
		requireInitialized(t, parseResponse(t, out).Body)
	}
	created, failed := pool.Stats()
	require.Equal(t, [2]int64{1, 0}, [2]int64{created, failed})
	in, err := pool.acquire(ctx)
	require.NoError(t, err)
	require.Equal(t, uint64(0), in.stop.Get())
	pool.release(in, nil)
}

// An instance that runs out of memory (here: the host asks the raw ABI for a buffer
// larger than the memory cap) exits; only that request fails.
func TestPoolOutOfMemoryReplacesInstance(t *testing.T) {
	_, cat := testPlugin(t)
	ctx := context.Background()
	var stderr strings.Builder
	limit := MinMemoryLimit(cat.Index, DefaultMaxBody) // the smallest the pool accepts
	small, err := Compile(ctx, shared.wasm, Config{MemoryLimit: limit, Stderr: &stderr})
	require.NoError(t, err)
	defer small.Close(ctx)
	pool, err := small.NewPool(ctx, cat, Options{Size: 1})
	require.NoError(t, err)
	defer pool.Close(ctx)

	// More than the memory cap: the plugin cannot allocate the input buffer.
	_, err = pool.HTTP(ctx, postFrame(strings.Repeat(" ", int(limit)+1<<20)), nil)
	require.ErrorIs(t, err, ErrInstance)
	require.Contains(t, stderr.String(), "out of memory")
	t.Log(err)

	out, err := pool.HTTP(ctx, postFrame(initialize), nil)
	require.NoError(t, err)
	requireInitialized(t, parseResponse(t, out).Body)
	_, failed := pool.Stats()
	require.Equal(t, int64(1), failed)
}

// Errors the plugin reports through the ABI leave the instance in service.
func TestPluginErrorsKeepInstance(t *testing.T) {
	pool := testPool(t, Options{Size: 1})
	ctx := context.Background()
	in, err := pool.acquire(ctx)
	require.NoError(t, err)
	_, err = in.callOutput(ctx, in.rpc, []byte("no version line"), nil)
	require.Contains(t, err.Error(), "no version line")
	err = in.callStatus(ctx, in.configure, []byte(`{"bogus":1}`))
	require.Contains(t, err.Error(), `unknown option "bogus"`)
	err = in.callStatus(ctx, in.load, []byte("not a pack"))
	require.Contains(t, err.Error(), "corrupt index")
	// The raw ABI refuses a buffer that is not the one it allocated.
	in.stack[0], in.stack[1] = 8, 4
	require.NoError(t, in.http.CallWithStack(ctx, in.stack[:]))
	require.Equal(t, uint64(0), in.stack[0])
	require.Contains(t, in.pluginError(ctx).Error(), "not the buffer from skilledge_alloc")
	pool.release(in, err)

	out, err := pool.HTTP(ctx, postFrame(initialize), nil)
	require.NoError(t, err)
	requireInitialized(t, parseResponse(t, out).Body)
	created, failed := pool.Stats()
	require.Equal(t, [2]int64{1, 0}, [2]int64{created, failed})
}

func TestNewPoolErrors(t *testing.T) {
	p, cat := testPlugin(t)
	ctx := context.Background()
	_, err := p.NewPool(ctx, Catalog{Index: []byte("SKLPACK\x02garbage"), Store: cat.Store}, Options{})
	require.Contains(t, err.Error(), "corrupt index")
	_, err = p.NewPool(ctx, Catalog{Index: []byte("SKLPACK\x01garbage"), Store: cat.Store}, Options{})
	require.ErrorIs(t, err, catalog.ErrOldFormat)
	require.Contains(t, err.Error(), "rebuild it with skilledge build")
	_, err = p.NewPool(ctx, Catalog{Index: cat.Index}, Options{})
	require.Contains(t, err.Error(), "no content store")

	small, err := Compile(ctx, shared.wasm, Config{MemoryLimit: 32 << 20})
	require.NoError(t, err)
	defer small.Close(ctx)
	_, err = small.NewPool(ctx, cat, Options{MaxBody: 16 << 20})
	require.ErrorIs(t, err, ErrMemoryLimit)
	require.Contains(t, err.Error(), "instances are limited to 32.0 MiB of memory, but the catalog index is ")
	require.Contains(t, err.Error(), "request bodies may be 16.0 MiB")

	_, err = p.NewPool(ctx, cat, Options{Server: wire.Options{PageSize: -1}})
	require.Contains(t, err.Error(), "configuring the plugin: skilledge: configure: option pageSize must be a non-negative integer")
}

func TestPoolClose(t *testing.T) {
	pool := testPool(t, Options{Size: 2})
	ctx := context.Background()
	in, err := pool.acquire(ctx)
	require.NoError(t, err)
	closed := make(chan error)
	go func() { closed <- pool.Close(ctx) }()
	select {
	case <-closed:
		t.Fatal("Close returned with a request in flight")
	case <-time.After(20 * time.Millisecond):
	}
	_, err = pool.HTTP(ctx, postFrame(initialize), nil)
	require.ErrorIs(t, err, ErrClosed)
	pool.release(in, nil)
	require.NoError(t, <-closed)
}

// The Extism ABI answers exactly what the raw ABI answers.
func TestExtismABI(t *testing.T) {
	p, cat := testPlugin(t)
	ctx := context.Background()
	in, err := p.bareInstance(ctx, &sync.Mutex{})
	require.NoError(t, err)
	defer in.close()

	out, err := in.callExtism(ctx, "http", postFrame(initialize))
	require.NoError(t, err)
	r := parseResponse(t, out)
	require.Equal(t, 503, r.Status)
	require.Contains(t, string(r.Body), "no catalog is loaded")
	_, err = in.callExtism(ctx, "rpc", []byte("\n"+initialize))
	require.Contains(t, err.Error(), "no catalog loaded")

	_, err = in.callExtism(ctx, "configure", []byte(`{"pageSize":"ten"}`))
	require.Contains(t, err.Error(), "pageSize must be a non-negative integer")
	_, err = in.callExtism(ctx, "configure", []byte(`{"instructions":"hello"}`))
	require.NoError(t, err)
	_, err = in.callExtism(ctx, "load", []byte("nope"))
	require.Contains(t, err.Error(), "corrupt")
	_, err = in.callExtism(ctx, "put", []byte("an object of no catalog"))
	require.Contains(t, err.Error(), "no catalog loaded; call load")
	_, err = in.callExtism(ctx, "load", cat.Index)
	require.NoError(t, err)
	_, err = in.callExtism(ctx, "put", []byte("an object of no catalog"))
	require.Contains(t, err.Error(), "refers to no object with these bytes (23 bytes, sha256 ")

	// Before the objects are put, a response that needs one is a 500 naming it.
	read := postFrame(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://git-workflow/SKILL.md"}}`)
	ext, err := in.callExtism(ctx, "http", read)
	require.NoError(t, err)
	r = parseResponse(t, ext)
	require.Equal(t, 500, r.Status)
	require.Contains(t, string(r.Body), "skill://git-workflow/SKILL.md as resources/read sends it) was not given to the plugin; call put with every file of OUT/assets/sha256/")
	st := cat.Store.(*compile.Store)
	for _, name := range st.Names() {
		b, _ := st.Object(name)
		_, err := in.callExtism(ctx, "put", b)
		require.NoError(t, err)
	}

	// With every object put, the Extism ABI answers what the raw ABI answers with its
	// references resolved by the host.
	for _, f := range [][]byte{postFrame(initialize), frame("GET", "/mcp", ""), frame("GET", "/.well-known/agent-skills/index.json", ""), read} {
		ext, err := in.callExtism(ctx, "http", f)
		require.NoError(t, err)
		raw, err := in.callOutput(ctx, in.http, f, nil)
		require.NoError(t, err)
		want := resolved(t, raw, cat.Store)
		require.Equal(t, string(wire.AppendResponse(nil, &want)), string(ext))
	}
	ext, err = in.callExtism(ctx, "rpc", []byte("2025-06-18\n"+`{"jsonrpc":"2.0","id":2,"method":"skills/get","params":{"name":"git-workflow"}}`))
	require.NoError(t, err)
	require.Contains(t, string(ext), `"instructions":"\n# Git workflow`)
	ext, err = in.callExtism(ctx, "rpc", []byte("\n"+initialize))
	require.NoError(t, err)
	require.Contains(t, string(ext), `"instructions":"hello"`)
	raw, err := in.callOutput(ctx, in.rpc, []byte("\n"+initialize), nil)
	require.NoError(t, err)
	require.Equal(t, string(raw), string(ext))
	if !strings.HasPrefix(string(ext), "2025-06-18\n{") {
		t.Fatalf("rpc output %q", ext)
	}
}

// When every instance stays busy for the whole Timeout, the request is turned away with
// ErrBusy (which the fronts answer 503), and served once an instance is free again.
func TestPoolBusy(t *testing.T) {
	pool := testPool(t, Options{Size: 1})
	ctx := context.Background()
	in, err := pool.acquire(ctx)
	require.NoError(t, err)
	pool.opt.Timeout = 50 * time.Millisecond
	_, err = pool.HTTP(ctx, postFrame(initialize), nil)
	require.ErrorIs(t, err, ErrBusy)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	pool.release(in, nil)
	pool.opt.Timeout = DefaultTimeout
	out, err := pool.HTTP(ctx, postFrame(initialize), nil)
	require.NoError(t, err)
	requireInitialized(t, parseResponse(t, out).Body)
}

// TestPoolPrivateCatalog: the plugin itself refuses a private catalog it would serve to
// everyone (no auth option), and one whose policy gives skills views of their own, and
// serves a private catalog behind the auth option: without a credential, 401.
func TestPoolPrivateCatalog(t *testing.T) {
	p, _ := testPlugin(t)
	fsys := fstest.MapFS{
		"a/SKILL.md":     {Data: []byte("---\nname: a\ndescription: A.\n---\nbody\n")},
		"b/SKILL.md":     {Data: []byte("---\nname: b\ndescription: B.\n---\nbody\n")},
		"skilledge.yaml": {Data: []byte("access:\n  default: [skills:read]\n  rules:\n    - path: b\n      scopes: [x]\n")},
	}
	c, problems, err := compile.Load(fsys, "skills", compile.Options{})
	require.NoError(t, err)
	require.Equal(t, false, compile.HasErrors(problems), problems)
	enc, err := compile.Encode(c)
	require.NoError(t, err)
	private := Catalog{Index: enc.Index, Store: enc.Store}
	ctx := context.Background()

	// Without the auth option: nobody over HTTP, every skill over the stream transport.
	open, err := p.NewPool(ctx, private, Options{Size: 1})
	require.NoError(t, err)
	t.Cleanup(func() { open.Close(ctx) })
	out, err := open.HTTP(ctx, postFrame(`{"jsonrpc":"2.0","id":1,"method":"skills/list"}`), nil)
	require.NoError(t, err)
	resp := parseResponse(t, out)
	require.Equal(t, 503, resp.Status)
	require.Equal(t, false, strings.Contains(string(resp.Body), `"a"`), "a refusal names no skill")
	rpc, err := open.RPC(ctx, "2025-06-18", []byte(`{"jsonrpc":"2.0","id":1,"method":"skills/list"}`))
	require.NoError(t, err)
	require.Equal(t, true, strings.Contains(string(rpc.Message), "skill://a/") && strings.Contains(string(rpc.Message), "skill://b/"), string(rpc.Message))

	// With it: each caller its view.
	reader, readerKey := auth.NewStaticKey("reader", []string{"skills:read"})
	both, bothKey := auth.NewStaticKey("both", []string{"skills:read", "x"})
	opt := []byte(`{"resource":"https://s.example/mcp","tokens":[` +
		`{"name":"reader","sha256":"` + reader.Hex() + `","scopes":["skills:read"]},` +
		`{"name":"both","sha256":"` + both.Hex() + `","scopes":["skills:read","x"]}]}`)
	pool, err := p.NewPool(ctx, private, Options{Size: 1, Server: wire.Options{Auth: opt}})
	require.NoError(t, err)
	t.Cleanup(func() { pool.Close(ctx) })
	list := func(fields ...string) wire.Response {
		out, err := pool.HTTP(ctx, frame("POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"skills/list"}`,
			append([]string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}, fields...)...), nil)
		require.NoError(t, err)
		return parseResponse(t, out)
	}
	resp = list()
	require.Equal(t, 401, resp.Status)
	challenge, _ := resp.Header.Get("WWW-Authenticate")
	require.Equal(t, `Bearer realm="static API keys", scope="skills:read"`, challenge) // static keys only: no OAuth metadata to name
	require.Equal(t, false, strings.Contains(string(resp.Body), `"a"`), "a refusal names no skill")
	resp = list("Authorization", "Bearer "+readerKey)
	require.Equal(t, true, resp.Status == 200 && strings.Contains(string(resp.Body), "skill://a/") && !strings.Contains(string(resp.Body), "skill://b/"), string(resp.Body))
	resp = list("Authorization", "Bearer "+bothKey)
	require.Equal(t, true, resp.Status == 200 && strings.Contains(string(resp.Body), "skill://a/") && strings.Contains(string(resp.Body), "skill://b/"), string(resp.Body))
}
