package verify

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
)

// maxPages bounds how many skills/list pages Verify follows.
const maxPages = 1000

// mcpSkill is one entry of the MCP manifest (skills/list).
type mcpSkill struct {
	uri   string
	files map[string]fileInfo // by path relative to the skill's root; nil with bad set
	bad   string              // why the entry cannot be compared, or ""
}

// listSkills fetches the whole MCP manifest (2026-07-28), page by page, and returns the
// entries by name (entryName); those without a string name are under "".
func (v *verifier) listSkills(ctx context.Context, endpoint *url.URL) (map[string][]*mcpSkill, error) {
	entries, err := v.listPages(ctx, endpoint, session{era: ProtocolVersion}, 0)
	if err != nil {
		return nil, err
	}
	byName := make(map[string][]*mcpSkill)
	for _, e := range entries {
		// An entry without a usable name is kept under "" (no skill name is empty).
		name := entryName(e)
		byName[name] = append(byName[name], parseMCPSkill(e))
	}
	return byName, nil
}

// entryName is the name a skills/list entry is keyed by, as the well-known indexes key it:
// its SEP-2076 name where that is a valid skill name (a skilledge catalog's index name,
// qualified where skills share a name), else its frontmatter name; "" if neither is a
// string.
func entryName(e gjson.Result) string {
	if n := e.Get("name"); n.Type == gjson.String && ValidName(n.Str) {
		return n.Str
	}
	return e.Get("frontmatter.name").Str
}

// parseMCPSkill reads the uri and resources of a skills/list entry.
func parseMCPSkill(e gjson.Result) *mcpSkill {
	m := &mcpSkill{uri: e.Get("uri").Str}
	uri := e.Get("uri")
	if uri.Type != gjson.String || !strings.HasPrefix(uri.Str, "skill://") || !strings.HasSuffix(uri.Str, "/SKILL.md") {
		m.bad = fmt.Sprintf("its uri %s is not a skill:// URI ending in /SKILL.md", orMissing(uri))
		return m
	}
	root := strings.TrimSuffix(uri.Str, "SKILL.md")
	res := e.Get("resources")
	if res.Type == gjson.String && res.Str == "dynamic" {
		m.bad = "its resources are \"dynamic\": there is no fixed file list to compare"
		return m
	}
	if !res.IsArray() {
		m.bad = fmt.Sprintf("its resources %s are not an array", orMissing(res))
		return m
	}
	m.files = make(map[string]fileInfo)
	for _, r := range res.Array() {
		ru, digest, size := r.Get("uri"), r.Get("digest"), r.Get("size")
		rel, ok := strings.CutPrefix(ru.Str, root)
		if ru.Type != gjson.String || !ok {
			m.bad = fmt.Sprintf("resource %s is not under the skill's root %s", orMissing(ru), root)
			return m
		}
		name, err := url.PathUnescape(rel)
		if err != nil || safeRelPath(name) != "" {
			m.bad = fmt.Sprintf("resource %s does not name a file path under the skill's root", ru.Raw)
			return m
		}
		if digest.Type != gjson.String || !catalog.IsDigest(digest.Str) {
			m.bad = fmt.Sprintf("resource %s has digest %s, not \"sha256:\" and 64 lowercase hex digits", ru.Raw, orMissing(digest))
			return m
		}
		if size.Type != gjson.Number || size.Num < 0 || size.Num != float64(int64(size.Num)) {
			m.bad = fmt.Sprintf("resource %s has size %s, not a non-negative integer", ru.Raw, orMissing(size))
			return m
		}
		if _, dup := m.files[name]; dup {
			m.bad = fmt.Sprintf("resource %s is listed twice", ru.Raw)
			return m
		}
		m.files[name] = fileInfo{digest: digest.Str, size: int64(size.Num)}
	}
	return m
}

// safeRelPath returns why name is not a relative "/"-separated file path that stays
// under its directory, or "".
func safeRelPath(name string) string {
	if name == "" || name[0] == '/' {
		return "it is empty or absolute"
	}
	if strings.ContainsRune(name, '\\') {
		return "it contains a backslash"
	}
	for _, c := range []byte(name) {
		if c < 0x20 || c == 0x7f {
			return "it contains a control character"
		}
	}
	for seg := range strings.SplitSeq(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "it has an empty, \".\" or \"..\" segment"
		}
	}
	return ""
}

// call sends one 2026-07-28 request to the MCP endpoint and returns its result.
func (v *verifier) call(ctx context.Context, endpoint *url.URL, id int, method, cursor string) (gjson.Result, error) {
	params := map[string]any{}
	if cursor != "" {
		params["cursor"] = cursor
	}
	return v.rpc(ctx, endpoint, session{era: ProtocolVersion}, id, method, params)
}

// session is how requests to an MCP endpoint are sent: era is the revision
// (ProtocolVersion, or a 2025 revision after initialize), id the Mcp-Session-Id a legacy
// server gave ("" for none).
type session struct{ era, id string }

// modern reports whether s sends 2026-07-28 requests.
func (s session) modern() bool { return s.era == ProtocolVersion }

// rpc sends one request (an id of 0 sends a notification) to the MCP endpoint in
// session s and returns its result. A modern request carries the protocol version and
// client capabilities in params._meta and the Mcp-Method (and, for resources/read,
// Mcp-Name) header; a legacy one the MCP-Protocol-Version (after initialize) and
// Mcp-Session-Id headers.
func (v *verifier) rpc(ctx context.Context, endpoint *url.URL, s session, id int, method string, params map[string]any) (gjson.Result, error) {
	r, _, err := v.rpcHeader(ctx, endpoint, s, id, method, params, maxIndexBytes)
	return r, err
}

// rpcHeader is rpc with the response's headers, reading at most max bytes of its body.
func (v *verifier) rpcHeader(ctx context.Context, endpoint *url.URL, s session, id int, method string, params map[string]any, max int64) (gjson.Result, http.Header, error) {
	p := map[string]any{}
	for k, x := range params {
		p[k] = x
	}
	if s.modern() {
		p["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    ProtocolVersion,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}
	}
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": p}
	if id != 0 {
		msg["id"] = id
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return gjson.Result{}, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint.String(), bytes.NewReader(body))
	if err != nil {
		return gjson.Result{}, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.era != "" {
		req.Header.Set("MCP-Protocol-Version", s.era)
	}
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
	}
	if s.modern() {
		req.Header.Set("Mcp-Method", method)
		if uri, ok := params["uri"].(string); ok {
			req.Header.Set("Mcp-Name", headerValue(uri))
		}
	}
	noRedirects := func(*url.URL) string { return "the MCP endpoint does not redirect" }
	resp, err := v.do(req, noRedirects, max)
	if err != nil {
		return gjson.Result{}, nil, fmt.Errorf("%s: %v", method, err)
	}
	if id == 0 {
		if resp.status/100 != 2 {
			return gjson.Result{}, nil, fmt.Errorf("%s: %s", method, statusText(resp.status))
		}
		return gjson.Result{}, resp.header, nil
	}
	body = resp.body
	if resp.status == 200 && resp.contentType == "text/event-stream" {
		if body, err = sseMessage(resp.body, id); err != nil {
			return gjson.Result{}, nil, fmt.Errorf("%s: %v", method, err)
		}
	}
	if resp.status != 200 && resp.failure == wire.FailAuth.Name {
		return gjson.Result{}, nil, fmt.Errorf("%s: %s: %s", method, statusText(resp.status), authRefused)
	}
	// A JSON-RPC error says more than the status, so read the body of any status.
	if gjson.ValidBytes(body) {
		m := gjson.ParseBytes(body)
		if e := m.Get("error"); e.Exists() {
			return gjson.Result{}, nil, &rpcError{method: method, code: e.Get("code").Raw, message: e.Get("message").Str, status: resp.status}
		}
		if r := m.Get("result"); resp.status == 200 && r.IsObject() {
			if got := m.Get("id"); got.Type != gjson.Number || got.Int() != int64(id) {
				return gjson.Result{}, nil, fmt.Errorf("%s: the response's id %s is not %d", method, orMissing(got), id)
			}
			return r, resp.header, nil
		}
	}
	if resp.status != 200 {
		return gjson.Result{}, nil, &rpcError{method: method, status: resp.status}
	}
	return gjson.Result{}, nil, fmt.Errorf("%s: the response is not a JSON-RPC result", method)
}

// rpcError is a JSON-RPC error answer, or a status other than 200 without one.
type rpcError struct {
	method, code, message string // code is "" when there is no JSON-RPC error
	status                int    // the HTTP status it came with
}

// Error names the status when it is not 200 (a 401 says a credential is wanted), then
// the JSON-RPC error, if any, its code and message Printable (they are the server's).
func (e *rpcError) Error() string {
	switch {
	case e.code == "":
		return fmt.Sprintf("%s: %s", e.method, statusText(e.status))
	case e.status != 200:
		return fmt.Sprintf("%s: %s: error %s: %s", e.method, statusText(e.status), Printable(e.code), Printable(e.message))
	}
	return fmt.Sprintf("%s: error %s: %s", e.method, Printable(e.code), Printable(e.message))
}

// headerValue is s as an HTTP header value: as it is when it is printable ASCII, else
// "=?base64?…?=" (PROTOCOL.md#eras).
func headerValue(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
		}
	}
	return s
}

// sseMessage returns the data of the first server-sent event holding the JSON-RPC
// response with id.
func sseMessage(stream []byte, id int) ([]byte, error) {
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(nil, len(stream)+1)
	var data []byte
	for more := true; more; {
		more = sc.Scan()
		l := sc.Text()
		if !more || l == "" {
			if m := gjson.ParseBytes(data); len(data) > 0 && m.Get("id").Type == gjson.Number && m.Get("id").Int() == int64(id) {
				return data, nil
			}
			data = data[:0]
			continue
		}
		if rest, ok := strings.CutPrefix(l, "data:"); ok {
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, strings.TrimPrefix(rest, " ")...)
		}
	}
	return nil, errors.New("the event stream ended without the response")
}

// crossCheckMCP compares every verified artifact with the MCP manifest.
func (v *verifier) crossCheckMCP(ctx context.Context) {
	endpoint := v.withPath(MCPPath)
	at := endpoint.String()
	byName, err := v.listSkills(ctx, endpoint)
	if err != nil {
		if ctx.Err() == nil {
			v.problem("", at, "cannot cross-check with the MCP manifest: %v", err)
		}
		return
	}
	v.mcp = byName
	for _, sr := range v.list {
		st := v.skills[sr.Name]
		if st.files == nil {
			continue // its artifact was not verified: nothing to compare
		}
		m, why := v.mcpEntry(sr.Name)
		if why != "" {
			v.skillProblem(sr, sr.URL, "%s", why)
			continue
		}
		what := "the archive"
		if st.kind == "skill-md" {
			what = "the skill-md entry (its SKILL.md alone)"
		}
		for _, d := range compareFiles(st.files, what, m.files, fmt.Sprintf("the MCP manifest (%s)", m.uri)) {
			v.skillProblem(sr, sr.URL, "%s", d)
		}
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		if _, ok := v.skills[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		for _, m := range byName[name] {
			if name == "" {
				v.problem("", at, "the MCP manifest's entry %q has no frontmatter name", m.uri)
				continue
			}
			v.problem(name, at, "the MCP manifest lists the skill %s, which the v0.2.0 index does not", m.uri)
		}
	}
}

// mcpEntry returns the single MCP manifest entry named name, or why there is none to
// compare with.
func (v *verifier) mcpEntry(name string) (*mcpSkill, string) {
	switch ms := v.mcp[name]; len(ms) {
	case 0:
		return nil, "the MCP manifest has no skill of that name"
	case 1:
		if ms[0].bad != "" {
			return nil, fmt.Sprintf("the MCP manifest's entry %s cannot be compared: %s", ms[0].uri, ms[0].bad)
		}
		return ms[0], ""
	default:
		uris := make([]string, len(ms))
		for i, m := range ms {
			uris[i] = m.uri
		}
		return nil, fmt.Sprintf("the MCP manifest has %d skills of that name (%s): name-keyed clients cannot tell them apart", len(ms), strings.Join(uris, ", "))
	}
}

// compareFiles returns the differences between the files a (as what says: "the
// archive") and b (as bWhat says), sorted by path. A file of a without a digest (it
// could not be fetched) is compared for presence only.
func compareFiles(a map[string]fileInfo, what string, b map[string]fileInfo, bWhat string) []string {
	var names []string
	for n := range a {
		names = append(names, n)
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var diffs []string
	for _, n := range names {
		f, inA := a[n]
		g, inB := b[n]
		switch {
		case !inB:
			diffs = append(diffs, fmt.Sprintf("file %q is in %s but not in %s", n, what, bWhat))
		case !inA:
			diffs = append(diffs, fmt.Sprintf("file %q is in %s but not in %s", n, bWhat, what))
		case f.digest != "" && f != g:
			diffs = append(diffs, fmt.Sprintf("file %q is %s (%d bytes) in %s but %s (%d bytes) in %s", n, f.digest, f.size, what, g.digest, g.size, bWhat))
		}
	}
	return diffs
}
