// Package find is `skilledge search`: it asks a catalog's search over HTTP (GET
// /.well-known/agent-skills/search, PROTOCOL.md#search), page after page until it has the
// hits it was asked for, and prints them as a table or as JSON. A folder is searched
// through a local server of it (the CLI starts one), so that a folder and its deployment
// answer a query alike, from the one index the build made.
//
// Why does `skilledge search` ask a catalog's HTTP search, and serve a folder to itself?
// So that what a person sees in a terminal is what an agent is answered: the index the
// build made, read by the plugin's own code, in the view a token opens. HTTP is the
// surface that gives each hit its score and path and needs no MCP session or protocol
// era. Rejected: a folder's index read in process (a second reader of the search table,
// in the host, free to drift from the plugin's), and skills/list with a query over MCP
// (its entries carry no score).
package find

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// Path is where a catalog answers searches, below its base URL.
const Path = "/.well-known/agent-skills/search"

// DefaultLimit is how many hits Search returns when Options.Limit is 0; MaxLimit is the
// most it takes.
const (
	DefaultLimit = 10
	MaxLimit     = 1000
)

// maxPage bounds the body of one page of hits; maxPages the pages one search reads.
const (
	maxPage  = 8 << 20
	maxPages = 200
)

// Options say how Search asks.
type Options struct {
	// Limit is how many hits to return, at most: 1 to MaxLimit, 0 for DefaultLimit.
	Limit int
	// Tokens are bearer tokens by origin: the token of the catalog's own origin goes with
	// each request, and no request ever leaves that origin (a redirect elsewhere is refused).
	Tokens verify.Credentials
	// Client makes the requests; nil is a client with a timeout of 30 s a request.
	Client *http.Client
}

// Hit is one skill a search found, as the catalog's HTTP search gives it.
type Hit struct {
	Name        string  `json:"name"`
	Path        string  `json:"path"` // in the catalog, as its skill:// URI names it
	Description string  `json:"description"`
	Score       float64 `json:"score"`
	Type        string  `json:"type"`          // "skill-md" or "archive"
	URL         string  `json:"url,omitempty"` // absolute; none for a folder
	Digest      string  `json:"digest"`        // sha256:HEX of what URL serves
}

// Result is what a search found: Hits, best first (at most the limit), of Total.
type Result struct {
	Base  string `json:"catalog"` // the URL asked, or the folder
	Query string `json:"query"`
	Total int    `json:"total"`
	Hits  []Hit  `json:"skills"`
}

// ErrUsage is wrapped by the errors of a caller's mistake (a bad URL, limit or query the
// catalog refuses): the CLI exits 2 on it.
var ErrUsage = errors.New("usage")

type usageError struct{ msg string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == ErrUsage }

// Search asks the catalog at base (its origin, or the path prefix it is served under) for
// query, and returns up to opt.Limit hits, following the catalog's cursors.
func Search(ctx context.Context, base, query string, opt Options) (*Result, error) {
	u, err := parseBase(base)
	if err != nil {
		return nil, err
	}
	if opt.Limit == 0 {
		opt.Limit = DefaultLimit
	}
	if opt.Limit < 1 || opt.Limit > MaxLimit {
		return nil, &usageError{fmt.Sprintf("--limit %d: give a number from 1 to %d", opt.Limit, MaxLimit)}
	}
	s := searcher{base: u, origin: verify.Origin(u), token: opt.Tokens.For(u)}
	s.client = &http.Client{Timeout: 30 * time.Second}
	if opt.Client != nil {
		c := *opt.Client
		s.client = &c
	}
	s.client.CheckRedirect = s.checkRedirect
	res := &Result{Base: u.String()}
	cursor := ""
	for range maxPages {
		p, err := s.page(ctx, query, cursor)
		if err != nil {
			return nil, err
		}
		if cursor == "" {
			res.Query, res.Total = p.Query, p.Total
		}
		for _, h := range p.Skills {
			if len(res.Hits) == opt.Limit {
				break
			}
			res.Hits = append(res.Hits, s.hit(h))
		}
		if len(res.Hits) == opt.Limit || p.NextCursor == "" {
			return res, nil
		}
		cursor = p.NextCursor
	}
	return res, nil // a catalog whose pages never end: what came, within the bound
}

// parseBase checks a catalog's URL and drops a trailing "/", or the path of the search
// itself when given.
func parseBase(base string) (*url.URL, error) {
	u, err := url.Parse(base)
	switch {
	case err != nil:
		return nil, &usageError{fmt.Sprintf("the catalog URL %q is not a URL: %v", base, err)}
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return nil, &usageError{fmt.Sprintf("the catalog URL %q is not an http(s) URL: write https://HOST[/PATH], or give a skills folder", base)}
	case u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return nil, &usageError{fmt.Sprintf("the catalog URL %q has userinfo, a query or a fragment: give the catalog's origin or path prefix", base)}
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, Path), "/")
	u.RawPath = ""
	return u, nil
}

type searcher struct {
	base   *url.URL
	origin string
	token  string
	client *http.Client
}

// page is one page of a search's answer.
type page struct {
	Query      string    `json:"query"`
	Total      int       `json:"total"`
	Skills     []wireHit `json:"skills"`
	NextCursor string    `json:"nextCursor"`
}

type wireHit struct {
	Name        string   `json:"name"`
	Path        string   `json:"path"`
	Description string   `json:"description"`
	Score       *float64 `json:"score"`
	Type        string   `json:"type"`
	URL         string   `json:"url"`
	Digest      string   `json:"digest"`
}

// checkRedirect follows a redirect within the catalog's origin only: the token goes
// nowhere else, and neither does the search.
func (s *searcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > 5 {
		return errors.New("more than 5 redirects")
	}
	if verify.Origin(req.URL) != s.origin {
		return fmt.Errorf("redirect to %s refused: it leaves %s", verify.Printable(req.URL.String()), s.origin)
	}
	return nil
}

func (s *searcher) page(ctx context.Context, query, cursor string) (*page, error) {
	q := url.Values{"q": {query}}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	target := *s.base
	target.Path += Path
	target.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "skilledge-search")
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("GET %s: %v", s.base.String()+Path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxPage+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: reading the answer: %v", s.base.String()+Path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, s.refusal(resp.StatusCode, body)
	}
	if len(body) > maxPage {
		return nil, fmt.Errorf("GET %s: the answer is over %d MiB", s.base.String()+Path, maxPage>>20)
	}
	var p page
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, fmt.Errorf("GET %s: the answer is not a search's JSON: %v", s.base.String()+Path, err)
	}
	for i, h := range p.Skills {
		if h.Name == "" || h.Score == nil {
			return nil, fmt.Errorf("GET %s: hit %d has no name or no score", s.base.String()+Path, i+1)
		}
	}
	return &p, nil
}

// refusal says why the catalog answered status, with the first line of what it said.
func (s *searcher) refusal(status int, body []byte) error {
	said, _, _ := strings.Cut(strings.TrimSpace(string(body[:min(len(body), 512)])), "\n")
	said = verify.Printable(strings.TrimPrefix(said, "skilledge: search: "))
	where := s.base.String() + Path
	switch {
	case status == http.StatusBadRequest:
		return &usageError{fmt.Sprintf("the catalog refused the query: %s", said)}
	case (status == http.StatusUnauthorized || status == http.StatusForbidden) && s.token == "":
		return fmt.Errorf("GET %s: %d: the catalog is private: give a token with --token (or $SKILLEDGE_TOKEN)", where, status)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fmt.Errorf("GET %s: %d: the catalog refused the token given for %s", where, status, s.origin)
	case status == http.StatusNotFound:
		return fmt.Errorf("GET %s: 404: no search there (not a skilledge catalog, or one built before search)", where)
	}
	return fmt.Errorf("GET %s: %d: %s", where, status, said)
}

// hit is h with its URL made absolute (a hit's url is relative to the index's folder).
func (s *searcher) hit(h wireHit) Hit {
	abs := h.URL
	if ref, err := url.Parse(h.URL); err == nil {
		dir := *s.base
		dir.Path += "/.well-known/agent-skills/"
		abs = dir.ResolveReference(ref).String()
	}
	return Hit{Name: h.Name, Path: h.Path, Description: h.Description, Score: *h.Score, Type: h.Type, URL: abs, Digest: h.Digest}
}
