package edge

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/jsonrpc"
)

// Cursors are opaque to clients: base64url of "<kind>:<offset>:<catalog digest prefix>".
// The kind keeps a skills/list cursor out of resources/list; the digest prefix makes a
// cursor from another catalog (a redeploy mid-listing) an error rather than a silent skip.
// Offsets are only ever issued strictly inside the list, so 0 or >= n is invalid.
//
// Why are cursors tied to the catalog? So that a cursor from a previous deployment is an
// explicit -32602 instead of a silent skip or repeat, and a cursor of one kind or scope is
// refused by another listing. A server-side cursor table would be state, which a
// stateless server spread over many instances cannot have.

// page works out the window [from, to) of a listing of n items from params.cursor.
func (s *Server) page(c *call, kind string, n int) (from, to int, err *jsonrpc.Error) {
	return s.pageAt(c.p.cursor, kind, n)
}

// pageAt is page for the cursor cur.
func (s *Server) pageAt(cur gjson.Result, kind string, n int) (from, to int, err *jsonrpc.Error) {
	switch {
	case !cur.Exists() || cur.Type == gjson.Null:
		from = 0
	case cur.Type != gjson.String:
		return 0, 0, invalidParams("params.cursor must be a string")
	default:
		var ok bool
		if from, ok = s.parseCursor(cur.Str, kind); !ok || from <= 0 || from >= n {
			return 0, 0, invalidParams("invalid cursor: " + strconv.Quote(clip(cur.Str)))
		}
	}
	return from, min(n, from+s.opt.PageSize), nil
}

// pageBudget bounds the bytes of a page's items: a page ends before the item that would
// take it past, but always holds one item.
const pageBudget = 4 << 20

// fit returns where a page that starts at from should end, at most to, for items of the
// given sizes: before the item that would take it past budget bytes, but after at least
// one.
func fit(from, to, budget int, size func(i int) int) int {
	total := 0
	for i := from; i < to; i++ {
		if total += size(i); total > budget && i > from {
			return i
		}
	}
	return to
}

// appendPage appends items from, from+1, … of a listing, separated by commas, to b, and
// returns b and where the page ended: at to at most, and before the item that would take
// the items past budget bytes, but after at least one (as fit decides).
func appendPage(b []byte, from, to, budget int, item func(i int) []byte) ([]byte, int) {
	total := 0
	for i := from; i < to; i++ {
		it := item(i)
		if total += len(it); total > budget && i > from {
			return b, i
		}
		if i > from {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return b, to
}

// appendNextCursor appends `,"nextCursor":"…"` when the listing goes on after to.
func (s *Server) appendNextCursor(b []byte, kind string, to, n int) []byte {
	if to >= n {
		return b
	}
	return s.appendCursor(append(b, `,"nextCursor":`...), kind, to)
}

// appendCursor appends the cursor of the listing kind that goes on at to, as a JSON string.
func (s *Server) appendCursor(b []byte, kind string, to int) []byte {
	raw := kind + ":" + strconv.Itoa(to) + ":" + s.digestPrefix()
	b = append(b, '"')
	b = base64.RawURLEncoding.AppendEncode(b, []byte(raw))
	return append(b, '"')
}

func (s *Server) parseCursor(cur, kind string) (int, bool) {
	for i := 0; i < len(cur); i++ { // the decoder would skip CR and LF
		if c := cur[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return 0, false
		}
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(cur) // one spelling per cursor
	if err != nil {
		return 0, false
	}
	k, rest, ok := strings.Cut(string(raw), ":")
	if !ok || k != kind {
		return 0, false
	}
	off, digest, ok := strings.Cut(rest, ":")
	if !ok || digest != s.digestPrefix() {
		return 0, false
	}
	n, err := strconv.Atoi(off)
	if err != nil || strconv.Itoa(n) != off {
		return 0, false
	}
	return n, true
}

// digestPrefix is the part of the catalog digest a cursor carries: its own index's, or, in
// a view's index of unlisted skills, that of the view's listed ones (newViews), so that no
// cursor carries a digest its caller could not compute from what it is shown.
func (s *Server) digestPrefix() string { return s.cursorDigest }
