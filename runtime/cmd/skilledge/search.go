package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/runtime/front"
	"github.com/skilledge/skilledge/runtime/internal/find"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// searchUsage is search's help text, after its synopsis.
const searchUsage = `Searches the catalog at URL, or the skills folder DIR, for QUERY, and prints the skills
it finds, best first: name (what "skilledge pull URL --skill NAME" takes), path in the
catalog, score and description, cut to the terminal's width. QUERY is words, as a person
asks ("fill in a PDF form"): quote it, or give it as several arguments. The last word
also finds the words it begins, and a misspelled word of five letters or more still
finds its skill.

The search is the catalog's own (PROTOCOL.md#search): GET
URL/.well-known/agent-skills/search, page after page, as any HTTP client can. A DIR is
built as "skilledge serve DIR" builds it (that build reused when nothing changed) and
searched through a server of it on a loopback port, so that a folder answers as its
deployment will.

A private deployment answers only callers with a credential: --token TOKEN sends
"Authorization: Bearer TOKEN" to URL's origin and nowhere else (a redirect to another
origin is refused), --token ORIGIN=TOKEN binds it to ORIGIN instead, and $` + tokenEnv + `
holds the same forms when no --token is given. A folder with an access policy is
refused: search its deployment, with a token.

--json prints {catalog, query, total, skills: [{name, path, description, score, type,
url, digest}]} instead (a folder's skills have no url). The exit status is 0 when a skill was found, 1 when none was or
on failure, 2 on bad usage.`

func cmdSearch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("search", "skilledge search URL|DIR QUERY... [flags]", searchUsage)
	limit := c.fs.Int("limit", find.DefaultLimit, fmt.Sprintf("print at most `N` skills, 1 to %d", find.MaxLimit))
	asJSON := c.fs.Bool("json", false, "print the skills found as JSON on stdout instead of a table")
	timeout := c.fs.Duration("timeout", time.Minute, "give up after `DURATION`")
	var tokens stringList
	c.fs.Var(&tokens, "token", tokenUsage)
	var f serverFlags
	f.build.register(c.fs)
	pos, code, ok := c.parse(args, 2, 1+maxQueryArgs, stdout, stderr)
	if !ok {
		return code
	}
	source, query := pos[0], strings.Join(pos[1:], " ")
	if *limit < 1 || *limit > find.MaxLimit {
		return c.usageError(stderr, fmt.Sprintf("--limit %d: give a number from 1 to %d", *limit, find.MaxLimit))
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	opt := find.Options{Limit: *limit}
	folder := ""
	if strings.Contains(source, "://") {
		creds, err := credentials(tokens, source)
		if err != nil {
			return c.usageError(stderr, err.Error())
		}
		opt.Tokens = creds
	} else {
		if len(tokens) > 0 {
			return c.usageError(stderr, "--token is for a catalog's URL; a folder is searched on this machine, with no credential")
		}
		base, stop, ok := serveFolder(ctx, &f, source, stderr)
		if !ok {
			return 1
		}
		defer stop()
		folder, source = source, base
	}
	res, err := find.Search(ctx, source, query, opt)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("gave up after %v (--timeout): %w", *timeout, err)
		}
		fmt.Fprintf(stderr, "skilledge search: %v\n", err)
		if errors.Is(err, find.ErrUsage) {
			return 2
		}
		return 1
	}
	if folder != "" { // the server is this command's own, gone when it ends
		res.Base = folder
		for i := range res.Hits {
			res.Hits[i].URL = ""
		}
	}
	if *asJSON {
		if res.Hits == nil {
			res.Hits = []find.Hit{}
		}
		e := json.NewEncoder(stdout)
		e.SetIndent("", "  ")
		e.Encode(res)
	} else if len(res.Hits) > 0 {
		find.WriteTable(stdout, res, find.Width(stdout))
	}
	switch {
	case len(res.Hits) == 0:
		fmt.Fprintf(stderr, "skilledge search: no skill found for %q\n", query)
		return 1
	case !*asJSON && res.Total > len(res.Hits):
		fmt.Fprintf(stderr, "%d of %d skills found; --limit N prints more\n", len(res.Hits), res.Total)
	}
	return 0
}

// maxQueryArgs bounds the words of a query given as several arguments (the catalog takes
// 32 words and 256 bytes, and says so).
const maxQueryArgs = 256

// serveFolder builds the skills folder dir as serve does (the build cache reused) and
// serves it on a loopback port, for search to ask as it asks a deployment; stop ends the
// server. ok is false after saying why on stderr (a folder with an access policy is
// refused: with no credential, search would be told nothing of it).
func serveFolder(ctx context.Context, f *serverFlags, dir string, stderr io.Writer) (base string, stop func(), ok bool) {
	s, ok := f.open(ctx, "search", dir, wasm.Options{}, stderr)
	if !ok {
		return "", nil, false
	}
	if s.Pack().Private() {
		s.Close()
		fmt.Fprintf(stderr, "skilledge search: %s has an access policy (%s): search its deployment, giving --token\n", dir, compile.PolicyFile)
		return "", nil, false
	}
	if err := s.Start(ctx, front.Options{}); err != nil {
		s.Close()
		fmt.Fprintf(stderr, "skilledge search: %s\n", advised(err))
		return "", nil, false
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.Close()
		fmt.Fprintf(stderr, "skilledge search: %v\n", err)
		return "", nil, false
	}
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	return "http://" + ln.Addr().String(), func() {
		hs.Close()
		s.Close()
	}, true
}
