package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/examples"
	"github.com/skilledge/skilledge/edge"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/pluginbuild"
	"github.com/skilledge/skilledge/runtime/wasm"
)

// shardedBuilds holds the sharded build of each case folder, by key ("" for the examples).
var shardedBuilds sync.Map // key -> func() (*compile.Encoded, error)

// buildSharded is buildCase with the index sharded as finely as the cuts allow, and every
// document over 512 bytes in parts: every request that reads a skill reads it from a
// shard, and every document is spliced from its parts.
func buildSharded(cs *caseSkills) (*compile.Encoded, error) { return buildShardedPacked(cs, 0) }

// buildShardedPacked is buildSharded with the objects in packs of about packBytes (none
// for 0).
func buildShardedPacked(cs *caseSkills, packBytes int64) (*compile.Encoded, error) {
	var fsys fs.FS = examples.FS
	root, key := "examples", ""
	if cs != nil {
		fsys, root, key = cs.fs, "skills", cs.key
	}
	key += fmt.Sprintf("/packs %d", packBytes)
	f, _ := shardedBuilds.LoadOrStore(key, sync.OnceValues(func() (*compile.Encoded, error) {
		c, problems, err := compile.Load(fsys, root, compile.Options{})
		if err != nil {
			return nil, err
		}
		if compile.HasErrors(problems) {
			return nil, fmtProblems(problems)
		}
		return compile.EncodeWith(c, compile.EncodeOptions{ShardBytes: 1, MaxPart: 512, PackBytes: packBytes})
	}))
	return f.(func() (*compile.Encoded, error))()
}

// newSharded is the in-process target over the sharded build, which reads its shards from
// the store with a budget of one byte: every request past the first evicts what the one
// before it read, so that every answer is made from shards loaded again.
func newSharded(t *testing.T, options []byte, skills *caseSkills) target {
	enc, err := buildSharded(skills)
	if err != nil {
		t.Fatal(err)
	}
	p, err := catalog.OpenWith(enc.Index, func(r catalog.Ref) ([]byte, error) { return enc.Store.Object(r.Name) }, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Sharded() {
		t.Fatal("the index is not sharded")
	}
	parts := 0
	for _, name := range enc.Store.Names() {
		if strings.Contains(enc.Store.What(name), "(part 2)") {
			parts++
		}
	}
	if parts == 0 {
		t.Fatal("no document is in parts")
	}
	opt, err := wire.ParseOptions(options)
	if err != nil {
		t.Fatal(err)
	}
	return tickingTarget{inProcess{edge.New(p, opt), enc.Store}, p}
}

// tickingTarget tells the index of each request, as the plugin does.
type tickingTarget struct {
	inProcess
	p *catalog.Pack
}

func (s tickingTarget) HTTP(t *testing.T, frame []byte) []byte {
	s.p.Tick()
	return s.inProcess.HTTP(t, frame)
}

func (s tickingTarget) Message(t *testing.T, version string, line []byte) ([]byte, string) {
	s.p.Tick()
	return s.inProcess.Message(t, version, line)
}

// TestCasesSharded runs every protocol case against a sharded index: its answers must be
// the whole index's, byte for byte.
func TestCasesSharded(t *testing.T) { runCases(t, newSharded, false) }

// newShardedWasm is the public plugin in the wazero harness over the sharded build: each
// case's pool starts holding no shard, so that every first read of one goes through a NEED
// and skilledge_give (edge/wire, "Need").
func newShardedWasm(t *testing.T, options []byte, skills *caseSkills) target {
	enc, err := buildSharded(skills)
	if err != nil {
		t.Fatal(err)
	}
	return wasmTargetOf(t, pluginbuild.Public, options, enc)
}

// TestCasesShardedWasm runs every protocol case against the plugin serving a sharded index:
// the same answers, byte for byte, as the whole index's in process.
func TestCasesShardedWasm(t *testing.T) { runCases(t, newShardedWasm, false) }

// casePackBytes is about how large the packs of the packed case builds are: small enough
// that the examples' objects are in dozens of packs, and some larger objects a pack alone.
const casePackBytes = 4096

// newPacked is newSharded over the sharded build whose objects are packed: every file,
// form, archive and document is read by range from a pack, and checked.
func newPacked(t *testing.T, options []byte, skills *caseSkills) target {
	enc, err := buildShardedPacked(skills, casePackBytes)
	if err != nil {
		t.Fatal(err)
	}
	p, err := catalog.OpenWith(enc.Index, func(r catalog.Ref) ([]byte, error) { return enc.Store.Object(r.Name) }, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Packs()) == 0 {
		t.Fatal("no pack")
	}
	opt, err := wire.ParseOptions(options)
	if err != nil {
		t.Fatal(err)
	}
	return tickingTarget{inProcess{edge.New(p, opt), enc.Store}, p}
}

// TestCasesPacked runs every protocol case against a sharded index whose objects are
// packed: the same answers, byte for byte.
func TestCasesPacked(t *testing.T) { runCases(t, newPacked, false) }

// newPackedWasm is newShardedWasm over the packed build: the harness's store reads each
// packed object from its pack.
func newPackedWasm(t *testing.T, options []byte, skills *caseSkills) target {
	enc, err := buildShardedPacked(skills, casePackBytes)
	if err != nil {
		t.Fatal(err)
	}
	return wasmTargetOf(t, pluginbuild.Public, options, enc)
}

// TestCasesPackedWasm runs every protocol case against the plugin serving the packed build.
func TestCasesPackedWasm(t *testing.T) { runCases(t, newPackedWasm, false) }

// TestShardedCompletionBounded: completing a skill path on a sharded index reads the
// shards of the values it offers, not of every hit of its search: 300 skills under one
// prefix, one a shard, and a completion that matches them all.
func TestShardedCompletionBounded(t *testing.T) {
	fsys := fstest.MapFS{}
	for i := range 300 {
		name := fmt.Sprintf("deploy-%03d", i)
		fsys["acme/"+name+"/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: Deploy acme services, part " + name + ".\n---\nDeploy.\n")}
	}
	c, problems, err := compile.Load(fsys, "skills", compile.Options{})
	if err != nil || compile.HasErrors(problems) {
		t.Fatal(err, problems)
	}
	enc, err := compile.EncodeWith(c, compile.EncodeOptions{ShardBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	loads := map[string]bool{}
	p, err := catalog.OpenWith(enc.Index, func(r catalog.Ref) ([]byte, error) {
		loads[r.Name] = true
		return enc.Store.Object(r.Name)
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	srv := edge.New(p, wire.Options{})
	for _, value := range []string{"acme", "deploy acme services"} {
		clear(loads)
		msg := `{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"skill://{+skillPath}/SKILL.md"},"argument":{"name":"skillPath","value":"` + value + `"}}}`
		reply, _, _ := srv.HandleMessage("2025-06-18", []byte(msg))
		if !strings.Contains(string(reply), `"total":300`) {
			t.Fatalf("%q: %.400s", value, reply)
		}
		// The 100 values offered, a chunk or two of postings, and the lookups' ends.
		if len(loads) > 110 {
			t.Errorf("completing %q read %d parts of a 300-skill index", value, len(loads))
		}
	}
}

// tamperedStore answers every object as st does, but the shards of index with one byte
// changed: a store that someone else wrote to.
type tamperedStore struct {
	wire.Store
	parts map[string]bool
}

func (s tamperedStore) Object(name string) ([]byte, error) {
	b, err := s.Store.Object(name)
	if err != nil || !s.parts[name] {
		return b, err
	}
	b = slices.Clone(b)
	b[len(b)/2] ^= 1
	return b, nil
}

// TestShardTampered: the harness checks each shard it gives against its name, and a shard
// whose bytes are not its name's is never given: the request fails as for a failed
// instance, and nothing of the shard is answered.
func TestShardTampered(t *testing.T) {
	enc, err := buildSharded(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := compiledPlugins[pluginbuild.Public]()
	if err != nil {
		t.Fatal(err)
	}
	root, err := catalog.Open(enc.Index)
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]bool{}
	for _, r := range root.Parts() {
		parts[r.Name] = true
	}
	pool, err := p.NewPool(context.Background(), wasm.Catalog{Index: enc.Index, Store: tamperedStore{enc.Store, parts}}, wasm.Options{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close(context.Background())
	_, err = pool.RPC(context.Background(), "2025-06-18", []byte(`{"jsonrpc":"2.0","id":1,"method":"skills/list"}`))
	if !errors.Is(err, wasm.ErrInstance) || !strings.Contains(err.Error(), "do not hash to its name") {
		t.Fatalf("skills/list from a tampered store: %v", err)
	}
}

// TestShardedReadFacts: resources/read of every resource and directory of the examples
// and of every case's folder, as the URI is and as a client may spell it, answers alike on
// the whole index and on the sharded one, whose read chunks answer a file's read without
// its shard; and the facts of each answer (what of which skill was read) are the same, the
// chunks saying of which skill a file is where the whole index looks its skill up.
func TestShardedReadFacts(t *testing.T) {
	folders := []*caseSkills{nil}
	files, _ := filepath.Glob("testdata/cases/*.txtar")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if cs := skillsOf(parseTxtar(data)); cs != nil {
			folders = append(folders, cs)
		}
	}
	reads := 0
	for _, cs := range folders {
		whole, err := buildCase(cs)
		if err != nil {
			t.Fatal(err)
		}
		sharded, err := buildSharded(cs)
		if err != nil {
			t.Fatal(err)
		}
		pw, err := catalog.Open(whole.Index)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := catalog.OpenWith(sharded.Index, func(r catalog.Ref) ([]byte, error) { return sharded.Store.Object(r.Name) }, 1)
		if err != nil {
			t.Fatal(err)
		}
		sw, ss := edge.New(pw, wire.Options{}), edge.New(ps, wire.Options{})
		var uris []string
		for i := range pw.NumResources() {
			uris = append(uris, string(pw.Resource(i, catalog.ResURI)))
		}
		for d := range pw.NumDirs() {
			uris = append(uris, string(pw.Dir(d, catalog.DirURI)))
		}
		for _, uri := range uris {
			for _, spelling := range []string{uri, strings.Replace(uri, "skill://", "SKILL://", 1), uri + "x"} {
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":%q}}`, spelling)
				req := &wire.Request{Method: "POST", Target: "/mcp", Body: []byte(body), Header: wire.Header{
					{Name: "Host", Value: "localhost"}, {Name: "Content-Type", Value: "application/json"},
					{Name: "Accept", Value: "application/json, text/event-stream"}, {Name: "MCP-Protocol-Version", Value: "2025-11-25"}}}
				ps.Tick()
				aw, _, fw := sw.AppendHTTPFacts(nil, req)
				as, _, fs := ss.AppendHTTPFacts(nil, req)
				aw, as = resolveFrame(t, aw, whole.Store), resolveFrame(t, as, sharded.Store)
				if !bytes.Equal(aw, as) {
					t.Errorf("read of %s: whole\n%q\nsharded\n%q", spelling, aw, as)
				}
				if w, s := fw.Wire(), fs.Wire(); w != s {
					t.Errorf("read of %s: facts whole %+v, sharded %+v", spelling, w, s)
				}
				if fw.Wire().Skill != "" {
					reads++
				}
			}
		}
	}
	if reads < 100 {
		t.Fatalf("only %d reads of a skill's resources compared", reads)
	}
}
