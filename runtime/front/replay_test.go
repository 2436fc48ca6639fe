package front

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skilledge/skilledge/runtime/internal/require"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// TestServeHTTPReplays: a request that repeats an earlier one but for an id of the same
// kind is answered from the server's replays, byte for byte as the plugin answers it (a
// server that keeps none answers every request beside it), and no other request is.
func TestServeHTTPReplays(t *testing.T) {
	const maxBody = 2048
	with, srv, _ := newTestServerWith(t, testPool(t, wasm.Options{Size: 1, MaxBody: maxBody}), Options{})
	without, plain, _ := newTestServerWith(t, testPool(t, wasm.Options{Size: 1, MaxBody: maxBody}), Options{Replays: -1})
	require.Equal(t, true, plain.cur.Load().replays == nil, "Replays: -1 keeps none")
	replays := srv.cur.Load().replays

	read := func(id, uri string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"resources/read","params":{"uri":"` + uri + `"}}`
	}
	const md = "skill://git-workflow/SKILL.md"
	// A body exactly maxBody long with id 1: with id 12 it is one byte too long (413).
	full := read("1", md)
	full = full[:len(full)-1] + strings.Repeat(" ", maxBody-len(full)) + "}"
	for _, c := range []struct {
		name, host, version, body string
		hit                       bool
	}{
		{"first read", "", "", read("1", md), false},
		{"again, another id", "", "", read("2", md), true},
		{"a longer id", "", "", read("123456789012345", md), true},
		{"an id of the other kind", "", "", read(`"abc"`, md), false},
		{"a string id again", "", "", read(`"req-2"`, md), true},
		{"a number once more", "", "", read("3", md), false},
		{"an id with a fraction", "", "", read("4.0", md), false},
		{"an escaped id", "", "", read(`"\u0035"`, md), false},
		{"another file", "", "", read("5", "skill://csv-insights/assets/chart-template.png"), false},
		{"that file again", "", "", read("6", "skill://csv-insights/assets/chart-template.png"), true},
		{"another Host", "localhost", "", read("7", md), false},
		{"another protocol version", "", "2025-06-18", read("8", md), false},
		{"the id elsewhere", "", "", `{"jsonrpc":"2.0","method":"resources/read","params":{"uri":"` + md + `"},"id":9}`, false},
		{"a missing file", "", "", read("10", "skill://git-workflow/nope.md"), false},
		{"the missing file again", "", "", read("11", "skill://git-workflow/nope.md"), false},
		{"a body of maxBody bytes", "", "", full, false},
		{"the same, one byte too long", "", "", strings.Replace(full, `"id":1`, `"id":12`, 1), false},
		{"the same, another short id", "", "", strings.Replace(full, `"id":1`, `"id":7`, 1), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			hits := replays.hits.Load()
			got := exchange(t, with.URL, c.host, c.version, c.body)
			want := exchange(t, without.URL, c.host, c.version, c.body)
			require.Equal(t, want, got)
			require.Equal(t, c.hit, replays.hits.Load() > hits, "answered from the replays")
		})
	}
}

// exchange posts body to url (Host host when not "", MCP-Protocol-Version version when not
// "") and returns the status, the header fields but Date, and the body as one string.
func exchange(t *testing.T, url, host, version, body string) string {
	t.Helper()
	req, err := http.NewRequest("POST", url+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out strings.Builder
	out.WriteString(resp.Status + "\n")
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range resp.Header {
			if k != "Date" && !yield(k) {
				return
			}
		}
	}) {
		out.WriteString(name + ": " + strings.Join(resp.Header[name], ", ") + "\n")
	}
	out.WriteString("\n")
	out.Write(b)
	return out.String()
}

// TestSwapStartsWithoutReplays: the answers kept from one pool are not given once another
// is swapped in (a --watch rebuild may have changed them); the new pool's own are kept.
func TestSwapStartsWithoutReplays(t *testing.T) {
	ts, srv, _ := newTestServerWith(t, testPool(t, wasm.Options{Size: 1}), Options{})
	read := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"resources/read","params":{"uri":"skill://git-workflow/SKILL.md"}}`
	}
	hits := func() int64 { return srv.cur.Load().replays.hits.Load() }
	exchange(t, ts.URL, "", "", read("1"))
	exchange(t, ts.URL, "", "", read("2"))
	require.Equal(t, int64(1), hits())

	p, cat := testPlugin(t)
	next, err := p.NewPool(context.Background(), cat, wasm.Options{Size: 1})
	require.NoError(t, err)
	t.Cleanup(func() { next.Close(context.Background()) })
	srv.Swap(next)
	exchange(t, ts.URL, "", "", read("3"))
	require.Equal(t, int64(0), hits(), "the pool swapped in starts with no replays")
	exchange(t, ts.URL, "", "", read("4"))
	require.Equal(t, int64(1), hits())
}

// TestServeHTTPReplaysAuthenticated: an answer to a caller the auth option let in is
// replayed for the same credential only (another token of the same subject and scopes,
// or none, is not answered from it), until the token's exp by the host's clock, and
// never after: the entry is dropped, and the plugin's answers then are not kept.
func TestServeHTTPReplaysAuthenticated(t *testing.T) {
	is := newIssuer(t)
	is.rotate("k1", true)
	pool, _, _, _ := keysPool(t, is, 1)
	plainPool, _, _, _ := keysPool(t, is, 1)
	ts, srv, _ := newTestServerWith(t, pool, Options{})
	plain, _, _ := newTestServerWith(t, plainPool, Options{Replays: -1})
	replays := srv.cur.Load().replays
	c := &clock{t: time.Now()}
	replays.now = c.Now

	// Tokens that expire within the minute an answer is replayed at most, and one that
	// holds for an hour.
	start := c.Now()
	expA := start.Add(30 * time.Second).Truncate(time.Second)
	a := is.tokenUntil("k1", keysResource, expA)
	b := is.tokenUntil("k1", keysResource, start.Add(50*time.Second))
	d := is.tokenUntil("k1", keysResource, start.Add(time.Hour))
	read := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"resources/read","params":{"uri":"skill://git-workflow/SKILL.md"}}`
	}
	for i, s := range []struct {
		name, token string
		at          time.Time // the host's clock
		status      int
		hit         bool
	}{
		{"first read", a, c.Now(), 200, false},
		{"the same token, another id", a, c.Now(), 200, true},
		{"another token of the same subject", b, c.Now(), 200, false},
		{"that token again", b, c.Now(), 200, true},
		{"no credential", "", c.Now(), 401, false},
		{"the first token, a second before its exp", a, expA.Add(-time.Second), 200, true},
		{"the first token at its exp", a, expA, 200, false},
		{"the first token after its exp: the plugin's answer at its exp was not kept", a, expA.Add(time.Second), 200, false},
		{"the other token, before its exp", b, expA, 200, true},
		{"a token with an hour left", d, start, 200, false},
		{"that token within the minute", d, start.Add(59 * time.Second), 200, true},
		{"that token past the minute: the plugin checks it again", d, start.Add(61 * time.Second), 200, false},
	} {
		t.Run(s.name, func(t *testing.T) {
			c.mu.Lock()
			c.t = s.at
			c.mu.Unlock()
			body := read(strconv.Itoa(i + 1))
			hits := replays.hits.Load()
			got := exchangeAuth(t, ts.URL, s.token, body)
			want := exchangeAuth(t, plain.URL, s.token, body)
			require.Equal(t, want, got)
			require.Equal(t, true, strings.HasPrefix(got, strconv.Itoa(s.status)+" "), got)
			require.Equal(t, s.hit, replays.hits.Load() > hits, "answered from the replays")
		})
	}
}

// exchangeAuth is exchange with Authorization: Bearer token (none when "").
func exchangeAuth(t *testing.T, url, token, body string) string {
	t.Helper()
	req, err := http.NewRequest("POST", url+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.Status + "\n" + string(b)
}
