// Package extism hosts plugin.wasm in the official Extism Go SDK, as any embedder would:
// with only the two files `skilledge build` writes and the contract in the README's
// "Embed in an Extism host". It is its own module so that the SDK (and the wazero version
// it pins) stays out of the main module; it imports nothing of skilledge.
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

// artifacts builds the example catalog with the CLI, once per test binary, and returns
// plugin.wasm and catalog.pack.
var artifacts = sync.OnceValues(func() ([2][]byte, error) {
	var files [2][]byte
	out, err := os.MkdirTemp("", "skilledge-extism-")
	if err != nil {
		return files, err
	}
	defer os.RemoveAll(out)
	cmd := exec.Command("go", "run", "./runtime/cmd/skilledge", "build", "-o", out)
	cmd.Dir = filepath.Join("..", "..")
	if b, err := cmd.CombinedOutput(); err != nil {
		return files, fmt.Errorf("skilledge build: %v\n%s", err, b)
	}
	for i, name := range []string{"plugin.wasm", "catalog.pack"} {
		if files[i], err = os.ReadFile(filepath.Join(out, name)); err != nil {
			return files, err
		}
	}
	return files, nil
})

// built returns plugin.wasm and catalog.pack of the example catalog.
func built(t *testing.T) (wasm, pack []byte) {
	t.Helper()
	files, err := artifacts()
	if err != nil {
		t.Fatal(err)
	}
	return files[0], files[1]
}

// newPlugin creates the plugin with WASI (it is a WASI reactor) and loads the pack.
func newPlugin(t *testing.T, wasm, pack []byte) *extism.Plugin {
	t.Helper()
	ctx := context.Background()
	manifest := extism.Manifest{Wasm: []extism.Wasm{extism.WasmData{Data: wasm, Name: "skilledge"}}}
	p, err := extism.NewPlugin(ctx, manifest, extism.PluginConfig{EnableWasi: true}, nil)
	if err != nil {
		t.Fatalf("extism.NewPlugin: %v", err)
	}
	t.Cleanup(func() { p.Close(ctx) })
	if rc, _, err := p.Call("load", pack); rc != 0 || err != nil {
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
	frame += "\n" + body
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

// TestGoSDK: the Extism Go SDK loads plugin.wasm and a pack, answers initialize and
// skills/list, and every file of a skill read with resources/read (text and blob) has the
// sha256 digest and size skills/list published.
func TestGoSDK(t *testing.T) {
	wasm, pack := built(t)
	p := newPlugin(t, wasm, pack)

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
	var csv *skillEntry
	for i := range list.Skills {
		if list.Skills[i].Name == "csv-insights" {
			csv = &list.Skills[i]
		}
	}
	if csv == nil || len(csv.Resources) < 2 {
		t.Fatalf("no csv-insights skill with files in %s", body)
	}

	sawBlob := false
	for i, r := range csv.Resources {
		req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":%q}}`, 10+i, r.URI)
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
		sum := sha256.Sum256(data)
		if got := "sha256:" + hex.EncodeToString(sum[:]); got != r.Digest || len(data) != r.Size {
			t.Fatalf("%s: read %d bytes with digest %s; skills/list says %d bytes, %s", r.URI, len(data), got, r.Size, r.Digest)
		}
	}
	if !sawBlob {
		t.Fatal("no blob among csv-insights' files: the binary path went unchecked")
	}
}

// TestGoSDKRPC: the rpc export speaks JSON-RPC as a stream transport would, carrying the
// negotiated version from call to call.
func TestGoSDKRPC(t *testing.T) {
	wasm, pack := built(t)
	p := newPlugin(t, wasm, pack)
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
}

// TestGoSDKErrors: a bad pack or bad options is an Extism error that says what is wrong,
// and the plugin keeps serving its previous catalog.
func TestGoSDKErrors(t *testing.T) {
	wasm, pack := built(t)
	p := newPlugin(t, wasm, pack)
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
