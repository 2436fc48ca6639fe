package wire_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/examples"
	"github.com/skilledge/skilledge/edge"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/edge/wire/wiretest"
)

// The shared vectors: testdata/*.json, read by these tests and by the JavaScript host's
// (build/host.test.mjs, run with node --test). Each file is one duty of a host; a vector
// edited breaks both. `go test ./edge/wire -update` writes answers.json and replays.json
// again from the server's own answers (the requests and the hand-written cases are kept),
// and the other files from the contract's code.

var update = flag.Bool("update", false, "rewrite testdata/*.json from the server and the contract")

// mapStore is a content store of the objects a vector carries.
type mapStore map[string]wiretest.Bytes

func (m mapStore) Object(name string) ([]byte, error) {
	if b, ok := m[name]; ok {
		return b, nil
	}
	return nil, fmt.Errorf("object %s: %w", name, fs.ErrNotExist)
}

// client is what the host gives a client for the response frame out: its failure's
// name, or the response with its objects spliced in.
func client(out []byte, st wire.Store) (*wiretest.Client, string) {
	resp, err := wire.ParseResponse(out)
	if err != nil {
		return nil, wire.FailInstance.Name
	}
	objs, err := wire.Objects(resp.Refs, st)
	if err != nil {
		return nil, wire.FailStore.Name
	}
	return clientOf(resp.Status, resp.Header, wire.AppendResolved(nil, resp.Body, resp.Refs, objs)), ""
}

func clientOf(status int, h wire.Header, body []byte) *wiretest.Client {
	c := &wiretest.Client{Status: status, Headers: [][2]string{}, Body: body}
	for _, f := range h {
		c.Headers = append(c.Headers, [2]string{f.Name, f.Value})
	}
	return c
}

func requireJSONEqual(t *testing.T, what string, want, got any) {
	t.Helper()
	w, _ := json.Marshal(want)
	g, _ := json.Marshal(got)
	if !bytes.Equal(w, g) {
		t.Fatalf("%s:\nwant %s\n got %s", what, w, g)
	}
}

// exampleServer serves the example catalog, with the store of its objects.
var exampleServer = sync.OnceValues(func() (*edge.Server, *compile.Store) {
	c, problems, err := compile.Load(examples.FS, "examples", compile.Options{})
	if err != nil || compile.HasErrors(problems) {
		panic(fmt.Sprint("the example catalog: ", err, problems))
	}
	enc, err := compile.Encode(c)
	if err != nil {
		panic(err)
	}
	p, err := catalog.Open(enc.Index)
	if err != nil {
		panic(err)
	}
	return edge.New(p, wire.Options{}), enc.Store
})

// answer is the plugin's answer to frame and its hint, as the raw ABI gives them.
func answer(t *testing.T, frame []byte) ([]byte, wire.Hint) {
	t.Helper()
	s, _ := exampleServer()
	req, err := wire.ParseRequest(frame)
	if err != nil {
		t.Fatalf("request %q: %v", frame, err)
	}
	out, r := s.AppendHTTP(nil, &req)
	return out, r.Hint(len(frame) - len(req.Body))
}

// objectsOf is the objects out's references name, from the example catalog's store.
func objectsOf(t *testing.T, out []byte) map[string]wiretest.Bytes {
	t.Helper()
	_, st := exampleServer()
	objs := map[string]wiretest.Bytes{}
	resp, err := wire.ParseResponse(out)
	if err != nil {
		return objs
	}
	for _, r := range resp.Refs {
		b, err := st.Object(r.Name)
		if err != nil {
			t.Fatal(err)
		}
		objs[r.Name] = b
	}
	return objs
}

func hintHex(h wire.Hint) string { return hex.EncodeToString(wire.AppendHint(nil, h)) }

func parseHintHex(t *testing.T, s string) wire.Hint {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	h, ok := wire.ParseHint(b)
	if !ok {
		t.Fatalf("hint %s does not parse", s)
	}
	return h
}

// TestAnswers: a request frame, the plugin's answer (the server's, byte for byte, with
// its hint), and the bytes the client gets after splicing; malformed answers and stores
// missing objects, and the failure the host answers for them.
func TestAnswers(t *testing.T) {
	var vs []wiretest.Answer
	wiretest.Read(t, "answers.json", &vs)
	for i := range vs {
		v := &vs[i]
		t.Run(v.Name, func(t *testing.T) {
			if len(v.Request) > 0 {
				out, h := answer(t, v.Request)
				if *update {
					v.Answer, v.Hint, v.Objects = out, hintHex(h), objectsOf(t, out)
				}
				requireJSONEqual(t, "the server's answer", string(v.Answer), string(out))
				requireJSONEqual(t, "the server's hint", v.Hint, hintHex(h))
			}
			if v.Objects == nil {
				v.Objects = map[string]wiretest.Bytes{}
			}
			got, failure := client(v.Answer, mapStore(v.Objects))
			if *update && len(v.Request) > 0 {
				v.Client, v.Failure = got, failure
			}
			requireJSONEqual(t, "what the client gets", v.Client, got)
			requireJSONEqual(t, "the failure", v.Failure, failure)
		})
	}
	if *update {
		wiretest.Write(t, "answers.json", vs)
	}
}

// TestReplays: which answers a host keeps (wire.NewReplayEntry) and what it answers from
// them to requests that differ in their id, or does not (ReplayEntry.Match, wiretest.Answer).
func TestReplays(t *testing.T) {
	var vs []wiretest.Replay
	wiretest.Read(t, "replays.json", &vs)
	for i := range vs {
		v := &vs[i]
		t.Run(v.Name, func(t *testing.T) {
			out, h := answer(t, v.Request)
			if *update {
				v.Answer, v.Hint, v.Objects = out, hintHex(h), objectsOf(t, out)
			}
			requireJSONEqual(t, "the server's answer", string(v.Answer), string(out))
			requireJSONEqual(t, "the server's hint", v.Hint, hintHex(h))
			hint := parseHintHex(t, v.Given())
			if v.Expires > 0 {
				// The given hint is the server's as it encodes one with an expiry.
				h := parseHintHex(t, v.Hint)
				if v.Lie != "" {
					h = parseHintHex(t, v.Lie)
				}
				h.Expires = v.Expires
				requireJSONEqual(t, "the hint with its expiry", hintHex(h), v.Given())
				requireJSONEqual(t, "the expiry parsed", v.Expires, hint.Expires)
			}
			resp, err := wire.ParseResponse(v.Answer)
			if err != nil {
				t.Fatal(err)
			}
			e, kept := wire.NewReplayEntry(v.Request, hint, v.Answer, &resp, time.Unix(v.At, 0))
			kept = kept && e.Size() <= wire.ReplayEntryMax
			if *update {
				v.Kept = kept
			}
			requireJSONEqual(t, "kept", v.Kept, kept)
			for j := range v.Repeats {
				r := &v.Repeats[j]
				var got *wiretest.Client
				if id, ok := e.Match(r.Request, time.Unix(r.At, 0)); kept && ok {
					resp := e.Answer(nil, id, nil)
					objs, err := wire.Objects(resp.Refs, mapStore(v.Objects))
					if err != nil {
						t.Fatal(err)
					}
					got = clientOf(resp.Status, resp.Header, wire.AppendResolved(nil, resp.Body, resp.Refs, objs))
					// The promise: the plugin itself answers the repeat with these bytes.
					out, _ := answer(t, r.Request)
					want, _ := client(out, mapStore(v.Objects))
					requireJSONEqual(t, fmt.Sprintf("repeat %d replayed, against the server's own answer", j), want, got)
				}
				if *update {
					r.Client = got
				}
				requireJSONEqual(t, fmt.Sprintf("repeat %d", j), r.Client, got)
			}
		})
	}
	if *update {
		wiretest.Write(t, "replays.json", vs)
	}
}

// TestFailures: a host's own answers (wire.Failure), as HTTP responses and stream replies.
func TestFailures(t *testing.T) {
	var vs []wiretest.FailureVector
	wiretest.Read(t, "failures.json", &vs)
	byName := map[string]wire.Failure{}
	for _, f := range wire.Failures {
		byName[f.Name] = f
	}
	if *update {
		vs = vs[:0]
		for _, f := range append(wire.Failures, wire.StartFailure(`options: option pageSize must be a non-negative integer`)) {
			v := wiretest.FailureVector{Name: f.Name, Replies: [][2]string{}}
			if f.Name == "start" {
				v.Detail = strings.TrimPrefix(f.Reason, "the plugin did not start: ")
			}
			for _, id := range []string{"", "7", `"a\"b"`} {
				v.Replies = append(v.Replies, [2]string{id, ""})
			}
			vs = append(vs, v)
		}
	}
	for i := range vs {
		v := &vs[i]
		t.Run(v.Name, func(t *testing.T) {
			f, ok := byName[v.Name]
			if v.Name == "start" {
				f, ok = wire.StartFailure(v.Detail), true
			}
			if !ok {
				t.Fatalf("no failure %q", v.Name)
			}
			resp := f.Response()
			got := clientOf(resp.Status, resp.Header, resp.Body)
			if *update {
				v.Status, v.Headers, v.Body = got.Status, got.Headers, string(got.Body)
			}
			requireJSONEqual(t, "the answer", wiretest.Client{Status: v.Status, Headers: v.Headers, Body: wiretest.Bytes(v.Body)}, got)
			for j, r := range v.Replies {
				var id []byte
				if r[0] != "" {
					id = []byte(r[0])
				}
				reply := string(f.Reply(id))
				if *update {
					v.Replies[j][1] = reply
				}
				requireJSONEqual(t, "the stream reply", v.Replies[j][1], reply)
			}
		})
	}
	if *update {
		wiretest.Write(t, "failures.json", vs)
	}
}

// TestHeads: the head of a request frame, as every host frames it (wire.AppendRequestHead):
// the fields a runtime gives, a repeated field's values joined by ", ".
func TestHeads(t *testing.T) {
	var vs []wiretest.Head
	wiretest.Read(t, "heads.json", &vs)
	for i := range vs {
		v := &vs[i]
		t.Run(v.Name, func(t *testing.T) {
			got := string(wire.AppendRequestHead(nil, v.Method, v.Target, v.Fields, func(f string) (string, bool) {
				var vals []string
				for _, h := range v.Headers {
					if wire.EqualFold(h[0], f) {
						vals = append(vals, h[1])
					}
				}
				return strings.Join(vals, ", "), vals != nil
			}))
			if *update {
				v.Head = got
			}
			requireJSONEqual(t, "the head", v.Head, got)
		})
	}
	if *update {
		wiretest.Write(t, "heads.json", vs)
	}
}

// TestLimits: the numbers and the replayable ids.
func TestLimits(t *testing.T) {
	var v wiretest.Limits
	wiretest.Read(t, "limits.json", &v)
	got := wiretest.Limits{
		DefaultMaxBody: wire.DefaultMaxBody, MaxBatch: wire.MaxBatch, HintSize: wire.HintSize, HintSizeExpiring: wire.HintSizeExpiring,
		ReplayEntries: wire.ReplayEntries, ReplayEntryMax: wire.ReplayEntryMax,
		ReplayBudget: wire.ReplayBudget, ReplayShapesMax: wire.ReplayShapesMax, IDs: v.IDs,
		KeySetMax: wire.KeySetMax, KeysRedirects: wire.KeysRedirects,
		KeysTimeout: secs(wire.KeysTimeout), KeysRefetch: secs(wire.KeysRefetch), KeysRetry: secs(wire.KeysRetry),
		KeysMinAge: secs(wire.KeysMinAge),
		KeysMaxAge: secs(wire.KeysMaxAge), KeysDefaultAge: secs(wire.KeysDefaultAge),
		MaxNeedRounds: wire.MaxNeedRounds,
	}
	for i, id := range v.IDs {
		kind := ""
		if k := wire.ReplayableID([]byte(id[0])); k != 0 {
			kind = string(k)
		}
		if *update {
			got.IDs[i][1] = kind
		}
		if kind != got.IDs[i][1] {
			t.Errorf("ReplayableID(%q) = %q, the vector says %q", id[0], kind, id[1])
		}
	}
	if *update {
		wiretest.Write(t, "limits.json", got)
		return
	}
	requireJSONEqual(t, "the limits", v, got)
}

func secs(d time.Duration) int { return int(d / time.Second) }

// TestKeys: how long a fetched key set is fresh, which redirects a fetch follows, the keys
// export's input, and when a host fetches (wire.KeysState).
func TestKeys(t *testing.T) {
	var v wiretest.Keys
	wiretest.Read(t, "keys.json", &v)
	for i := range v.Ages {
		a := &v.Ages[i]
		got := secs(wire.KeysAge(a.CacheControl, a.Age))
		if *update {
			a.Seconds = got
		}
		if got != a.Seconds {
			t.Errorf("KeysAge(%q, %q) = %ds, the vector says %ds", a.CacheControl, a.Age, got, a.Seconds)
		}
	}
	for i := range v.Redirects {
		r := &v.Redirects[i]
		got := wire.KeysRedirect(r.From, r.To)
		if *update {
			r.Follow = got
		}
		if got != r.Follow {
			t.Errorf("KeysRedirect(%q, %q) = %t, the vector says %t", r.From, r.To, got, r.Follow)
		}
	}
	for i := range v.Frames {
		f := &v.Frames[i]
		got := wire.AppendKeys(nil, f.URL, f.Document)
		if *update {
			f.Frame = got
		}
		requireJSONEqual(t, "the keys frame", string(f.Frame), string(got))
		url, doc, err := wire.ParseKeys(got)
		if err != nil || url != f.URL || !bytes.Equal(doc, f.Document) {
			t.Errorf("ParseKeys(%q) = %q, %q, %v", got, url, doc, err)
		}
	}
	for i := range v.Schedules {
		sc := &v.Schedules[i]
		t.Run(sc.Name, func(t *testing.T) {
			var k wire.KeysState
			epoch := time.Unix(1_900_000_000, 0)
			for j := range sc.Steps {
				st := &sc.Steps[j]
				now := epoch.Add(time.Duration(st.At) * time.Second)
				switch st.Do {
				case "begin":
					k.Begin(now)
				case "done":
					k.Done(now, time.Duration(st.Age)*time.Second)
				case "fail":
					k.Fail()
				case "drop":
					k.Drop()
				case "":
					got := wiretest.KeysCheck{Due: k.Due(now), Refetch: k.Refetch(now), Expired: k.Expired(now)}
					if *update {
						st.Expect = &got
					}
					requireJSONEqual(t, fmt.Sprintf("step %d at %ds", j, st.At), st.Expect, got)
					if next := k.Next(); got.Due != !now.Before(next) {
						t.Errorf("step %d at %ds: Next() = %v, but Due is %t", j, st.At, next.Sub(epoch), got.Due)
					}
				default:
					t.Fatalf("step %d: do %q", j, st.Do)
				}
			}
		})
	}
	if *update {
		wiretest.Write(t, "keys.json", v)
	}
}

// TestFactsVectors: the server's facts of answers, byte for byte, and what a host parses
// from facts (wire.ParseFacts), well formed or not.
func TestFactsVectors(t *testing.T) {
	var vs []wiretest.FactsVector
	wiretest.Read(t, "facts.json", &vs)
	for i := range vs {
		v := &vs[i]
		t.Run(v.Name, func(t *testing.T) {
			if len(v.Request) > 0 {
				s, _ := exampleServer()
				req, err := wire.ParseRequest(v.Request)
				if err != nil {
					t.Fatalf("request %q: %v", v.Request, err)
				}
				_, _, f := s.AppendHTTPFacts(nil, &req)
				got := f.Append(nil)
				if *update {
					v.Facts = got
				}
				requireJSONEqual(t, "the server's facts", string(v.Facts), string(got))
			}
			var parsed *wiretest.ParsedFacts
			if f, err := wire.ParseFacts(v.Facts); err == nil {
				parsed = &wiretest.ParsedFacts{Route: f.Route, Method: f.Method, Version: f.Version, Read: f.Read, Skill: f.Skill,
					SkillName: f.SkillName(), URI: f.URI, Code: f.Code, Caller: f.Caller, Client: f.Client}
			}
			if *update {
				v.Parsed = parsed
			}
			requireJSONEqual(t, "the facts parsed", v.Parsed, parsed)
		})
	}
	if *update {
		wiretest.Write(t, "facts.json", vs)
	}
}
