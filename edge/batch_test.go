package edge

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/wire"
)

// batchOf is a JSON-RPC batch of the requests made by elem(1) … elem(n).
func batchOf(n int, elem func(id int) string) string {
	elems := make([]string, n)
	for i := range elems {
		elems[i] = elem(i + 1)
	}
	return "[" + strings.Join(elems, ",") + "]"
}

// TestBatchMax: a batch of more than wire.MaxBatch messages is refused whole, over stdio and
// HTTP, with a -32600 that says the bound, before any element is answered (10,000
// skills/list once crashed the plugin); wire.MaxBatch messages are all answered.
func TestBatchMax(t *testing.T) {
	s := exampleServer(t, wire.Options{})
	list := func(id int) string { return request(id, "skills/list", "") }
	for _, n := range []int{wire.MaxBatch + 1, 10_000} {
		reply, refs, _ := s.HandleMessage(V20250326, []byte(batchOf(n, list)))
		r := gjson.ParseBytes(reply)
		if r.IsArray() || r.Get("error.code").Int() != -32600 || r.Get("id").Type != gjson.Null || len(refs) != 0 ||
			!strings.Contains(r.Get("error.data").Str, "more than "+strconv.Itoa(wire.MaxBatch)+" messages") {
			t.Fatalf("stdio batch of %d: %.300s", n, reply)
		}
		resp := s.ServeHTTP(postLegacy(batchOf(n, list), ""))
		if resp.Status != 400 || gjson.GetBytes(resp.Body, "error.code").Int() != -32600 {
			t.Fatalf("HTTP batch of %d: %d %.300s", n, resp.Status, resp.Body)
		}
	}
	reply, _, _ := s.HandleMessage(V20250326, []byte(batchOf(wire.MaxBatch, list)))
	answers := gjson.ParseBytes(reply).Array()
	if len(answers) != wire.MaxBatch {
		t.Fatalf("a batch of %d: %d answers", wire.MaxBatch, len(answers))
	}
	for i, a := range answers {
		if a.Get("id").Int() != int64(i+1) || !a.Get("result.skills").IsArray() {
			t.Fatalf("answer %d: %.200s", i, a.Raw)
		}
	}
}

// postLegacy is a POST of body to /mcp without MCP-Protocol-Version (2025-03-26, where
// batches are allowed), with the given extra header lines.
func postLegacy(body, extra string) *wire.Request {
	frame := "POST /mcp\nHost: 127.0.0.1\nContent-Type: application/json\n" + extra + "\n" + body
	r, err := wire.ParseRequest([]byte(frame))
	if err != nil {
		panic(err)
	}
	return &r
}

// TestBatchBudget: after the first answer, which goes out whatever its size, a batch's
// answers may add wire.BatchMaxBytes, counting spliced objects and built bytes alike; the
// answers beyond are -32603 errors in place, saying to send the request on its own.
func TestBatchBudget(t *testing.T) {
	// Spliced bytes: a 6 MiB file read three times is two answers (12 MiB: the first
	// whole, then 6 of the 8 allowed) and an error.
	big := strings.Repeat("a", 6<<20)
	p := packOf(t, map[string]string{"s0/SKILL.md": skillMD("s0"), "s0/big.txt": big})
	s := New(p, wire.Options{})
	read := func(int) string { return request(1, "resources/read", `{"uri":"skill://s0/big.txt"}`) }
	reply, refs, _ := s.HandleMessage(V20250326, []byte(batchOf(3, read)))
	answers := gjson.ParseBytes(resolved(t, s, reply, refs)).Array()
	if len(answers) != 3 || answers[1].Get("result.contents.0.text").Str != big || answers[2].Get("error.code").Int() != -32603 {
		t.Fatalf("three 6 MiB reads: %d answers, %.200s", len(answers), answers[2].Raw)
	}
	if msg := answers[2].Get("error.message").Str; !strings.Contains(msg, strconv.Itoa(wire.BatchMaxBytes>>20)+" MiB") ||
		!strings.Contains(msg, "send this request on its own") {
		t.Fatalf("the error does not say the bound: %s", answers[2].Raw)
	}
	if len(refs) != 2 {
		t.Fatalf("%d objects named", len(refs))
	}

	// Built bytes: skills/list pages of about 0.7 MiB, 64 times, are the first answer,
	// as many as fit in the budget, and errors; the reply stays within wire.MaxReply.
	files := map[string]string{}
	for i := range 100 {
		name := "s" + strconv.Itoa(i)
		files[name+"/SKILL.md"] = skillMD(name)
		for j := range 60 {
			files[name+"/f"+strconv.Itoa(j)+".txt"] = strconv.Itoa(i*100 + j)
		}
	}
	p = packOf(t, files)
	s = New(p, wire.Options{})
	list := func(id int) string { return request(id, "skills/list", "") }
	one := handle(t, s, V20250326, list(1))
	reply, _, _ = s.HandleMessage(V20250326, []byte(batchOf(wire.MaxBatch, list)))
	answers = gjson.ParseBytes(reply).Array()
	listed := 0
	for i, a := range answers {
		if a.Get("result").Exists() {
			listed++
			if i != listed-1 {
				t.Fatalf("answer %d is a result after an error", i)
			}
		} else if a.Get("error.code").Int() != -32603 {
			t.Fatalf("answer %d: %.200s", i, a.Raw)
		}
	}
	if want := 1 + wire.BatchMaxBytes/len(one); listed != want {
		t.Fatalf("%d lists of %d bytes answered, want %d", listed, len(one), want)
	}
	if limit := wire.MaxReply(len(p.Bytes()), wire.DefaultMaxBody, 0); int64(len(reply)) > limit {
		t.Fatalf("reply of %d bytes, over wire.MaxReply %d", len(reply), limit)
	}
}

// TestErrorsBounded: an error quotes at most wire.MaxEcho bytes of what the request said, so
// its size does not grow with the request, however its values escape.
func TestErrorsBounded(t *testing.T) {
	s := exampleServer(t, wire.Options{})
	for _, long := range []string{
		strings.Repeat("a", 1<<20),
		strings.Repeat(`\u0001`, 1<<16),           // a control byte: \x01 once quoted, \\x01 in JSON
		strings.Repeat("\U000e0001", 1<<16),       // not printable: \U000e0001 once quoted
		strings.Repeat("é", 1<<16) + "\u2028\"\\", // cut inside a rune; JSON escapes
	} {
		str := strconv.Quote(long)
		if strings.HasPrefix(long, `\u`) {
			str = `"` + long + `"`
		}
		for _, msg := range []string{
			request(1, "resources/read", `{"uri":`+str+`}`),
			request(1, "resources/read", `{"uri":"skill://x/`+str[1:]+`}`),
			request(1, "resources/directory/read", `{"uri":"skill://x/`+str[1:]+`}`),
			request(1, "skills/get", `{"uri":"skill://`+str[1:]+`}`),
			request(1, "skills/get", `{"name":`+str+`}`),
			request(1, "skills/list", `{"cursor":`+str+`}`),
			`{"jsonrpc":"2.0","id":1,"method":` + str + `}`,
			request(1, "ping", `{`+modernMeta[:len(`"_meta":{"io.modelcontextprotocol/protocolVersion":`)]+str+
				`,"io.modelcontextprotocol/clientCapabilities":{}}}`),
		} {
			reply := handle(t, s, V20250326, msg)
			if !gjson.GetBytes(reply, "error").Exists() {
				t.Fatalf("%.100s: no error: %.200s", msg, reply)
			}
			if len(reply) > wire.MaxErrorBytes || !utf8.Valid(reply) {
				t.Fatalf("%.100s: an error of %d bytes: %.300s", msg, len(reply), reply)
			}
		}
	}
}

// TestBatchErrorAfterAnswer: an element answered with an error after an answered one is
// an error in place (it once panicked: the handler's nil buffer was sliced to the mark).
func TestBatchErrorAfterAnswer(t *testing.T) {
	s := exampleServer(t, wire.Options{})
	reply := handle(t, s, V20250326, "["+request(1, "ping", "")+","+request(2, "resources/read", `{"uri":"skill://nope/x"}`)+","+
		request(3, "skills/get", `{"name":"nope"}`)+","+request(4, "ping", "")+"]")
	answers := gjson.ParseBytes(reply).Array()
	if len(answers) != 4 || !answers[0].Get("result").Exists() || answers[1].Get("error.code").Int() != -32602 ||
		answers[2].Get("error.code").Int() != -32602 || !answers[3].Get("result").Exists() {
		t.Fatalf("%s", reply)
	}
}
