//go:build e2e

package tests

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	skillarchive "github.com/skilledge/skilledge/catalog/archive"
)

// TestPullMemory: `skilledge pull` holds one skill's files in memory at a time, writing
// each to its temporary folder as it verifies: its peak is a small multiple of the
// largest skill, not of the catalog. Twenty skills of a 12 MiB file of zeros each (240
// MiB unpacked, some kilobytes on the wire) took 240 MiB and more when every skill was
// held until all had verified. Over --max-total, the same pull is refused, writing
// nothing.
func TestPullMemory(t *testing.T) {
	cli, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	const skills, fileSize = 20, 12 << 20
	arts := map[string][]byte{}
	var entries []map[string]any
	for i := range skills {
		name := fmt.Sprint("big", i)
		b, err := skillarchive.TarGz([]skillarchive.Entry{
			{Name: "SKILL.md", Data: []byte("---\nname: " + name + "\ndescription: One large file.\n---\n")},
			{Name: "zeros.bin", Data: make([]byte, fileSize)},
		})
		if err != nil {
			t.Fatal(err)
		}
		arts[name+".tar.gz"] = b
		entries = append(entries, map[string]any{"name": name, "type": "archive", "description": "One large file.",
			"url": name + ".tar.gz", "digest": fmt.Sprintf("sha256:%x", sha256.Sum256(b))})
	}
	index, _ := json.Marshal(map[string]any{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json", "skills": entries})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/.well-known/agent-skills/")
		switch {
		case name == "index.json":
			w.Header().Set("Content-Type", "application/json")
			w.Write(index)
		case arts[name] != nil:
			w.Header().Set("Content-Type", "application/gzip")
			w.Write(arts[name])
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	dir := filepath.Join(t.TempDir(), "skills")
	out, peak, err := runPeak(exec.Command(cli, "pull", srv.URL, dir, "--allow-http-loopback"))
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("%d installed", skills)) {
		t.Fatalf("pull: %v\n%s", err, out)
	}
	t.Logf("peak RSS %.1f MiB for %d skills of %d MiB", float64(peak)/(1<<20), skills, fileSize>>20)
	if limit := int64(4*fileSize + 64<<20); peak > limit {
		t.Fatalf("pull peaked at %.1f MiB of memory, over %d MiB (four times the largest skill and 64 MiB)", float64(peak)/(1<<20), limit>>20)
	}
	other := filepath.Join(t.TempDir(), "skills")
	out, err = exec.Command(cli, "pull", srv.URL, other, "--allow-http-loopback", "--max-total", "100").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "hold more than 100 MiB of files") {
		t.Fatalf("pull over --max-total: %v\n%s", err, out)
	}
	if left, _ := os.ReadDir(filepath.Dir(other)); len(left) != 0 {
		t.Fatalf("a refused pull left %d entries beside DIR, or DIR itself", len(left))
	}
}
