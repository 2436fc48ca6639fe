//go:build !skilledge_public

package edge

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/edge/wire"
)

// The folder of the view tests: a public skill, a finance skill only skills:finance
// shows, with a file of its own, and an unlisted draft.
var viewFiles = map[string]string{
	"public/SKILL.md":         skillMD("public"),
	"public/guide.md":         "# Guide\n",
	"finance/ledger/SKILL.md": "---\nname: ledger\ndescription: Closes the books QUARTERLYSECRET.\n---\n\n# Ledger\n",
	"finance/ledger/notes.md": "notes only finance reads\n",
	"drafts/idea/SKILL.md":    skillMD("idea"),
	"skilledge.yaml":          viewPolicy,
}

const viewPolicy = "access:\n  default: [skills:read]\n  rules:\n    - path: finance/\n      scopes: [skills:finance]\n    - path: drafts/\n      listed: false\n"

// viewProbe is a request on one surface.
type viewProbe = struct{ name, method, target, body string }

// viewProbes are requests over every surface, in both eras: lists, lookups by URI, name
// and path, completions, indexes, archives, the page, the sitemaps and the fallbacks
// (testdata/views/probes.json, which tests/private_e2e_test.go sends to both hosts).
// Those that name the ledger are how a caller who may not see it would look for it.
func viewProbes(t *testing.T) []viewProbe {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "views", "probes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in []struct{ Name, Method, Target, Body string }
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	out := make([]viewProbe, len(in))
	for i, p := range in {
		out[i] = viewProbe{p.Name, p.Method, p.Target, p.Body}
	}
	return out
}

// viewServer is a server of files behind the auth test issuer, with the fallbacks on.
func viewServer(t *testing.T, files map[string]string) *authTest { return newAuthTestFiles(t, files) }

// ask answers a probe for a caller with token, its body resolved from the store, and the
// header fields as one string.
func (a *authTest) ask(t *testing.T, p viewProbe, token string) (status int, fields, body string) {
	t.Helper()
	in := []string{"Host", "skills.example", "Authorization", "Bearer " + token, "Accept", "text/html"}
	if p.method == "POST" {
		in = append(in, "Content-Type", "application/json")
		if m := gjson.Get(p.body, "method").Str; gjson.Get(p.body, "params._meta").Exists() {
			in = append(in, "MCP-Protocol-Version", V20260728, "Mcp-Method", m)
			switch m {
			case "resources/read":
				in = append(in, "Mcp-Name", gjson.Get(p.body, "params.uri").Str)
			case "tools/call", "prompts/get":
				in = append(in, "Mcp-Name", gjson.Get(p.body, "params.name").Str)
			}
		}
	}
	req := &wire.Request{Method: p.method, Target: p.target, Header: header(in...), Body: []byte(p.body)}
	resp := a.s.ServeHTTP(req)
	var h strings.Builder
	for _, f := range resp.Header {
		h.WriteString(f.Name + ": " + f.Value + "\n")
	}
	return resp.Status, h.String(), string(resolved(t, a.s, resp.Body, resp.Refs))
}

// TestViewsHideEverywhere: a caller without skills:finance is answered, on every surface,
// byte for byte what a catalog without the finance skill answers, and no answer names the
// hidden skill, its path, its description or any of its digests; a caller with it sees it
// everywhere.
func TestViewsHideEverywhere(t *testing.T) {
	a := viewServer(t, viewFiles)
	absentFiles := map[string]string{}
	for p, d := range viewFiles {
		if !strings.HasPrefix(p, "finance/") {
			absentFiles[p] = d
		}
	}
	absentFiles["skilledge.yaml"] = "access:\n  default: [skills:read]\n  rules:\n    - path: drafts/\n      listed: false\n"
	absent := viewServer(t, absentFiles)

	reader := a.token("skills:read", authResource, authNow.Add(time.Hour))
	finance := a.token("skills:read skills:finance", authResource, authNow.Add(time.Hour))

	secrets := []string{"ledger", "finance", "QUARTERLYSECRET", "notes only"}
	for _, f := range []string{viewFiles["finance/ledger/SKILL.md"], viewFiles["finance/ledger/notes.md"]} {
		sum := sha256.Sum256([]byte(f))
		secrets = append(secrets, hex.EncodeToString(sum[:]))
	}
	// The finance caller's indexes hold more digests of the skill: those of its archives.
	for _, path := range []string{"/.well-known/agent-skills/index.json", "/.well-known/skills/index.json"} {
		get := viewProbe{"", "GET", path, ""}
		_, _, theirs := a.ask(t, get, finance)
		_, _, ours := absent.ask(t, get, reader)
		for _, part := range strings.Split(theirs, `sha256:`)[1:] {
			if d := part[:64]; !strings.Contains(ours, d) {
				secrets = append(secrets, d)
			}
		}
	}
	if len(secrets) < 7 {
		t.Fatalf("the finance caller's indexes give too few of the ledger's digests: %v", secrets)
	}

	for _, p := range viewProbes(t) {
		st, hdr, body := a.ask(t, p, reader)
		for _, s := range secrets {
			if strings.Contains(p.target+p.body, s) {
				continue // an error may echo the caller's own words (and a catalog without the skill does the same)
			}
			if strings.Contains(hdr, s) || strings.Contains(body, s) {
				t.Errorf("%s: the answer to a caller without skills:finance holds %q:\n%s\n%s", p.name, s, hdr, body)
			}
		}
		st2, hdr2, body2 := absent.ask(t, p, reader)
		if st != st2 || hdr != hdr2 || body != body2 {
			t.Errorf("%s: hidden is not absent:\n%d %s%s\nvs a catalog without it:\n%d %s%s", p.name, st, hdr, body, st2, hdr2, body2)
		}
		// The finance caller finds what it looks for.
		if st, _, body := a.ask(t, p, finance); strings.Contains(p.name, "get") || strings.Contains(p.name, "read") || strings.Contains(p.name, "load") {
			if st != 200 || strings.Contains(body, `"error"`) || strings.Contains(body, `"isError":true`) || strings.Contains(p.name, "SKILL") && !strings.Contains(body, "QUARTERLYSECRET") {
				t.Errorf("%s: the finance caller: %d %s", p.name, st, body)
			}
		}
	}
}

// TestViewsSharedNameHidden: where a hidden skill shares its name with one the caller
// sees, the caller is answered on every surface byte for byte what a catalog without the
// hidden skill answers: the skill it sees keeps its name (a hidden one never qualifies
// it, PROTOCOL.md#index-names), and nothing says "finance". A caller who sees both finds
// each by its qualified name.
func TestViewsSharedNameHidden(t *testing.T) {
	files, absentFiles := map[string]string{}, map[string]string{}
	for p, d := range viewFiles {
		files[p] = d
		if !strings.HasPrefix(p, "finance/") {
			absentFiles[p] = d
		}
	}
	files["books/ledger/SKILL.md"] = "---\nname: ledger\ndescription: Keeps the public books.\n---\n\n# Books\n"
	absentFiles["books/ledger/SKILL.md"] = files["books/ledger/SKILL.md"]
	absentFiles["skilledge.yaml"] = "access:\n  default: [skills:read]\n  rules:\n    - path: drafts/\n      listed: false\n"
	a, absent := viewServer(t, files), viewServer(t, absentFiles)
	reader := a.token("skills:read", authResource, authNow.Add(time.Hour))
	finance := a.token("skills:read skills:finance", authResource, authNow.Add(time.Hour))
	probes := append(viewProbes(t),
		viewProbe{"skills/get books-ledger", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"skills/get","params":{"name":"books-ledger"}}`},
		viewProbe{"well-known books-ledger", "GET", "/.well-known/agent-skills/books-ledger/SKILL.md", ""},
		viewProbe{"prompts/get books-ledger", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"books-ledger"}}`})
	for _, p := range probes {
		st, hdr, body := a.ask(t, p, reader)
		for _, s := range []string{"finance", "QUARTERLYSECRET", "notes only"} {
			if !strings.Contains(p.target+p.body, s) && (strings.Contains(hdr, s) || strings.Contains(body, s)) {
				t.Errorf("%s: the answer to a caller without skills:finance holds %q:\n%s\n%s", p.name, s, hdr, body)
			}
		}
		if st2, hdr2, body2 := absent.ask(t, p, reader); st != st2 || hdr != hdr2 || body != body2 {
			t.Errorf("%s: hidden is not absent:\n%d %s%s\nvs a catalog without it:\n%d %s%s", p.name, st, hdr, body, st2, hdr2, body2)
		}
	}
	_, _, index := a.ask(t, viewProbe{"", "GET", "/.well-known/agent-skills/index.json", ""}, reader)
	if !strings.Contains(index, `{"name":"ledger","type":"skill-md","description":"Keeps the public books."`) {
		t.Errorf("the reader's index does not publish the books' ledger as ledger: %s", index)
	}
	for name, want := range map[string]string{"books-ledger": "Keeps the public books.", "finance-ledger": "QUARTERLYSECRET"} {
		get := viewProbe{"", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"skills/get","params":{"name":"` + name + `"}}`}
		if st, _, body := a.ask(t, get, finance); st != 200 || !strings.Contains(body, want) {
			t.Errorf("the finance caller's skills/get {name: %q}: %d %s", name, st, body)
		}
	}
}

// TestViewsUnlisted: an unlisted skill is served by URI, name and path to whoever may see
// it, and named by no listing.
func TestViewsUnlisted(t *testing.T) {
	a := viewServer(t, viewFiles)
	reader := a.token("skills:read", authResource, authNow.Add(time.Hour))
	for _, p := range viewProbes(t) {
		p.body = strings.ReplaceAll(strings.ReplaceAll(p.body, "finance/ledger", "drafts/idea"), "ledger", "idea")
		p.target = strings.ReplaceAll(p.target, "ledger", "idea")
		p.body = strings.ReplaceAll(p.body, "notes.md", "SKILL.md")
		p.target = strings.ReplaceAll(p.target, "notes.md", "SKILL.md")
		st, _, body := a.ask(t, p, reader)
		lookup := strings.Contains(p.name, "get") || strings.Contains(p.name, "read a") || strings.Contains(p.name, "read SKILL") ||
			strings.Contains(p.name, "load") || strings.Contains(p.name, "read_skill") || strings.Contains(p.target, "idea")
		switch {
		case lookup:
			if st != 200 || strings.Contains(body, `"error"`) || strings.Contains(body, `"isError":true`) {
				t.Errorf("%s: an unlisted skill is not served: %d %s", p.name, st, body)
			}
		case strings.Contains(body, "idea"):
			t.Errorf("%s: a listing names an unlisted skill: %s", p.name, body)
		}
	}
	// Over stdio, every skill: the listed ones listed, the unlisted one served.
	list := string(handle(t, a.s, V20251125, request(1, "skills/list", "")))
	if !strings.Contains(list, "ledger") || !strings.Contains(list, "public") || strings.Contains(list, "idea") {
		t.Errorf("stdio skills/list: %s", list)
	}
	if got := string(handle(t, a.s, V20251125, request(1, "skills/get", `{"name":"idea"}`))); !strings.Contains(got, `"instructions"`) {
		t.Errorf("stdio skills/get idea: %s", got)
	}
}

// TestPrivateWithoutAuth: a private catalog served without the auth option answers
// nobody over HTTP, and every skill over stdio.
func TestPrivateWithoutAuth(t *testing.T) {
	s := New(packOf(t, viewFiles), wire.Options{})
	resp := s.ServeHTTP(&wire.Request{Method: "GET", Target: "/.well-known/skills/index.json", Header: header("Host", "localhost")})
	if resp.Status != 503 || strings.Contains(string(resp.Body), "public") {
		t.Fatalf("%d %s", resp.Status, resp.Body)
	}
	if got := string(handle(t, s, V20251125, request(1, "skills/list", ""))); !strings.Contains(got, "ledger") {
		t.Fatalf("stdio: %s", got)
	}
}

// TestViewsCursors: a cursor carries no digest its caller could not compute from what it
// is shown: the caller who sees every skill pages exactly as through a public catalog of
// them (the view is the private index's own tables, whose own digest covers the policy
// too), and the pages of an unlisted skill's directory carry the digest of the view's
// listed skills, and lead on.
func TestViewsCursors(t *testing.T) {
	files := map[string]string{"a/SKILL.md": skillMD("a"), "b/SKILL.md": skillMD("b"), "c/SKILL.md": skillMD("c"),
		"skilledge.yaml": "access:\n  default: [skills:read]\n  rules:\n    - path: b\n      scopes: [x]\n"}
	a := newAuthTestFiles(t, files, 1)
	delete(files, "skilledge.yaml")
	public := newAuthTestFiles(t, files, 1)
	all := a.token("skills:read x", authResource, authNow.Add(time.Hour))
	list := viewProbe{"skills/list", "POST", "/mcp", request(1, "skills/list", "{}")}
	_, _, got := a.ask(t, list, all)
	_, _, want := public.ask(t, list, all)
	if got != want || !strings.Contains(got, `"nextCursor"`) {
		t.Fatalf("the first page:\n%s\nthrough a public catalog of the same skills:\n%s", got, want)
	}

	draft := newAuthTestFiles(t, map[string]string{"a/SKILL.md": skillMD("a"), "drafts/idea/SKILL.md": skillMD("idea"),
		"drafts/idea/one.md": "1", "drafts/idea/two.md": "2", "skilledge.yaml": "access:\n  rules:\n    - path: drafts/\n      listed: false\n"}, 1)
	reader := draft.token("", authResource, authNow.Add(time.Hour))
	dir := viewProbe{"directory/read", "POST", "/mcp", request(1, "resources/directory/read", `{"uri":"skill://drafts/idea"}`)}
	_, _, page := draft.ask(t, dir, reader)
	cursor := gjson.Get(page, "result.nextCursor").Str
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	listed := draft.s.local()
	if err != nil || !strings.HasSuffix(string(raw), ":"+listed.digestPrefix()) || listed.digestPrefix() == listed.unlisted.pack.Digest()[:8] {
		t.Fatalf("the unlisted directory's cursor %q (%s) carries not the listed skills' digest %s: %s", raw, err, listed.digestPrefix(), page)
	}
	dir.body = request(2, "resources/directory/read", `{"uri":"skill://drafts/idea","cursor":"`+cursor+`"}`)
	if _, _, next := draft.ask(t, dir, reader); !strings.Contains(next, `"resources":[{`) || strings.Contains(next, `"error"`) {
		t.Fatalf("the second page: %s", next)
	}
}

// TestViewsUnlistedErrors: a lookup the listed skills miss is answered by the unlisted
// ones, their errors included (they are the caller's own view): a name two of them share
// is theirs by qualified names alone, a directory is a directory.
func TestViewsUnlistedErrors(t *testing.T) {
	a := newAuthTestFiles(t, map[string]string{"a/SKILL.md": skillMD("a"), "drafts/one/twin/SKILL.md": skillMD("twin"),
		"drafts/two/twin/SKILL.md": skillMD("twin"), "skilledge.yaml": "access:\n  rules:\n    - path: drafts/\n      listed: false\n"})
	reader := a.token("", authResource, authNow.Add(time.Hour))
	for _, c := range []struct{ params, method, want string }{
		{`{"name":"twin"}`, "skills/get", `Skill not found: \"twin\"`},
		{`{"name":"drafts-two-twin"}`, "skills/get", `"instructions":`},
		{`{"uri":"skill://drafts/one/twin"}`, "resources/read", "Resource is a directory"},
		{`{"name":"nosuch"}`, "skills/get", `Skill not found: \"nosuch\"`},
	} {
		_, _, body := a.ask(t, viewProbe{c.method, "POST", "/mcp", request(1, c.method, c.params)}, reader)
		if !strings.Contains(body, c.want) {
			t.Errorf("%s %s: %s, want %q", c.method, c.params, body, c.want)
		}
	}
}

// TestViewsUnlistedNames: a listed skill keeps the name its listing gives it when unlisted
// skills share it, and each unlisted one is reached by the name its own entry gives.
func TestViewsUnlistedNames(t *testing.T) {
	a := newAuthTestFiles(t, map[string]string{"tools/twin/SKILL.md": skillMD("twin"), "drafts/one/twin/SKILL.md": skillMD("twin"),
		"drafts/two/twin/SKILL.md": skillMD("twin"), "twin/SKILL.md": skillMD("twin"),
		"skilledge.yaml": "access:\n  rules:\n    - path: drafts/\n      listed: false\n    - path: twin/\n      listed: false\n"})
	sum := sha256.Sum256([]byte("twin")) // the unlisted twin/ qualifies to "twin", the listed one's name
	reader := a.token("", authResource, authNow.Add(time.Hour))
	get := func(params string) gjson.Result {
		_, _, body := a.ask(t, viewProbe{"skills/get", "POST", "/mcp", request(1, "skills/get", params)}, reader)
		return gjson.Get(body, "result")
	}
	for uri, name := range map[string]string{"skill://tools/twin/SKILL.md": "twin", "skill://drafts/one/twin/SKILL.md": "drafts-one-twin", "skill://drafts/two/twin/SKILL.md": "drafts-two-twin",
		"skill://twin/SKILL.md": "twin-" + hex.EncodeToString(sum[:4])} {
		if got := get(`{"uri":"` + uri + `"}`).Get("skill.name").Str; got != name {
			t.Errorf("%s: its entry names it %q, want %q", uri, got, name)
		}
		if got := get(`{"name":"` + name + `"}`).Get("files.0.uri").Str; got != uri {
			t.Errorf("skills/get {name: %q}: %q, want %s", name, got, uri)
		}
	}
}

// TestProtectedResourceScopes: the metadata announces the scopes every caller needs, not
// those only some callers hold (which would tell anyone that skills it may not see
// exist), unless the auth option names the scopes to announce.
func TestProtectedResourceScopes(t *testing.T) {
	a := newAuthTestFiles(t, viewFiles)
	resp, _ := a.do(t, "GET", "/.well-known/oauth-protected-resource/mcp", "")
	if got := gjson.GetBytes(resp.Body, "scopes_supported").Raw; got != `["skills:read"]` {
		t.Errorf("scopes_supported %s", got)
	}
	opts := a.s.opt
	opts.Auth = []byte(`{"resource":"` + authResource + `","authorizationServers":["` + authIssuer + `"],"scopesSupported":["skills:read","skills:finance"],"tokens":[{"name":"ci","sha256":"abababababababababababababababababababababababababababababababab","scopes":[]}]}`)
	if err := Check(opts); err != nil {
		t.Fatal(err)
	}
	s := New(a.s.pack, opts)
	out := s.ServeHTTP(&wire.Request{Method: "GET", Target: "/.well-known/oauth-protected-resource/mcp", Header: header("Host", "skills.example")})
	if got := gjson.GetBytes(out.Body, "scopes_supported").Raw; got != `["skills:read","skills:finance"]` {
		t.Errorf("scopes_supported, announced: %s", got)
	}
}

// TestFactsHideSkills: for a caller who may not see the finance skill, no answer's facts
// name it, on any surface; a caller who may is named (the token's sub and client_id),
// and their reads name it.
func TestFactsHideSkills(t *testing.T) {
	a := viewServer(t, viewFiles)
	reader := a.token("skills:read", authResource, authNow.Add(time.Hour))
	finance := a.token("skills:read skills:finance", authResource, authNow.Add(time.Hour))
	for _, p := range viewProbes(t) {
		for _, who := range []struct {
			token string
			sees  bool
		}{{reader, false}, {finance, true}} {
			in := []string{"Host", "skills.example", "Authorization", "Bearer " + who.token, "Accept", "text/html"}
			req := post(p.body)
			req.Method, req.Target = p.method, p.target
			req.Header = append(header(in...), req.Header[1:]...)
			got, enc := factsOf(t, a.s, req)
			if got.Caller != "agent" {
				t.Errorf("%s: the caller is %q, not the token's sub: %q", p.name, got.Caller, enc)
			}
			named := strings.Contains(enc, "ledger") || strings.Contains(enc, "finance")
			if !who.sees && named {
				t.Errorf("%s: the facts of an answer to a caller without skills:finance name it: %q", p.name, enc)
			}
			if who.sees && got.Code == 0 && strings.Contains(p.target+p.body, "ledger") && got.Read != "" && got.Read != "listing" && !named {
				t.Errorf("%s: the facts of the finance caller's read do not name the skill: %q", p.name, enc)
			}
		}
	}
	// No credential: the caller is nobody.
	req := get("/.well-known/agent-skills/index.json")
	if got, enc := factsOf(t, a.s, req); got.Caller != "" || got.Route != "well-known" {
		t.Errorf("a request without a credential: %q", enc)
	}
	// A static key is named by its name.
	req = get("/.well-known/agent-skills/index.json")
	req.Header = append(req.Header, wire.Field{Name: "Authorization", Value: "Bearer " + a.ske})
	if got, enc := factsOf(t, a.s, req); got.Caller != "ci" || got.Read != "listing" {
		t.Errorf("a static key: %q", enc)
	}
}
