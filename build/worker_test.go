package build

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/edge/wire"
)

// TestWorkerMaxBody: the shim's body cap before any options is edge's default, so a body
// the plugin would accept is never cut short by the host.
func TestWorkerMaxBody(t *testing.T) {
	m := regexp.MustCompile(`(?m)^const defaultMaxBody = (\d+);$`).FindSubmatch(Worker)
	if m == nil {
		t.Fatal("worker.mjs has no line `const defaultMaxBody = N;`")
	}
	if n, _ := strconv.Atoi(string(m[1])); n != wire.DefaultMaxBody {
		t.Fatalf("worker.mjs defaultMaxBody = %d, wire.DefaultMaxBody = %d", n, wire.DefaultMaxBody)
	}
}

// TestWorkerImports: the module imports exactly the files build writes beside it and the
// Extism SDK the root wrangler.toml aliases.
func TestWorkerImports(t *testing.T) {
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^import .* from "([^"]+)";$`).FindAllSubmatch(Worker, -1) {
		got = append(got, string(m[1]))
	}
	want := []string{"@extism/extism", "./plugin.wasm", "./catalog.pack"}
	if len(got) != len(want) {
		t.Fatalf("imports %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("imports %q, want %q", got, want)
		}
	}
}

// TestWorkerStoreDir: the shim fetches objects where build writes them in the assets.
func TestWorkerStoreDir(t *testing.T) {
	m := regexp.MustCompile(`(?m)^const storeDir = "([^"]*)";$`).FindSubmatch(Worker)
	if m == nil {
		t.Fatal(`worker.mjs has no line const storeDir = "…";`)
	}
	if want := "/" + catalog.StoreDir + "/"; string(m[1]) != want {
		t.Fatalf("worker.mjs storeDir = %q, want %q", m[1], want)
	}
}
