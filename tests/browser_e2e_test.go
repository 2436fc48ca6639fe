//go:build e2e

package tests

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// The catalog page in a real browser, and the sitemap, served by `skilledge serve` and by
// the Worker in workerd. tests/clients/browser.mjs drives headless Chromium (Debian's
// package, which the README's test command installs) through the pinned puppeteer-core.

// pageReport is what browser.mjs prints.
type pageReport struct {
	Status       int               `json:"status"`
	Headers      map[string]string `json:"headers"`
	Title        string            `json:"title"`
	H1           string            `json:"h1"`
	BodyMaxWidth string            `json:"bodyMaxWidth"`
	MCPURL       string            `json:"mcpURL"`
	Configs      map[string]string `json:"configs"`
	Skills       []struct {
		Name, Path, Description string
		Links                   []string
		Files                   []struct {
			Name   string
			Href   *string
			Size   int64
			SHA256 string
		}
	} `json:"skills"`
	Violations []string `json:"violations"`
	Console    []string `json:"console"`
	Scripts    int      `json:"scripts"`
	// The search box: typed into (the page's script), and submitted with scripts off.
	Typed           []pageHit `json:"typed"`
	TypedStatus     string    `json:"typedStatus"`
	TypedURL        string    `json:"typedURL"`
	AllHidden       bool      `json:"allHidden"`
	Submitted       []pageHit `json:"submitted"`
	SubmittedStatus int       `json:"submittedStatus"`
	SubmittedURL    string    `json:"submittedURL"`
	SubmittedFound  string    `json:"submittedFound"`
	SubmittedValue  string    `json:"submittedValue"`
}

// pageHit is a skill the page's search shows: its name, linked to its SKILL.md.
type pageHit struct{ Name, Href string }

func TestBrowserCatalogPage(t *testing.T) {
	browser := needChromium(t)
	for _, target := range []struct {
		name string
		base func(t *testing.T) string
	}{
		{"serve", func(t *testing.T) string { return strings.TrimSuffix(serve(t), "/mcp") }},
		{"workerd", func(t *testing.T) string { return workerd(t, deployedOptions(t))[0] }},
	} {
		t.Run(target.name, func(t *testing.T) {
			base := target.base(t)
			shot := filepath.Join(t.TempDir(), "catalog-page.png")
			code, stdout, stderr := runNode(t, filepath.Join(repoRoot(t), "tests", "clients", "browser.mjs"), browser, base+"/", shot)
			if code != 0 {
				t.Fatalf("browser.mjs: exit %d\n%s\n%s", code, stdout, stderr)
			}
			var r pageReport
			if err := json.Unmarshal([]byte(stdout), &r); err != nil {
				t.Fatalf("browser.mjs printed %q: %v", stdout, err)
			}
			checkPage(t, base, &r)
			png, err := os.ReadFile(shot)
			if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 10<<10 {
				t.Fatalf("screenshot %s: %d bytes, %v", shot, len(png), err)
			}
			t.Logf("screenshot of %s/: %s (%d bytes)", base, shot, len(png))
			checkSitemap(t, base)
		})
	}
}

// checkPage holds what the browser rendered to the catalog the server's skills/list gives.
func checkPage(t *testing.T, base string, r *pageReport) {
	t.Helper()
	if r.Status != 200 || !strings.HasPrefix(r.Headers["content-type"], "text/html") ||
		!strings.HasPrefix(r.Headers["content-security-policy"], "default-src 'none'") || r.Headers["x-content-type-options"] != "nosniff" {
		t.Errorf("page status %d, headers %v", r.Status, r.Headers)
	}
	// Nothing blocked, nothing failed, one script (the search box's); and the stylesheet
	// applied under the policy (body max-width 64rem).
	if len(r.Violations) > 0 || len(r.Console) > 0 || r.Scripts != 1 {
		t.Errorf("CSP violations %v, console %v, %d scripts", r.Violations, r.Console, r.Scripts)
	}
	checkPageSearch(t, base, r)
	if r.BodyMaxWidth != "1024px" {
		t.Errorf("the stylesheet did not apply: body max-width %q", r.BodyMaxWidth)
	}
	// Each configuration as the browser shows it, with this deployment's URL (their formats:
	// TestConnectFormats).
	configsOK := r.MCPURL == base+"/mcp" && len(r.Configs) == len(connectClients) &&
		r.Configs["config-claude-code"] == "claude mcp add --transport http skills "+base+"/mcp" &&
		strings.Contains(r.Configs["config-claude-desktop"], `"args": ["stdio", "/absolute/path/to/skills"]`)
	for _, id := range []string{"config-claude-code-json", "config-cursor", "config-vscode"} {
		configsOK = configsOK && strings.Contains(r.Configs[id], `"url": "`+base+`/mcp"`)
	}
	if !configsOK {
		t.Errorf("connect section: URL %q, configurations %v", r.MCPURL, r.Configs)
	}

	list := post(t, base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"skills/list"}`)
	skills := gjson.GetBytes(list, "result.skills").Array()
	if len(skills) == 0 || len(r.Skills) != len(skills) {
		t.Fatalf("the page shows %d skills, skills/list %d", len(r.Skills), len(skills))
	}
	for i, s := range skills {
		p := r.Skills[i]
		if p.Name != s.Get("name").Str || p.Path != s.Get("uri").Str || p.Description != s.Get("description").Str {
			t.Errorf("skill %d: the page shows %q %q %q, skills/list %s", i, p.Name, p.Path, p.Description, s.Get("uri").Str)
		}
		res := s.Get("resources").Array()
		if len(p.Files) != len(res) {
			t.Errorf("%s: %d files on the page, %d in the manifest", p.Name, len(p.Files), len(res))
			continue
		}
		for k, f := range p.Files {
			if "sha256:"+f.SHA256 != res[k].Get("digest").Str || f.Size != res[k].Get("size").Int() {
				t.Errorf("%s: file %s shows %s, %d bytes; the manifest %s", p.Name, f.Name, f.SHA256, f.Size, res[k].Raw)
			}
			if f.Href == nil {
				t.Errorf("%s: file %s has no link", p.Name, f.Name)
			} else if got := hexSHA256(get(t, *f.Href)); got != f.SHA256 {
				t.Errorf("%s: %s serves bytes of SHA-256 %s, the page says %s", p.Name, *f.Href, got, f.SHA256)
			}
		}
		for _, l := range p.Links {
			get(t, l)
		}
	}
}

// checkPageSearch: the search box typed into shows, as you type, the skills the HTTP
// search finds, best first, each linked to its SKILL.md, and the address says the query;
// with scripts off, the form submitted gives the page whose hits are the same, with the
// words in the box.
func checkPageSearch(t *testing.T, base string, r *pageReport) {
	t.Helper()
	found := gjson.GetBytes(get(t, base+"/.well-known/agent-skills/search?q=chart+a+csv+file"), "skills.#.name").Array()
	var want []string
	for _, n := range found {
		want = append(want, n.Str)
	}
	names := func(hits []pageHit) []string {
		var out []string
		for _, h := range hits {
			out = append(out, h.Name)
			if h.Href != base+"/.well-known/skills/"+h.Name+"/SKILL.md" {
				t.Errorf("%s links to %s", h.Name, h.Href)
			} else {
				get(t, h.Href)
			}
		}
		return out
	}
	if len(want) == 0 || want[0] != "csv-insights" {
		t.Fatalf("the HTTP search for the page's query finds %v", want)
	}
	if got := names(r.Typed); strings.Join(got, " ") != strings.Join(want, " ") || !r.AllHidden ||
		r.TypedStatus != "4 skills found." || r.TypedURL != base+"/?q=chart%20a%20csv%20file" {
		t.Errorf("typed into the box: %v (%q, the list hidden: %v, at %s); the HTTP search finds %v", got, r.TypedStatus, r.AllHidden, r.TypedURL, want)
	}
	if got := names(r.Submitted); strings.Join(got, " ") != strings.Join(want, " ") || r.SubmittedStatus != 200 ||
		r.SubmittedURL != base+"/?q=chart+a+csv+file" || r.SubmittedValue != "chart a csv file" ||
		!strings.HasPrefix(r.SubmittedFound, "4 skills found for “chart a csv file”, best first.") {
		t.Errorf("submitted with scripts off: %d %v (%q, the box %q, at %s); the HTTP search finds %v", r.SubmittedStatus, got, r.SubmittedFound, r.SubmittedValue, r.SubmittedURL, want)
	}
}

// checkSitemap: /sitemap.xml is a sitemaps.org urlset with the URL of every skill's
// SKILL.md under /.well-known/skills/, each of which answers.
func checkSitemap(t *testing.T, base string) {
	t.Helper()
	var set struct {
		XMLName xml.Name
		URLs    []struct {
			Loc string `xml:"loc"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal(get(t, base+"/sitemap.xml"), &set); err != nil {
		t.Fatalf("sitemap.xml: %v", err)
	}
	if set.XMLName.Space != "http://www.sitemaps.org/schemas/sitemap/0.9" || set.XMLName.Local != "urlset" {
		t.Errorf("sitemap root %v", set.XMLName)
	}
	list := post(t, base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"skills/list"}`)
	var want []string
	for _, s := range gjson.GetBytes(list, "result.skills").Array() {
		want = append(want, base+"/.well-known/skills/"+s.Get("name").Str+"/SKILL.md")
	}
	var got []string
	for _, u := range set.URLs {
		got = append(got, u.Loc)
		get(t, u.Loc)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sitemap lists\n%s\nwant every skill\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// get fetches url, which must answer 200, and returns the body.
func get(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v %.200s", url, resp.StatusCode, err, b)
	}
	return b
}

// post sends a JSON-RPC message to an MCP endpoint (2025-11-25) and returns the body of
// its answer, which must be a 200.
func post(t *testing.T, url, msg string) []byte {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST %s %.200s: %d %v %.300s", url, msg, resp.StatusCode, err, b)
	}
	return b
}
