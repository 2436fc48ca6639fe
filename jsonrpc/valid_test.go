package jsonrpc

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		in       string
		ok, deep bool
	}{
		{`{}`, true, false},
		{` {"a":[1,2.5e-3,-0,"x\\u00e9\n",true,false,null,{}]} `, true, false},
		{`[]`, true, false},
		{`"s"`, true, false},
		{`0`, true, false},
		{`-1.0E+9`, true, false},
		{``, false, false},
		{` `, false, false},
		{`{`, false, false},
		{`{"a"}`, false, false},
		{`{"a":}`, false, false},
		{`{"a":1,}`, false, false},
		{`[1,]`, false, false},
		{`[1 2]`, false, false},
		{`{} {}`, false, false},
		{`01`, false, false},
		{`1.`, false, false},
		{`1e`, false, false},
		{`-`, false, false},
		{`"\x"`, false, false},
		{`"\u12"`, false, false},
		{"\"a\x01\"", false, false},
		{`tru`, false, false},
		{`[}`, false, false},
		{`{]`, false, false},
		{`{"a":1]`, false, false},
		{"\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"", true, false},
		{"\"\xff\xfe\"", false, false},         // not UTF-8
		{"\"\xc3\"", false, false},             // truncated sequence
		{"\"\xc0\xaf\"", false, false},         // overlong
		{"\"\xed\xa0\x80\"", false, false},     // an encoded surrogate
		{"\"\xf4\x90\x80\x80\"", false, false}, // above U+10FFFF
		{`"\ud800"`, true, false},              // an escaped lone surrogate is JSON
		{"{\"\xff\":1}", false, false},         // in a key
		{"[1,\"a\xe2\x82\"]", false, false},    // truncated before the quote
		{strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), true, false},
		{strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), false, true},
		{strings.Repeat(`{"a":`, MaxDepth+1), false, true},
	} {
		ok, deep := validate([]byte(tc.in), nil)
		if ok != tc.ok || deep != tc.deep {
			t.Errorf("validate(%.40q) = %v, %v; want %v, %v", tc.in, ok, deep, tc.ok, tc.deep)
		}
	}
}

// FuzzValidate holds validate to gjson.ValidBytes and utf8.Valid together on every input
// that is not too deep: JSON text is UTF-8 (RFC 8259 §8.1), which gjson does not check.
func FuzzValidate(f *testing.F) {
	for _, s := range append([]string{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[1,{"b":null}]}}`, `[1,2]`, `"\u00e9"`, `-0.1e+5`, `{"a":1,}`, "\"\xff\"", `[[[]]]`, ` 1 `}, longStrings...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ok, deep := validate(b, nil)
		if deep {
			if !TooDeep(b, MaxDepth) {
				t.Fatalf("validate(%q) says too deep, TooDeep does not", b)
			}
			return
		}
		if TooDeep(b, MaxDepth) && !ok {
			return // invalid before the depth was reached; gjson may recurse differently
		}
		if want := gjson.ValidBytes(b) && utf8.Valid(b); ok != want {
			t.Fatalf("validate(%q) = %v, gjson.ValidBytes and utf8.Valid = %v", b, ok, want)
		}
	})
}

// FuzzValidateTop: the members validate records on its way through an object are the
// ones a separate walk over its members finds (first occurrence of each).
func FuzzValidateTop(f *testing.F) {
	for _, s := range append([]string{
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[1,{"b":null}]}}`,
		`{"id":"x","id":2,"result":{"x":[]},"error":{}}`,
		`{"\u0069d":true, "method" : "a" , "params":[] }`,
		`[{"id":1}]`,
		`{}`,
	}, longStrings...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got fields
		if ok, _ := validate(b, &got); !ok {
			return
		}
		var want fields
		if b[skipSpace(b)] == '{' {
			for m := NewMembers(b); m.Next(); {
				if dst := want.slot([]byte(m.KeyRaw())); dst != nil {
					*dst = m.Value
				}
			}
		}
		for i, pair := range [][2][]byte{{got.jsonrpc, want.jsonrpc}, {got.id, want.id}, {got.method, want.method},
			{got.params, want.params}, {got.result, want.result}, {got.error, want.error}} {
			if string(pair[0]) != string(pair[1]) || (pair[0] == nil) != (pair[1] == nil) {
				t.Fatalf("%q: member %d recorded as %q, walked as %q", b, i, pair[0], pair[1])
			}
		}
	})
}

// longStrings are seeds with strings longer than a word (jsonrpc scans strings eight bytes
// at a time), with what stops a scan in and across words.
var longStrings = []string{
	`{"jsonrpc":"2.0","id":1,"method":"a method name with \"escapes\" and \\ in it","params":{"uri":"skill://some-skill/reference/deep/file.md"}}`,
	"{\"method\":\"long enough text then a control \x01 byte\"}",
	`{"method":"long ASCII text then é then more ASCII text","id":"0123456789abcdef\u00e9tail"}`,
	"\"abcdefg\xff\"",
	"\"abcdefgh\xe2\x82\"",
	`"abcdefg\"hijklmno\\"`,
	`{"abcdefghijklmnop":"qrstuvwxyzABCDEF","x":"0123456789012345"}`,
}
