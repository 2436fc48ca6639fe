// Package extism hosts plugin.wasm in the official Extism Go SDK, as any embedder would:
// with only the files `skilledge build` writes (plugin.wasm, catalog.pack and the content
// store in assets/sha256/) and the contract in DEPLOY.md's "An Extism host". It
// is its own module so that the SDK (and the wazero version it pins) stays out of the main
// module; it imports nothing of skilledge.
package extism

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	extism "github.com/extism/go-sdk"
)

// build is what `skilledge build` wrote for the example catalog.
type build struct {
	wasm, pack []byte
	objects    [][]byte // the files of assets/sha256/
}

// artifacts builds the example catalog with the CLI, once per test binary: with the
// public plugin, which build ships for it, and (artifactsFull) with the full one.
var (
	artifacts     = sync.OnceValues(func() (build, error) { return buildExamples() })
	artifactsFull = sync.OnceValues(func() (build, error) { return buildExamples("--with-auth") })
	// artifactsSharded is the example catalog with its index sharded as finely as the
	// cuts allow: its shards are objects the host puts like the others.
	artifactsSharded = sync.OnceValues(func() (build, error) { return buildExamples("--shard", "1") })
	// artifactsPacked are the example catalog with its objects in packs of about 4 KiB,
	// its index whole and sharded: the host puts the packs (OUT/packs/sha256/) as objects.
	artifactsPacked        = sync.OnceValues(func() (build, error) { return buildExamples("--pack", "4096") })
	artifactsPackedSharded = sync.OnceValues(func() (build, error) { return buildExamples("--pack", "4096", "--shard", "1") })
)

func buildExamples(flags ...string) (build, error) { return buildFolder("", flags...) }

// buildFolder is buildExamples of the skills folder dir ("": the examples).
func buildFolder(dir string, flags ...string) (build, error) {
	var b build
	out, err := os.MkdirTemp("", "skilledge-extism-")
	if err != nil {
		return b, err
	}
	defer os.RemoveAll(out)
	args := []string{"run", "./runtime/cmd/skilledge", "build", "-o", out}
	if dir != "" {
		args = append(args, dir)
	}
	cmd := exec.Command("go", append(args, flags...)...)
	cmd.Dir = filepath.Join("..", "..")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return b, fmt.Errorf("skilledge build: %v\n%s", err, msg)
	}
	if b.wasm, err = os.ReadFile(filepath.Join(out, "plugin.wasm")); err != nil {
		return b, err
	}
	if b.pack, err = os.ReadFile(filepath.Join(out, "catalog.pack")); err != nil {
		return b, err
	}
	for _, dir := range []string{"assets", "packs"} { // packs only when the build packed
		store := filepath.Join(out, dir, "sha256")
		ents, err := os.ReadDir(store)
		if dir == "packs" && os.IsNotExist(err) {
			break
		}
		if err != nil {
			return b, err
		}
		for _, e := range ents {
			data, err := os.ReadFile(filepath.Join(store, e.Name()))
			if err != nil {
				return b, err
			}
			b.objects = append(b.objects, data)
		}
	}
	return b, nil
}

// built returns what build wrote for the example catalog.
func built(t *testing.T) build {
	t.Helper()
	b, err := artifacts()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newPlugin creates the plugin with WASI (it is a WASI reactor), loads the index and puts
// every object of the content store, as DEPLOY.md says.
func newPlugin(t *testing.T, b build) *extism.Plugin {
	t.Helper()
	p := bare(t, b)
	for _, obj := range b.objects {
		if rc, _, err := p.Call("put", obj); rc != 0 || err != nil {
			t.Fatalf("put: rc %d, %v", rc, err)
		}
	}
	return p
}

// bare creates the plugin and loads the index, with no store object put.
func bare(t *testing.T, b build) *extism.Plugin { return configured(t, b, "") }

// configured creates the plugin, calls configure with options unless they are "", and
// loads the index, with no store object put: DEPLOY.md's steps 1 to 3.
func configured(t *testing.T, b build, options string) *extism.Plugin {
	t.Helper()
	ctx := context.Background()
	manifest := extism.Manifest{Wasm: []extism.Wasm{extism.WasmData{Data: b.wasm, Name: "skilledge"}}}
	p, err := extism.NewPlugin(ctx, manifest, extism.PluginConfig{EnableWasi: true}, nil)
	if err != nil {
		t.Fatalf("extism.NewPlugin: %v", err)
	}
	t.Cleanup(func() { p.Close(ctx) })
	if options != "" {
		if rc, _, err := p.Call("configure", []byte(options)); rc != 0 || err != nil {
			t.Fatalf("configure: rc %d, %v", rc, err)
		}
	}
	if rc, _, err := p.Call("load", b.pack); rc != 0 || err != nil {
		t.Fatalf("load: rc %d, %v", rc, err)
	}
	return p
}

// post calls the http export with a POST of body to /mcp and returns the status and body
// of the response frame. header lines ("Name: value") are added to the request.
func post(t *testing.T, p *extism.Plugin, body string, header ...string) (int, []byte) {
	t.Helper()
	frame := "POST /mcp\nHost: 127.0.0.1:8787\nContent-Type: application/json\n"
	for _, h := range header {
		frame += h + "\n"
	}
	return call(t, p, frame+"\n"+body)
}

// get calls the http export with a GET of target and returns the status and body.
func get(t *testing.T, p *extism.Plugin, target string) (int, []byte) {
	t.Helper()
	return call(t, p, "GET "+target+"\nHost: 127.0.0.1:8787\n\n")
}

// call calls the http export with a request frame and returns the response frame's status
// and body.
func call(t *testing.T, p *extism.Plugin, frame string) (int, []byte) {
	t.Helper()
	rc, out, err := p.Call("http", []byte(frame))
	if rc != 0 || err != nil {
		t.Fatalf("http: rc %d, %v", rc, err)
	}
	head, respBody, ok := bytes.Cut(out, []byte("\n\n"))
	if !ok {
		t.Fatalf("response frame without a blank line: %q", out)
	}
	statusLine, _, _ := strings.Cut(string(head), "\n")
	status, err := strconv.Atoi(statusLine)
	if err != nil {
		t.Fatalf("response frame status %q", statusLine)
	}
	return status, respBody
}

// rpcResult decodes a JSON-RPC response and fails t on an error response.
func rpcResult(t *testing.T, body []byte, result any) {
	t.Helper()
	var resp struct {
		Result json.RawMessage
		Error  *struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatalf("not JSON-RPC: %v: %s", err, body)
	}
	if resp.Error != nil {
		t.Fatalf("JSON-RPC error %d: %s", resp.Error.Code, resp.Error.Message)
	}
	if err := json.Unmarshal(resp.Result, result); err != nil {
		t.Fatalf("result: %v: %s", err, resp.Result)
	}
}

type skillEntry struct {
	URI       string
	Name      string
	Resources []struct {
		URI    string
		Digest string
		Size   int
	}
}

// TestGoSDK: the Extism Go SDK loads plugin.wasm (the public one, and the full one that
// build --with-auth ships), the index and the store's objects,
// answers initialize and skills/list, and every file of every skill read with
// resources/read (text and blob) and over well-known HTTP has the sha256 digest and size
// skills/list published.
func TestGoSDK(t *testing.T) { bothPlugins(t, testGoSDK) }

// bothPlugins runs test as a subtest with the example catalog's build for the public plugin
// and with its build for the full one.
func bothPlugins(t *testing.T, test func(*testing.T, build)) {
	full, err := artifactsFull()
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]build{"public": built(t), "full": full} {
		t.Run(name, func(t *testing.T) { test(t, b) })
	}
}

func testGoSDK(t *testing.T, b build) {
	p := newPlugin(t, b)

	status, body := post(t, p, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"extism-go","version":"1"}}}`)
	var init struct {
		ProtocolVersion string
		Capabilities    map[string]json.RawMessage
		ServerInfo      struct{ Name string }
	}
	rpcResult(t, body, &init)
	if status != 200 || init.ProtocolVersion != "2025-11-25" || init.ServerInfo.Name != "skilledge" || init.Capabilities["skills"] == nil {
		t.Fatalf("initialize: %d %s", status, body)
	}

	v := "MCP-Protocol-Version: 2025-11-25"
	status, body = post(t, p, `{"jsonrpc":"2.0","id":2,"method":"skills/list"}`, v)
	var list struct{ Skills []skillEntry }
	rpcResult(t, body, &list)
	if status != 200 || len(list.Skills) != 6 {
		t.Fatalf("skills/list: %d, %d skills: %s", status, len(list.Skills), body)
	}

	sawBlob, files := false, 0
	for _, s := range list.Skills {
		for _, r := range s.Resources {
			files++
			req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":%q}}`, 10+files, r.URI)
			status, body := post(t, p, req, v)
			var read struct {
				Contents []struct {
					URI, Text, Blob string
				}
			}
			rpcResult(t, body, &read)
			if status != 200 || len(read.Contents) != 1 || read.Contents[0].URI != r.URI {
				t.Fatalf("resources/read %s: %d %s", r.URI, status, body)
			}
			data := []byte(read.Contents[0].Text)
			if b := read.Contents[0].Blob; b != "" {
				sawBlob = true
				var err error
				if data, err = base64.StdEncoding.DecodeString(b); err != nil {
					t.Fatalf("%s: blob: %v", r.URI, err)
				}
			}
			checkDigest(t, r.URI, data, r.Digest, r.Size)
			// The same bytes over well-known HTTP (skills keyed by name: s.Name).
			rel := strings.TrimPrefix(r.URI, strings.TrimSuffix(s.URI, "SKILL.md"))
			status, raw := get(t, p, "/.well-known/skills/"+s.Name+"/"+rel)
			if status != 200 {
				t.Fatalf("well-known %s/%s: %d %s", s.Name, rel, status, raw)
			}
			checkDigest(t, "well-known "+r.URI, raw, r.Digest, r.Size)
		}
	}
	if !sawBlob || files < 13 {
		t.Fatalf("read %d files, a blob among them: %v", files, sawBlob)
	}
}

// checkDigest fails t unless data has the digest and size a skill entry published.
func checkDigest(t *testing.T, what string, data []byte, digest string, size int) {
	t.Helper()
	sum := sha256.Sum256(data)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != digest || len(data) != size {
		t.Fatalf("%s: read %d bytes with digest %s; skills/list says %d bytes, %s", what, len(data), got, size, digest)
	}
}

// TestGoSDKStore: before its objects are put, a read that needs one is a 500 saying which
// and what to do; an object of another catalog is refused.
func TestGoSDKStore(t *testing.T) {
	p := bare(t, built(t))
	status, body := post(t, p, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://git-workflow/SKILL.md"}}`)
	if status != 500 || !bytes.HasPrefix(body, []byte("skilledge: store object ")) ||
		!bytes.HasSuffix(body, []byte(" (skill://git-workflow/SKILL.md as resources/read sends it) was not given to the plugin; call put with every file of OUT/assets/sha256/\n")) {
		t.Fatalf("read before put: %d %s", status, body)
	}
	if status, body := post(t, p, `{"jsonrpc":"2.0","id":2,"method":"skills/list"}`); status != 200 || !bytes.Contains(body, []byte(`"skills":[`)) {
		t.Fatalf("skills/list needs no object: %d %s", status, body)
	}
	if rc, _, err := p.Call("put", []byte("not an object of this catalog")); rc != 1 || err == nil || !strings.Contains(err.Error(), "refers to no object with these bytes") {
		t.Fatalf("put of a foreign object: rc %d, err %v", rc, err)
	}
}

// TestGoSDKSharded: a catalog whose index is sharded is served by an Extism host as any
// other: the host puts every object of the store, shards among them, and every answer
// is whole; before the shards are put, a request that reads one is a 500 saying to put
// them.
func TestGoSDKSharded(t *testing.T) {
	b, err := artifactsSharded()
	if err != nil {
		t.Fatal(err)
	}
	t.Run("everything", func(t *testing.T) { testGoSDK(t, b) })
	t.Run("search", func(t *testing.T) { testGoSDKSearch(t, b) })
	p := bare(t, b)
	status, body := post(t, p, `{"jsonrpc":"2.0","id":1,"method":"skills/list"}`, "MCP-Protocol-Version: 2025-11-25")
	if status != 500 || !bytes.HasPrefix(body, []byte("skilledge: index shard ")) || !bytes.HasSuffix(body, []byte(" was not given to the plugin; call put with every file of OUT/assets/sha256/\n")) {
		t.Fatalf("skills/list before put: %d %s", status, body)
	}
}

// TestGoSDKPacked: a catalog whose objects are packed is served by an Extism host that
// puts every file of OUT/packs/sha256/ beside those of OUT/assets/sha256/, its index whole
// or sharded; before the packs are put, a read of a packed object is a 500 saying to put
// them.
func TestGoSDKPacked(t *testing.T) {
	for name, artifacts := range map[string]func() (build, error){"whole": artifactsPacked, "sharded": artifactsPackedSharded} {
		t.Run(name, func(t *testing.T) {
			b, err := artifacts()
			if err != nil {
				t.Fatal(err)
			}
			t.Run("everything", func(t *testing.T) { testGoSDK(t, b) })
			p := bare(t, b)
			for _, o := range b.objects {
				if len(o) >= 8 && string(o[:8]) == string(b.pack[:8]) { // the index's own parts (shards), not packs
					if rc, _, err := p.Call("put", o); rc != 0 || err != nil {
						t.Fatalf("put of a shard: rc %d, err %v", rc, err)
					}
				}
			}
			status, body := post(t, p, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://git-workflow/SKILL.md"}}`, "MCP-Protocol-Version: 2025-11-25")
			if status != 500 || !bytes.Contains(body, []byte("was not given to the plugin; call put with every file of OUT/assets/sha256/ and OUT/packs/sha256/")) {
				t.Fatalf("a read before the packs are put: %d %s", status, body)
			}
		})
	}
}

// TestGoSDKPrivateSharded: a private catalog built sharded, each view's index an object of
// the store, is served by an Extism host that puts every object as DEPLOY.md says: each
// caller (a static key from skilledge key) is answered from its own view, whose index the
// plugin reads from what was put; the reader is not told of the finance skill, which
// answers as a skill that never existed, and the finance caller is served it.
func TestGoSDKPrivateSharded(t *testing.T) {
	dir := t.TempDir()
	for path, data := range map[string]string{
		"public/SKILL.md":         "---\nname: public\ndescription: A public skill.\n---\nPublic.\n",
		"finance/ledger/SKILL.md": "---\nname: ledger\ndescription: Closes the books QUARTERLYSECRET.\n---\nLedger.\n",
		"drafts/idea/SKILL.md":    "---\nname: idea\ndescription: An unlisted idea.\n---\nIdea.\n",
		"skilledge.yaml":          "access:\n  default: [skills:read]\n  rules:\n    - path: finance/\n      scopes: [skills:finance]\n    - path: drafts/\n      listed: false\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, path), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := buildFolder(dir, "--shard", "1")
	if err != nil {
		t.Fatal(err)
	}
	key := func(scopes string) (secret, entry string) {
		cmd := exec.Command("go", "run", "./runtime/cmd/skilledge", "key", "--scope", scopes)
		cmd.Dir = filepath.Join("..", "..")
		out, err := cmd.Output()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if err != nil || len(lines) != 2 {
			t.Fatalf("skilledge key: %v\n%s", err, out)
		}
		return lines[0], lines[1]
	}
	reader, readerEntry := key("skills:read")
	finance, financeEntry := key("skills:read skills:finance")
	p := configured(t, b, `{"auth":{"resource":"https://skills.example/mcp","tokens":[`+readerEntry+`,`+financeEntry+`]}}`)
	for _, obj := range b.objects {
		if rc, _, err := p.Call("put", obj); rc != 0 || err != nil {
			t.Fatalf("put: rc %d, %v", rc, err)
		}
	}
	ask := func(secret, body string) string {
		status, out := post(t, p, body, "MCP-Protocol-Version: 2025-11-25", "Authorization: Bearer "+secret)
		if status != 200 {
			t.Fatalf("%s: %d %s", body, status, out)
		}
		return string(out)
	}
	const list = `{"jsonrpc":"2.0","id":1,"method":"skills/list"}`
	if got := ask(reader, list); !strings.Contains(got, "skill://public/SKILL.md") || strings.Contains(got, "ledger") || strings.Contains(got, "QUARTERLYSECRET") || strings.Contains(got, "idea") {
		t.Errorf("the reader's skills/list: %s", got)
	}
	if got := ask(finance, list); !strings.Contains(got, "skill://finance/ledger/SKILL.md") || strings.Contains(got, "idea") {
		t.Errorf("the finance caller's skills/list: %s", got)
	}
	read := func(uri string) string {
		return `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"` + uri + `"}}`
	}
	hidden, absent := ask(reader, read("skill://finance/ledger/SKILL.md")), ask(reader, read("skill://finance/nosuch1/SKILL.md"))
	if strings.ReplaceAll(absent, "nosuch1", "ledger") != hidden || strings.Contains(hidden, "QUARTERLYSECRET") {
		t.Errorf("the reader's read of the hidden skill is not that of an absent one:\n%s\n%s", hidden, absent)
	}
	if got := ask(finance, read("skill://finance/ledger/SKILL.md")); !strings.Contains(got, "QUARTERLYSECRET") {
		t.Errorf("the finance caller's read of the ledger: %s", got)
	}
	if got := ask(reader, read("skill://drafts/idea/SKILL.md")); !strings.Contains(got, "An unlisted idea.") {
		t.Errorf("the reader's read of the unlisted draft: %s", got)
	}
}

// TestGoSDKRPC: the rpc export speaks JSON-RPC as a stream transport would, carrying the
// negotiated version from call to call.
func TestGoSDKRPC(t *testing.T) {
	p := newPlugin(t, built(t))
	call := func(version, msg string) (string, string) {
		rc, out, err := p.Call("rpc", []byte(version+"\n"+msg))
		if rc != 0 || err != nil {
			t.Fatalf("rpc: rc %d, %v", rc, err)
		}
		v, reply, _ := strings.Cut(string(out), "\n")
		return v, reply
	}
	v, reply := call("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"extism-go","version":"1"}}}`)
	if v != "2025-06-18" || !strings.Contains(reply, `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize over rpc: version %q, reply %s", v, reply)
	}
	if v, reply = call(v, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); v != "2025-06-18" || reply != "" {
		t.Fatalf("notification: version %q, reply %q", v, reply)
	}
	if _, reply = call(v, `{"jsonrpc":"2.0","id":2,"method":"skills/list"}`); !strings.Contains(reply, `"uri":"skill://git-workflow/SKILL.md"`) {
		t.Fatalf("skills/list over rpc: %s", reply)
	}
	// The SEP-2076 instructions are a store object, spliced in by the plugin.
	if _, reply = call(v, `{"jsonrpc":"2.0","id":3,"method":"skills/get","params":{"name":"git-workflow"}}`); !strings.Contains(reply, `"instructions":"\n# Git workflow\n`) {
		t.Fatalf("skills/get {name} over rpc: %s", reply)
	}
}

// TestGoSDKErrors: a bad pack or bad options is an Extism error that says what is wrong,
// and the plugin keeps serving its previous catalog.
func TestGoSDKErrors(t *testing.T) {
	p := newPlugin(t, built(t))
	if rc, _, err := p.Call("load", []byte("not a pack")); rc != 1 || err == nil {
		t.Fatalf("load of garbage: rc %d, err %v", rc, err)
	} else {
		t.Logf("load of garbage: %v", err)
	}
	if rc, _, err := p.Call("configure", []byte(`{"pageSize":"ten"}`)); rc != 1 || err == nil || !strings.Contains(err.Error(), "pageSize") {
		t.Fatalf("configure with a bad value: rc %d, err %v", rc, err)
	}
	status, body := post(t, p, `{"jsonrpc":"2.0","id":1,"method":"skills/list"}`, "MCP-Protocol-Version: 2025-11-25")
	if status != 200 || !bytes.Contains(body, []byte(`"skills":[`)) {
		t.Fatalf("after the failed calls: %d %s", status, body)
	}
}

// TestGoSDKHostNames: DEPLOY.md's embedding steps as written. Without configure the
// plugin answers only loopback Host names (and says which option to set); after configure
// with DEPLOY.md's example options it answers a public name.
func TestGoSDKHostNames(t *testing.T) {
	b := built(t)
	public := "POST /mcp\nHost: skills.example.com\nContent-Type: application/json\nMCP-Protocol-Version: 2025-11-25\n\n" +
		`{"jsonrpc":"2.0","id":1,"method":"skills/list"}`

	p := newPlugin(t, b) // steps 1, 3 and 4: no configure
	status, body := call(t, p, public)
	if status != 403 || !strings.Contains(string(body), `Host \"skills.example.com\" is not allowed`) || !strings.Contains(string(body), "allowHosts") {
		t.Fatalf("without configure, Host skills.example.com: %d %s", status, body)
	}
	if status, body := post(t, p, `{"jsonrpc":"2.0","id":2,"method":"skills/list"}`); status != 200 || !bytes.Contains(body, []byte(`"skills":[`)) {
		t.Fatalf("without configure, a loopback Host: %d %s", status, body)
	}

	deploy, err := os.ReadFile(filepath.Join("..", "..", "DEPLOY.md"))
	if err != nil {
		t.Fatal(err)
	}
	const example = `{"allowOrigins":["*"],"allowHosts":["*"]}`
	if !strings.Contains(string(deploy), "`"+example+"`") {
		t.Fatalf("DEPLOY.md's embedding steps no longer show the options %s", example)
	}
	p = configured(t, b, example)
	for _, obj := range b.objects {
		if rc, _, err := p.Call("put", obj); rc != 0 || err != nil {
			t.Fatalf("put: rc %d, %v", rc, err)
		}
	}
	if status, body := call(t, p, public); status != 200 || !bytes.Contains(body, []byte(`"skills":[`)) {
		t.Fatalf("after configure, Host skills.example.com: %d %s", status, body)
	}
}

// TestGoSDKSearch: search answers in an Extism host as on every other (PROTOCOL.md's
// Search), in both plugins: skills/list with a query, page after page by its cursor, each
// hit the very entry the plain listing gives (so its digests verify it); the HTTP search
// with the same hits in the same order; the search_skills tool once configure turns the
// tools on; completion by search; and an empty query refused with -32602.
func TestGoSDKSearch(t *testing.T) { bothPlugins(t, testGoSDKSearch) }

func testGoSDKSearch(t *testing.T, b build) {
	p := configured(t, b, `{"tools":true}`)
	for _, obj := range b.objects { // a sharded index's listings read its shards
		if rc, _, err := p.Call("put", obj); rc != 0 || err != nil {
			t.Fatalf("put: rc %d, %v", rc, err)
		}
	}
	v := "MCP-Protocol-Version: 2025-11-25"
	const query = "chart a CSV file"

	_, body := post(t, p, `{"jsonrpc":"2.0","id":1,"method":"skills/list"}`, v)
	var listing struct{ Skills []json.RawMessage }
	rpcResult(t, body, &listing)
	entries := map[string]string{} // by uri: the plain listing's entry, as it was sent
	for _, raw := range listing.Skills {
		var s skillEntry
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		entries[s.URI] = string(raw)
	}

	var hits []string // the uris of the hits, page after page
	cursor := ""
	for page := 0; ; page++ {
		params := fmt.Sprintf(`{"query":%q,"limit":1}`, query)
		if cursor != "" {
			params = fmt.Sprintf(`{"query":%q,"limit":1,"cursor":%q}`, query, cursor)
		}
		status, body := post(t, p, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"skills/list","params":%s}`, 10+page, params), v)
		var res struct {
			Skills     []json.RawMessage
			NextCursor string
		}
		rpcResult(t, body, &res)
		if status != 200 || len(res.Skills) != 1 || page > 10 {
			t.Fatalf("skills/list {query %q} page %d: %d %s", query, page, status, body)
		}
		var s skillEntry
		if err := json.Unmarshal(res.Skills[0], &s); err != nil {
			t.Fatal(err)
		}
		if string(res.Skills[0]) != entries[s.URI] {
			t.Fatalf("hit %s is not the listing's entry:\n%s\n%s", s.URI, res.Skills[0], entries[s.URI])
		}
		hits = append(hits, s.URI)
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if len(hits) < 2 || hits[0] != "skill://csv-insights/SKILL.md" {
		t.Fatalf("skills/list {query %q}: %v, csv-insights first and more after it", query, hits)
	}

	status, body := get(t, p, "/.well-known/agent-skills/search?q=chart+a+CSV+file")
	var httpSearch struct {
		Total  int
		Skills []struct{ Name, Path string }
	}
	if err := json.Unmarshal(body, &httpSearch); status != 200 || err != nil || httpSearch.Total != len(hits) || len(httpSearch.Skills) != len(hits) {
		t.Fatalf("HTTP search: %d %v %s; skills/list found %v", status, err, body, hits)
	}
	for i, s := range httpSearch.Skills {
		if want := "skill://" + s.Path + "/SKILL.md"; hits[i] != want {
			t.Fatalf("HTTP search hit %d is %s, skills/list's %s", i, want, hits[i])
		}
	}

	status, body = post(t, p, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_skills","arguments":{"query":%q}}}`, query), v)
	var tool struct {
		IsError           bool
		Content           []struct{ Type, URI string }
		StructuredContent struct{ Total int }
	}
	rpcResult(t, body, &tool)
	var links []string
	for _, c := range tool.Content {
		if c.Type == "resource_link" {
			links = append(links, c.URI)
		}
	}
	if status != 200 || tool.IsError || tool.StructuredContent.Total != len(hits) || strings.Join(links, " ") != strings.Join(hits, " ") {
		t.Fatalf("search_skills: %d %s; skills/list found %v", status, body, hits)
	}

	_, body = post(t, p, `{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"skill://{+skillPath}/SKILL.md"},"argument":{"name":"skillPath","value":"charts from a csv"}}}`, v)
	var completion struct{ Completion struct{ Values []string } }
	rpcResult(t, body, &completion)
	if vals := completion.Completion.Values; len(vals) == 0 || vals[0] != "csv-insights" {
		t.Fatalf("completion of skillPath by search: %s", body)
	}

	status, body = post(t, p, `{"jsonrpc":"2.0","id":4,"method":"skills/list","params":{"query":"   "}}`, v)
	if status != 200 || !bytes.Contains(body, []byte(`"error":{"code":-32602,"message":"params.query: the query has no words`)) {
		t.Fatalf("an empty query: %d %s", status, body)
	}
}
