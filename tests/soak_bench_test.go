//go:build e2e && benchreport

package tests

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/catalog"
)

// The soak: a long run of a realistic mix of requests against `skilledge serve`, every
// answer checked, the server's memory sampled.
//
//	go test -tags 'e2e benchreport' -run SoakReport -count=1 -timeout 30m ./tests/
//
// writes the soak section of BENCHMARKS.md. It fails, after writing, on any error or
// digest mismatch, and when the server's RSS at the end is more than 10% over its RSS
// after warm-up (a leak); never on a timing.
//
// Why does the soak check every byte against the files on disk? A soak that counts only
// statuses passes a server that serves the wrong file. The soak reads the catalog's files
// itself and keeps their SHA-256, asks every deterministic request once before the run,
// and then holds each answer to the same bytes (lists, skills, directories, indexes) or to
// the file's digest (every resources/read content, well-known file and archive), with
// hostile requests mixed in and their refusals checked.

const (
	soakRequests = 200_000
	soakClients  = 16
	soakWarmup   = soakRequests / 10 // RSS "after warm-up" is taken once this many are done
	soakTimeout  = 20 * time.Minute  // the run stops here, failing, whatever is left
)

// soakKind is one kind of request of the mix, with its share in thousandths.
type soakKind struct {
	name  string
	share int
	// send makes the i-th request of this kind and checks the answer: nil, or what is
	// wrong (digest says the content's SHA-256 did not match the file's).
	send func(c *http.Client, rnd *rand.Rand) (digest bool, err error)
}

// soakState is what the checks compare against: answers given before the run, checked
// then, and the SHA-256 of every file of the catalog read from disk.
type soakState struct {
	base      string            // http://127.0.0.1:PORT
	digests   map[string]string // skill:// URI -> "sha256:…" of the file on disk
	small     []string          // URIs of files of at most 64 KiB
	big       []string          // URIs of the 3 MiB files
	skills    []string          // SKILL.md URIs
	dirs      []string          // directory URIs
	wellKnown []string          // /.well-known/skills/<name>/<file> paths, each with its URI in files
	files     map[string]string // well-known path -> skill:// URI
	archives  map[string]string // /.well-known/agent-skills/<name>.tar.gz -> digest from the index
	answers   map[string][]byte // request key -> the answer every later one must repeat
}

func TestSoakReport(t *testing.T) {
	skills := hostileCatalog(t)
	cli, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	run(t, repoRoot(t), nil, cli, "build", skills, "-o", out)
	url, cmd := startProcess(t, "skilledge serve", exec.Command(cli, "serve", out, "--addr", "127.0.0.1:0"), servingLine)
	st := &soakState{base: strings.TrimSuffix(url, "/mcp"), answers: map[string][]byte{}, files: map[string]string{}, archives: map[string]string{}}
	st.prepare(t, skills)
	kinds := st.kinds()

	// Every request's kind is fixed by its index, so the mix is the same on every run.
	total := 0
	for _, k := range kinds {
		total += k.share
	}
	pick := func(i int) int {
		r := int(uint64(i)*0x9E3779B97F4A7C15>>32) % total
		for k, kind := range kinds {
			if r < kind.share {
				return k
			}
			r -= kind.share
		}
		return len(kinds) - 1
	}

	type sample struct {
		at   time.Duration
		done int64
		rss  int64
	}
	var (
		next, done, errs, mismatches atomic.Int64
		mu                           sync.Mutex
		lat                          = make([][]time.Duration, len(kinds))
		firstErrs                    []string
		samples                      []sample
	)
	start := time.Now()
	deadline := start.Add(soakTimeout)
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-tick.C:
				s := sample{time.Since(start), done.Load(), rssOf(cmd.Process.Pid)}
				mu.Lock()
				samples = append(samples, s)
				mu.Unlock()
			}
		}
	}()
	var wg sync.WaitGroup
	for c := range soakClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}, Timeout: time.Minute}
			defer client.CloseIdleConnections()
			rnd := rand.New(rand.NewPCG(uint64(c), 12))
			local := make([][]time.Duration, len(kinds))
			for time.Now().Before(deadline) {
				i := int(next.Add(1)) - 1
				if i >= soakRequests {
					break
				}
				k := pick(i)
				t0 := time.Now()
				digest, err := kinds[k].send(client, rnd)
				local[k] = append(local[k], time.Since(t0))
				if err != nil {
					errs.Add(1)
					if digest {
						mismatches.Add(1)
					}
					mu.Lock()
					if len(firstErrs) < 10 {
						firstErrs = append(firstErrs, fmt.Sprintf("request %d (%s): %v", i, kinds[k].name, err))
					}
					mu.Unlock()
				}
				done.Add(1)
			}
			mu.Lock()
			for k := range lat {
				lat[k] = append(lat[k], local[k]...)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	endRSS := rssOf(cmd.Process.Pid)
	close(stopSampling)
	<-sampled
	samples = append(samples, sample{elapsed, done.Load(), endRSS})

	n := done.Load()
	var warm sample
	for _, s := range samples {
		if s.done >= soakWarmup {
			warm = s
			break
		}
	}
	growth := 100 * (float64(endRSS) - float64(warm.rss)) / float64(warm.rss)

	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (%d CPUs, which the clients share with the server: throughput is indicative), %s. `skilledge serve`\n",
		time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), runtime.Version())
	b.WriteString("on the hostile suite's catalog (the examples, a 10-byte file, two 3 MiB binaries, an HTML page and an SVG), built with\n")
	fmt.Fprintf(&b, "`skilledge build`; %s requests from %d clients, each on a keep-alive connection, in a Go net/http client in the\n", thousands(soakRequests), soakClients)
	b.WriteString("benchmark's process on the same cores. Every answer is checked: its status, that a JSON body is valid UTF-8 JSON,\n")
	b.WriteString("that it repeats byte for byte the answer given to the same request before the run (lists, skills, directories,\n")
	b.WriteString("indexes), that every file content (`resources/read` text or blob, well-known file, archive) has the SHA-256 of\n")
	b.WriteString("the file on disk or the index's, and for hostile requests the refusal and JSON-RPC error expected. RSS is the\n")
	fmt.Fprintf(&b, "server's, sampled every 250 ms; \"after warm-up\" is the first sample once %s requests are done.\n\n", thousands(soakWarmup))
	fmt.Fprintf(&b, "**%s requests in %.1f s (%.0f per second), %d errors, %d digest mismatches; RSS %.1f MiB after warm-up, %.1f MiB at the end (%+.1f%%).**\n\n",
		thousands(int(n)), elapsed.Seconds(), float64(n)/elapsed.Seconds(), errs.Load(), mismatches.Load(),
		float64(warm.rss)/(1<<20), float64(endRSS)/(1<<20), growth)
	b.WriteString("RSS over time:\n\n| requests done | elapsed | RSS | requests per second since the row before |\n|---|---|---|---|\n")
	var prev sample
	for step := 1; step <= 10; step++ {
		target := int64(soakRequests) * int64(step) / 10
		for _, s := range samples {
			if s.done >= target || s == samples[len(samples)-1] {
				rate := float64(s.done-prev.done) / (s.at - prev.at).Seconds()
				fmt.Fprintf(&b, "| %s | %.1f s | %.1f MiB | %.0f |\n", thousands(int(s.done)), s.at.Seconds(), float64(s.rss)/(1<<20), rate)
				prev = s
				break
			}
		}
	}
	b.WriteString("\nThe mix:\n\n| request | share | requests | p50 | p99 |\n|---|---|---|---|---|\n")
	for k, kind := range kinds {
		slices.Sort(lat[k])
		if len(lat[k]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "| %s | %.1f%% | %s | %s | %s |\n", kind.name, 100*float64(kind.share)/float64(total), thousands(len(lat[k])),
			latency(quantile(lat[k], 0.5)), latency(quantile(lat[k], 0.99)))
	}
	writeReport(t, "soak", b.String())
	for _, e := range firstErrs {
		t.Error(e)
	}
	if n < soakRequests {
		t.Errorf("only %d of %d requests in %v", n, soakRequests, soakTimeout)
	}
	if growth > 10 {
		t.Errorf("RSS grew %.1f%% from after warm-up to the end", growth)
	}
}

// rssOf returns the resident set size of process pid in bytes (0 if unknown).
func rssOf(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// prepare reads the truth from disk (every file's SHA-256), then asks the server every
// deterministic request once, checks those answers and keeps them.
func (st *soakState) prepare(t *testing.T, skills string) {
	st.digests = map[string]string{}
	sizes := map[string]int64{}
	err := filepath.WalkDir(skills, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(skills, p)
		uri := catalog.Scheme + catalog.EscapePath(filepath.ToSlash(rel))
		st.digests[uri] = digestOf(b)
		sizes[uri] = int64(len(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.ask(http.DefaultClient, "skills/list", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range gjson.GetBytes(list, "result.skills").Array() {
		st.skills = append(st.skills, s.Get("uri").Str)
		for _, r := range s.Get("resources").Array() {
			uri := r.Get("uri").Str
			if st.digests[uri] != r.Get("digest").Str {
				t.Fatalf("%s: listed with %s, the file on disk is %s", uri, r.Get("digest").Str, st.digests[uri])
			}
			if sizes[uri] >= 3<<20 {
				st.big = append(st.big, uri)
			} else if sizes[uri] <= 64<<10 {
				st.small = append(st.small, uri)
			}
			// Every directory above the file, up to the skill's root.
			root := strings.TrimSuffix(s.Get("uri").Str, "/SKILL.md")
			for d := uri[:strings.LastIndexByte(uri, '/')]; len(d) >= len(root); d = d[:strings.LastIndexByte(d, '/')] {
				if !slices.Contains(st.dirs, d) {
					st.dirs = append(st.dirs, d)
				}
			}
		}
	}
	slices.Sort(st.dirs)
	slices.Sort(st.small)
	if len(st.skills) < 8 || len(st.big) != 2 || len(st.small) < 10 || len(st.dirs) < 8 {
		t.Fatalf("%d skills, %d large files, %d small, %d directories", len(st.skills), len(st.big), len(st.small), len(st.dirs))
	}
	keep := func(key string, b []byte, err error) {
		if err != nil {
			t.Fatal(err)
		}
		st.answers[key] = b
	}
	keep("skills/list", list, nil)
	b, err := st.askModern(http.DefaultClient, "skills/list", "")
	keep("skills/list modern", b, err)
	b, err = st.ask(http.DefaultClient, "resources/list", "")
	keep("resources/list", b, err)
	for _, s := range st.skills {
		b, err := st.ask(http.DefaultClient, "skills/get", s)
		keep("skills/get "+s, b, err)
	}
	for _, d := range st.dirs {
		b, err := st.ask(http.DefaultClient, "resources/directory/read", d)
		keep("resources/directory/read "+d, b, err)
	}
	for _, p := range []string{"/.well-known/agent-skills/index.json", "/.well-known/skills/index.json"} {
		b, err := st.get(http.DefaultClient, p)
		keep(p, b, err)
	}
	for _, s := range gjson.GetBytes(st.answers["/.well-known/skills/index.json"], "skills").Array() {
		name := s.Get("name").Str
		var root string
		for _, u := range st.skills {
			if strings.HasSuffix(u, "/"+name+"/SKILL.md") || u == catalog.Scheme+name+"/SKILL.md" {
				root = strings.TrimSuffix(u, "SKILL.md")
			}
		}
		for _, f := range s.Get("files").Array() {
			p := "/.well-known/skills/" + name + "/" + f.Str
			st.wellKnown = append(st.wellKnown, p)
			st.files[p] = root + catalog.EscapePath(f.Str)
		}
	}
	for _, s := range gjson.GetBytes(st.answers["/.well-known/agent-skills/index.json"], "skills").Array() {
		if s.Get("type").Str == "archive" {
			st.archives["/.well-known/agent-skills/"+s.Get("url").Str] = s.Get("digest").Str
		}
	}
	if len(st.wellKnown) < 10 || len(st.archives) < 3 {
		t.Fatalf("%d well-known files, %d archives", len(st.wellKnown), len(st.archives))
	}
}

// ask posts a 2025-11-25 request of method with params {"uri": uri} (none when uri is "")
// and returns the body of its 200 answer, checked to be a result.
func (st *soakState) ask(c *http.Client, method, uri string) ([]byte, error) {
	params := ""
	if uri != "" {
		params = `,"params":{"uri":` + strconv.Quote(uri) + `}`
	}
	status, body, err := st.post(c, `{"jsonrpc":"2.0","id":7,"method":"`+method+`"`+params+`}`, "MCP-Protocol-Version", "2025-11-25")
	return checkResult(status, body, err)
}

// askModern is ask in the 2026-07-28 era.
func (st *soakState) askModern(c *http.Client, method, uri string) ([]byte, error) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	params := `{` + meta + `}`
	header := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method}
	if uri != "" {
		params = `{"uri":` + strconv.Quote(uri) + `,` + meta + `}`
		header = append(header, "Mcp-Name", uri)
	}
	status, body, err := st.post(c, `{"jsonrpc":"2.0","id":7,"method":"`+method+`","params":`+params+`}`, header...)
	return checkResult(status, body, err)
}

func checkResult(status int, body []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	if status != 200 || !gjson.GetBytes(body, "result").Exists() {
		return nil, fmt.Errorf("status %d: %.200s", status, body)
	}
	return body, nil
}

// post sends body to the MCP endpoint with header pairs, and checks that a JSON answer
// is valid UTF-8 JSON.
func (st *soakState) post(c *http.Client, body string, header ...string) (int, []byte, error) {
	req, err := http.NewRequest("POST", st.base+"/mcp", strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return do(c, req)
}

// get fetches path and returns the body of its 200 answer.
func (st *soakState) get(c *http.Client, path string) ([]byte, error) {
	req, err := http.NewRequest("GET", st.base+path, nil)
	if err != nil {
		return nil, err
	}
	status, body, err := do(c, req)
	if err == nil && status != 200 {
		err = fmt.Errorf("GET %s: status %d", path, status)
	}
	return body, err
}

func do(c *http.Client, req *http.Request) (int, []byte, error) {
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		return 0, nil, fmt.Errorf("%s %s: no nosniff", req.Method, req.URL.Path)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && (!json.Valid(body) || !bytes.Equal(bytes.ToValidUTF8(body, nil), body)) {
		return 0, nil, fmt.Errorf("%s %s: a JSON body that is not valid UTF-8 JSON", req.Method, req.URL.Path)
	}
	return resp.StatusCode, body, nil
}

// same checks that got is the answer kept for key.
func (st *soakState) same(key string, got []byte, err error) error {
	if err != nil {
		return err
	}
	if !bytes.Equal(got, st.answers[key]) {
		return fmt.Errorf("%s: %d bytes, not the %d given before", key, len(got), len(st.answers[key]))
	}
	return nil
}

// readContent reads uri through resources/read (modern or not) and checks the content
// against the file's SHA-256.
func (st *soakState) readContent(c *http.Client, uri string, modern bool) (bool, error) {
	ask := st.ask
	if modern {
		ask = st.askModern
	}
	b, err := ask(c, "resources/read", uri)
	if err != nil {
		return false, err
	}
	content := gjson.GetBytes(b, "result.contents.0")
	var data []byte
	if text := content.Get("text"); text.Exists() {
		data = []byte(text.Str)
	} else if data, err = base64.StdEncoding.DecodeString(content.Get("blob").Str); err != nil {
		return true, fmt.Errorf("%s: blob: %v", uri, err)
	}
	if got := digestOf(data); got != st.digests[uri] {
		return true, fmt.Errorf("%s: content hashes to %s, the file to %s", uri, got, st.digests[uri])
	}
	return false, nil
}

// kinds is the mix: what real clients ask most, large reads, and hostile requests.
func (st *soakState) kinds() []soakKind {
	pickOf := func(rnd *rand.Rand, s []string) string { return s[rnd.IntN(len(s))] }
	hostile := []struct {
		body, ct  string
		header    []string
		status    int
		code      int64
		arrayLen  int
		getTarget string
	}{
		{body: "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"ping\"}", status: 400, code: -32700},
		{body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, header: []string{"Origin", "http://evil.com"}, status: 403, code: -32600},
		{body: "[" + strings.TrimSuffix(strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"},`, 65), ",") + "]", status: 400, code: -32600},
		{body: "[" + strings.TrimSuffix(strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"skills/list"},`, 64), ",") + "]", status: 200, arrayLen: 64},
		{body: `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"skill://nope"}}]`, status: 200, arrayLen: 2},
		{body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":` + strings.Repeat("[", 10000) + `}`, status: 400, code: -32600},
		{body: `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://hostile/../../etc/passwd"}}`, header: []string{"MCP-Protocol-Version", "2025-11-25"}, status: 200, code: -32602},
		{body: `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, header: []string{"MCP-Protocol-Version", "2025-11-25"}, status: 200, code: -32601},
		{body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, ct: "text/plain", status: 415, code: -32600},
		{getTarget: "/mcp", status: 405, code: -32600},
		{getTarget: "/.well-known/skills/hostile/../../../../etc/passwd", status: 404},
	}
	return []soakKind{
		{"skills/list (2025-11-25)", 140, func(c *http.Client, _ *rand.Rand) (bool, error) {
			b, err := st.ask(c, "skills/list", "")
			return false, st.same("skills/list", b, err)
		}},
		{"skills/list (2026-07-28)", 50, func(c *http.Client, _ *rand.Rand) (bool, error) {
			b, err := st.askModern(c, "skills/list", "")
			return false, st.same("skills/list modern", b, err)
		}},
		{"skills/get", 80, func(c *http.Client, rnd *rand.Rand) (bool, error) {
			s := pickOf(rnd, st.skills)
			b, err := st.ask(c, "skills/get", s)
			return false, st.same("skills/get "+s, b, err)
		}},
		{"resources/list", 30, func(c *http.Client, _ *rand.Rand) (bool, error) {
			b, err := st.ask(c, "resources/list", "")
			return false, st.same("resources/list", b, err)
		}},
		{"small read", 220, func(c *http.Client, rnd *rand.Rand) (bool, error) {
			return st.readContent(c, pickOf(rnd, st.small), rnd.IntN(2) == 0)
		}},
		{"3 MiB read", 15, func(c *http.Client, rnd *rand.Rand) (bool, error) {
			return st.readContent(c, pickOf(rnd, st.big), rnd.IntN(2) == 0)
		}},
		{"directory read", 80, func(c *http.Client, rnd *rand.Rand) (bool, error) {
			d := pickOf(rnd, st.dirs)
			b, err := st.ask(c, "resources/directory/read", d)
			return false, st.same("resources/directory/read "+d, b, err)
		}},
		{"well-known index", 60, func(c *http.Client, rnd *rand.Rand) (bool, error) {
			p := pickOf(rnd, []string{"/.well-known/agent-skills/index.json", "/.well-known/skills/index.json"})
			b, err := st.get(c, p)
			return false, st.same(p, b, err)
		}},
		{"well-known file", 150, func(c *http.Client, rnd *rand.Rand) (bool, error) {
			p := pickOf(rnd, st.wellKnown)
			b, err := st.get(c, p)
			if err != nil {
				return false, err
			}
			if got, want := digestOf(b), st.digests[st.files[p]]; got != want {
				return true, fmt.Errorf("%s hashes to %s, the file to %s", p, got, want)
			}
			return false, nil
		}},
		{"well-known archive", 15, func(c *http.Client, rnd *rand.Rand) (bool, error) {
			var paths []string
			for p := range st.archives {
				paths = append(paths, p)
			}
			slices.Sort(paths)
			p := pickOf(rnd, paths)
			b, err := st.get(c, p)
			if err != nil {
				return false, err
			}
			if got := digestOf(b); got != st.archives[p] {
				return true, fmt.Errorf("%s hashes to %s, the index says %s", p, got, st.archives[p])
			}
			return false, nil
		}},
		{"hostile", 150, func(c *http.Client, rnd *rand.Rand) (bool, error) {
			h := hostile[rnd.IntN(len(hostile))]
			var status int
			var body []byte
			var err error
			if h.getTarget != "" {
				req, _ := http.NewRequest("GET", st.base+h.getTarget, nil)
				status, body, err = do(c, req)
			} else {
				req, _ := http.NewRequest("POST", st.base+"/mcp", strings.NewReader(h.body))
				ct := h.ct
				if ct == "" {
					ct = "application/json"
				}
				req.Header.Set("Content-Type", ct)
				for i := 0; i+1 < len(h.header); i += 2 {
					req.Header.Set(h.header[i], h.header[i+1])
				}
				status, body, err = do(c, req)
			}
			switch {
			case err != nil:
				return false, err
			case status != h.status:
				return false, fmt.Errorf("hostile %.60q: status %d, want %d", h.body+h.getTarget, status, h.status)
			case h.code != 0 && gjson.GetBytes(body, "error.code").Int() != h.code:
				return false, fmt.Errorf("hostile %.60q: %.200s, want error %d", h.body, body, h.code)
			case h.arrayLen != 0 && len(gjson.ParseBytes(body).Array()) != h.arrayLen:
				return false, fmt.Errorf("hostile %.60q: %d answers, want %d", h.body, len(gjson.ParseBytes(body).Array()), h.arrayLen)
			}
			return false, nil
		}},
	}
}

// thousands formats n with a comma every three digits: 200,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
