package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStatsCommand: stats prints what a JSON log says (telemetry's tests hold the tables
// to both sources), fails on a file without a request line, and wants --top of at least 1.
func TestStatsCommand(t *testing.T) {
	dir := t.TempDir()
	log, empty := filepath.Join(dir, "requests.log"), filepath.Join(dir, "empty.log")
	os.WriteFile(log, []byte(`{"msg":"request","duration_ms":2,"mcp.method.name":"ping"}`+"\n"), 0o644)
	os.WriteFile(empty, []byte("skilledge: serving\n"), 0o644)
	code, stdout, stderr := call(t, "", "stats", log)
	expect(t, code, stdout, stderr, 0, log+": 1 requests, 0 replayed, 0 errors (0.0%)\n\nNo skill was read.\n", "")
	expect(t, code, stdout, stderr, 0, "ping", "")
	code, stdout, stderr = call(t, "", "stats", empty)
	expect(t, code, stdout, stderr, 1, "", "skilledge stats: "+empty+" holds no request lines")
	code, stdout, stderr = call(t, "", "stats", "--top", "0", log)
	expect(t, code, stdout, stderr, 2, "", "skilledge stats: --top must be at least 1")
}
