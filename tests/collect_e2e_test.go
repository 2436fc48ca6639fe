//go:build e2e

package tests

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestJSHostsCollect: workerd and every JavaScript runtime answer request after request
// while the plugin collects at the end of its calls (edge/plugin/gc.go). A collection
// lets the Go runtime's scavenger run, which may sleep on a timer; from then on the runtime
// polls (WASI poll_oneoff) each time it starts the world again, and the Extism SDK's WASI
// shim throws from any poll. Without the host's own poll_oneoff (build/host/poll.mjs), the
// instance failed at the first look at what it allocated (the 64th call) in workerd, whose
// clock stands still within a request, so that the scavenger sleeps at every collection;
// in Node, Deno and Bun the clock moves, and it sleeps only now and then. 256 batches in
// one instance are four looks, and each finds enough allocated to collect.
func TestJSHostsCollect(t *testing.T) {
	d := deployed(t)
	w := workerdProcessWith(t, d, nil, "")
	targets := []hostileTarget{{"workerd", w.urls[0]}}
	for _, rt := range jsRuntimes {
		targets = append(targets, hostileTarget{rt.name, startRuntime(t, rt, withSDK(t, d), "")})
	}
	// Each listing carries 12 KiB of _meta, which the plugin parses: a batch is 768 KiB, under
	// the default body cap (1 MiB), and allocates about as much.
	one := `{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{"_meta":{"pad":"` + strings.Repeat("x", 12<<10) + `"}}}`
	body := "[" + one + strings.Repeat(","+one, 63) + "]"
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			for i := range 256 {
				req, err := http.NewRequest("POST", tg.base+"/mcp", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatalf("batch %d: %v", i, err)
				}
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					t.Fatalf("batch %d: %v", i, err)
				}
				var answers []json.RawMessage
				if resp.StatusCode != 200 || json.Unmarshal(got, &answers) != nil || len(answers) != 64 {
					t.Fatalf("batch %d: %d, %d bytes: %.300s", i, resp.StatusCode, len(got), got)
				}
			}
		})
	}
	if logs := w.logs.String(); strings.Contains(logs, "the plugin failed") {
		t.Errorf("workerd's log says the plugin failed:\n%s", logs)
	}
}
