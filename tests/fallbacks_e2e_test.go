//go:build e2e

package tests

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// The tools and prompts fallbacks and paging, as the official TypeScript SDK v2 client sees
// them (tests/clients/fallbacks.mjs drives it; the assertions are here).

// oddCatalog writes skills that are awkward to serve: nested skills, a prefix, two skills
// with one name, file names with spaces, brackets, a percent sign and non-ASCII letters,
// and a binary file. It returns the folder and every file's bytes by path.
func oddCatalog(t *testing.T) (string, map[string][]byte) {
	dir := t.TempDir()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde\x00\x00\x00\x00IEND\xaeB`\x82")
	files := map[string][]byte{
		"team/ops/deploy/SKILL.md":             []byte("---\nname: deploy\ndescription: Deploy the team's services.\n---\n\n# Deploy\n\nFollow runbook steps.md.\n"),
		"team/ops/deploy/runbook steps.md":     []byte("1. Build.\n2. Ship.\n"),
		"team/ops/deploy/café.md":              []byte("Un café, s'il vous plaît.\n"),
		"team/ops/deploy/checks/SKILL.md":      []byte("---\nname: checks\ndescription: Check a deployment after it ships.\n---\n\n# Checks\n"),
		"team/ops/deploy/checks/100% [ok].txt": []byte("all green\n"),
		"other/deploy/SKILL.md":                []byte("---\nname: deploy\ndescription: Deploy the other team's services.\n---\n\n# Other deploy\n"),
		"pixels/SKILL.md":                      []byte("---\nname: pixels\ndescription: Draw with pixels.\n---\n\n# Pixels\n\nSee img/logo.png.\n"),
		"pixels/img/logo.png":                  png,
	}
	for rel, data := range files {
		if err := writeFile(filepath.Join(dir, rel), data); err != nil {
			t.Fatal(err)
		}
	}
	return dir, files
}

// clientReport is what fallbacks.mjs prints.
type clientReport struct {
	Version      string          `json:"version"`
	Capabilities json.RawMessage `json:"capabilities"`
	Tools        listAttempt     `json:"tools"`
	Prompts      listAttempt     `json:"prompts"`
	Loads        []struct {
		Args    map[string]string `json:"args"`
		IsError bool              `json:"isError"`
		Texts   []string          `json:"texts"`
	} `json:"loads"`
	Reads []struct {
		URI, Type, SHA256 string
		MimeType          *string
		IsError           bool
	} `json:"reads"`
	PromptGets []struct{ Name, Role, SHA256 string } `json:"promptGets"`
	ListSkills *struct {
		Text       string          `json:"text"`
		Structured json.RawMessage `json:"structured"`
	} `json:"listSkills"`
	SearchSkills *struct {
		IsError    bool            `json:"isError"`
		Types      []string        `json:"types"`
		Links      []string        `json:"links"`
		Structured json.RawMessage `json:"structured"`
	} `json:"searchSkills"`
	Resources []string `json:"resources"`
}

type listAttempt struct {
	Result *struct {
		Tools   []struct{ Name string } `json:"tools"`
		Prompts []struct{ Name string } `json:"prompts"`
	} `json:"result"`
	Code    *int   `json:"code"`
	Message string `json:"message"`
}

// runClient runs fallbacks.mjs against url.
func runClient(t *testing.T, url, era string, plan any) clientReport {
	t.Helper()
	p, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runNode(t, filepath.Join(repoRoot(t), "tests", "clients", "fallbacks.mjs"), url, era, string(p))
	if code != 0 {
		t.Fatalf("fallbacks.mjs %s %s: exit %d\n%s\n%s", url, era, code, stdout, stderr)
	}
	var r clientReport
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("fallbacks.mjs printed %q: %v\n%s", stdout, err, stderr)
	}
	return r
}

// manifestDigests asks url's skills/list (every page) for the digest of every file.
func manifestDigests(t *testing.T, url string) map[string]string {
	t.Helper()
	out := map[string]string{}
	cursor := ""
	for {
		params := `{}`
		if cursor != "" {
			params = `{"cursor":` + jsonQuote(cursor) + `}`
		}
		resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"skills/list","params":`+params+`}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, s := range gjson.GetBytes(body, "result.skills").Array() {
			for _, r := range s.Get("resources").Array() {
				out[r.Get("uri").Str] = strings.TrimPrefix(r.Get("digest").Str, "sha256:")
			}
		}
		if cursor = gjson.GetBytes(body, "result.nextCursor").Str; cursor == "" {
			return out
		}
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func hexSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestTSClientFallbacks: with --tools --prompts, the TypeScript SDK v2 client, on both
// eras, finds the four tools and a prompt per skill, loads every skill through load_skill
// (by name, a shared one qualified by path, or by URI), and reads a text and a binary file
// through read_skill_file with the digests skills/list publishes; without the flags the
// methods are -32601 and the capabilities declare neither.
func TestTSClientFallbacks(t *testing.T) {
	dir, files := oddCatalog(t)
	on := serve(t, dir, "--tools", "--prompts")
	off := serve(t, dir)
	digests := manifestDigests(t, on)
	textURI, binURI := "skill://team/ops/deploy/caf%C3%A9.md", "skill://pixels/img/logo.png"
	for uri, rel := range map[string]string{textURI: "team/ops/deploy/café.md", binURI: "pixels/img/logo.png"} {
		if digests[uri] != hexSHA256(files[rel]) {
			t.Fatalf("skills/list digest of %s is %q, want the file's %s", uri, digests[uri], hexSHA256(files[rel]))
		}
	}
	loads := []struct {
		args map[string]string
		md   string // the SKILL.md it loads
	}{
		{map[string]string{"name": "checks"}, "team/ops/deploy/checks/SKILL.md"},
		{map[string]string{"name": "pixels"}, "pixels/SKILL.md"},
		{map[string]string{"name": "team-ops-deploy"}, "team/ops/deploy/SKILL.md"},
		{map[string]string{"uri": "skill://other/deploy/SKILL.md"}, "other/deploy/SKILL.md"},
	}
	plan := map[string]any{
		"load": append(mapsOf(loads, func(l struct {
			args map[string]string
			md   string
		}) map[string]string {
			return l.args
		}), map[string]string{"name": "deploy"}), // shared: no skill is known by it alone
		"read": []string{textURI, binURI},
	}
	for _, era := range []string{"default", "modern"} {
		t.Run(era, func(t *testing.T) {
			r := runClient(t, on, era, plan)
			wantVersion := map[string]string{"default": "2025-11-25", "modern": "2026-07-28"}[era]
			if r.Version != wantVersion {
				t.Errorf("negotiated %q, want %q", r.Version, wantVersion)
			}
			caps := gjson.ParseBytes(r.Capabilities)
			if !caps.Get("tools").IsObject() || !caps.Get("prompts").IsObject() || !caps.Get(`extensions.io\.modelcontextprotocol/skills`).IsObject() {
				t.Errorf("capabilities %s", r.Capabilities)
			}
			var tools, prompts []string
			if r.Tools.Result != nil {
				for _, x := range r.Tools.Result.Tools {
					tools = append(tools, x.Name)
				}
			}
			if r.Prompts.Result != nil {
				for _, x := range r.Prompts.Result.Prompts {
					prompts = append(prompts, x.Name)
				}
			}
			if strings.Join(tools, " ") != "list_skills load_skill read_skill_file search_skills" {
				t.Errorf("tools %v (%+v)", tools, r.Tools)
			}
			slices.Sort(prompts)
			if strings.Join(prompts, " ") != "checks other-deploy pixels team-ops-deploy" {
				t.Errorf("prompts %v (%+v)", prompts, r.Prompts)
			}
			if len(r.Loads) != 5 {
				t.Fatalf("loads: %+v", r.Loads)
			}
			for i, l := range r.Loads[:4] {
				// The first text is the SKILL.md body: the file after its frontmatter.
				_, body, _ := strings.Cut(string(files[loads[i].md]), "\n---\n")
				if l.IsError || len(l.Texts) != 2 || l.Texts[0] != body {
					t.Errorf("load_skill %v: %+v, want the body %q", l.Args, l, body)
				}
			}
			if shared := r.Loads[4]; !shared.IsError || !strings.Contains(shared.Texts[0], `No skill is named "deploy"`) || !strings.Contains(shared.Texts[0], "other-deploy") || !strings.Contains(shared.Texts[0], "team-ops-deploy") {
				t.Errorf("load_skill of a shared name: %+v", shared)
			}
			if strings.Contains(r.Loads[2].Texts[1], "café") || !strings.Contains(r.Loads[2].Texts[1], "skill://team/ops/deploy/caf%C3%A9.md (28 bytes)") {
				t.Errorf("load_skill's file list: %q", r.Loads[2].Texts[1])
			}
			if len(r.Reads) != 2 {
				t.Fatalf("reads: %+v", r.Reads)
			}
			for _, rd := range r.Reads {
				if rd.IsError || rd.SHA256 != digests[rd.URI] {
					t.Errorf("read_skill_file %s: %+v, manifest digest %s", rd.URI, rd, digests[rd.URI])
				}
			}
			if r.Reads[0].Type != "text" || r.Reads[1].Type != "resource" || r.Reads[1].MimeType == nil || *r.Reads[1].MimeType != "image/png" {
				t.Errorf("read_skill_file blocks: %+v", r.Reads)
			}
			if len(r.PromptGets) != 4 {
				t.Errorf("prompts/get: %+v", r.PromptGets)
			}
			for _, g := range r.PromptGets {
				if g.Role != "user" || !slices.ContainsFunc(mapValues(files), func(b []byte) bool { return hexSHA256(b) == g.SHA256 }) {
					t.Errorf("prompts/get %s: %+v is no SKILL.md of the catalog", g.Name, g)
				}
			}
			if r.ListSkills == nil || strings.Count(r.ListSkills.Text, "\n- ") != 4 || len(gjson.GetBytes(r.ListSkills.Structured, "skills").Array()) != 4 {
				t.Errorf("list_skills: %+v", r.ListSkills)
			}
			// search_skills, its structuredContent checked by the SDK against the outputSchema:
			// the best of the two deploy skills (by its index name), the next behind a cursor, and a link to it.
			if s := r.SearchSkills; s == nil || s.IsError || strings.Join(s.Types, " ") != "text resource_link" ||
				gjson.GetBytes(s.Structured, "total").Int() < 2 || gjson.GetBytes(s.Structured, "skills.0.name").Str != "team-ops-deploy" ||
				!gjson.GetBytes(s.Structured, "nextCursor").Exists() || len(s.Links) != 1 || s.Links[0] != gjson.GetBytes(s.Structured, "skills.0.uri").Str {
				t.Errorf("search_skills: %+v", s)
			}

			// Without the flags: unknown methods, and capabilities as before.
			r = runClient(t, off, era, map[string]any{})
			for what, a := range map[string]listAttempt{"tools/list": r.Tools, "prompts/list": r.Prompts} {
				if a.Result != nil || a.Code == nil || *a.Code != -32601 {
					t.Errorf("%s without the flag: %+v", what, a)
				}
			}
			caps = gjson.ParseBytes(r.Capabilities)
			if caps.Get("tools").Exists() || caps.Get("prompts").Exists() || !caps.Get(`extensions.io\.modelcontextprotocol/skills`).IsObject() {
				t.Errorf("capabilities without the flags: %s", r.Capabilities)
			}
		})
	}
}

// mapsOf maps f over list.
func mapsOf[T, U any](list []T, f func(T) U) []U {
	out := make([]U, len(list))
	for i, x := range list {
		out[i] = f(x)
	}
	return out
}

func mapValues(m map[string][]byte) [][]byte {
	var out [][]byte
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// TestTSClientListsLargeCatalog: the client's listResources(), with default options (at
// most 64 pages), lists every resource of a 1,000-skill, 10,000-file catalog.
func TestTSClientListsLargeCatalog(t *testing.T) {
	dir := t.TempDir()
	paths, err := writeLargeCatalog(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"skill://index.json"}
	for _, p := range paths {
		want = append(want, "skill://"+p)
	}
	url := serve(t, dir)
	r := runClient(t, url, "default", map[string]any{"list": true})
	got := slices.Clone(r.Resources)
	slices.Sort(got)
	slices.Sort(want)
	if len(got) != 10001 || !slices.Equal(got, want) {
		t.Fatalf("listResources() gave %d resources, want the catalog's %d files and skill://index.json", len(got), len(want)-1)
	}
}
