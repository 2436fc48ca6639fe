package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"

	"github.com/tidwall/gjson"
)

// maxRedirects is how many redirects one request may follow.
const maxRedirects = 5

// redirectRule is the context key of a request's redirect rule: a function returning why
// a redirect target is refused, or "".
type redirectRule struct{}

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return fmt.Errorf("more than %d redirects", maxRedirects)
	}
	if !sameOriginURL(req.URL, via[0].URL) {
		req.Header.Del("Authorization") // a token goes to the deployment's origin only
	}
	rule, _ := req.Context().Value(redirectRule{}).(func(*url.URL) string)
	if rule == nil {
		return fmt.Errorf("redirect to %s refused", req.URL)
	}
	if why := rule(req.URL); why != "" {
		return fmt.Errorf("redirect to %s refused: %s", req.URL, why)
	}
	return nil
}

// response is a fetched response whose body was read within its bound.
type response struct {
	url         *url.URL // after redirects
	status      int
	contentType string // the media type, lowercase, without parameters; "" if none
	// body is the body of a 200, read whole (up to the bound); of any other status, its
	// first 4 KiB (a JSON-RPC error answer, or a host's failure).
	body []byte
	// failure is, for an answer other than 200 that is a host's own failure (edge/wire
	// Failure: a JSON-RPC error whose data names it), the failure's name; "" otherwise.
	failure string
	header  http.Header
}

// errTooBig is returned, wrapped, for a body over its bound.
var errTooBig = errors.New("too large")

// do sends req, following redirects that rule allows, and reads at most max bytes of the
// response body. A body over max gives an error wrapping errTooBig; any status is a
// response, not an error.
func (v *verifier) do(req *http.Request, rule func(*url.URL) string, max int64) (*response, error) {
	req = req.WithContext(context.WithValue(req.Context(), redirectRule{}, rule))
	req.Header.Set("User-Agent", "skilledge-verify")
	if v.token != "" && sameOriginURL(req.URL, v.base) {
		req.Header.Set("Authorization", "Bearer "+v.token)
	}
	resp, err := v.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, err
	}
	defer resp.Body.Close()
	r := &response{url: resp.Request.URL, status: resp.StatusCode, header: resp.Header}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err == nil {
			r.contentType = mt
		}
	}
	if resp.StatusCode != http.StatusOK {
		r.body, _ = io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		r.failure = failureName(r.body)
		return r, nil
	}
	if resp.ContentLength > max {
		return nil, fmt.Errorf("%w: %d bytes, over the limit of %d", errTooBig, resp.ContentLength, max)
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength))
	}
	if _, err := buf.ReadFrom(io.LimitReader(resp.Body, max+1)); err != nil {
		return nil, fmt.Errorf("reading the body: %v", err)
	}
	if int64(buf.Len()) > max {
		return nil, fmt.Errorf("%w: over the limit of %d bytes", errTooBig, max)
	}
	r.body = buf.Bytes()
	return r, nil
}

// get fetches u with GET; see do.
func (v *verifier) get(ctx context.Context, u *url.URL, accept string, rule func(*url.URL) string, max int64) (*response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	return v.do(req, rule, max)
}

// failureName is the name of the host failure (edge/wire Failure) that body is, or "": the
// data.failure of its JSON-RPC error -32603.
func failureName(body []byte) string {
	if !gjson.ValidBytes(body) {
		return ""
	}
	e := gjson.GetBytes(body, "error")
	if f := e.Get("data.failure"); e.Get("code").Raw == "-32603" && f.Type == gjson.String {
		return f.Str
	}
	return ""
}

// authRefused is what an answer that is the failure of an auth option its host refused
// (wire.FailAuth) means. The host's log says why; the answer does not.
const authRefused = "the deployment's auth option is invalid; see its logs"

// statusText renders a non-200 status as "HTTP 404 Not Found".
func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return fmt.Sprintf("HTTP %d %s", code, t)
	}
	return fmt.Sprintf("HTTP %d", code)
}

// sameOriginURL reports whether a and b have one origin: scheme, host and port (the
// default port of the scheme when none is written), as Origin writes it.
func sameOriginURL(a, b *url.URL) bool { return Origin(a) == Origin(b) }
