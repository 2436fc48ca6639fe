package verify

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog/archive"
)

// Eras FetchMCP speaks: EraModern is ProtocolVersion (stateless), EraLegacy the newest
// 2025 revision (initialize first).
//
// Why does an MCP pull try the 2026 era first, then `initialize`? A 2026-07-28 request
// needs no session: skills/list is one request. A server that does not speak it answers
// with a JSON-RPC error or a status, and only then does the read open a 2025 session
// (initialize, notifications/initialized, Mcp-Session-Id when given). --era legacy goes
// there directly. Rejected: always initializing first, one more round trip for every
// modern server, and guessing from server/discover, which a legacy server does not answer
// either.
const (
	EraModern = ProtocolVersion
	EraLegacy = "2025-11-25"
)

// readers bounds the resources/read requests FetchMCP has in flight.
const readers = 8

// FetchMCP reads the skills of the MCP server at endpoint (the URL it answers JSON-RPC
// at) over the Skills extension: skills/list, page by page, then resources/read of every
// file of each skill want accepts, given the skill as listed (Files nil, Digest the
// manifest digest of its files as listed, Kind DigestManifest). era is EraModern, EraLegacy (initialize, then the session), or ""
// for modern, falling back to legacy when the server refuses the modern request.
//
// Every skill listed must have a valid frontmatter name equal to the last segment of its
// path, a name (entryName: the entry's own where another skill shares the frontmatter's)
// unique, and resources under its root whose paths are safe and whose digests and sizes
// are given; every file read must be exactly one content with the listed URI, digest and
// size. Any problem, in any skill, is an error naming the URI: a hostile or broken server
// gets nothing installed. The result holds every listed skill, by path, Files nil where
// want declined; Fetched.URL is the SKILL.md URI, Digest the manifest digest.
//
// The endpoint must be https (or loopback http with AllowHTTPLoopback) and under
// TrustRoot when one is configured; a token is sent to its origin only.
func FetchMCP(ctx context.Context, endpoint string, opt Options, era string, want func(Fetched) bool) ([]Fetched, error) {
	v, err := newVerifier(endpoint, opt)
	if err != nil {
		return nil, err
	}
	if v.opt.TrustRoot != "" {
		if why := v.outside(v.base); why != "" {
			return nil, usagef("%s: %s", endpoint, why)
		}
	}
	ep := v.base
	s, entries, err := v.listAll(ctx, ep, era)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ep, err)
	}
	var out []Fetched
	byName := map[string]string{}
	for _, e := range entries {
		f, files, err := v.mcpListed(e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ep, err)
		}
		if other, dup := byName[f.Name]; dup {
			return nil, fmt.Errorf("%s: skills %s and %s are both named %q: a folder of skills cannot hold both", ep, other, f.URL, f.Name)
		}
		byName[f.Name] = f.URL
		if f, err = v.fetchListed(ctx, ep, s, f, files, want); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	for i, name := range v.opt.Unlisted {
		if _, listed := byName[name]; listed || !ValidName(name) {
			continue
		}
		e, err := v.unlistedEntry(ctx, ep, s, 1000+2*i, name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ep, err)
		}
		if !e.Exists() {
			continue
		}
		f, files, err := v.mcpListed(e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ep, err)
		}
		byName[name] = f.URL
		if f, err = v.fetchListed(ctx, ep, s, f, files, want); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// fetchListed downloads the files of f, an entry of the endpoint ep, when want accepts
// it, and hands them over (deliver); f as it was when want declines it.
func (v *verifier) fetchListed(ctx context.Context, ep *url.URL, s session, f Fetched, files []listedFile, want func(Fetched) bool) (Fetched, error) {
	if !want(f) {
		return f, nil
	}
	var err error
	if f.Files, err = v.readFiles(ctx, ep, s, f, files); err != nil {
		return f, fmt.Errorf("%s: %w", ep, err)
	}
	if f = v.deliver(f); v.takeErr != nil {
		return f, v.takeErr
	}
	return f, nil
}

// NoEndpoint reports whether err, from FetchMCP, says there is no MCP endpoint to read: an
// HTTP 404 or 405 where the endpoint should answer.
func NoEndpoint(err error) bool {
	var re *rpcError
	return errors.As(err, &re) && (re.status == 404 || re.status == 405)
}

// unlistedEntry returns the skill entry of the skill called name, which the listing does
// not name, or a Result that does not exist when the server knows no such skill:
// skills/get {name} (SEP-2076) gives its files, whose SKILL.md URI skills/get {uri}
// gives the entry of. The entry must be the named skill's.
func (v *verifier) unlistedEntry(ctx context.Context, ep *url.URL, s session, id int, name string) (gjson.Result, error) {
	r, err := v.rpc(ctx, ep, s, id, "skills/get", map[string]any{"name": name})
	var re *rpcError
	if errors.As(err, &re) && re.code != "" {
		return gjson.Result{}, nil // unknown, or ambiguous: not one skill to install by name
	}
	if err != nil {
		return gjson.Result{}, err
	}
	uri := ""
	for _, f := range r.Get("files").Array() {
		if f.Get("name").Str == "SKILL.md" && f.Get("uri").Type == gjson.String {
			uri = f.Get("uri").Str
		}
	}
	if uri == "" {
		return gjson.Result{}, fmt.Errorf("skills/get %q: the result names no SKILL.md", name)
	}
	r, err = v.rpc(ctx, ep, s, id+1, "skills/get", map[string]any{"uri": uri})
	if err != nil {
		return gjson.Result{}, err
	}
	e := r.Get("skill")
	if entryName(e) != name || e.Get("uri").Str != uri {
		return gjson.Result{}, fmt.Errorf("skills/get %s: the entry is not the skill %q that skills/get {name} named", Printable(uri), name)
	}
	return e, nil
}

// listAll opens a session in era (see FetchMCP) and returns every skills/list entry.
func (v *verifier) listAll(ctx context.Context, ep *url.URL, era string) (session, []gjson.Result, error) {
	s := session{era: EraModern}
	if era == EraLegacy {
		var err error
		if s, err = v.initialize(ctx, ep); err != nil {
			return s, nil, err
		}
	}
	entries, err := v.listPages(ctx, ep, s, 1)
	var re *rpcError
	if err != nil && era == "" && errors.As(err, &re) {
		if s, err = v.initialize(ctx, ep); err != nil {
			return s, nil, err
		}
		entries, err = v.listPages(ctx, ep, s, 1)
	}
	return s, entries, err
}

// initialize opens a 2025-era session: initialize, then notifications/initialized.
func (v *verifier) initialize(ctx context.Context, ep *url.URL) (session, error) {
	r, h, err := v.rpcHeader(ctx, ep, session{}, 1, "initialize", map[string]any{
		"protocolVersion": EraLegacy,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "skilledge-pull", "version": "1"},
	}, maxIndexBytes)
	if err != nil {
		return session{}, err
	}
	s := session{era: r.Get("protocolVersion").Str, id: h.Get("Mcp-Session-Id")}
	if !strings.HasPrefix(s.era, "2024-") && !strings.HasPrefix(s.era, "2025-") {
		return session{}, fmt.Errorf("initialize: the server answers protocolVersion %s, not a 2024 or 2025 revision", orMissing(r.Get("protocolVersion")))
	}
	if _, err := v.rpc(ctx, ep, s, 0, "notifications/initialized", nil); err != nil {
		return session{}, err
	}
	return s, nil
}

// listPages returns every skills/list entry in session s, following nextCursor (at most
// maxPages pages; a cursor that comes back is an error). Page n's request has the id
// ids+n (a legacy session's initialize took 1).
func (v *verifier) listPages(ctx context.Context, ep *url.URL, s session, ids int) ([]gjson.Result, error) {
	var out []gjson.Result
	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		if page > maxPages {
			return nil, fmt.Errorf("skills/list: more than %d pages", maxPages)
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		result, err := v.rpc(ctx, ep, s, ids+page, "skills/list", params)
		if err != nil {
			return nil, err
		}
		skills := result.Get("skills")
		if !skills.IsArray() {
			return nil, errors.New("skills/list: the result has no \"skills\" array")
		}
		out = append(out, skills.Array()...)
		next := result.Get("nextCursor")
		if !next.Exists() || next.Type == gjson.Null {
			return out, nil
		}
		if next.Type != gjson.String || next.Str == "" {
			return nil, fmt.Errorf("skills/list: nextCursor %s is not a non-empty string", next.Raw)
		}
		if seen[next.Str] {
			return nil, fmt.Errorf("skills/list: nextCursor %q came back: the listing loops", next.Str)
		}
		seen[next.Str] = true
		cursor = next.Str
	}
}

// listedFile is a resource of a skills/list entry.
type listedFile struct {
	path, uri string
	info      fileInfo
}

// mcpListed checks a skills/list entry and returns it as Fetched (without files) and its
// files, SKILL.md first, then by path.
func (v *verifier) mcpListed(e gjson.Result) (Fetched, []listedFile, error) {
	m := parseMCPSkill(e)
	if m.bad != "" {
		return Fetched{}, nil, fmt.Errorf("skills/list entry %s: %s", orMissing(e.Get("uri")), m.bad)
	}
	name := e.Get("frontmatter.name")
	path := strings.TrimSuffix(strings.TrimPrefix(m.uri, "skill://"), "/SKILL.md")
	seg := path[strings.LastIndex(path, "/")+1:]
	switch {
	case name.Type != gjson.String || !ValidName(name.Str):
		return Fetched{}, nil, fmt.Errorf("%s: frontmatter name %s is not a valid skill name", m.uri, orMissing(name))
	case seg != name.Str:
		return Fetched{}, nil, fmt.Errorf("%s: the skill is named %q, not %q, the last segment of its path", m.uri, name.Str, seg)
	case strings.ContainsAny(path, "%\\") || safeRelPath(path) != "":
		return Fetched{}, nil, fmt.Errorf("%s: the skill's path %q is not a plain relative path", m.uri, path)
	}
	if _, ok := m.files["SKILL.md"]; !ok {
		return Fetched{}, nil, fmt.Errorf("%s: the listing has no SKILL.md resource", m.uri)
	}
	if len(m.files) > v.lim.MaxEntries {
		return Fetched{}, nil, fmt.Errorf("%s: %d files, over the limit of %d", m.uri, len(m.files), v.lim.MaxEntries)
	}
	// Each file is read by the URI the server listed (parseMCPSkill took every one, and
	// none twice).
	root := strings.TrimSuffix(m.uri, "SKILL.md")
	var files []listedFile
	var total int64
	for _, r := range e.Get("resources").Array() {
		uri := r.Get("uri").Str
		rel, _ := url.PathUnescape(strings.TrimPrefix(uri, root))
		total += m.files[rel].size
		files = append(files, listedFile{path: rel, uri: uri, info: m.files[rel]})
	}
	if total > v.lim.MaxBytes {
		return Fetched{}, nil, fmt.Errorf("%s: the files hold %d bytes, over the limit of %d", m.uri, total, v.lim.MaxBytes)
	}
	slices.SortFunc(files, func(a, b listedFile) int { return manifestOrder(a.path, b.path) })
	f := Fetched{Name: entryName(e), Path: path, URL: m.uri, Digest: manifestOfInfo(m.files), Kind: DigestManifest,
		Version: Printable(listedVersion(e, "version", "frontmatter.version", "frontmatter.metadata.version"))}
	f.Named = otherThan(name.Str, f.Name)
	return f, files, nil
}

// readFiles reads the files of f with resources/read, at most readers at once, each
// checked against its listed digest and size, and the SKILL.md's frontmatter name
// against the listed one (f.Named, else f.Name).
func (v *verifier) readFiles(ctx context.Context, ep *url.URL, s session, f Fetched, files []listedFile) ([]archive.File, error) {
	out := make([]archive.File, len(files))
	errs := make([]error, len(files))
	sem := make(chan struct{}, readers)
	var wg sync.WaitGroup
	for i, lf := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			data, err := v.readResource(ctx, ep, s, 1000+i, lf)
			out[i], errs[i] = archive.File{Name: lf.path, Data: data}, err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	switch got, err := FrontmatterName(out[0].Data); {
	case err != nil:
		return nil, fmt.Errorf("%s: %v", f.URL, err)
	case got != cmp.Or(f.Named, f.Name):
		return nil, fmt.Errorf("%s: SKILL.md frontmatter name is %q, not the listed %q", f.URL, got, cmp.Or(f.Named, f.Name))
	}
	return out, nil
}

// readResource reads one listed file and checks it.
func (v *verifier) readResource(ctx context.Context, ep *url.URL, s session, id int, lf listedFile) ([]byte, error) {
	max := lf.info.size*4/3 + 64<<10
	r, _, err := v.rpcHeader(ctx, ep, s, id, "resources/read", map[string]any{"uri": lf.uri}, max)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", lf.uri, err)
	}
	contents := r.Get("contents").Array()
	if len(contents) != 1 || contents[0].Get("uri").Str != lf.uri {
		return nil, fmt.Errorf("%s: resources/read answers %d contents, not the one listed file", lf.uri, len(contents))
	}
	c := contents[0]
	var data []byte
	switch text, blob := c.Get("text"), c.Get("blob"); {
	case text.Type == gjson.String && !blob.Exists():
		data = []byte(text.Str)
	case blob.Type == gjson.String && !text.Exists():
		if data, err = base64.StdEncoding.DecodeString(blob.Str); err != nil {
			return nil, fmt.Errorf("%s: the blob is not base64: %v", lf.uri, err)
		}
	default:
		return nil, fmt.Errorf("%s: the content has neither a text nor a blob string", lf.uri)
	}
	if got := DigestOf(data); got != lf.info.digest || int64(len(data)) != lf.info.size {
		return nil, fmt.Errorf("%s: read as %s (%d bytes), but listed as %s (%d bytes): the file changed between list and read, or is not what the listing vouches for",
			lf.uri, got, len(data), lf.info.digest, lf.info.size)
	}
	return data, nil
}
