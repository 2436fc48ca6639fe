//go:build e2e && benchreport

package tests

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServeScaleMemory measures `skilledge serve` at scale: the generated catalogs of
// 1,000, 10,000 and 50,000 skills (writeScaleCatalog), each served from its folder as a
// user runs it (`serve DIR`, which builds into the user cache as `build` would, the index
// sharded past about 7 MiB), answering the first page of skills/list and then 2,000
// resources/read of SKILL.md files picked at random from the whole catalog; and writes the
// process's resident memory then, and its peak, to the serve-at-scale section of
// BENCHMARKS.md. Nothing here fails on a figure.
func TestServeScaleMemory(t *testing.T) {
	cli, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s: `skilledge serve DIR` (its default pool), after the first page of `skills/list` and 2,000 reads of\n", time.Now().UTC().Format("2006-01-02"))
	b.WriteString("SKILL.md files picked at random from the whole catalog. The build into the user cache is not counted: the server is\n")
	b.WriteString("started a second time, on the cached build.\n\n")
	b.WriteString("| catalog | the index the server loads | resident after | peak |\n|---|---|---|---|\n")
	for _, n := range []int{1000, 10000, 50000} {
		dir := t.TempDir()
		folder := filepath.Join(dir, "skills")
		if err := writeScaleCatalog(folder, n); err != nil {
			t.Fatal(err)
		}
		env := append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
		serve := func() (string, *exec.Cmd) {
			cmd := exec.Command(cli, "serve", folder, "--addr", "127.0.0.1:0")
			cmd.Env = env
			return startProcess(t, fmt.Sprintf("serve of %d skills", n), cmd, servingLine)
		}
		// The build into the cache first, by stdio, which ends with its input: the 50,000
		// skills take longer than a server is given to say it is ready.
		warm := exec.Command(cli, "stdio", folder)
		warm.Env, warm.Stdin = env, strings.NewReader("")
		if out, err := warm.CombinedOutput(); err != nil {
			t.Fatalf("stdio of %d skills: %v\n%s", n, err, out)
		}
		url, cmd := serve()
		uris, err := scaleSkillURIs(folder)
		if err != nil {
			t.Fatal(err)
		}
		client := &http.Client{Timeout: time.Minute}
		ask := func(body string) {
			status, got, err := benchPost(client, url, body)
			if err != nil || status != 200 || !strings.Contains(string(got), `"result"`) {
				t.Fatalf("%d skills: %d %v %.300s", n, status, err, got)
			}
		}
		ask(`{"jsonrpc":"2.0","id":1,"method":"skills/list"}`)
		rnd := rand.New(rand.NewPCG(1, 2))
		for i := range 2000 {
			ask(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+2) + `,"method":"resources/read","params":{"uri":"` + uris[rnd.IntN(len(uris))] + `"}}`)
		}
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		kb := func(field string) int64 {
			m := regexp.MustCompile(field + `:\s+(\d+) kB`).FindSubmatch(status)
			if m == nil {
				t.Fatalf("no %s in /proc/PID/status", field)
			}
			v, _ := strconv.ParseInt(string(m[1]), 10, 64)
			return v << 10
		}
		index, err := filepath.Glob(filepath.Join(dir, "cache", "skilledge", "catalogs", "*", "index-*.pack"))
		if err != nil || len(index) != 1 {
			t.Fatalf("the cached index: %v %v", index, err)
		}
		fi, err := os.Stat(index[0])
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "| %s skills | %s | %s | %s |\n", thousands(n), mibf(fi.Size()), mibf(kb("VmRSS")), mibf(kb("VmHWM")))
	}
	writeReport(t, "servescale", b.String())
}
