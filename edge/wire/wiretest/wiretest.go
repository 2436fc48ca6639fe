// Package wiretest reads and writes the host contract's vectors (edge/wire/testdata/*.json)
// for the tests of every Go host: edge/wire's, which check the contract's functions and
// write the vectors again from the server (-update), and runtime/front's, which run them
// through the HTTP front's own functions. build/host.test.mjs reads the same files for the
// JavaScript host. Only tests import it.
package wiretest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unicode/utf8"
)

// dir is edge/wire/testdata, found from this file's place, whatever package's test runs.
var dir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata")
}()

// Bytes is a byte string in a vector: a JSON string when the bytes are UTF-8, else
// {"base64": "…"}.
type Bytes []byte

func (b Bytes) MarshalJSON() ([]byte, error) {
	if utf8.Valid(b) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		err := enc.Encode(string(b))
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
	}
	return json.Marshal(map[string]string{"base64": base64.StdEncoding.EncodeToString(b)})
}

func (b *Bytes) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*b = Bytes(s)
		return nil
	}
	var o struct{ Base64 string }
	if err := json.Unmarshal(data, &o); err != nil {
		return err
	}
	d, err := base64.StdEncoding.DecodeString(o.Base64)
	*b = d
	return err
}

// Client is what a client receives: the status, the fields in order, the body with every
// object spliced in.
type Client struct {
	Status  int         `json:"status"`
	Headers [][2]string `json:"headers"`
	Body    Bytes       `json:"body"`
}

// Answer: a request frame, the plugin's answer to it, and what the client gets once the
// host has spliced the objects in; or, for a malformed answer or a store missing an
// object, the failure the host answers instead.
type Answer struct {
	Name    string           `json:"name"`
	Request Bytes            `json:"request,omitempty"`
	Answer  Bytes            `json:"answer"`
	Hint    string           `json:"hint,omitempty"` // hex of skilledge_replay's bytes
	Objects map[string]Bytes `json:"objects"`
	Client  *Client          `json:"client,omitempty"`
	Failure string           `json:"failure,omitempty"`
}

// Replay: an answer kept as its hint says (or refused: kept false), and requests that
// repeat it, each answered from it (client) or not (null). Hint is the server's; a vector
// with a Lie gives the host that hint instead, one the plugin would never give, which the
// host must refuse. A vector with Expires gives the host the hint (Hint, or Lie) with that
// expiry, in unix seconds: its bytes followed by Expires as a u32, little-endian
// (wire.HintSizeExpiring bytes), as the server gives an answer to an authenticated caller.
// At is the host's clock, in unix seconds, when it keeps the answer.
type Replay struct {
	Name    string           `json:"name"`
	Request Bytes            `json:"request"`
	Answer  Bytes            `json:"answer"`
	Hint    string           `json:"hint"`
	Lie     string           `json:"lie,omitempty"`
	Expires int64            `json:"expires,omitempty"`
	At      int64            `json:"at,omitempty"`
	Objects map[string]Bytes `json:"objects"`
	Kept    bool             `json:"kept"`
	Repeats []Repeat         `json:"repeats"`
}

// Given is the hex of the hint the host is given: Lie or Hint, followed by Expires when
// there is one.
func (v *Replay) Given() string {
	given := v.Hint
	if v.Lie != "" {
		given = v.Lie
	}
	if v.Expires > 0 {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(v.Expires))
		given += hex.EncodeToString(b[:])
	}
	return given
}

// Repeat is a request that repeats a Replay's but for its id, made At the host's clock
// (unix seconds), and what it gets (nil: it is not answered from the replay).
type Repeat struct {
	Request Bytes   `json:"request"`
	At      int64   `json:"at,omitempty"`
	Client  *Client `json:"client"`
}

// FailureVector is a host's own answer.
type FailureVector struct {
	Name    string      `json:"name"`
	Detail  string      `json:"detail,omitempty"` // for "start"
	Status  int         `json:"status"`
	Headers [][2]string `json:"headers"`
	Body    string      `json:"body"`
	Replies [][2]string `json:"replies"` // [raw id or "", the stream reply]
}

// Head: a request as a runtime gives it, the fields the plugin names, and the frame's head.
type Head struct {
	Name    string      `json:"name"`
	Method  string      `json:"method"`
	Target  string      `json:"target"`
	Headers [][2]string `json:"headers"`
	Fields  []string    `json:"fields"`
	Head    string      `json:"head"`
}

// Read decodes the vectors file name (of edge/wire/testdata) into v, failing t when it
// cannot.
func Read(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("testdata/%s: %v", name, err)
	}
}

// Write encodes v as the vectors file name, as `go test ./edge/wire -update` does.
func Write(t testing.TB, name string, v any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Limits are the contract's numbers every host holds.
type Limits struct {
	DefaultMaxBody, MaxBatch, HintSize, HintSizeExpiring         int
	ReplayEntries, ReplayEntryMax, ReplayBudget, ReplayShapesMax int

	// The key sets' numbers (wire/keys.go), durations in seconds.
	KeySetMax, KeysRedirects                                                    int
	KeysTimeout, KeysRefetch, KeysRetry, KeysMinAge, KeysMaxAge, KeysDefaultAge int

	// The rounds of NEED a host goes through for one request (wire/need.go).
	MaxNeedRounds int

	IDs [][2]string // an id token and its kind ("n", "s" or "")
}

// Keys are the key set vectors (keys.json): how long a fetched set is fresh, which
// redirects a fetch follows, the keys export's input, the schedule of fetches, and when
// refusals have the set fetched.
type Keys struct {
	Ages      []KeysAge      `json:"ages"`
	Redirects []KeysRedirect `json:"redirects"`
	Frames    []KeysFrame    `json:"frames"`
	Schedules []KeysSchedule `json:"schedules"`
	Refusals  []KeysRefusals `json:"refusals"`
}

// KeysAge: a response's Cache-Control and Age ("" when absent), and the seconds its set
// is fresh (wire.KeysAge).
type KeysAge struct {
	CacheControl string `json:"cacheControl"`
	Age          string `json:"age"`
	Seconds      int    `json:"seconds"`
}

// KeysRedirect: whether a fetch of from follows a redirect to (wire.KeysRedirect).
type KeysRedirect struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Follow bool   `json:"follow"`
}

// KeysFrame: the keys export's input for a URL and a document (wire.AppendKeys).
type KeysFrame struct {
	URL      string `json:"url"`
	Document Bytes  `json:"document"`
	Frame    Bytes  `json:"frame"`
}

// KeysSchedule is a story of one URL (wire.KeysState) as steps in time.
type KeysSchedule struct {
	Name  string     `json:"name"`
	Steps []KeysStep `json:"steps"`
}

// KeysStep happens At seconds into the story: Do "begin" (a fetch begins), "done" (a
// set came, fresh for Age seconds), "fail" (the fetch failed) or "drop" (the set is given
// up); or, without Do, a check of what the host decides then.
type KeysStep struct {
	At     int        `json:"at"`
	Do     string     `json:"do,omitempty"`
	Age    int        `json:"age,omitempty"`
	Expect *KeysCheck `json:"expect,omitempty"`
}

// KeysCheck is what a host decides at a step: whether it fetches on its own (Due), may
// fetch when the plugin wants the set (Refetch), and gives the set up (Expired).
type KeysCheck struct {
	Due     bool `json:"due"`
	Refetch bool `json:"refetch"`
	Expired bool `json:"expired"`
}

// KeysRefusals is a story of requests to a host whose plugin verifies tokens with the key
// set at one URL, which the issuer serves unchanged (it holds k1): what each answer is
// and how many times the host has fetched the set by then. It holds a host to fetching
// only when the plugin asks (keys_wanted), and to the plugin's asking once per miss.
type KeysRefusals struct {
	Name  string        `json:"name"`
	Steps []KeysRequest `json:"steps"`
}

// KeysRequest is one step: a request with Token, "k1" (valid, of the issuer's key), "k9"
// (signed by a key the set lacks: a kid the plugin misses), "k1-forged" (k1's kid, a bad
// signature) or "" (no credential), answered Status, after which the issuer has been
// asked for the set Fetches times in all; or, with Advance, the clock moved on that
// many seconds.
type KeysRequest struct {
	Advance int    `json:"advance,omitempty"`
	Token   string `json:"token,omitempty"`
	Status  int    `json:"status,omitempty"`
	Fetches int    `json:"fetches,omitempty"`
}

// FactsVector: the facts of an answer as the plugin encodes them (wire.AppendFacts; for a
// vector with a Request, the server's own facts for it), and what a host parses from them:
// Parsed, or nothing (Parsed null) for facts that do not follow the encoding.
type FactsVector struct {
	Name    string       `json:"name"`
	Request Bytes        `json:"request,omitempty"`
	Facts   Bytes        `json:"facts"`
	Parsed  *ParsedFacts `json:"parsed"`
}

// ParsedFacts are wire.Facts as the vectors write them, with SkillName.
type ParsedFacts struct {
	Route     string `json:"route"`
	Method    string `json:"method"`
	Version   string `json:"version"`
	Read      string `json:"read"`
	Skill     string `json:"skill"`
	SkillName string `json:"skillName"`
	URI       string `json:"uri"`
	Code      int64  `json:"code"`
	Caller    string `json:"caller"`
	Client    string `json:"client"`
}
