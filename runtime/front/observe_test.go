package front

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/edge/wire/wiretest"
	"github.com/skilledge/skilledge/runtime/internal/require"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// records is an Observer that keeps what it is told.
type records struct {
	mu  sync.Mutex
	all []Record
}

func (rs *records) Observe(r *Record) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	c := *r
	c.Request = nil // not to be kept
	rs.all = append(rs.all, c)
}

func (rs *records) take() []Record {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	all := rs.all
	rs.all = nil
	return all
}

// requestOf is the http.Request of a request frame, as a client would send it.
func requestOf(t *testing.T, frame []byte) *http.Request {
	t.Helper()
	fr, err := wire.ParseRequest(frame)
	require.NoError(t, err)
	r := httptest.NewRequest(fr.Method, fr.Target, bytes.NewReader(fr.Body))
	for _, f := range fr.Header {
		if strings.EqualFold(f.Name, "host") {
			r.Host = f.Value
			continue
		}
		r.Header.Add(f.Name, f.Value)
	}
	return r
}

// TestVectorFacts: the facts of the vectors' requests as the plugin in wasm gives them to
// this front's observer, which are the server's own.
func TestVectorFacts(t *testing.T) {
	var vs []wiretest.FactsVector
	wiretest.Read(t, "facts.json", &vs)
	var seen records
	srv := NewServer(testPool(t, wasm.Options{}), io.Discard, Options{Observer: &seen, Replays: -1})
	for _, v := range vs {
		if len(v.Request) == 0 {
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			srv.ServeHTTP(httptest.NewRecorder(), requestOf(t, v.Request))
			got := seen.take()
			require.Equal(t, 1, len(got))
			f := got[0].Facts
			require.Equal(t, *v.Parsed, wiretest.ParsedFacts{Route: f.Route, Method: f.Method, Version: f.Version, Read: f.Read, Skill: f.Skill,
				SkillName: f.SkillName(), URI: f.URI, Code: f.Code, Caller: f.Caller, Client: f.Client})
		})
	}
}

// TestObserverReplays: a replayed answer is observed as one, with the facts of the answer
// it repeats, the status and the bytes sent; without an observer the front asks for no
// facts (and still replays).
func TestObserverReplays(t *testing.T) {
	var seen records
	ts, _, _ := newTestServerWith(t, testPool(t, wasm.Options{}), Options{Observer: &seen})
	read := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"resources/read","params":{"uri":"skill://git-workflow/SKILL.md"}}`
	}
	var sizes []int64
	for _, id := range []string{"1", "22", `"x"`} {
		resp := post(t, ts.URL+"/mcp", read(id))
		sizes = append(sizes, int64(len(readBody(t, resp))))
	}
	got := seen.take()
	require.Equal(t, 3, len(got))
	want := wire.Facts{Route: "mcp", Method: "resources/read", Version: "2025-03-26", Read: "activation", Skill: "git-workflow", URI: "skill://git-workflow/SKILL.md"}
	for i, r := range got {
		require.Equal(t, want, r.Facts)
		require.Equal(t, 200, r.Status)
		require.Equal(t, sizes[i], r.Bytes)
		require.Equal(t, int64(len(read([]string{"1", "22", `"x"`}[i]))), r.BodyBytes)
		require.Equal(t, "", r.Failure)
		require.Equal(t, true, r.Duration > 0)
	}
	require.Equal(t, []bool{false, true, false}, []bool{got[0].Replayed, got[1].Replayed, got[2].Replayed})
}
