package compile

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"html"
	"strconv"
	"strings"

	"github.com/skilledge/skilledge/catalog"
)

// The catalog page: what a person sees opening the deployment in a browser
// (PROTOCOL.md#catalog-page). It is rendered here, whole, but for the MCP URL, which
// depends on the host name the page is asked under: the page holds markers where the server
// writes it (catalog.SitePage). It needs no script and loads nothing: the one stylesheet is
// inline and allowed by its hash in the Content-Security-Policy the page is served with, so
// it works under that strict policy. Its one script (pageScript), allowed the same way,
// only makes the search box answer as you type. The skills section grows with the catalog and is a
// store object.

// pageStyle is the page's stylesheet. Its SHA-256 is in pageCSP.
const pageStyle = `
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fff; --muted: #5f6368; --line: #d9d9de; --code: #f3f3f6; --link: #0b57d0; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8e8ea; --bg: #17171a; --muted: #a0a0a8; --line: #3a3a40; --code: #232328; --link: #8ab4f8; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 64rem; padding: 2rem 1.25rem 4rem; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
h1 { font-size: 1.9rem; margin: 0 0 .25rem; }
h2 { font-size: 1.35rem; margin: 2.5rem 0 .75rem; padding-bottom: .3rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.1rem; margin: 1.5rem 0 .4rem; }
a { color: var(--link); }
p { margin: .4rem 0; }
.muted, .path { color: var(--muted); }
code, pre { font: 14px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--code); padding: .75rem 1rem; border-radius: 6px; overflow-x: auto; user-select: all; }
code { overflow-wrap: anywhere; }
.url { font-size: 1.1rem; background: var(--code); padding: .15rem .4rem; border-radius: 4px; user-select: all; }
.skill { border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; margin: 1rem 0; }
.skill h3 { margin: 0; }
details { margin-top: .5rem; }
summary { cursor: pointer; color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin-top: .5rem; font-size: 14px; }
th, td { text-align: left; padding: .3rem .5rem; border-top: 1px solid var(--line); vertical-align: top; }
td.size { text-align: right; white-space: nowrap; }
td.digest code { font-size: 12px; color: var(--muted); }
nav a { margin-right: 1rem; }
#search { display: flex; gap: .5rem; margin: .5rem 0; }
#search input { flex: 1; font: inherit; padding: .35rem .6rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
#search button { font: inherit; padding: .35rem .9rem; border: 1px solid var(--line); border-radius: 6px; background: var(--code); color: var(--fg); cursor: pointer; }
.results { padding-left: 1.5rem; }
.results li { margin: .6rem 0; }
.results .name { font-weight: 600; margin-right: .5rem; }
`

// pageScript is the page's one script: the search box as you type. It asks the catalog's
// HTTP search (PROTOCOL.md#search) for what the box holds, 150 ms after the last key, and
// shows the hits in place of the list of every skill; every string a hit holds goes into
// the page as text, never as markup. Without it (scripts off) the box is a form: GET
// /?q=WORDS, which the server answers with the page and the same hits (edge/site.go). Its
// SHA-256 is in pageCSP.
const pageScript = `
(() => {
  const box = document.getElementById("q"), all = document.getElementById("all"), list = document.getElementById("results"), said = document.getElementById("search-status");
  let timer = 0, asked = 0;
  box.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(search, 150); });
  async function search() {
    const words = box.value, n = ++asked;
    history.replaceState(null, "", words.trim() ? "?q=" + encodeURIComponent(words) : location.pathname);
    if (!words.trim()) { list.hidden = true; all.hidden = false; said.textContent = ""; return; }
    let found;
    try {
      const r = await fetch("` + catalog.AgentSkillsSearch + `?q=" + encodeURIComponent(words), { headers: { Accept: "application/json" } });
      found = r.ok ? await r.json() : { error: (await r.text()).replace(/^skilledge: search: (q: )?/, "").trim() };
    } catch (e) { found = { error: "the search failed: " + e.message }; }
    if (n !== asked) return;
    list.replaceChildren();
    if (found.error) said.textContent = found.error;
    else {
      const shown = found.skills.length, total = found.total;
      said.textContent = total === 0 ? "No skill found." : (total === 1 ? "1 skill found" : total + " skills found") + (shown < total ? ", the first " + shown + " shown." : ".");
      for (const s of found.skills) {
        const li = document.createElement("li"), name = document.createElement("a"), path = document.createElement("code"), about = document.createElement("p");
        name.className = "name"; name.href = "` + catalog.SkillsPrefix + `" + encodeURIComponent(s.name) + "/` + catalog.SkillMD + `"; name.textContent = s.name;
        path.className = "path"; path.textContent = s.path;
        about.className = "description"; about.textContent = s.description;
        li.append(name, " ", path, about);
        list.append(li);
      }
    }
    list.hidden = false; all.hidden = true;
  }
})();
`

// pageCSP is the policy the page is served with: nothing may load or run but the inline
// stylesheet and script above, and the script may ask nothing but the page's own origin
// (the search); the search box's form goes only there.
func pageCSP() string {
	style, script := sha256.Sum256([]byte(pageStyle)), sha256.Sum256([]byte(pageScript))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(style[:]) +
		"'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(script[:]) +
		"'; connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
}

// marker writes a catalog.SitePage marker.
func marker(kind byte) string { return string([]byte{catalog.PageMarker, kind}) }

// pageTemplate renders the page around its markers.
func pageTemplate(c *Catalog) []byte {
	files, size := c.Size()
	e := htmlText
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<meta name=\"generator\" content=\"" + Generator + "\">\n")
	b.WriteString("<title>Agent Skills: " + plural(len(c.Skills), "skill") + "</title>\n")
	feeds := ""
	if c.Versions != nil { // the change feeds, which a catalog keeping history serves
		b.WriteString("<link rel=\"alternate\" type=\"application/atom+xml\" title=\"Changes\" href=\"" + catalog.ChangesAtom + "\">\n")
		b.WriteString("<link rel=\"alternate\" type=\"application/json\" title=\"Changes (JSON)\" href=\"" + catalog.ChangesJSON + "\">\n")
		feeds = "<a href=\"" + catalog.ChangesAtom + "\">changes (Atom)</a><a href=\"" + catalog.ChangesJSON + "\">changes (JSON)</a>"
	}
	b.WriteString("<style>" + pageStyle + "</style>\n</head>\n<body>\n")
	b.WriteString("<header>\n<h1>Agent Skills</h1>\n<p class=\"muted\" id=\"summary\">" + plural(len(c.Skills), "skill") + ", " +
		plural(files, "file") + ", " + e(humanSize(size)) + ", served over the Model Context Protocol and over plain HTTP.")
	if c.TrustRoot != "" {
		b.WriteString(" Published under the trust root <code id=\"trust-root\">" + e(c.TrustRoot) + "</code> (Domain-Verified Skills).")
	}
	b.WriteString("</p>\n<nav><a href=\"#connect\">Connect</a><a href=\"#skills\">Skills</a>" +
		"<a href=\"" + catalog.AgentSkillsIndex + "\">agent-skills index</a><a href=\"" + catalog.SkillsIndex + "\">skills index</a>" +
		"<a href=\"" + catalog.SitemapPath + "\">sitemap</a>" + feeds + "</nav>\n</header>\n")

	u, j := marker(catalog.PageURLHTML), marker(catalog.PageURLJSON)
	b.WriteString("<section id=\"connect\">\n<h2>Connect</h2>\n")
	b.WriteString("<p>MCP endpoint (Streamable HTTP, protocol revisions 2024-11-05 to 2026-07-28):</p>\n<p><code class=\"url\" id=\"mcp-url\">" + u + "</code></p>\n")
	b.WriteString(connectClients(u, j))
	b.WriteString("<h3>Hosts without the skills extension</h3>\n<p>Clients that know MCP tools or prompts but not skills can use the same catalog when the server offers them: " +
		"<code>skilledge serve --tools --prompts</code> or <code>skilledge stdio --tools --prompts</code>, and on Cloudflare Workers " +
		"<code>tools = true</code> and <code>prompts = true</code> in <code>[vars.SKILLEDGE_OPTIONS]</code>. The tools are <code>" + catalog.ToolListSkills + "</code>, <code>" +
		catalog.ToolLoadSkill + "</code> and <code>" + catalog.ToolReadSkillFile + "</code>; each skill is also a prompt.</p>\n")
	b.WriteString("<h3>Over plain HTTP</h3>\n<p>Agents that do not speak MCP read the same catalog from the well-known indexes: " +
		"<a href=\"" + catalog.AgentSkillsIndex + "\">" + catalog.AgentSkillsIndex + "</a> (discovery v0.2.0: each skill's <code>SKILL.md</code> or archive, with its digest) and " +
		"<a href=\"" + catalog.SkillsIndex + "\">" + catalog.SkillsIndex + "</a> (v0.1.0: every file). Every file's SHA-256 is listed below.</p>\n</section>\n")

	b.WriteString("<section id=\"skills\">\n<h2>Skills</h2>\n")
	b.WriteString("<form id=\"search\" role=\"search\" action=\"/\" method=\"get\">\n<input type=\"search\" name=\"q\" id=\"q\" value=\"" + marker(catalog.PageQueryHTML) +
		"\" maxlength=\"256\" autocomplete=\"off\" placeholder=\"fill in a PDF form\" aria-label=\"Search the skills\">\n<button type=\"submit\">Search</button>\n</form>\n")
	b.WriteString("<p id=\"search-status\" class=\"muted\" aria-live=\"polite\"></p>\n<ol id=\"results\" class=\"results\" hidden></ol>\n")
	b.WriteString("<div id=\"all\">\n" + marker(catalog.PageSkillsMarker) + "</div>\n</section>\n")
	b.WriteString("<footer>\n<p class=\"muted\">Built by skilledge. Every file above can be checked against its SHA-256; MCP clients get the same digests from <code>skills/list</code>.</p>\n</footer>\n<script>" + pageScript + "</script>\n</body>\n</html>\n")
	return []byte(b.String())
}

// The configurations the page shows, one per client, each in the format that client
// documents (tests/connect_test.go holds each to it, and the README's "Connect a host" to
// the page). connectURL stands where the MCP URL goes: a shell word in the command, a JSON
// string in the files.
const (
	connectURL        = "{{url}}"
	connectClaudeCode = "claude mcp add --transport http skills " + connectURL
	connectMCPJSON    = "{\n  \"mcpServers\": {\n    \"skills\": {\n      \"type\": \"http\",\n      \"url\": " + connectURL + "\n    }\n  }\n}"
	connectCursor     = "{\n  \"mcpServers\": {\n    \"skills\": {\n      \"url\": " + connectURL + "\n    }\n  }\n}"
	connectVSCode     = "{\n  \"servers\": {\n    \"skills\": {\n      \"type\": \"http\",\n      \"url\": " + connectURL + "\n    }\n  }\n}"
	connectStdio      = "{\n  \"mcpServers\": {\n    \"skills\": {\n      \"command\": \"/absolute/path/to/skilledge\",\n      \"args\": [\"stdio\", \"/absolute/path/to/skills\"]\n    }\n  }\n}"
)

// connectClients renders the page's configuration of each client, named beside it with
// the file it goes in; u and j are the markers of the MCP URL as HTML text and as a JSON
// string.
//
// Why does the catalog page show one configuration per client, not one generic `mcpServers`
// block? The clients agree on less than they seem to: Claude Code's .mcp.json wants "type":
// "http" beside the url; Cursor's mcp.json takes a remote server as a bare url; VS Code's
// .vscode/mcp.json keys its servers "servers", not "mcpServers", and requires a type;
// Claude Desktop's claude_desktop_config.json starts local commands outside the user's
// shell, so its paths must be absolute. A generic block that "a desktop client" takes is
// wrong for at least one of them, and a new user cannot tell which. So the page and the
// README name each client beside its snippet with the file it goes in, and
// TestConnectFormats (tests/connect_test.go) holds each snippet to the shape that client
// documents (client, file, the key holding the servers, the entry exactly), so a change to
// a snippet that breaks its client fails a test rather than a user's first try.
func connectClients(u, j string) string {
	pre := func(id, text, url string) string {
		return "<pre id=\"" + id + "\"><code>" + strings.ReplaceAll(html.EscapeString(text), connectURL, url) + "</code></pre>\n"
	}
	return "<h3>Claude Code</h3>\n<p>From a shell:</p>\n" + pre("config-claude-code", connectClaudeCode, u) +
		"<p>Or in <code>.mcp.json</code> at a project's root, which Claude Code reads for everyone working in it:</p>\n" + pre("config-claude-code-json", connectMCPJSON, j) +
		"<h3>Cursor</h3>\n<p>In <code>~/.cursor/mcp.json</code>, or <code>.cursor/mcp.json</code> in a project:</p>\n" + pre("config-cursor", connectCursor, j) +
		"<h3>VS Code</h3>\n<p>In <code>.vscode/mcp.json</code> in a workspace, in VS Code's own format (<code>servers</code>, not <code>mcpServers</code>):</p>\n" + pre("config-vscode", connectVSCode, j) +
		"<h3>Claude Desktop: a local copy over stdio</h3>\n<p>With the skills folder (or the output of <code>skilledge build</code>) on the same machine, in " +
		"<code>claude_desktop_config.json</code>, with absolute paths: the app starts the command itself, not from your shell:</p>\n" + pre("config-claude-desktop", connectStdio, "")
}

// pageSkills renders the page's list of skills: each skill's name (and its index name
// where another skill shares it), description, path, links over well-known HTTP, its files
// with size and digest, and its history when it keeps more than one version
// (pageVersions).
func pageSkills(c *Catalog, arch map[*Skill][]*blob) []byte {
	e := htmlText
	var b strings.Builder
	if len(c.Skills) == 0 {
		b.WriteString("<p class=\"muted\">This catalog has no skills.</p>\n")
	}
	for i, s := range c.Skills {
		var total int64
		for _, f := range s.Files {
			total += f.Size
		}
		b.WriteString("<article class=\"skill\" id=\"skill-" + strconv.Itoa(i) + "\">\n<h3 class=\"name\">" + e(s.Name) + "</h3>\n")
		b.WriteString("<p class=\"path\"><code>" + e(skillURI(s)) + "</code></p>\n")
		name := c.indexName(s)
		if name != s.Name {
			b.WriteString("<p class=\"index-name muted\">Another skill is named " + e(s.Name) + ": by name, ask for this one as <code>" + e(name) + "</code></p>\n")
		}
		b.WriteString("<p class=\"description\">" + e(s.Description) + "</p>\n")
		if p := s.Source; p != nil && p.Catalog != "" {
			b.WriteString("<p class=\"source muted\">From source <code>" + e(p.Source) + "</code>: the catalog <code>" + e(p.Catalog) +
				"</code>, <code>" + e(p.Path) + "</code></p>\n")
		} else if p != nil {
			at := ""
			if p.Commit != "" {
				at = " at <code>" + e(p.Commit[:min(12, len(p.Commit))]) + "</code>"
			}
			b.WriteString("<p class=\"source muted\">From source <code>" + e(p.Source) + "</code>: <code>" + e(p.Repository) +
				"</code>" + at + ", <code>" + e(p.Path) + "</code></p>\n")
		}
		base := catalog.SkillsPrefix + name + "/"
		b.WriteString("<p class=\"links\"><a class=\"skill-md\" href=\"" + e(base+catalog.SkillMD) + "\">" + catalog.SkillMD + "</a>")
		for _, a := range arch[s] {
			ext := catalog.ArchiveZip
			if strings.HasSuffix(a.uri, catalog.ArchiveTarGz) {
				ext = catalog.ArchiveTarGz
			}
			b.WriteString(" · <a class=\"archive\" href=\"" + e(catalog.AgentSkillsPrefix+name+ext) + "\">" + e(name+ext) + "</a>")
		}
		b.WriteString("</p>\n")
		b.WriteString("<details>\n<summary>" + plural(len(s.Files), "file") + ", " + e(humanSize(total)) + "</summary>\n")
		b.WriteString("<table>\n<thead><tr><th>File</th><th>Size</th><th>SHA-256</th></tr></thead>\n<tbody>\n")
		for _, f := range s.Files {
			rel := strings.TrimPrefix(f.Path, s.Path+"/")
			link := "<a href=\"" + e(base+catalog.EscapePath(rel)) + "\"><code>" + e(rel) + "</code></a>"
			b.WriteString("<tr><td class=\"file\">" + link + "</td><td class=\"size\">" + strconv.FormatInt(f.Size, 10) +
				"</td><td class=\"digest\"><code>" + hex.EncodeToString(f.Digest[:]) + "</code></td></tr>\n")
		}
		b.WriteString("</tbody>\n</table>\n</details>\n")
		if len(s.Kept) > 1 {
			b.WriteString(pageVersions(s))
		}
		b.WriteString("</article>\n")
	}
	return []byte(b.String())
}

// pageVersions renders a skill's kept versions, newest first, in a closed <details>: each
// version's name, when it was published ("not committed" for content not yet committed),
// URI and manifest digest, and under each but the oldest how its SKILL.md changed from
// the version before it (pageDiff).
func pageVersions(s *Skill) string {
	e := htmlText
	var b strings.Builder
	b.WriteString("<details class=\"history\">\n<summary>History (" + plural(len(s.Kept), "version") + ")</summary>\n<ol class=\"versions\">\n")
	for i, k := range s.Kept {
		published := "<span class=\"published muted\">not committed</span>"
		if !k.Published.IsZero() {
			t := feedTime(k.Published)
			published = "<span class=\"published\">published <time datetime=\"" + t + "\">" + t[:strings.IndexByte(t, 'T')] + "</time></span>"
		}
		b.WriteString("<li class=\"version\"><strong class=\"version-name\">" + e(k.Version) + "</strong> · " + published +
			" · <code class=\"uri\">" + e(skillURI(k.Skill)) + "</code> · <code class=\"digest\">" + e(ManifestDigest(k.Skill)) + "</code>\n")
		if i+1 < len(s.Kept) {
			b.WriteString(pageDiff(s.Kept[i+1], k))
		}
		b.WriteString("</li>\n")
	}
	b.WriteString("</ol>\n</details>\n")
	return b.String()
}

// pageDiff renders how SKILL.md changed from one version to the next: a unified diff with
// three lines of context in a <pre>, removed lines in <del> marked "-", added lines in
// <ins> marked "+", each run of unchanged lines left out as "…" (the browser's own styles
// of del and ins tell them apart, so the page's stylesheet, hashed into its policy, stays
// as it is); or a sentence when SKILL.md did not change or is too large to compare
// (lineDiff). A carriage return ending a removed or added line shows as ␍, so that a
// change of line ends is visible; a last line without a newline is followed by
// "\ No newline at end of file", as diff writes it.
func pageDiff(older, newer Kept) string {
	a, b := older.Skill.Files[0].Data, newer.Skill.Files[0].Data
	since := "<p class=\"diff-title muted\">" + catalog.SkillMD + " since " + htmlText(older.Version)
	if bytes.Equal(a, b) {
		return since + ": unchanged.</p>\n"
	}
	lines, ok := lineDiff(a, b)
	if !ok {
		return since + ": changed (" + plural(len(splitLines(string(a))), "line") + " → " +
			plural(len(splitLines(string(b))), "line") + "); too large to show a diff.</p>\n"
	}
	var out strings.Builder
	out.WriteString(since + ":</p>\n<pre class=\"diff\"><code>")
	for _, l := range unified(lines, 3) {
		text, eol := strings.CutSuffix(l.Text, "\n")
		text, cr := strings.CutSuffix(text, "\r")
		text = htmlText(strings.ReplaceAll(text, "\r", "␍"))
		if cr && l.Op != diffSame {
			text += "␍"
		}
		switch l.Op {
		case diffSkip:
			out.WriteString("…")
		case diffDel:
			out.WriteString("<del>-" + text + "</del>")
		case diffAdd:
			out.WriteString("<ins>+" + text + "</ins>")
		default:
			out.WriteString(" " + text)
		}
		out.WriteString("\n")
		if !eol && l.Op != diffSkip {
			out.WriteString("\\ No newline at end of file\n")
		}
	}
	out.WriteString("</code></pre>\n")
	return out.String()
}

// htmlText escapes s for HTML text or an attribute value, and replaces the C0 control
// characters but tab, newline and carriage return (which YAML escapes let into a
// description, and which HTML forbids) with U+FFFD.
func htmlText(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f {
			return '\uFFFD'
		}
		return r
	}, s)
	return html.EscapeString(s)
}

// plural writes "1 skill", "3 skills".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// humanSize writes a byte count with a binary unit: "962 B", "4.1 KiB", "12.0 MiB".
func humanSize(n int64) string {
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + " KiB"
	case n < 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
}
