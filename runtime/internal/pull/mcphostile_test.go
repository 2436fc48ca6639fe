package pull

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/skilledge/skilledge/runtime/internal/verify"
)

// mcpFile is a file an MCP test server lists (with the digest and size of listed) and
// reads back (read, which a hostile case makes differ).
type mcpFile struct{ uri, listed, read string }

// newMCPServer serves skills/list and resources/read (2026-07-28, JSON answers) for
// skills, each a SKILL.md URI and its files, and returns its MCP endpoint.
func newMCPServer(t *testing.T, skills map[string][]mcpFile) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     int    `json:"id"`
			Method string `json:"method"`
			Params struct {
				URI string `json:"uri"`
			} `json:"params"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		var result any
		switch req.Method {
		case "skills/list":
			var list []any
			for uri, files := range skills {
				var res []any
				for _, f := range files {
					res = append(res, map[string]any{"uri": f.uri, "digest": digestOf([]byte(f.listed)), "size": len(f.listed)})
				}
				name := strings.TrimSuffix(uri, "/SKILL.md")
				name = name[strings.LastIndex(name, "/")+1:]
				if strings.HasPrefix(files[0].listed, "---\nname: ") {
					name = strings.SplitN(strings.TrimPrefix(files[0].listed, "---\nname: "), "\n", 2)[0]
				}
				entry := map[string]any{"uri": uri, "frontmatter": map[string]any{"name": name}, "resources": res}
				if v := frontmatterVersion([]byte(files[0].listed)); v != "" {
					entry["version"] = v // as skills/list gives it
				}
				list = append(list, entry)
			}
			result = map[string]any{"skills": list}
		case "resources/read":
			for _, files := range skills {
				for _, f := range files {
					if f.uri == req.Params.URI {
						result = map[string]any{"contents": []any{map[string]any{"uri": f.uri, "text": f.read}}}
					}
				}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		if result == nil {
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32602, "message": "not found"}})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// same is a file listed and read alike.
func same(uri, data string) mcpFile { return mcpFile{uri, data, data} }

// TestHostileMCPServer is TestHostileServer for the MCP path: each case of issue 30,
// item 7 that a skills/list and resources/read can play, served as the skill "evil"
// beside a good "alpha". Each is refused naming the case, and DIR is left as it was.
func TestHostileMCPServer(t *testing.T) {
	md := skillMD("evil", "Evil.")
	alpha := []mcpFile{same("skill://alpha/SKILL.md", skillMD("alpha", "Alpha."))}
	cases := []struct {
		name string
		evil map[string][]mcpFile
		want string
	}{
		{"URI with dot-dot", map[string][]mcpFile{"skill://evil/SKILL.md": {same("skill://evil/SKILL.md", md), same("skill://evil/../../escaped", "x")}}, "does not name a file path"},
		{"absolute path", map[string][]mcpFile{"skill://evil/SKILL.md": {same("skill://evil/SKILL.md", md), same("skill://evil//etc/passwd", "x")}}, "does not name a file path"},
		{"encoded separators", map[string][]mcpFile{"skill://evil/SKILL.md": {same("skill://evil/SKILL.md", md), same("skill://evil/a%2F..%2F..%2Fescaped", "x")}}, "does not name a file path"},
		{"backslash", map[string][]mcpFile{"skill://evil/SKILL.md": {same("skill://evil/SKILL.md", md), same(`skill://evil/..\..\escaped`, "x")}}, "does not name a file path"},
		{"skill path with dot-dot", map[string][]mcpFile{"skill://../evil/SKILL.md": {same("skill://../evil/SKILL.md", md)}}, "not a plain relative path"},
		{"names that collide when case is folded", map[string][]mcpFile{"skill://evil/SKILL.md": {same("skill://evil/SKILL.md", md), same("skill://evil/README.md", "a"), same("skill://evil/readme.md", "b")}}, "Windows, macOS"},
		{"names that collide when normalized (NFC/NFD)", map[string][]mcpFile{"skill://evil/SKILL.md": {same("skill://evil/SKILL.md", md), same("skill://evil/caf%C3%A9.md", "a"), same("skill://evil/cafe%CC%81.md", "b")}}, "Windows, macOS"},
		{"file list that changes between list and read", map[string][]mcpFile{"skill://evil/SKILL.md": {same("skill://evil/SKILL.md", md), {"skill://evil/notes.md", "listed\n", "changed since\n"}}}, "changed between list and read"},
		{"digest mismatch", map[string][]mcpFile{"skill://evil/SKILL.md": {{"skill://evil/SKILL.md", md, md + "#"}}}, "listed as"},
		{"huge body", map[string][]mcpFile{"skill://evil/SKILL.md": {{"skill://evil/SKILL.md", md, strings.Repeat("x", 4<<20)}}}, "too large"},
		{"skill whose name does not match its folder", map[string][]mcpFile{"skill://other/SKILL.md": {same("skill://other/SKILL.md", md)}}, "last segment of its path"},
		{"a SKILL.md read back under another name than listed", map[string][]mcpFile{"skill://evil/SKILL.md": {{"skill://evil/SKILL.md", md, skillMD("alpha", "Evil.")}}}, "listed as"},
		{"two skills of one name", map[string][]mcpFile{"skill://evil/SKILL.md": {same("skill://evil/SKILL.md", md)}, "skill://x/evil/SKILL.md": {same("skill://x/evil/SKILL.md", md)}}, "both named"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			skills := map[string][]mcpFile{"skill://alpha/SKILL.md": alpha}
			for k, v := range c.evil {
				skills[k] = v
			}
			pullRefused(t, newMCPServer(t, skills), c.want)
		})
	}
	// The good skill alone pulls, in the MCP path, with its path locked.
	dir := t.TempDir()
	if _, err := Pull(context.Background(), newMCPServer(t, map[string][]mcpFile{"skill://team/alpha/SKILL.md": {same("skill://team/alpha/SKILL.md", skillMD("alpha", "Alpha."))}}), dir, Options{Verify: verify.Options{AllowHTTPLoopback: true}}); err != nil {
		t.Fatal(err)
	}
	if l, _ := ReadLock(dir); len(l.Skills) != 1 || l.Skills[0].Path != "team/alpha" {
		t.Errorf("lock %+v", l)
	}
}
