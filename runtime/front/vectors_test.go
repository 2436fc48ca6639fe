package front

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/edge/wire/wiretest"
	"github.com/skilledge/skilledge/runtime/internal/require"
)

// The host contract's vectors (edge/wire/testdata), through this host's own functions:
// the request heads it frames, its failure answers, and what its replay cache keeps and
// answers. (edge/wire's tests run the answers and splicing through the wire functions this
// front splices with; build/host.test.mjs runs them all through the JavaScript host.)

func TestVectorHeads(t *testing.T) {
	var vs []wiretest.Head
	wiretest.Read(t, "heads.json", &vs)
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			r := httptest.NewRequest(v.Method, v.Target, nil)
			r.Host = ""
			for _, h := range v.Headers {
				if http.CanonicalHeaderKey(h[0]) == "Host" {
					r.Host = h[1] // net/http moves Host out of the header
					continue
				}
				r.Header.Add(h[0], h[1])
			}
			got, err := appendRequestFrame(nil, r, 1000, newFraming(v.Fields))
			require.NoError(t, err)
			require.Equal(t, v.Head, string(got))
		})
	}
}

func TestVectorFailures(t *testing.T) {
	var vs []wiretest.FailureVector
	wiretest.Read(t, "failures.json", &vs)
	byName := map[string]wire.Failure{}
	for _, f := range wire.Failures {
		byName[f.Name] = f
	}
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			f, ok := byName[v.Name]
			if v.Name == "start" {
				f, ok = wire.StartFailure(v.Detail), true
			}
			require.Equal(t, true, ok, "a failure of that name")
			w := httptest.NewRecorder()
			writeFailure(w, f, nil)
			require.Equal(t, v.Status, w.Code)
			require.Equal(t, v.Body, w.Body.String())
			for _, h := range v.Headers {
				require.Equal(t, h[1], w.Header().Get(h[0]), h[0])
			}
			require.Equal(t, len(v.Headers)+1, len(w.Header()), "the fields, and Content-Length")
		})
	}
}

func TestVectorReplays(t *testing.T) {
	var vs []wiretest.Replay
	wiretest.Read(t, "replays.json", &vs)
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			b, err := hex.DecodeString(v.Given())
			require.NoError(t, err)
			hint, ok := wire.ParseHint(b)
			require.Equal(t, true, ok, "the hint parses")
			resp, err := wire.ParseResponse(v.Answer)
			require.NoError(t, err)
			rs := newReplays(wire.ReplayEntries)
			rs.now = func() time.Time { return time.Unix(v.At, 0) }
			rs.keep(v.Request, hint, v.Answer, resp, wire.Facts{})
			require.Equal(t, v.Kept, len(rs.entries) == 1, "kept")
			for i, r := range v.Repeats {
				rs.now = func() time.Time { return time.Unix(r.At, 0) }
				e, id := rs.lookup(r.Request)
				if r.Client == nil {
					require.Equal(t, true, e == nil, "repeat not replayed")
					continue
				}
				require.Equal(t, true, e != nil, "repeat replayed")
				a := e.Answer(nil, id, nil)
				objs := make([][]byte, len(a.Refs))
				for j, ref := range a.Refs {
					objs[j] = v.Objects[ref.Name]
				}
				body := wire.AppendResolved(nil, a.Body, a.Refs, objs)
				require.Equal(t, r.Client.Status, a.Status)
				if !bytes.Equal(body, r.Client.Body) {
					t.Fatalf("repeat %d: body\n%s\nwant\n%s", i, body, r.Client.Body)
				}
				var h [][2]string
				for _, f := range a.Header {
					h = append(h, [2]string{f.Name, f.Value})
				}
				require.Equal(t, len(r.Client.Headers), len(h))
				for j := range h {
					require.Equal(t, r.Client.Headers[j], h[j])
				}
			}
		})
	}
}

// TestVectorKeys: how long a key set is fresh, as KeySets reads it off a real answer, and
// which redirects its client follows.
func TestVectorKeys(t *testing.T) {
	var v wiretest.Keys
	wiretest.Read(t, "keys.json", &v)
	var cacheControl, age atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cc := cacheControl.Load().(string); cc != "" {
			w.Header().Set("Cache-Control", cc)
		}
		if a := age.Load().(string); a != "" {
			w.Header().Set("Age", a)
		}
		w.Write([]byte(`{"keys":[]}`))
	}))
	t.Cleanup(srv.Close)
	ks := NewKeySets(nil, nil)
	for _, a := range v.Ages {
		cacheControl.Store(a.CacheControl)
		age.Store(a.Age)
		_, got, err := ks.get(context.Background(), srv.URL, false)
		require.NoError(t, err)
		require.Equal(t, time.Duration(a.Seconds)*time.Second, got, fmt.Sprintf("Cache-Control %q, Age %q", a.CacheControl, a.Age))
	}
	for _, r := range v.Redirects {
		from := httptest.NewRequest("GET", r.From, nil)
		to, err := http.NewRequest("GET", r.To, nil)
		if err != nil {
			require.Equal(t, false, r.Follow, r.To)
			continue
		}
		err = keysRedirect(to, []*http.Request{from})
		require.Equal(t, r.Follow, err == nil, fmt.Sprintf("%s -> %s: %v", r.From, r.To, err))
	}
}

// TestVectorKeysRefusals: when refusals have the key set fetched, through a pool of the
// real plugin and this host's KeySets, against an issuer on loopback.
func TestVectorKeysRefusals(t *testing.T) {
	var v wiretest.Keys
	wiretest.Read(t, "keys.json", &v)
	for _, story := range v.Refusals {
		t.Run(story.Name, func(t *testing.T) {
			is := newIssuer(t)
			is.rotate("k1", true)
			pool, _, c, log := keysPool(t, is, 1)
			for i, st := range story.Steps {
				if st.Advance != 0 {
					c.add(time.Duration(st.Advance) * time.Second)
					continue
				}
				token := ""
				switch st.Token {
				case "k1", "k9":
					token = is.token(st.Token, keysResource)
				case "k1-forged":
					good := is.token("k1", keysResource)
					token = good[:strings.LastIndexByte(good, '.')+1] + strings.Repeat("A", 86)
				case "":
				default:
					t.Fatalf("step %d: token %q", i, st.Token)
				}
				got := status(t, pool, token)
				if got != st.Status || int(is.fetches.Load()) != st.Fetches {
					t.Fatalf("step %d (token %q): %d after %d fetches, the vector says %d after %d\nthe log:\n%s",
						i, st.Token, got, is.fetches.Load(), st.Status, st.Fetches, log)
				}
			}
		})
	}
}
