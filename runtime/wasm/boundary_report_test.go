//go:build benchreport

package wasm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/edge"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/internal/require"
)

// TestBoundaryReport measures what crossing the host↔plugin boundary costs, and writes the
// numbers to BENCHMARKS.md (the section between the boundary markers). It is a report, not
// a check: it never fails on a timing. Run it with
//
//	go test -tags benchreport -run BoundaryReport -count=1 ./runtime/wasm/
//
// Every path answers the same ~1 KB HTTP request frame (a 2026-07-28 resources/read with
// the headers a real client sends) for a one-line, a ~10 KB and a ~1 MB text file of a
// generated catalog, in one run, each path ending with the store's objects spliced in:
//   - edge, compiled natively: the floor (parse the frame, answer, frame the response);
//   - the raw ABI on one instance, with the shipped deadline (deadline.go): what our
//     harness pays per call;
//   - the Extism ABI on one instance: what any Extism host SDK pays (go-pdk moves input
//     and output 8 bytes per host call);
//   - Pool.HTTP: the raw ABI plus lending an instance and arming the deadline;
//   - the raw ABI without any deadline check, and with wazero's termination checks
//     (WithCloseOnContextDone), the alternative the shipped deadline replaced.
func TestBoundaryReport(t *testing.T) {
	enc := benchPack(t)
	pack, store := enc.Index, enc.Store
	p, _ := testPlugin(t)
	ctx := context.Background()
	pool, err := p.NewPool(ctx, Catalog{Index: pack, Store: store}, Options{Size: 1})
	require.NoError(t, err)
	defer pool.Close(ctx)
	in, err := p.newInstance(ctx, pack, nil, &pool.logMu, time.Minute)
	require.NoError(t, err)
	defer in.close()
	for _, name := range store.Names() { // the Extism ABI holds the objects itself
		b, _ := store.Object(name)
		_, err := in.callExtism(ctx, "put", b)
		require.NoError(t, err)
	}
	native := nativeServer(t, pack)
	unchecked := instanceWithPreemption(t, false, pack)
	wazeroChecked := instanceWithPreemption(t, true, pack)
	// Every path ends with the frame a client's bytes are written from: references
	// resolved from the store, as the hosts do.
	resolve := func(frame []byte) []byte {
		r, err := wire.ParseResponse(frame)
		require.NoError(t, err)
		out, err := wire.ResolveResponse(nil, &r, store)
		require.NoError(t, err)
		return out
	}

	type row struct {
		name      string
		req, resp int
		ns        [6]float64
	}
	var rows []row
	for _, file := range []string{"one-line.md", "ten-kb.md", "one-mb.md"} {
		req := benchRequest("skill://bench/" + file)
		paths := []func() []byte{
			func() []byte {
				r, err := wire.ParseRequest(req)
				require.NoError(t, err)
				return resolve(wire.AppendResponse(nil, native.ServeHTTP(&r)))
			},
			func() []byte {
				out, err := in.callOutput(ctx, in.http, req, nil)
				require.NoError(t, err)
				return resolve(out)
			},
			func() []byte {
				out, err := in.callExtism(ctx, "http", req)
				require.NoError(t, err)
				return out
			},
			func() []byte {
				out, err := pool.HTTP(ctx, req, nil)
				require.NoError(t, err)
				return resolve(out)
			},
			func() []byte {
				out, err := unchecked.callOutput(ctx, unchecked.http, req, nil)
				require.NoError(t, err)
				return resolve(out)
			},
			func() []byte {
				out, err := wazeroChecked.callOutput(ctx, wazeroChecked.http, req, nil)
				require.NoError(t, err)
				return resolve(out)
			},
		}
		want := paths[0]()
		if !bytes.HasPrefix(want, []byte("200\n")) {
			t.Fatalf("native answer is not 200: %.200s", want)
		}
		r := row{name: file, req: len(req), resp: len(want)}
		for i, call := range paths {
			if got := call(); !bytes.Equal(got, want) {
				t.Fatalf("path %d answers differently from native edge", i)
			}
			res := testing.Benchmark(func(b *testing.B) {
				for b.Loop() {
					call()
				}
			})
			r.ns[i] = float64(res.T.Nanoseconds()) / float64(res.N)
			t.Logf("%s path %d: %s", file, i, res)
		}
		rows = append(rows, r)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (%d CPUs), %s, wazero with the shipped runtime config\n",
		time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), goVersion())
	fmt.Fprintf(&b, "(the instrumented deadline, deadline.go). Each figure is the mean of one `testing.Benchmark` run (about a\n")
	fmt.Fprintf(&b, "second of calls, one at a time); boundary = the path's time minus native edge's. Every path ends with the\n")
	fmt.Fprintf(&b, "response as a client gets it: the store's objects spliced in.\n\n")
	b.WriteString("| response | request | native edge | raw ABI (boundary) | Extism ABI (boundary) | Pool.HTTP (raw + pool) | raw ABI, no deadline checks | raw ABI, wazero's termination checks |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s, %s | %s | %s | %s (+%s) | %s (+%s) | %s | %s | %s |\n", r.name, size(r.resp), size(r.req),
			dur(r.ns[0]), dur(r.ns[1]), dur(r.ns[1]-r.ns[0]), dur(r.ns[2]), dur(r.ns[2]-r.ns[0]), dur(r.ns[3]), dur(r.ns[4]), dur(r.ns[5]))
	}
	b.WriteString("\nThe last two columns are the raw ABI on the uninstrumented module: without any check (a runaway\n")
	b.WriteString("call could not be stopped), and with `WithCloseOnContextDone`, which makes wazero exit to Go at every\n")
	b.WriteString("loop header: what the deadline cost before the instrumented one.\n")
	writeSection(t, "boundary", b.String())
}

// benchPack builds a catalog with one skill holding a ~10 KB and a ~1 MB markdown file.
func benchPack(t *testing.T) *compile.Encoded {
	dir := filepath.Join(t.TempDir(), "bench")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	write := func(name string, n int) {
		line := "A line of skill reference text, about sixty bytes long.\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(strings.Repeat(line, n/len(line))), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"),
		[]byte("---\nname: bench\ndescription: A skill with large files, for measuring.\n---\nRead the files.\n"), 0o644))
	write("one-line.md", 60)
	write("ten-kb.md", 10<<10)
	write("one-mb.md", 1<<20)
	c, problems, err := compile.LoadDir(filepath.Dir(dir), compile.Options{})
	if err != nil || compile.HasErrors(problems) {
		t.Fatalf("bench catalog: %v %v", err, problems)
	}
	enc, err := compile.Encode(c)
	require.NoError(t, err)
	return enc
}

// benchRequest is a 2026-07-28 resources/read of uri as a real client frames it, ~1 KB.
func benchRequest(uri string) []byte {
	body := `{"jsonrpc":"2.0","id":42,"method":"resources/read","params":{"uri":"` + uri + `","_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"benchmark-client","title":"A client of realistic verbosity","version":"1.4.2"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{},"extensions":{"io.modelcontextprotocol/skills":{}}},` +
		`"io.modelcontextprotocol/logLevel":"info"}}}`
	r := &wire.Request{Method: "POST", Target: "/mcp", Body: []byte(body)}
	for _, h := range [][2]string{
		{"Host", "127.0.0.1:8787"}, {"Content-Type", "application/json"},
		{"Accept", "application/json, text/event-stream"}, {"MCP-Protocol-Version", "2026-07-28"},
		{"Mcp-Method", "resources/read"}, {"Mcp-Name", uri}, {"User-Agent", "benchmark-client/1.4.2 (linux; x86_64) node/22.23.3"},
		{"Accept-Encoding", "gzip, deflate, br"}, {"Accept-Language", "*"}, {"Sec-Fetch-Mode", "cors"},
		{"Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
	} {
		r.Header = append(r.Header, wire.Field{Name: h[0], Value: h[1]})
	}
	return wire.AppendRequest(nil, r)
}

func nativeServer(t *testing.T, pack []byte) *edge.Server {
	p, err := catalog.Open(pack)
	require.NoError(t, err)
	return edge.New(p, wire.Options{})
}

// writeSection replaces the text between <!-- NAME:start --> and <!-- NAME:end --> in
// BENCHMARKS.md, appending the section if it is missing.
func writeSection(t *testing.T, name, text string) {
	path := filepath.Join("..", "..", "BENCHMARKS.md")
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	start, end := "<!-- "+name+":start -->\n", "<!-- "+name+":end -->"
	doc := string(old)
	i, j := strings.Index(doc, start), strings.Index(doc, end)
	if i < 0 || j < i {
		doc += "\n" + start + end + "\n"
		i, j = strings.Index(doc, start), strings.Index(doc, end)
	}
	doc = doc[:i+len(start)] + text + doc[j:]
	require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
	t.Logf("wrote the %s section of %s:\n%s", name, path, text)
}

func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func dur(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

func goVersion() string {
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return runtime.Version()
	}
	return strings.TrimSpace(string(out))
}
