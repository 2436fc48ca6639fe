//go:build e2e

package tests

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// preBlock matches a configuration block of the catalog page: <pre id="config-…"><code>…</code></pre>.
var preBlock = regexp.MustCompile(`(?s)<pre id="(config-[a-z]+)"><code>(.*?)</code></pre>`)

// TestREADMEConnect: the README's "Connect a host" shows exactly the configurations the
// catalog page shows, for the deployment https://skills.example.com.
func TestREADMEConnect(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "## Connect a host\n")
	section, _, _ = strings.Cut(section, "\n## ")
	blocks := codeBlocks(section)

	tg := newInProcess(t, []byte(`{"allowHosts":["*"]}`))
	page := tg.HTTP(t, []byte("GET /\nHost: skills.example.com\nAccept: text/html\n\n"))
	found := preBlock.FindAllStringSubmatch(string(page), -1)
	if len(found) != 3 {
		t.Fatalf("the page has %d configuration blocks, want 3:\n%s", len(found), page)
	}
	for _, m := range found {
		config := html.UnescapeString(m[2])
		if !strings.Contains(config, "https://skills.example.com/mcp") && m[1] != "config-stdio" {
			t.Errorf("%s does not carry the deployment's URL: %s", m[1], config)
		}
		if !contains(blocks, config) {
			t.Errorf("the README's Connect a host does not show the page's %s:\n%s\n(its code blocks: %q)", m[1], config, blocks)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
