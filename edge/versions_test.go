package edge

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/versions"
	"github.com/skilledge/skilledge/edge/wire"
)

// storySource is a versions.Source held in memory: commits oldest first, each the whole
// folder as path -> content.
type storySource struct {
	commits []map[string]string
	blobs   map[string][]byte
}

func (m *storySource) hash(i int) string { return fmt.Sprintf("%040x", i+1) }

func (m *storySource) Log(context.Context) ([]versions.Commit, error) {
	var out []versions.Commit
	for i := len(m.commits) - 1; i >= 0; i-- {
		out = append(out, versions.Commit{Hash: m.hash(i), Date: time.Date(2026, 11, 1+i, 12, 0, 0, 0, time.UTC), Subject: fmt.Sprintf("commit %d", i+1)})
	}
	return out, nil
}

func (m *storySource) Files(_ context.Context, commit string) ([]versions.File, error) {
	for i := range m.commits {
		if m.hash(i) == commit {
			var out []versions.File
			for p, data := range m.commits[i] {
				sum := sha1.Sum([]byte(data))
				blob := hex.EncodeToString(sum[:])
				m.blobs[blob] = []byte(data)
				out = append(out, versions.File{Path: p, Blob: blob})
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("no commit %s", commit)
}

func (m *storySource) Read(_ context.Context, blob string) ([]byte, error) { return m.blobs[blob], nil }
func (m *storySource) Shallow(context.Context) (bool, error)               { return false, nil }

// versionedMD is a SKILL.md named name at version ("" for none) with body.
func versionedMD(name, version, body string) string {
	fm := "---\nname: " + name + "\ndescription: Test skill " + name + ".\n"
	if version != "" {
		fm += "version: " + version + "\n"
	}
	return fm + "---\n" + body + "\n"
}

// versionedServers builds a catalog from commits (each the whole folder, the last the work
// tree) with its history, and the same work tree without it.
func versionedServers(t testing.TB, commits ...map[string]string) (with, without *Server) {
	t.Helper()
	last := commits[len(commits)-1]
	load := func(policy string) *compile.Catalog {
		fsys := fstest.MapFS{}
		for p, d := range last {
			fsys[p] = &fstest.MapFile{Data: []byte(d)}
		}
		fsys[compile.PolicyFile] = &fstest.MapFile{Data: []byte(policy)}
		c, problems, err := compile.Load(fsys, "test", compile.Options{})
		if err != nil || compile.HasErrors(problems) {
			t.Fatalf("load: %v %v", err, problems)
		}
		return c
	}
	c := load("versions:\n  keep: 5\n")
	if _, err := versions.Attach(context.Background(), c, &storySource{commits: commits, blobs: map[string][]byte{}}, "test", false); err != nil {
		t.Fatal(err)
	}
	p, err := encode(c)
	if err != nil {
		t.Fatal(err)
	}
	q, err := encode(load(""))
	if err != nil {
		t.Fatal(err)
	}
	return New(p, wire.Options{}), New(q, wire.Options{})
}

// versionsStory: runbook 1.0.0 → 1.1.0 (with a file), notes without a version edited once.
func versionsStory(t testing.TB) (with, without *Server) {
	return versionedServers(t,
		map[string]string{"ops/runbook/SKILL.md": versionedMD("runbook", "1.0.0", "one"), "notes/SKILL.md": versionedMD("notes", "", "n1")},
		map[string]string{"ops/runbook/SKILL.md": versionedMD("runbook", "1.1.0", "two"), "ops/runbook/refs/a.md": "a", "notes/SKILL.md": versionedMD("notes", "", "n2")},
	)
}

var metaMember = regexp.MustCompile(`,"_meta":\{"` + regexp.QuoteMeta(catalog.MetaVersions) + `":\[[^\]]*\]\}|,"version":"\d{4}-\d\d-\d\d\.\d{6}\.[0-9a-f]{8}"`)

// TestVersionsListingsUnchanged: a client that knows nothing of versions sees the same
// listings as without history, but for the versions' _meta and, in the skills/list entry
// of a skill that declares no version, the name of its version.
func TestVersionsListingsUnchanged(t *testing.T) {
	with, without := versionsStory(t)
	for _, req := range []string{
		request(1, "skills/list", ""), request(1, "resources/list", ""), request(1, "resources/list", `{"uri":"skill://"}`),
		request(1, "resources/read", `{"uri":"skill://index.json"}`), request(1, "resources/directory/read", `{"uri":"skill://ops/runbook"}`),
		request(1, "resources/read", `{"uri":"skill://ops/runbook/refs/a.md"}`),
		request(1, "completion/complete", `{"ref":{"type":"ref/resource","uri":"`+skillTemplate+`"},"argument":{"name":"skillPath","value":""}}`),
	} {
		a, b := handle(t, with, V20251125, req), handle(t, without, V20251125, req)
		if got := metaMember.ReplaceAll(a, nil); string(got) != string(b) {
			t.Errorf("%s:\nwith history    %s\nwithout history %s", req, a, b)
		}
	}
	if list := handle(t, with, V20251125, request(1, "skills/list", "")); !regexp.MustCompile(`"name":"notes","description":"Test skill notes.","version":"\d{4}-\d\d-\d\d\.\d{6}\.[0-9a-f]{8}"`).Match(list) {
		t.Errorf("the entry of a skill without a frontmatter version names no version: %s", list)
	}
	for _, path := range []string{catalog.AgentSkillsIndex, catalog.SkillsIndex, "/.well-known/agent-skills/runbook.tar.gz"} {
		a := with.ServeHTTP(&wire.Request{Method: "GET", Target: path, Header: header("Host", "localhost")})
		b := without.ServeHTTP(&wire.Request{Method: "GET", Target: path, Header: header("Host", "localhost")})
		if a.Status != 200 || string(resolved(t, with, a.Body, a.Refs)) != string(resolved(t, without, b.Body, b.Refs)) {
			t.Errorf("GET %s differs with history", path)
		}
	}
	list := handle(t, with, V20251125, request(1, "resources/list", ""))
	if got := metaMember.FindAll(list, -1); len(got) != 2 {
		t.Errorf("resources/list has %d versions _meta, want one per SKILL.md: %s", len(got), list)
	}
}

// TestVersionsReads: every surface that reads a skill by URI or name reads an older
// version at its own URIs, and says so when asked for one it does not keep.
func TestVersionsReads(t *testing.T) {
	with, without := versionsStory(t)
	old := "skill://ops/runbook/@1.0.0/runbook/SKILL.md"
	for _, tc := range []struct {
		name, req, want string
	}{
		{"read an older SKILL.md", request(1, "resources/read", `{"uri":"`+old+`"}`), `"text":"` + strings.ReplaceAll(versionedMD("runbook", "1.0.0", "one"), "\n", `\n`) + `"`},
		{"an older version has no file it did not have", request(1, "resources/read", `{"uri":"skill://ops/runbook/@1.0.0/runbook/refs/a.md"}`), `"code":-32602,"message":"Resource not found`},
		{"directory of an older version", request(1, "resources/directory/read", `{"uri":"skill://ops/runbook/@1.0.0/runbook"}`), `"uri":"` + old + `"`},
		{"skills/get an older version by URI", request(1, "skills/get", `{"uri":"`+old+`"}`), `"skill":{"uri":"` + old + `"`},
		{"skills/get by name and version", request(1, "skills/get", `{"name":"runbook","version":"1.0.0"}`), `"instructions":"one\n"`},
		{"skills/get by name and the latest's version", request(1, "skills/get", `{"name":"runbook","version":"1.1.0"}`), `"instructions":"two\n"`},
		{"the latest at its version path too", request(1, "resources/read", `{"uri":"skill://ops/runbook/@1.1.0/runbook/refs/a.md"}`), `"text":"a"`},
		{"skills/get an unknown version", request(1, "skills/get", `{"name":"runbook","version":"9.9.9"}`),
			`"message":"Skill \"runbook\" has no version \"9.9.9\"; its kept versions, newest first: 1.1.0, 1.0.0","data":{"name":"runbook","version":"9.9.9"}`},
		{"version must be a string", request(1, "skills/get", `{"name":"runbook","version":1}`), `"message":"params.version must be a string"`},
		{"the latest carries its versions", request(1, "skills/get", `{"uri":"skill://ops/runbook/SKILL.md"}`), `"_meta":{"` + catalog.MetaVersions + `":[{"version":"1.1.0","uri":"skill://ops/runbook/@1.1.0/runbook/SKILL.md"`},
		{"completion goes on into versions", completeReq(skillTemplate, "skillPath", "ops/runbook/@", ""), `"values":["ops/runbook/@1.0.0/runbook","ops/runbook/@1.1.0/runbook"],"total":2`},
		{"completion of a version's files", completeReq(fileTemplate, "filePath", "", `{"skillPath":"notes/@2026-11-01.`+""+`"}`), `"values":[],"total":0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := handle(t, with, V20251125, tc.req); !strings.Contains(string(got), tc.want) {
				t.Errorf("%s\n got  %s\n want …%s…", tc.req, got, tc.want)
			}
		})
	}
	// Without history, a version is the skill's own or none.
	if got := handle(t, without, V20251125, request(1, "skills/get", `{"name":"runbook","version":"1.1.0"}`)); !strings.Contains(string(got), `"instructions":"two\n"`) {
		t.Errorf("without history, its own version: %s", got)
	}
	if got := handle(t, without, V20251125, request(1, "skills/get", `{"name":"runbook","version":"1.0.0"}`)); !strings.Contains(string(got), "this server keeps no history of it") {
		t.Errorf("without history, another version: %s", got)
	}
	// The notes' older version is named by its date and digest; its files complete.
	md := gjson.GetBytes(handle(t, with, V20251125, request(1, "skills/get", `{"uri":"skill://notes/SKILL.md"}`)), `result._meta.`+strings.ReplaceAll(catalog.MetaVersions, ".", `\.`)+`.1.uri`).Str
	if !strings.HasPrefix(md, "skill://notes/@2026-11-01.") {
		t.Fatalf("the notes' older version is at %q", md)
	}
	skillPath := strings.TrimSuffix(strings.TrimPrefix(md, "skill://"), "/SKILL.md")
	if got := handle(t, with, V20251125, completeReq(fileTemplate, "filePath", "", `{"skillPath":"`+skillPath+`"}`)); !strings.Contains(string(got), `"values":["SKILL.md"]`) {
		t.Errorf("completion of an older version's files: %s", got)
	}
}

// TestVersionsWellKnown: a version's files and archives under its skill's name, and every
// malformed version path 404.
func TestVersionsWellKnown(t *testing.T) {
	with, _ := versionsStory(t)
	get := func(path string) *wire.Response {
		return with.ServeHTTP(&wire.Request{Method: "GET", Target: path, Header: header("Host", "localhost")})
	}
	for path, want := range map[string]string{
		"/.well-known/agent-skills/runbook/@1.0.0/runbook/SKILL.md": versionedMD("runbook", "1.0.0", "one"),
		"/.well-known/skills/runbook/@1.0.0/runbook/SKILL.md":       versionedMD("runbook", "1.0.0", "one"),
	} {
		resp := get(path)
		if resp.Status != 200 || string(resolved(t, with, resp.Body, resp.Refs)) != want {
			t.Errorf("GET %s: %d %q", path, resp.Status, resolved(t, with, resp.Body, resp.Refs))
		}
	}
	for _, path := range []string{"/.well-known/agent-skills/runbook/@1.0.0/runbook.tar.gz", "/.well-known/agent-skills/runbook/@1.0.0/runbook.zip"} {
		if resp := get(path); resp.Status != 200 {
			t.Errorf("GET %s: %d", path, resp.Status)
		}
	}
	for _, path := range []string{
		"/.well-known/agent-skills/runbook/@1.0.0", "/.well-known/agent-skills/runbook/@1.0.0/", "/.well-known/agent-skills/runbook/@1.0.0/runbook",
		"/.well-known/agent-skills/runbook/@1.0.0/runbook/", "/.well-known/agent-skills/runbook/@9/runbook/SKILL.md",
		"/.well-known/agent-skills/runbook/@1.0.0/runbook.tar", "/.well-known/skills/runbook/@1.0.0/runbook.tar.gz",
		"/.well-known/agent-skills/runbook/@1.0.0/other/SKILL.md", "/.well-known/agent-skills/runbook/@1.0.0/runbook/../../x",
		"/.well-known/agent-skills/runbook/@1.0.0/runbook/refs/a.md", "/.well-known/agent-skills/notes/@1.0.0/runbook/SKILL.md",
	} {
		if resp := get(path); resp.Status != 404 {
			t.Errorf("GET %s: %d, want 404", path, resp.Status)
		}
	}
}

// TestVersionsFeedRoutes: the change feed over HTTP and as a resource, GET and HEAD only,
// and 404 where the catalog keeps no history.
func TestVersionsFeedRoutes(t *testing.T) {
	with, without := versionsStory(t)
	for _, tc := range []struct {
		s      *Server
		method string
		path   string
		status int
		ct     string
	}{
		{with, "GET", catalog.ChangesJSON, 200, "application/json"},
		{with, "HEAD", catalog.ChangesJSON, 200, "application/json"},
		{with, "GET", catalog.ChangesAtom, 200, "application/atom+xml; charset=utf-8"},
		{with, "POST", catalog.ChangesJSON, 405, ""},
		{without, "GET", catalog.ChangesJSON, 404, ""},
		{without, "GET", catalog.ChangesAtom, 404, ""},
	} {
		resp := tc.s.ServeHTTP(&wire.Request{Method: tc.method, Target: tc.path, Header: header("Host", "localhost")})
		if ct, _ := resp.Header.Get("Content-Type"); resp.Status != tc.status || tc.ct != "" && ct != tc.ct {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.path, resp.Status, ct, tc.status, tc.ct)
		}
	}
	feed := with.ServeHTTP(&wire.Request{Method: "GET", Target: catalog.ChangesJSON, Header: header("Host", "localhost")})
	doc := resolved(t, with, feed.Body, feed.Refs)
	if n := gjson.GetBytes(doc, "changes.#").Int(); n != 4 || gjson.GetBytes(doc, "changes.0.skill.path").Str != "notes" {
		t.Errorf("the feed: %s", doc)
	}
	read := handle(t, with, V20251125, request(1, "resources/read", `{"uri":"`+catalog.ChangesURI+`"}`))
	if !strings.Contains(string(read), `"uri":"`+catalog.ChangesURI+`","mimeType":"application/json","text":`) {
		t.Errorf("the feed as a resource: %s", read)
	}
	if got := handle(t, without, V20251125, request(1, "resources/read", `{"uri":"`+catalog.ChangesURI+`"}`)); !strings.Contains(string(got), "Resource not found") {
		t.Errorf("without history: %s", got)
	}
}

// TestVersionsOddPaths: a version of a skill whose path needs escaping, and of a skill
// nested in another, is read at its URI as written or escaped, and the nested skill's
// files are in its holder's versions as in the holder.
func TestVersionsOddPaths(t *testing.T) {
	with, _ := versionedServers(t,
		map[string]string{"équipe/x/SKILL.md": versionedMD("x", "1.0.0", "one"), "outer/SKILL.md": versionedMD("outer", "1.0.0", "o1"), "outer/inner/SKILL.md": versionedMD("inner", "1.0.0", "i1")},
		map[string]string{"équipe/x/SKILL.md": versionedMD("x", "2.0.0", "two"), "outer/SKILL.md": versionedMD("outer", "2.0.0", "o2"), "outer/inner/SKILL.md": versionedMD("inner", "2.0.0", "i2")},
	)
	for _, tc := range []struct{ uri, want string }{
		{"skill://%C3%A9quipe/x/@1.0.0/x/SKILL.md", "one"},
		{"skill://équipe/x/@1.0.0/x/SKILL.md", "one"},
		{"skill://outer/@1.0.0/outer/inner/SKILL.md", "i1"},
		{"skill://outer/inner/@1.0.0/inner/SKILL.md", "i1"},
	} {
		got := handle(t, with, V20251125, request(1, "resources/read", `{"uri":"`+tc.uri+`"}`))
		if !strings.Contains(string(got), `---\n`+tc.want+`\n"`) || !strings.Contains(string(got), `"uri":"`+tc.uri+`"`) {
			t.Errorf("%s: %s", tc.uri, got)
		}
	}
	// The holder's version lists the nested skill's files, as the holder does.
	got := handle(t, with, V20251125, request(1, "skills/get", `{"uri":"skill://outer/@1.0.0/outer/SKILL.md"}`))
	if !strings.Contains(string(got), `"uri":"skill://outer/@1.0.0/outer/inner/SKILL.md","digest"`) {
		t.Errorf("outer 1.0.0: %s", got)
	}
}

// FuzzVersionsPaths: any path under a skill's well-known prefix, and any URI read, on a
// catalog with history: no panic, a 200 only with the object of a resource the index
// has, and an error for anything else, never an empty answer.
func FuzzVersionsPaths(f *testing.F) {
	with, _ := versionsStory(f)
	for _, s := range []string{"@1.0.0/runbook/SKILL.md", "@1.0.0/runbook.tar.gz", "@1.0.0/runbook.zip", "@1.0.0/runbook/", "@/x", "@1.0.0/runbook/%2e%2e/x", "@1.0.0//runbook/SKILL.md"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rest string) {
		for _, prefix := range []string{"/.well-known/agent-skills/runbook/", "/.well-known/skills/runbook/"} {
			resp := with.ServeHTTP(&wire.Request{Method: "GET", Target: prefix + rest, Header: header("Host", "localhost")})
			switch resp.Status {
			case 200:
				if len(resp.Refs) != 1 {
					t.Fatalf("GET %s: 200 with %d objects", prefix+rest, len(resp.Refs))
				}
			case 400, 404:
			default:
				t.Fatalf("GET %s: %d", prefix+rest, resp.Status)
			}
		}
		uri := "skill://ops/runbook/" + rest
		got := handle(t, with, V20251125, request(1, "resources/read", `{"uri":`+strconv.Quote(uri)+`}`))
		if !gjson.ValidBytes(got) || !gjson.GetBytes(got, "result.contents.0").Exists() && !gjson.GetBytes(got, "error.code").Exists() {
			t.Fatalf("resources/read %q: %s", uri, got)
		}
	})
}
