//go:build e2e && benchreport

package tests

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The cache-cold guard of the load benchmark: reads spread at random over a catalog of
// coldFiles files, each request with an id of its own, so that almost no request repeats
// one a server has kept (serve's replays hold wire.ReplayEntries answers, a tenth of the
// files) and nearly every one runs the plugin, beside the same floor, and beside `serve`
// as the previous release built it, from source, in the same run:
//
//	go test -tags 'e2e benchreport' -run LoadColdReport -count=1 -timeout 60m ./tests/
//
// writes the load-cold section of BENCHMARKS.md. Nothing here fails on a timing. With
// SKILLEDGE_COLD_ALSO set to commits (space-separated), their `serve --replays 0` is built
// and measured in the same run as well: a change's before and after, side by side.
//
// Why a previous release built from source in the same run, rather than last month's
// figure? Figures of two runs differ by as much as the losses this row is for (BENCHMARKS:
// the spread between runs of the same code on two cores); built and measured in turn in one
// run, a loss shows as a ratio between columns of one table.

// coldFiles is how many files the cache-cold reads spread over: coldFiles/10 skills of ten
// files each.
const coldFiles = 10000

// coldBaseline is the commit the cache-cold row compares with when the repository has no
// release tag: the last commit whose cache-cold reads measured 0.67× the floor.
const coldBaseline = "5f781bd"

// TestLoadColdReport measures cache-cold reads on the native servers and on the Workers,
// and writes the load-cold section of BENCHMARKS.md.
func TestLoadColdReport(t *testing.T) {
	root := repoRoot(t)
	skills, uris := coldCatalog(t)
	cold := loadCase{name: fmt.Sprintf("cache-cold read (1 of %d files)", len(uris)), method: "resources/read", spread: uris}
	cli, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	run(t, root, nil, "go", "build", "-o", filepath.Join(bin, "floor"), "./tests/loadbench/floor")

	out := filepath.Join(t.TempDir(), "out")
	run(t, root, nil, cli, "build", skills, "-o", out)
	addr, serveCmd := startProcess(t, "skilledge serve", exec.Command(cli, "serve", out, "--addr", "127.0.0.1:0"), servingLine)
	sk := loadServer{name: "`skilledge serve`", url: addr, pid: serveCmd.Process.Pid}
	answers := coldAnswers(t, sk, cold)
	answerDir := t.TempDir()
	for uri, body := range answers {
		if err := os.WriteFile(filepath.Join(answerDir, answerName(cold.method, uri)), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	floorURL, floorCmd := startProcess(t, "floor", exec.Command(filepath.Join(bin, "floor"), "127.0.0.1:0", answerDir), regexp.MustCompile(`listening on (http://\S+)`))
	floor := loadServer{name: "net/http floor", url: floorURL + "/mcp", pid: floorCmd.Process.Pid}
	addr, plainCmd := startProcess(t, "skilledge serve --replays 0", exec.Command(cli, "serve", out, "--addr", "127.0.0.1:0", "--replays", "0"), servingLine)
	skPlugin := loadServer{name: "`serve --replays 0`", url: addr, pid: plainCmd.Process.Pid}
	ref := previousRelease(root)
	servers := []loadServer{floor, sk, skPlugin}
	for _, at := range append([]string{ref}, strings.Fields(os.Getenv("SKILLEDGE_COLD_ALSO"))...) {
		servers = append(servers, serveAt(t, root, bin, at, skills))
	}
	for i := range servers {
		servers[i].expectSpread(t, cold, answers)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (%d CPUs), %s, workerd %s, as the load section is (%d clients or one, %d rounds of %v\n",
		time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), runtime.Version(), workerdVersion(t), manyClients, loadRounds, loadRound)
	fmt.Fprintf(&b, "per server, in turn), on a catalog of %d skills of ten files each; each request reads the file its id picks at\n", len(uris)/10)
	b.WriteString("random, so that almost none repeats a request a server has kept. `serve --replays 0` at " + ref + " is the previous\n")
	b.WriteString("release's `serve`, built from source in the same run")
	if len(servers) > 4 {
		b.WriteString(", as are the other commits named")
	}
	b.WriteString(".\n\nNative:\n\n")
	loadTable(t, &b, servers, []loadCase{cold}, 1, manyClients)

	keyed := map[string][]byte{}
	for uri, body := range answers {
		keyed[cold.method+" "+uri] = body
	}
	plain, skw := loadWorkers(t, skills, keyed)
	for _, srv := range []*loadServer{&plain, &skw} {
		srv.expectSpread(t, cold, answers)
	}
	b.WriteString("\nWorkers, in workerd:\n\n")
	loadTable(t, &b, []loadServer{plain, skw}, []loadCase{cold}, 1, manyClients)
	writeReport(t, "load-cold", b.String())
}

// coldCatalog writes a skills folder of coldFiles/10 skills of ten small text files each
// (SKILL.md and nine more) and returns it with the URIs of its files.
func coldCatalog(t *testing.T) (string, []string) {
	dir := filepath.Join(t.TempDir(), "skills")
	var uris []string
	for i := range coldFiles / 10 {
		name := fmt.Sprintf("cold-%04d", i)
		skill := fmt.Sprintf("---\nname: %s\ndescription: Skill %d of the cache-cold catalog.\n---\nRead its files.\n", name, i)
		if err := writeFile(filepath.Join(dir, name, "SKILL.md"), []byte(skill)); err != nil {
			t.Fatal(err)
		}
		uris = append(uris, "skill://"+name+"/SKILL.md")
		for j := 1; j < 10; j++ {
			text := fmt.Sprintf("# Part %d of skill %d\n\n%s\n", j, i, strings.Repeat("Words of a reference file. ", 8))
			if err := writeFile(filepath.Join(dir, name, fmt.Sprintf("part-%d.md", j)), []byte(text)); err != nil {
				t.Fatal(err)
			}
			uris = append(uris, fmt.Sprintf("skill://%s/part-%d.md", name, j))
		}
	}
	return dir, uris
}

// coldAnswers asks srv for every file of c once, with firstID, and returns its answers by
// URI: the contents every server must answer with.
func coldAnswers(t *testing.T, srv loadServer, c loadCase) map[string][]byte {
	out := make(map[string][]byte, len(c.spread))
	for _, uri := range c.spread {
		one := c.only(uri)
		status, body, err := one.post(http.DefaultClient, srv.url, firstID, srv.fields...)
		if err != nil || status != 200 {
			t.Fatalf("%s, %s: %d %v %.300s", srv.name, uri, status, err, body)
		}
		out[uri] = body
	}
	return out
}

// expectSpread asks srv every file of c once and keeps its answers, which must be 200,
// echo the id once and carry the contents of want's: under load, every answer must be
// the one kept for its file, with the request's id in place.
func (srv *loadServer) expectSpread(t *testing.T, c loadCase, want map[string][]byte) {
	if srv.answers == nil {
		srv.answers = map[string]answer{}
	}
	for _, uri := range c.spread {
		one := c.only(uri)
		status, body, err := one.post(http.DefaultClient, srv.url, firstID, srv.fields...)
		a, ok := splitAnswer(body)
		if err != nil || status != 200 || !ok || !sameContents(body, want[uri]) {
			t.Fatalf("%s, %s: %d %v %.300s", srv.name, uri, status, err, body)
		}
		srv.answers[c.name+" "+uri] = a
	}
}

// only is the case of spread case c that reads uri alone.
func (c loadCase) only(uri string) loadCase {
	return loadCase{name: c.name, method: c.method, uri: uri, rest: read(uri)}
}

// previousRelease is the release the cache-cold row compares with: the newest tag before
// HEAD of the repository at root, or coldBaseline while it has none.
func previousRelease(root string) string {
	if out, err := exec.Command("git", "-C", root, "describe", "--tags", "--abbrev=0", "HEAD^").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	return coldBaseline
}

// serveAt builds the skilledge CLI of the commit ref from source, in a worktree of the
// repository at root, into bin; builds skills with it, and starts its `serve --replays 0`.
func serveAt(t *testing.T, root, bin, ref, skills string) loadServer {
	src := filepath.Join(t.TempDir(), "src")
	run(t, root, nil, "git", "worktree", "add", "--detach", src, ref)
	t.Cleanup(func() { exec.Command("git", "-C", root, "worktree", "remove", "--force", src).Run() })
	cli := filepath.Join(bin, "skilledge-"+ref)
	run(t, src, nil, "go", "build", "-o", cli, "./runtime/cmd/skilledge")
	out := filepath.Join(t.TempDir(), "out")
	run(t, src, nil, cli, "build", skills, "-o", out)
	cmd := exec.Command(cli, "serve", out, "--addr", "127.0.0.1:0", "--replays", "0")
	cmd.Dir = src
	addr, started := startProcess(t, "serve --replays 0 at "+ref, cmd, servingLine)
	return loadServer{name: "`serve --replays 0` at " + ref, url: addr, pid: started.Process.Pid}
}
