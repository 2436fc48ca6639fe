package edge

import (
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/wire"
)

// TestInvalidUTF8: a message whose bytes are not UTF-8 is not JSON (RFC 8259 §8.1): it is
// a parse error (-32700, id null, 400 over HTTP), never answered with its bytes echoed in
// the id (the reply was not UTF-8 JSON) nor read with U+FFFD in place of the bad bytes.
func TestInvalidUTF8(t *testing.T) {
	s := exampleServer(t, wire.Options{})
	for _, msg := range []string{
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"skill://git-workflow/SKILL.md\xc3\"}}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"skills/get\",\"params\":{\"name\":\"git-workflow\xed\xa0\x80\"}}",
		"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":\"\xc0\xaf\",\"method\":\"ping\"}]",
	} {
		check := func(what string, body []byte) {
			t.Helper()
			r := gjson.ParseBytes(body)
			if !utf8.Valid(body) || !gjson.ValidBytes(body) || r.Get("error.code").Int() != -32700 ||
				r.Get("id").Type != gjson.Null || r.Get("error.data").Str != "not valid UTF-8" {
				t.Fatalf("%s %q: %q", what, msg, body)
			}
		}
		reply, _, _ := s.HandleMessage(V20250326, []byte(msg))
		check("stdio", reply)
		resp := s.ServeHTTP(postLegacy(msg, ""))
		if resp.Status != 400 {
			t.Fatalf("HTTP %q: status %d", msg, resp.Status)
		}
		check("HTTP", resp.Body)
	}
	// An escaped lone surrogate is JSON (§8.2): the id is echoed as written, in ASCII.
	reply := handle(t, s, V20251125, `{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`)
	if string(reply) != `{"jsonrpc":"2.0","id":"\ud800","result":{}}` {
		t.Fatalf("%s", reply)
	}
}
