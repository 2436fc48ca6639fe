package jsonrpc

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

func TestAppendString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"ping", `"ping"`},
		{`a"b`, `"a\"b"`},
		{`a\b`, `"a\\b"`},
		{"/", `"/"`},
		{"\n\r\t\b\f", `"\n\r\t\b\f"`},
		{"\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"\x0b\x1a", `"\u000b\u001a"`},
		{"\x7f", "\"\x7f\""},
		{"<a href='x'>&amp;</a>", `"<a href='x'>&amp;</a>"`},
		{"héllo wörld", `"héllo wörld"`},
		{"日本語", `"日本語"`},
		{"😀", `"😀"`},
		{"\u2027\u2028\u2029\u202a", "\"\u2027\\u2028\\u2029\u202a\""},
		{"\uFFFD", "\"\uFFFD\""}, // a valid U+FFFD is kept as is
		{"a\xffb", `"a\ufffdb"`},
		{"\xc3", `"\ufffd"`},                               // truncated 2-byte sequence
		{"\xe2\x80", `"\ufffd\ufffd"`},                     // truncated 3-byte sequence: one per byte
		{"\xc0\xaf", `"\ufffd\ufffd"`},                     // overlong
		{"\xed\xa0\x80", `"\ufffd\ufffd\ufffd"`},           // UTF-8-encoded surrogate
		{"\xf4\x90\x80\x80", `"\ufffd\ufffd\ufffd\ufffd"`}, // above U+10FFFF
		{"\xf0\x9f\x98", `"\ufffd\ufffd\ufffd"`},           // truncated 4-byte sequence
		{"\x80x\xbf", `"\ufffdx\ufffd"`},
		{"ok\"\n\xff\u2028end", `"ok\"\n\ufffd\u2028end"`},
	} {
		got := AppendString(nil, tc.in)
		requireEqual(t, tc.want, string(got), "AppendString("+strconv.Quote(tc.in)+")")
		requireValidJSON(t, got, "AppendString")
		got = AppendStringBytes([]byte("x"), []byte(tc.in))
		requireEqual(t, "x"+tc.want, string(got), "AppendStringBytes("+strconv.Quote(tc.in)+")")
	}
}

// TestAppendString_random checks, for random byte strings including invalid
// UTF-8, that the output is valid JSON and that encoding/json decodes it to
// the input with each invalid byte replaced by U+FFFD, as json.Marshal does.
func TestAppendString_random(t *testing.T) {
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 0))
	var buf []byte
	for range 20000 {
		in := randomString(r)
		buf = AppendString(buf[:0], in)
		if err := checkAppendString(in, buf); err != "" {
			t.Fatalf("seed %d: input %q: %s", seed, in, err)
		}
		if b := AppendStringBytes(nil, []byte(in)); !bytes.Equal(b, buf) {
			t.Fatalf("seed %d: input %q: AppendStringBytes %q, AppendString %q", seed, in, b, buf)
		}
	}
}

// checkAppendString returns "" if out is the correct encoding of in, or what
// is wrong with it.
func checkAppendString(in string, out []byte) string {
	if !json.Valid(out) || !gjson.ValidBytes(out) || !utf8.Valid(out) {
		return "invalid JSON " + strconv.Quote(string(out))
	}
	var got string
	if err := json.Unmarshal(out, &got); err != nil {
		return err.Error()
	}
	if want := replaceInvalid(in); got != want {
		return "decodes to " + strconv.Quote(got) + ", want " + strconv.Quote(want)
	}
	// encoding/json agrees byte for byte once its HTML escaping is undone.
	marshalled, _ := json.Marshal(in)
	unescaped := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(marshalled))
	if unescaped != string(out) {
		return "encoded as " + strconv.Quote(string(out)) + ", json.Marshal gives " + strconv.Quote(unescaped)
	}
	return ""
}

// replaceInvalid replaces each byte of s that is not part of valid UTF-8 by
// U+FFFD, one per byte, as json.Marshal does.
func replaceInvalid(s string) string {
	return string([]rune(s))
}

// randomString returns a short string mixing ASCII, escapes, control
// characters, multi-byte runes, U+2028/U+2029 and invalid bytes.
func randomString(r *rand.Rand) string {
	pieces := []string{
		"a", "Z", " ", "/", `"`, `\`, "\n", "\t", "\x00", "\x1f", "\x7f",
		"é", "日", "😀", "\u2028", "\u2029", "\uFFFD",
		"\xff", "\x80", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf0\x9f\x98",
	}
	var b strings.Builder
	for range r.IntN(16) {
		if r.IntN(4) == 0 {
			b.WriteByte(byte(r.UintN(256)))
		} else {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
	}
	return b.String()
}

func TestDecodeRune(t *testing.T) {
	// Every one- to three-byte sequence, and four-byte sequences around the
	// interesting lead bytes, decode as utf8.DecodeRune decodes them.
	check := func(s []byte) {
		if s[0] < utf8.RuneSelf {
			return
		}
		wantR, wantN := utf8.DecodeRune(s)
		gotR, gotN := decodeRune(s, 0)
		if wantN != gotN || (wantN > 1 && wantR != gotR) {
			t.Fatalf("decodeRune(%q) = %U, %d; utf8.DecodeRune gives %U, %d", s, gotR, gotN, wantR, wantN)
		}
		gotR, gotN = decodeRune(string(s), 0)
		if wantN != gotN || (wantN > 1 && wantR != gotR) {
			t.Fatalf("decodeRune(string %q) = %U, %d; want %U, %d", s, gotR, gotN, wantR, wantN)
		}
	}
	for a := range 256 {
		check([]byte{byte(a)})
		for b := range 256 {
			check([]byte{byte(a), byte(b)})
			for c := range 256 {
				check([]byte{byte(a), byte(b), byte(c)})
			}
		}
	}
	for _, a := range []byte{0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf8} {
		for b := range 256 {
			for _, c := range []byte{0x7f, 0x80, 0xbf, 0xc0} {
				for _, d := range []byte{0x7f, 0x80, 0xbf, 0xc0} {
					check([]byte{a, byte(b), c, d})
				}
			}
		}
	}
}

func TestUnquote(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{`""`, "", true},
		{`"ping"`, "ping", true},
		{`"\u0070ing"`, "ping", true},
		{`"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t", true},
		{`"\u00e9\u00E9"`, "éé", true},
		{`"\ud83d\ude00"`, "😀", true},
		{`"\ud83d"`, "\uFFFD", true},
		{`"\ude00\ud83d"`, "\uFFFD\uFFFD", true},
		{`"\ud83dx"`, "\uFFFDx", true},
		{`"\ud83d\u0041"`, "\uFFFDA", true},
		{`"\ud83d\ud83d\ude00"`, "\uFFFD😀", true},
		{`"\u2028"`, "\u2028", true},
		{"\"a\xffb\"", "a\uFFFDb", true},
		{"\"\xed\xa0\x80\\n\"", "\uFFFD\uFFFD\uFFFD\n", true},
		{`"日本"`, "日本", true},
		{" \"x\"\n", "x", true},
		{``, "", false},
		{`"`, "", false},
		{`x`, "", false},
		{`1`, "", false},
		{`null`, "", false},
		{`["a"]`, "", false},
		{`"a" "b"`, "", false},
		{`"a`, "", false},
		{`"\"`, "", false},
		{`"\x"`, "", false},
		{`"\u12"`, "", false},
		{"\"a\nb\"", "", false},
		{`'a'`, "", false},
	} {
		got, ok := Unquote([]byte(tc.in))
		requireEqual(t, tc.ok, ok, "Unquote("+tc.in+") ok")
		requireEqual(t, tc.want, got, "Unquote("+tc.in+")")
	}
}

// TestUnquote_random checks Unquote against encoding/json on random strings
// encoded with random choices of escapes.
func TestUnquote_random(t *testing.T) {
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 1))
	for range 20000 {
		raw := randomStringToken(r)
		if err := checkUnquote(raw); err != "" {
			t.Fatalf("seed %d: input %q: %s", seed, raw, err)
		}
	}
}

// randomStringToken returns a JSON string token built from random pieces,
// some escaped, including unpaired surrogate escapes and invalid UTF-8.
func randomStringToken(r *rand.Rand) []byte {
	pieces := []string{
		"a", " ", "é", "😀", "\u2028", "\xff", "\xed\xa0\x80",
		`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0041`, `\u00e9`, `\u0000`,
		`\ud83d`, `\ude00`, `\ud83d\ude00`, `\uD83D\uDE00`, `\uffff`, `\u2028`,
	}
	b := []byte{'"'}
	for range r.IntN(12) {
		b = append(b, pieces[r.IntN(len(pieces))]...)
	}
	return append(b, '"')
}

// checkUnquote returns "" if Unquote agrees with encoding/json on raw.
func checkUnquote(raw []byte) string {
	got, ok := Unquote(raw)
	var want string
	err := json.Unmarshal(raw, &want)
	if wantOK := err == nil; ok != wantOK {
		if ok {
			return "Unquote accepted what encoding/json rejects: " + err.Error()
		}
		return "Unquote rejected what encoding/json decodes as " + strconv.Quote(want)
	}
	if got != want {
		return "Unquote gives " + strconv.Quote(got) + ", encoding/json gives " + strconv.Quote(want)
	}
	return ""
}

func TestUnquoteDoesNotAlias(t *testing.T) {
	raw := []byte(`"abc"`)
	s, _ := Unquote(raw)
	raw[1] = 'x'
	requireEqual(t, "abc", s, "Unquote result after the input changed")
}

func TestAppendStringAllocs(t *testing.T) {
	dst := make([]byte, 0, 256)
	s := "héllo \"wörld\"\n\xff\u2028"
	allocs := testing.AllocsPerRun(100, func() {
		dst = AppendString(dst[:0], s)
	})
	if allocs != 0 {
		t.Errorf("AppendString into a large enough buffer: %v allocations, want 0", allocs)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "ping", "a\"b\\c", "\x00\n\x1f", "日本😀", "\u2028\u2029", "\xff\xc3\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		if err := checkAppendString(s, out); err != "" {
			t.Fatalf("input %q: %s", s, err)
		}
		if b := AppendStringBytes(nil, []byte(s)); !bytes.Equal(b, out) {
			t.Fatalf("input %q: AppendStringBytes %q, AppendString %q", s, b, out)
		}
		// Unquote inverts AppendString up to the replacement of invalid bytes.
		if got, ok := Unquote(out); !ok || got != replaceInvalid(s) {
			t.Fatalf("input %q: Unquote(%q) = %q, %v", s, out, got, ok)
		}
	})
}

// FuzzUnquote checks Unquote against encoding/json on arbitrary input.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`""`, `"a"`, `"\u0070ing"`, `"\ud83d\ude00"`, `"\ud83d\u0041"`, "\"\xff\"", `"\x"`, `1`, ` "a" `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !gjson.ValidBytes(raw) || !json.Valid(raw) {
			// Only compare where both validators agree the input is JSON; a
			// disagreement is gjson's, and FuzzParse covers Parse on it.
			if _, ok := Unquote(raw); ok && !gjson.ValidBytes(raw) {
				t.Fatalf("Unquote accepted invalid JSON %q", raw)
			}
			return
		}
		if err := checkUnquote(raw); err != "" {
			t.Fatalf("input %q: %s", raw, err)
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"short", "resources/read"},
		{"ascii", strings.Repeat("The quick brown fox jumps over the lazy dog. ", 20)},
		{"unicode", strings.Repeat("Größenmaßstäbe 日本語 😀 ", 20)},
		{"escapes", strings.Repeat("line \"one\"\n\ttab\\slash\x01", 20)},
	} {
		dst := make([]byte, 0, 4*len(bc.in)+2)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.in)))
			b.ReportAllocs()
			for b.Loop() {
				dst = AppendString(dst[:0], bc.in)
			}
		})
	}
}

func TestAppendStrings(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, `[]`},
		{[]string{}, `[]`},
		{[]string{"a"}, `["a"]`},
		{[]string{"a", "", "q\"\n"}, `["a","","q\"\n"]`},
	} {
		got := AppendStrings([]byte("x"), c.in)
		requireEqual(t, "x"+c.want, string(got), "AppendStrings")
		requireValidJSON(t, got[1:], "AppendStrings")
	}
}
