package edge

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/edge/wire"
)

// result sends one legacy-era request to s and returns its resolved result, failing t on a
// JSON-RPC error.
func result(t *testing.T, s *Server, id int, method, params string) gjson.Result {
	t.Helper()
	out := handle(t, s, "2025-11-25", request(id, method, params))
	if e := gjson.GetBytes(out, "error"); e.Exists() {
		t.Fatalf("%s %s: %s", method, params, e.Raw)
	}
	return gjson.GetBytes(out, "result")
}

// duplicatesPack has two skills named "deploy" (under different prefixes), one named
// "team-deploy" (what the first duplicate's path with dashes would be) and a plain one.
func duplicatesPack(t *testing.T) *Server {
	p := packOf(t, map[string]string{
		"team/deploy/SKILL.md":  skillMD("deploy"),
		"team/deploy/notes.md":  "notes",
		"ops/deploy/SKILL.md":   skillMD("deploy"),
		"team-deploy/SKILL.md":  skillMD("team-deploy"),
		"solo/SKILL.md":         skillMD("solo"),
		"solo/data/numbers.bin": "\x00\x01\x02",
	})
	return New(p, wire.Options{Tools: true, Prompts: true})
}

// TestToolsListDispatch: every tool tools/list offers is one tools/call answers, and its
// input schema is a JSON Schema object that forbids unknown arguments.
func TestToolsListDispatch(t *testing.T) {
	s := exampleServer(t, wire.Options{Tools: true})
	tools := result(t, s, 1, "tools/list", "").Get("tools").Array()
	if len(tools) != 4 {
		t.Fatalf("tools/list: %d tools", len(tools))
	}
	for _, tool := range tools {
		name := tool.Get("name").Str
		schema := tool.Get("inputSchema")
		if schema.Get("type").Str != "object" || schema.Get("additionalProperties").Type != gjson.False {
			t.Errorf("%s: input schema %s", name, schema.Raw)
		}
		if !json.Valid([]byte(tool.Raw)) {
			t.Errorf("%s: not JSON", name)
		}
		out := handle(t, s, "2025-11-25", request(2, "tools/call", `{"name":`+strconv.Quote(name)+`,"arguments":{}}`))
		if gjson.GetBytes(out, "error").Exists() {
			t.Errorf("tools/call %s: %s", name, out)
		}
	}
	if !strings.Contains(tools[1].Get("description").Str, "\n- git-workflow: Make clean, reviewable changes") {
		t.Errorf("load_skill's description does not name the skills: %s", tools[1].Get("description").Str)
	}
}

// TestListSkillsPages: with one skill per page, following nextCursor visits every skill
// once, in order, and the text and structuredContent agree.
func TestListSkillsPages(t *testing.T) {
	p := nSkillsPack(t, 5)
	s := New(p, wire.Options{Tools: true, PageSize: 1})
	var seen []string
	args := `{}`
	for page := 0; ; page++ {
		if page > 5 {
			t.Fatal("list_skills does not end")
		}
		r := result(t, s, page, "tools/call", `{"name":"list_skills","arguments":`+args+`}`)
		items := r.Get("structuredContent.skills").Array()
		if len(items) != 1 {
			t.Fatalf("page %d: %s", page, r.Raw)
		}
		name := items[0].Get("name").Str
		seen = append(seen, name)
		text := r.Get("content.0.text").Str
		if !strings.Contains(text, "- "+name+": Test skill "+name+".\n  skill://"+name+"/SKILL.md\n") {
			t.Errorf("page %d text: %q", page, text)
		}
		next := r.Get("structuredContent.nextCursor")
		if !next.Exists() {
			break
		}
		if !strings.Contains(text, `{"cursor": "`+next.Str+`"}`) {
			t.Errorf("page %d text does not give the cursor %s: %q", page, next.Str, text)
		}
		args = `{"cursor":` + strconv.Quote(next.Str) + `}`
	}
	if strings.Join(seen, ",") != "s0,s1,s2,s3,s4" {
		t.Errorf("pages visited %v", seen)
	}
}

// TestLoadSkillErrors: load_skill's failures are tool results the model can act on.
func TestLoadSkillErrors(t *testing.T) {
	s := duplicatesPack(t)
	for _, tc := range []struct {
		args string
		want string // in the text of the isError result; "" for success
	}{
		{`{"name":"solo"}`, ""},
		{`{"uri":"skill://team/deploy/SKILL.md"}`, ""},
		{`{"uri":"SKILL://team/deploy/SKILL.md"}`, ""},
		{`{"name":"ops-deploy"}`, ""},
		{`{"name":"deploy-5ade29ee"}`, ""}, // team/deploy: team-deploy is another skill's name
		{`{"name":"deploy"}`, `No skill is named "deploy". Skills: ops-deploy, solo, team-deploy, deploy-5ade29ee.`},
		{`{"name":"nothing"}`, `No skill is named "nothing". Skills: ops-deploy, solo, team-deploy, deploy-5ade29ee.`},
		{`{"uri":"skill://team/deploy/notes.md"}`, `No skill has its SKILL.md at "skill://team/deploy/notes.md"`},
		{`{"uri":"skill://../x"}`, `No skill has its SKILL.md at`},
		{`{}`, "Give the name of a skill"},
		{`{"name":1}`, "The argument name must be a string."},
		{`{"name":"solo","extra":true}`, `Unknown argument "extra": this tool takes name and uri.`},
	} {
		r := result(t, s, 1, "tools/call", `{"name":"load_skill","arguments":`+tc.args+`}`)
		text := r.Get("content.0.text").Str
		if tc.want == "" {
			if r.Get("isError").Bool() || len(r.Get("content").Array()) != 2 {
				t.Errorf("%s: %s", tc.args, r.Raw)
			}
			continue
		}
		if !r.Get("isError").Bool() || !strings.Contains(text, tc.want) {
			t.Errorf("%s: %s, want isError with %q", tc.args, r.Raw, tc.want)
		}
	}
	files := result(t, s, 2, "tools/call", `{"name":"load_skill","arguments":{"uri":"skill://team/deploy/SKILL.md"}}`).Get("content.1.text").Str
	if files != "Files of the skill deploy besides SKILL.md (read them with read_skill_file):\n- skill://team/deploy/notes.md (5 bytes)" {
		t.Errorf("files text: %q", files)
	}
}

// TestReadSkillFileSameAsRead: read_skill_file gives exactly what resources/read gives, as
// text for a text file and as the same embedded resource for a binary one.
func TestReadSkillFileSameAsRead(t *testing.T) {
	s := duplicatesPack(t)
	for _, uri := range []string{"skill://solo/SKILL.md", "skill://solo/data/numbers.bin", "skill://team/deploy/notes.md"} {
		read := result(t, s, 1, "resources/read", `{"uri":`+strconv.Quote(uri)+`}`).Get("contents.0")
		tool := result(t, s, 2, "tools/call", `{"name":"read_skill_file","arguments":{"uri":`+strconv.Quote(uri)+`}}`).Get("content.0")
		if read.Get("text").Exists() {
			if tool.Get("type").Str != "text" || tool.Get("text").Raw != read.Get("text").Raw {
				t.Errorf("%s: tool %s, read %s", uri, tool.Raw, read.Raw)
			}
		} else if tool.Get("type").Str != "resource" || tool.Get("resource").Raw != read.Raw {
			t.Errorf("%s: tool %s, read %s", uri, tool.Raw, read.Raw)
		}
	}
}

// TestPromptNames: prompts are named by index name (catalog.IndexNames): a name no other
// skill has is the prompt's name; repeated names take the path with dashes, or, when that
// is another skill's name, the name and a digest of the path.
func TestPromptNames(t *testing.T) {
	s := duplicatesPack(t)
	var names []string
	for _, p := range result(t, s, 1, "prompts/list", "").Get("prompts").Array() {
		names = append(names, p.Get("name").Str)
	}
	if got := strings.Join(names, " "); got != "ops-deploy solo team-deploy deploy-5ade29ee" {
		t.Errorf("prompt names: %s", got)
	}
	for _, n := range names {
		r := result(t, s, 2, "prompts/get", `{"name":`+strconv.Quote(n)+`}`)
		if !strings.HasPrefix(r.Get("messages.0.content.text").Str, "---\nname: ") || r.Get("messages.0.role").Str != "user" {
			t.Errorf("prompts/get %s: %s", n, r.Raw)
		}
	}
}

// TestOrigin: the scheme and authority the catalog page and the sitemap write.
func TestOrigin(t *testing.T) {
	for _, tc := range []struct {
		host, proto string
		want        string
	}{
		{"127.0.0.1:8787", "", "http://127.0.0.1:8787"},
		{"localhost", "", "http://localhost"},
		{"[::1]:9000", "", "http://[::1]:9000"},
		{"skills.example.com", "", "https://skills.example.com"},
		{"skills.example.com:443", "", "https://skills.example.com:443"},
		{"192.168.1.5:8787", "", "http://192.168.1.5:8787"},
		{"skills.example.com:8443", "https", "https://skills.example.com:8443"},
		{"skills.example.com", "HTTP", "http://skills.example.com"},
		{"skills.example.com", "gopher", "https://skills.example.com"},
		{"", "", "http://localhost"},
		{"\x81", "", "http://localhost"},
		{"a b", "", "http://localhost"},
		{"a\"<b>", "", "http://localhost"},
		{"x.example;rm", "", "http://localhost"},
		{"$(id).example", "", "http://localhost"},
		{strings.Repeat("a", 300) + ".example", "", "http://localhost"},
		{"xn--caf-dma.example", "", "https://xn--caf-dma.example"},
	} {
		hd := headers{host: tc.host, hasHost: tc.host != "", forwardedProto: tc.proto, hasForwardedProto: tc.proto != ""}
		if got := origin(&hd); got != tc.want {
			t.Errorf("origin(%q, %q) = %q, want %q", tc.host, tc.proto, got, tc.want)
		}
	}
}

// TestSitemapOrigin: the sitemap lists URLs of the host it is asked on; a trust root on
// that host gives their scheme, one elsewhere or with a deeper path is not used.
func TestSitemapOrigin(t *testing.T) {
	fsys := fstest.MapFS{"solo/SKILL.md": &fstest.MapFile{Data: []byte(skillMD("solo"))}}
	for _, tc := range []struct {
		root, host, proto string
		want              string
	}{
		{"", "skills.example.com", "", "https://skills.example.com"},
		{"https://skills.example.com/", "skills.example.com", "http", "https://skills.example.com"},
		{"https://skills.example.com/", "SKILLS.example.com", "", "https://skills.example.com"},
		{"https://skills.example.com/", "mirror.example.net", "", "https://mirror.example.net"},
		{"https://github.com/acme/skills/", "github.com", "http", "http://github.com"},
		{"https://skills.example.com/", "127.0.0.1:8787", "", "http://127.0.0.1:8787"},
	} {
		c, _, err := compile.Load(fsys, "t", compile.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c.TrustRoot = tc.root
		p, err := encode(c)
		if err != nil {
			t.Fatal(err)
		}
		s := New(p, wire.Options{AllowHosts: []string{"*"}})
		h := header("Host", tc.host)
		if tc.proto != "" {
			h = append(h, wire.Field{Name: "X-Forwarded-Proto", Value: tc.proto})
		}
		resp := s.ServeHTTP(&wire.Request{Method: "GET", Target: "/sitemap.xml", Header: h})
		want := "<url><loc>" + tc.want + "/.well-known/skills/solo/SKILL.md</loc></url>"
		if !strings.Contains(string(resp.Body), want) {
			t.Errorf("root %q, Host %q, proto %q: %s\nwant %s", tc.root, tc.host, tc.proto, resp.Body, want)
		}
	}
}

// TestWatchedCaching: while the catalog may change (ListChanged), the page, the sitemap and
// well-known files may be kept by caches only if they ask again; the page varies with the
// scheme a proxy names.
func TestWatchedCaching(t *testing.T) {
	for _, tc := range []struct {
		watched bool
		want    string
	}{{false, "public, max-age=300"}, {true, "no-cache"}} {
		s := exampleServer(t, wire.Options{ListChanged: tc.watched})
		for _, r := range []wire.Request{
			{Method: "GET", Target: "/", Header: header("Host", "localhost", "Accept", "text/html")},
			{Method: "GET", Target: "/sitemap.xml", Header: header("Host", "localhost")},
			{Method: "GET", Target: "/.well-known/skills/index.json", Header: header("Host", "localhost")},
			{Method: "GET", Target: "/.well-known/skills/git-workflow/SKILL.md", Header: header("Host", "localhost")},
		} {
			resp := s.ServeHTTP(&r)
			if got, _ := resp.Header.Get("Cache-Control"); resp.Status != 200 || got != tc.want {
				t.Errorf("watched %v, %s: %d, Cache-Control %q", tc.watched, r.Target, resp.Status, got)
			}
			if vary, _ := resp.Header.Get("Vary"); !strings.HasPrefix(r.Target, "/.well-known/") && !strings.Contains(vary, "X-Forwarded-Proto") {
				t.Errorf("%s: Vary %q", r.Target, vary)
			}
		}
	}
}
