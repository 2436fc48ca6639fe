package edge

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// rawCursor encodes raw the way the server encodes cursors.
func rawCursor(raw string) string { return base64.RawURLEncoding.EncodeToString([]byte(raw)) }

// listCall is a call whose params are params ("" for none).
func listCall(tb testing.TB, params string) *call {
	m := parseMsg(tb, request(1, "skills/list", params))
	var c call
	c.read(&m, nil)
	c.version = V20251125
	return &c
}

// cursorParams is params carrying cursor as a JSON string.
func cursorParams(cursor string) string { return `{"cursor":` + jsonQuote(cursor) + `}` }

// nextCursor extracts the cursor appendNextCursor appended, "" when none.
func nextCursor(tb testing.TB, b []byte) string {
	tb.Helper()
	if len(b) == 0 {
		return ""
	}
	obj := "{" + strings.TrimPrefix(string(b), ",") + "}"
	c := gjson.Get(obj, "nextCursor")
	if !gjson.Valid(obj) || c.Type != gjson.String || c.Str == "" {
		tb.Fatalf("appendNextCursor appended %q", b)
	}
	return c.Str
}

func TestCursorRoundTrip(t *testing.T) {
	s := exampleServer(t, wire.Options{PageSize: 2})
	d := s.digestPrefix()
	if len(d) != 8 {
		t.Fatalf("digestPrefix %q", d)
	}
	for _, kind := range []string{"s", "r", "d0", "d12"} {
		for _, tc := range []struct{ to, n int }{{1, 2}, {2, 5}, {4, 5}, {99, 100}, {1000, 1001}} {
			cur := nextCursor(t, s.appendNextCursor(nil, kind, tc.to, tc.n))
			if strings.ContainsAny(cur, "+/=") {
				t.Errorf("cursor %q is not unpadded base64url", cur)
			}
			raw, err := base64.RawURLEncoding.DecodeString(cur)
			if err != nil || string(raw) != kind+":"+strconv.Itoa(tc.to)+":"+d {
				t.Errorf("cursor %q decodes to %q, %v", cur, raw, err)
			}
			if off, ok := s.parseCursor(cur, kind); !ok || off != tc.to {
				t.Errorf("parseCursor(%q, %q) = %d, %v; want %d", cur, kind, off, ok, tc.to)
			}
			from, to, perr := s.page(listCall(t, cursorParams(cur)), kind, tc.n)
			if perr != nil || from != tc.to || to != min(tc.n, tc.to+2) {
				t.Errorf("page(%q) = %d, %d, %v", cur, from, to, perr)
			}
		}
		// No cursor once the listing is complete.
		for _, tc := range []struct{ to, n int }{{0, 0}, {3, 3}, {4, 3}} {
			if b := s.appendNextCursor([]byte("x"), kind, tc.to, tc.n); string(b) != "x" {
				t.Errorf("appendNextCursor(%q, to %d, n %d) appended %q", kind, tc.to, tc.n, b[1:])
			}
		}
	}
}

func TestPageInvalidCursor(t *testing.T) {
	s := exampleServer(t, wire.Options{PageSize: 3})
	d := s.digestPrefix()
	other := strings.Map(func(r rune) rune {
		if r == '0' {
			return '1'
		}
		return '0'
	}, d)
	full := s.pack.Digest()
	const n = 5
	for _, tc := range []struct {
		name, kind, cursor string
	}{
		{"another kind", "r", rawCursor("s:2:" + d)},
		{"another kind, prefix", "s", rawCursor("ss:2:" + d)},
		{"directory kinds differ", "d1", rawCursor("d12:2:" + d)},
		{"directory kinds differ, prefix", "d12", rawCursor("d1:2:" + d)},
		{"another catalog", "s", rawCursor("s:2:" + other)},
		{"full digest", "s", rawCursor("s:2:" + full)},
		{"short digest", "s", rawCursor("s:2:" + d[:7])},
		{"no digest", "s", rawCursor("s:2:")},
		{"missing digest field", "s", rawCursor("s:2")},
		{"trailing field", "s", rawCursor("s:2:" + d + ":")},
		{"missing separators", "s", rawCursor("s2" + d)},
		{"upper-case digest", "s", rawCursor("s:2:" + strings.ToUpper(d))},
		{"offset 0", "s", rawCursor("s:0:" + d)},
		{"offset n", "s", rawCursor("s:5:" + d)},
		{"offset beyond n", "s", rawCursor("s:6:" + d)},
		{"huge offset", "s", rawCursor("s:99999999999999999999:" + d)},
		{"negative offset", "s", rawCursor("s:-1:" + d)},
		{"negative zero", "s", rawCursor("s:-0:" + d)},
		{"leading zero", "s", rawCursor("s:01:" + d)},
		{"plus sign", "s", rawCursor("s:+1:" + d)},
		{"leading space", "s", rawCursor("s: 1:" + d)},
		{"trailing space", "s", rawCursor("s:1 :" + d)},
		{"fraction", "s", rawCursor("s:1.0:" + d)},
		{"exponent", "s", rawCursor("s:1e0:" + d)},
		{"hex", "s", rawCursor("s:0x1:" + d)},
		{"underscore", "s", rawCursor("s:1_0:" + d)},
		{"empty offset", "s", rawCursor("s::" + d)},
		{"empty", "s", ""},
		{"bad base64", "s", "!!!!"},
		{"padded", "s", base64.URLEncoding.EncodeToString([]byte("s:10:" + d))},
		{"standard alphabet", "s", strings.NewReplacer("-", "+", "_", "/").Replace(rawCursor("s:2:" + d + "\xfb\xff"))},
		{"raw cursor text", "s", "s:2:" + d},
		{"space inside", "s", " " + rawCursor("s:2:"+d)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if off, ok := s.parseCursor(tc.cursor, tc.kind); ok && off > 0 && off < n {
				t.Errorf("parseCursor(%q) = %d, true", tc.cursor, off)
			}
			from, to, err := s.page(listCall(t, cursorParams(tc.cursor)), tc.kind, n)
			if err == nil {
				t.Fatalf("page(%q, %q) = [%d, %d), want -32602", tc.cursor, tc.kind, from, to)
			}
			if err.Code != jsonrpc.CodeInvalidParams || err.Message != "invalid cursor: "+strconv.Quote(tc.cursor) {
				t.Fatalf("page error %d %q", err.Code, err.Message)
			}
		})
	}
}

func TestPageCursorType(t *testing.T) {
	s := exampleServer(t, wire.Options{PageSize: 3})
	for _, tc := range []struct {
		params   string
		from, to int
		err      string
	}{
		{"", 0, 3, ""},
		{`{}`, 0, 3, ""},
		{`[]`, 0, 3, ""},
		{`{"cursor":null}`, 0, 3, ""},
		{`{"cursor":1}`, 0, 0, "params.cursor must be a string"},
		{`{"cursor":0}`, 0, 0, "params.cursor must be a string"},
		{`{"cursor":true}`, 0, 0, "params.cursor must be a string"},
		{`{"cursor":false}`, 0, 0, "params.cursor must be a string"},
		{`{"cursor":{}}`, 0, 0, "params.cursor must be a string"},
		{`{"cursor":[]}`, 0, 0, "params.cursor must be a string"},
		{`{"cursor":["` + rawCursor("s:1:"+s.digestPrefix()) + `"]}`, 0, 0, "params.cursor must be a string"},
		{`{"cursor":"` + rawCursor("s:1:"+s.digestPrefix()) + `"}`, 1, 4, ""},
		{`{"cursor":"` + rawCursor("s:4:"+s.digestPrefix()) + `"}`, 4, 5, ""},
	} {
		from, to, err := s.page(listCall(t, tc.params), "s", 5)
		if tc.err != "" {
			if err == nil || err.Code != jsonrpc.CodeInvalidParams || err.Message != tc.err {
				t.Errorf("page(%s) = %d, %d, %v; want -32602 %q", tc.params, from, to, err, tc.err)
			}
			continue
		}
		if err != nil || from != tc.from || to != tc.to {
			t.Errorf("page(%s) = %d, %d, %v; want %d, %d", tc.params, from, to, err, tc.from, tc.to)
		}
	}
}

// TestPagesCoverEachItemOnce walks every listing of n items page by page, following the
// cursors, and checks that each item is on exactly one page.
func TestPagesCoverEachItemOnce(t *testing.T) {
	for _, pageSize := range []int{1, 2, 3, 4, 7, 8, 100} {
		s := exampleServer(t, wire.Options{PageSize: pageSize})
		for n := 0; n <= 7; n++ {
			seen := make([]int, n)
			params, pages := "", 0
			for {
				pages++
				if pages > n+2 {
					t.Fatalf("page size %d, n %d: cursors do not end", pageSize, n)
				}
				from, to, err := s.page(listCall(t, params), "s", n)
				if err != nil {
					t.Fatalf("page size %d, n %d, page %d: %v", pageSize, n, pages, err)
				}
				if to-from > pageSize || (to == from && n > 0) {
					t.Fatalf("page size %d, n %d: page [%d, %d)", pageSize, n, from, to)
				}
				for i := from; i < to; i++ {
					seen[i]++
				}
				cur := nextCursor(t, s.appendNextCursor(nil, "s", to, n))
				if cur == "" {
					break
				}
				params = cursorParams(cur)
			}
			for i, c := range seen {
				if c != 1 {
					t.Errorf("page size %d, n %d: item %d listed %d times", pageSize, n, i, c)
				}
			}
			if want := max(1, (n+pageSize-1)/pageSize); pages != want {
				t.Errorf("page size %d, n %d: %d pages, want %d", pageSize, n, pages, want)
			}
		}
	}
}

// listAll follows nextCursor through method on the stdio path and returns the uri of every
// element of the result member items, in order.
func listAll(t *testing.T, s *Server, method, items, extra string, modern bool) []string {
	t.Helper()
	var uris []string
	cursor := ""
	for range 20 {
		params := extra
		if cursor != "" {
			params += `,"cursor":` + jsonQuote(cursor)
		}
		if modern {
			params += `,` + modernMeta
		}
		params = "{" + strings.TrimPrefix(params, ",") + "}"
		reply := handle(t, s, V20251125, request(1, method, params))
		r := gjson.ParseBytes(reply)
		if r.Get("error").Exists() {
			t.Fatalf("%s %s: %s", method, params, reply)
		}
		r.Get("result." + items + ".#.uri").ForEach(func(_, v gjson.Result) bool {
			uris = append(uris, v.Str)
			return true
		})
		next := r.Get("result.nextCursor")
		if !next.Exists() {
			return uris
		}
		if next.Type != gjson.String || next.Str == "" {
			t.Fatalf("nextCursor %s", next.Raw)
		}
		cursor = next.Str
	}
	t.Fatalf("%s: cursors do not end", method)
	return nil
}

// TestListingPagination lists catalogs of 0 to 7 skills with several page sizes, in both
// eras, and checks that the pages together are the unpaginated listing.
func TestListingPagination(t *testing.T) {
	for n := 0; n <= 7; n++ {
		p := nSkillsPack(t, n)
		whole := New(p, wire.Options{})
		for _, modern := range []bool{false, true} {
			wantSkills := listAll(t, whole, "skills/list", "skills", "", modern)
			wantRes := listAll(t, whole, "resources/list", "resources", "", modern)
			if len(wantSkills) != n || len(wantRes) != n+1 { // every SKILL.md, then skill://index.json
				t.Fatalf("n %d: %d skills, %d resources", n, len(wantSkills), len(wantRes))
			}
			for _, pageSize := range []int{1, 2, 3, 7} {
				s := New(p, wire.Options{PageSize: pageSize})
				if got := listAll(t, s, "skills/list", "skills", "", modern); strings.Join(got, " ") != strings.Join(wantSkills, " ") {
					t.Errorf("n %d, page size %d, modern %v: skills %v, want %v", n, pageSize, modern, got, wantSkills)
				}
				if got := listAll(t, s, "resources/list", "resources", "", modern); strings.Join(got, " ") != strings.Join(wantRes, " ") {
					t.Errorf("n %d, page size %d, modern %v: resources %v, want %v", n, pageSize, modern, got, wantRes)
				}
			}
		}
	}
}

// TestDirectoryPagination pages through a directory of k files plus SKILL.md.
func TestDirectoryPagination(t *testing.T) {
	for k := 0; k <= 6; k++ {
		files := map[string]string{"d/SKILL.md": skillMD("d")}
		for i := range k {
			files["d/f"+strconv.Itoa(i)+".md"] = "x\n"
		}
		p := packOf(t, files)
		want := listAll(t, New(p, wire.Options{}), "resources/directory/read", "resources", `"uri":"skill://d"`, false)
		if len(want) != k+1 {
			t.Fatalf("k %d: %d children: %v", k, len(want), want)
		}
		for _, pageSize := range []int{1, 2, 3, 7} {
			s := New(p, wire.Options{PageSize: pageSize})
			for _, modern := range []bool{false, true} {
				got := listAll(t, s, "resources/directory/read", "resources", `"uri":"skill://d"`, modern)
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("k %d, page size %d: %v, want %v", k, pageSize, got, want)
				}
			}
		}
	}
}

// TestCursorNotTransferable feeds a valid cursor to another listing, another directory and
// another catalog: each must be refused with -32602, never silently accepted.
func TestCursorNotTransferable(t *testing.T) {
	p3, p4 := nSkillsPack(t, 3), nSkillsPack(t, 4)
	s3, s4 := New(p3, wire.Options{PageSize: 1}), New(p4, wire.Options{PageSize: 1})
	if s3.digestPrefix() == s4.digestPrefix() {
		t.Fatal("two catalogs share a digest prefix")
	}
	first := func(s *Server, method, params string) string {
		reply := handle(t, s, V20251125, request(1, method, params))
		c := gjson.GetBytes(reply, "result.nextCursor")
		if c.Type != gjson.String {
			t.Fatalf("%s: no cursor: %s", method, reply)
		}
		return c.Str
	}
	skillsCur := first(s3, "skills/list", "")
	resCur := first(s3, "resources/list", "")
	ex := exampleServer(t, wire.Options{PageSize: 1})
	dirCur := first(ex, "resources/directory/read", `{"uri":"skill://acme/billing/refunds"}`)
	for _, tc := range []struct {
		name, method, params string
		s                    *Server
	}{
		{"skills cursor to resources/list", "resources/list", cursorParams(skillsCur), s3},
		{"resources cursor to skills/list", "skills/list", cursorParams(resCur), s3},
		{"skills cursor to another catalog", "skills/list", cursorParams(skillsCur), s4},
		{"resources cursor to another catalog", "resources/list", cursorParams(resCur), s4},
		{"directory cursor to another directory", "resources/directory/read", `{"uri":"skill://acme/billing/refunds/policies","cursor":` + jsonQuote(dirCur) + `}`, ex},
		{"directory cursor to resources/list", "resources/list", cursorParams(dirCur), ex},
		{"skills cursor to a directory", "resources/directory/read", `{"uri":"skill://acme/billing/refunds","cursor":` + jsonQuote(skillsCur) + `}`, ex},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply := handle(t, tc.s, V20251125, request(2, tc.method, tc.params))
			if code := gjson.GetBytes(reply, "error.code").Int(); code != jsonrpc.CodeInvalidParams {
				t.Fatalf("reply %s, want -32602", reply)
			}
			if msg := gjson.GetBytes(reply, "error.message").Str; !strings.HasPrefix(msg, "invalid cursor: ") {
				t.Fatalf("message %q", msg)
			}
		})
	}
	// The same cursors are accepted where they came from.
	for _, tc := range []struct{ method, params string }{
		{"skills/list", cursorParams(skillsCur)},
		{"resources/list", cursorParams(resCur)},
	} {
		reply := handle(t, s3, V20251125, request(3, tc.method, tc.params))
		if gjson.GetBytes(reply, "error").Exists() {
			t.Errorf("%s with its own cursor: %s", tc.method, reply)
		}
	}
}
