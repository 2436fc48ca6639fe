package find

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/front"
	"github.com/skilledge/skilledge/runtime/internal/verify"
	"github.com/skilledge/skilledge/runtime/serving"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// examples serves the built-in examples with pageSize skills a page, as serve does.
func examples(t *testing.T, pageSize int) string {
	t.Helper()
	ctx := context.Background()
	s, err := serving.Open(ctx, serving.Options{Dir: "../../../catalog/examples/skills", Cache: t.TempDir(), Log: io.Discard,
		Pool: wasm.Options{Server: wire.Options{PageSize: pageSize}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.Start(ctx, front.Options{}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestSearchPages: Search follows the catalog's cursors, page after page, until it has the
// hits it was asked for or the catalog has no more; the hits are in the catalog's order,
// and the total is the catalog's.
func TestSearchPages(t *testing.T) {
	base := examples(t, 2) // 2 hits a page
	all, err := Search(context.Background(), base, "use", Options{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if all.Total != 6 || len(all.Hits) != 6 {
		t.Fatalf("all: total %d, %d hits, want 6 and 6", all.Total, len(all.Hits))
	}
	for i := 1; i < len(all.Hits); i++ {
		if all.Hits[i].Score > all.Hits[i-1].Score {
			t.Errorf("hit %d scores %.3f, over the one before it (%.3f)", i, all.Hits[i].Score, all.Hits[i-1].Score)
		}
	}
	for _, limit := range []int{1, 2, 3, 5} {
		got, err := Search(context.Background(), base+"/", "use", Options{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Hits) != limit || got.Total != 6 {
			t.Fatalf("limit %d: %d hits of %d", limit, len(got.Hits), got.Total)
		}
		for i, h := range got.Hits {
			if h != all.Hits[i] {
				t.Errorf("limit %d, hit %d: %+v, want %+v", limit, i, h, all.Hits[i])
			}
		}
	}
	h := all.Hits[0]
	if !strings.HasPrefix(h.URL, base+"/.well-known/agent-skills/") || !strings.HasPrefix(h.Digest, "sha256:") || h.Path == "" || h.Description == "" {
		t.Errorf("a hit: %+v", h)
	}
	_, err = Search(context.Background(), base, "a b c d e f g h i j k l m n o p q r s t u v w x y z aa bb cc dd ee ff gg", Options{})
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "the catalog refused the query: q: ") {
		t.Errorf("33 words: %v", err)
	}
}

// TestSearchToken: the token bound to the catalog's origin goes with each request, one
// bound to another origin never does, and a redirect that leaves the origin is refused
// before anything is sent there.
func TestSearchToken(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	var auth atomic.Value
	catalog := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		if r.URL.Query().Get("q") == "away" {
			http.Redirect(w, r, other.URL+Path+"?q=away", http.StatusFound)
			return
		}
		w.Write([]byte(`{"query":"x","total":1,"skills":[{"name":"a","path":"p/a","description":"d","score":1.5,"url":"a/SKILL.md","digest":"sha256:00"}]}`))
	}))
	defer catalog.Close()
	tokens := verify.Credentials{}
	tokens.Add(catalog.URL, "mine")
	tokens.Add(other.URL, "theirs")
	if _, err := Search(context.Background(), catalog.URL, "x", Options{Tokens: tokens}); err != nil {
		t.Fatal(err)
	}
	if got := auth.Load(); got != "Bearer mine" {
		t.Errorf("the catalog got Authorization %q, want its own token", got)
	}
	_, err := Search(context.Background(), catalog.URL, "away", Options{Tokens: tokens})
	if err == nil || !strings.Contains(err.Error(), "refused: it leaves "+verify.Origin(mustURL(t, catalog.URL))) {
		t.Errorf("a redirect to another origin: %v", err)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the other origin got %d requests", n)
	}
	onlyTheirs := verify.Credentials{}
	onlyTheirs.Add(other.URL, "theirs")
	Search(context.Background(), catalog.URL, "x", Options{Tokens: onlyTheirs})
	if got := auth.Load(); got != "" {
		t.Errorf("the catalog got Authorization %q, a token bound to another origin", got)
	}
}

// TestWriteTable: columns padded to their widest cell, scores right-aligned, a
// description on one line and cut to the width, and nothing a catalog sent moves the
// terminal's cursor.
func TestWriteTable(t *testing.T) {
	r := &Result{Hits: []Hit{
		{Name: "pdf-forms", Path: "docs/pdf-forms", Score: 12.5, Description: "Fill in PDF\nforms,   flatten them."},
		{Name: "x\x1b[2J", Path: "x", Score: 0.25, Description: "Clears\x1b[2J the screen"},
	}}
	for _, c := range []struct {
		width int
		want  string
	}{
		{0, "NAME       PATH             SCORE  DESCRIPTION\n" +
			"pdf-forms  docs/pdf-forms  12.500  Fill in PDF forms, flatten them.\n" +
			"x\\x1b[2J   x                0.250  Clears\\x1b[2J the screen\n"},
		{50, "NAME       PATH             SCORE  DESCRIPTION\n" +
			"pdf-forms  docs/pdf-forms  12.500  Fill in PDF fo…\n" +
			"x\\x1b[2J   x                0.250  Clears\\x1b[2J…\n"},
		{36, "NAME       PATH             SCORE\n" +
			"pdf-forms  docs/pdf-forms  12.500\n" +
			"x\\x1b[2J   x                0.250\n"},
	} {
		var b bytes.Buffer
		WriteTable(&b, r, c.width)
		if b.String() != c.want {
			t.Errorf("width %d:\n%s\nwant:\n%s", c.width, b.String(), c.want)
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
