//go:build benchreport

package runtime

import (
	"os"
	"path/filepath"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/skilledge/skilledge/edge/wire"
)

// TestPGOProfile writes edge/plugin/default.pgo, the CPU profile the go command uses to
// optimise the plugin (profile-guided optimisation: -pgo=auto picks a default.pgo beside
// the main package). It profiles edge compiled natively, answering in turn the requests
// that dominate a server's traffic: a 2026-07-28 resources/read framed as the hosts frame
// it (only edge.RequestFields) and as a verbose client sends it, skills/list,
// resources/list, and a 2025 initialize. Rerun it after a change to the request path:
//
//	go test -tags benchreport -run PGOProfile -count=1 ./runtime/
//
// A stale profile only optimises less; the build stays correct.
func TestPGOProfile(t *testing.T) {
	enc := benchPack(t)
	native := nativeServer(t, enc.Index)
	modern := func(method, name, params string) []byte {
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		h := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream",
			"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", method}
		if name != "" {
			h = append(h, "Mcp-Name", name)
		}
		return frame("POST", "/mcp", body, h...)
	}
	const file = "skill://bench/one-line.md"
	requests := [][]byte{
		modern("resources/read", file, `"uri":"`+file+`",`),
		benchRequest(file),
		modern("skills/list", "", ""),
		modern("resources/list", "", ""),
		postFrame(initialize),
	}
	for _, req := range requests { // every request is answered, not refused
		r, err := wire.ParseRequest(req)
		requireNoError(t, err)
		resp, err := wire.ParseResponse(native.AppendHTTP(nil, &r))
		requireNoError(t, err)
		if resp.Status != 200 {
			t.Fatalf("%d for %.200s", resp.Status, req)
		}
	}

	path := filepath.Join("..", "edge", "plugin", "default.pgo")
	f, err := os.Create(path)
	requireNoError(t, err)
	defer f.Close()
	requireNoError(t, pprof.StartCPUProfile(f))
	var (
		hdr wire.Header
		dst []byte
		n   int
	)
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
		for _, req := range requests {
			r, _ := wire.ParseRequestInto(req, hdr)
			hdr = r.Header[:0]
			dst = native.AppendHTTP(dst[:0], &r)
			n++
		}
	}
	pprof.StopCPUProfile()
	requireNoError(t, f.Close())
	t.Logf("wrote %s: %d requests profiled", path, n)
}
