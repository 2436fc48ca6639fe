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
)

func buildExamples(flags ...string) (build, error) {
	var b build
	out, err := os.MkdirTemp("", "skilledge-extism-")
	if err != nil {
		return b, err
	}
	defer os.RemoveAll(out)
	cmd := exec.Command("go", append([]string{"run", "./runtime/cmd/skilledge", "build", "-o", out}, flags...)...)
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
	store := filepath.Join(out, "assets", "sha256")
	ents, err := os.ReadDir(store)
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
func TestGoSDK(t *testing.T) {
	full, err := artifactsFull()
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]build{"public": built(t), "full": full} {
		t.Run(name, func(t *testing.T) { testGoSDK(t, b) })
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
