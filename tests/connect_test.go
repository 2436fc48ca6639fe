//go:build e2e

package tests

import (
	"encoding/json"
	"html"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// preBlock matches a configuration block of the catalog page: <pre id="config-…"><code>…</code></pre>.
var preBlock = regexp.MustCompile(`(?s)<pre id="(config-[a-z-]+)"><code>(.*?)</code></pre>`)

// connectURL is the MCP URL of the deployment https://skills.example.com, which the page
// writes into its configurations and the README shows.
const connectURL = "https://skills.example.com/mcp"

// connectClients is every configuration the catalog page shows, in order: the client it is
// for and the file it goes in, which the page and the README name beside it, and the shape
// that client's documentation gives a server entry (top: the key that holds the servers;
// entry: the entry named "skills", exactly; stdio: its command and folder must be absolute
// paths). As documented:
//
//   - Claude Code: `claude mcp add --transport http <name> <url>`; a project's .mcp.json
//     holds {"mcpServers": {<name>: {"type": "http", "url": <url>}}}.
//   - Cursor: ~/.cursor/mcp.json, or .cursor/mcp.json in a project, holds
//     {"mcpServers": {<name>: {"url": <url>}}} for a remote server.
//   - VS Code: .vscode/mcp.json holds {"servers": {<name>: {"type": "http", "url": <url>}}}
//     (its own top-level key; type and url required).
//   - Claude Desktop: claude_desktop_config.json holds
//     {"mcpServers": {<name>: {"command": <program>, "args": [...]}}}, started by the app, so
//     with absolute paths.
var connectClients = []struct {
	id, client, file string
	top              string         // "" for the command line
	entry            map[string]any // the server entry "skills"
	stdio            bool
}{
	{id: "config-claude-code", client: "Claude Code"},
	{id: "config-claude-code-json", client: "Claude Code", file: ".mcp.json", top: "mcpServers",
		entry: map[string]any{"type": "http", "url": connectURL}},
	{id: "config-cursor", client: "Cursor", file: "~/.cursor/mcp.json", top: "mcpServers",
		entry: map[string]any{"url": connectURL}},
	{id: "config-vscode", client: "VS Code", file: ".vscode/mcp.json", top: "servers",
		entry: map[string]any{"type": "http", "url": connectURL}},
	{id: "config-claude-desktop", client: "Claude Desktop", file: "claude_desktop_config.json", top: "mcpServers",
		entry: map[string]any{"command": "/absolute/path/to/skilledge", "args": []any{"stdio", "/absolute/path/to/skills"}}, stdio: true},
}

// connectBlock is a configuration as shown: what it says, and the text before it (since
// the previous configuration), which names where it goes.
type connectBlock struct{ id, label, config string }

// pageConnect returns the configurations of the catalog page of the deployment
// https://skills.example.com, as a browser shows them (tags dropped, entities decoded).
func pageConnect(t *testing.T) []connectBlock {
	t.Helper()
	tg := newInProcess(t, []byte(`{"allowHosts":["*"]}`))
	page := string(tg.HTTP(t, []byte("GET /\nHost: skills.example.com\nAccept: text/html\n\n")))
	_, section, ok := strings.Cut(page, `<section id="connect">`)
	if !ok {
		t.Fatalf("the page has no connect section:\n%s", page)
	}
	tag := regexp.MustCompile(`<[^>]*>`)
	var out []connectBlock
	from := 0
	for _, m := range preBlock.FindAllStringSubmatchIndex(section, -1) {
		label := html.UnescapeString(tag.ReplaceAllString(section[from:m[0]], ""))
		out = append(out, connectBlock{section[m[2]:m[3]], label, html.UnescapeString(section[m[4]:m[5]])})
		from = m[1]
	}
	return out
}

// readmeConnect returns the code blocks of the README's "Connect a host", each with the
// text before it (since the previous block).
func readmeConnect(t *testing.T) []connectBlock {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "## Connect a host\n")
	section, _, _ = strings.Cut(section, "\n## ")
	var out []connectBlock
	from := 0
	for _, m := range fencedBlock.FindAllStringSubmatchIndex(section, -1) {
		out = append(out, connectBlock{label: section[from:m[0]], config: strings.TrimSpace(section[m[2]:m[3]])})
		from = m[1]
	}
	return out
}

// TestConnectFormats: each configuration of the catalog page is in the format its client
// documents (connectClients), carries the deployment's URL where it takes one, and has the
// client and the file it goes in named beside it.
func TestConnectFormats(t *testing.T) {
	blocks := pageConnect(t)
	var ids []string
	for _, b := range blocks {
		ids = append(ids, b.id)
	}
	var want []string
	for _, c := range connectClients {
		want = append(want, c.id)
	}
	if !slices.Equal(ids, want) {
		t.Fatalf("the page's configurations are %q, want %q (one for each of connectClients)", ids, want)
	}
	for i, c := range connectClients {
		b := blocks[i]
		t.Run(b.id, func(t *testing.T) {
			if !strings.Contains(b.label, c.client) || !strings.Contains(b.label, c.file) {
				t.Errorf("not named %q, %q beside it; the page says: %s", c.client, c.file, b.label)
			}
			if c.top == "" {
				if got, want := strings.Fields(b.config), []string{"claude", "mcp", "add", "--transport", "http", "skills", connectURL}; !slices.Equal(got, want) {
					t.Errorf("command %q, want %q", got, want)
				}
				return
			}
			var doc map[string]map[string]map[string]any
			if err := json.Unmarshal([]byte(b.config), &doc); err != nil {
				t.Fatalf("%s is no JSON of the shape {%q: {name: {…}}}: %v\n%s", c.file, c.top, err, b.config)
			}
			if len(doc) != 1 || len(doc[c.top]) != 1 {
				t.Fatalf("%s for %s: want exactly {%q: {\"skills\": …}}, got\n%s", c.file, c.client, c.top, b.config)
			}
			entry, ok := doc[c.top]["skills"]
			if !ok || !reflect.DeepEqual(entry, c.entry) {
				t.Errorf("%s for %s: the entry \"skills\" is %v, want %v", c.file, c.client, entry, c.entry)
			}
			if c.stdio {
				command, _ := entry["command"].(string)
				args, _ := entry["args"].([]any)
				if !path.IsAbs(command) || len(args) != 2 || args[0] != "stdio" || !path.IsAbs(args[1].(string)) {
					t.Errorf("%s: want an absolute command and [\"stdio\", an absolute folder], got %v", c.file, entry)
				}
			}
		})
	}
}

// TestREADMEConnect: the README's "Connect a host" shows exactly the configurations the
// catalog page shows, in its order, for the deployment https://skills.example.com, and
// names each one's client and file beside it as the page does.
func TestREADMEConnect(t *testing.T) {
	page, readme := pageConnect(t), readmeConnect(t)
	if len(page) != len(connectClients) {
		t.Fatalf("the page has %d configuration blocks, want %d", len(page), len(connectClients))
	}
	if len(readme) != len(page) {
		t.Fatalf("the README's Connect a host has %d code blocks, the page %d configurations", len(readme), len(page))
	}
	for i, c := range connectClients {
		if readme[i].config != page[i].config {
			t.Errorf("the README's Connect a host block %d is\n%s\nthe page's %s is\n%s", i+1, readme[i].config, c.id, page[i].config)
		}
		if !strings.Contains(readme[i].label, c.client) || !strings.Contains(readme[i].label, c.file) {
			t.Errorf("the README does not name %q, %q beside its block %d; it says: %s", c.client, c.file, i+1, readme[i].label)
		}
	}
}
