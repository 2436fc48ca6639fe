package edge

import (
	"strconv"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/examples"
	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/jsonrpc"
)

// examplePack is the pack of the built-in example catalog, built once per test binary.
var examplePack = sync.OnceValues(func() (*catalog.Pack, error) {
	c, problems, err := compile.Load(examples.FS, "examples", compile.Options{})
	if err != nil {
		return nil, err
	}
	if compile.HasErrors(problems) {
		return nil, errorString("example catalog has problems")
	}
	return encode(c)
})

// stores maps each test index to its content store, so that tests can resolve references
// as a host does.
var stores sync.Map // *catalog.Pack -> *compile.Store

// encode encodes c and opens its index, remembering the store.
func encode(c *compile.Catalog) (*catalog.Pack, error) {
	enc, err := compile.Encode(c)
	if err != nil {
		return nil, err
	}
	p, err := catalog.Open(enc.Index)
	if err == nil {
		stores.Store(p, enc.Store)
	}
	return p, err
}

// resolved is body with the objects of refs spliced in from the store of s's catalog.
func resolved(tb testing.TB, s *Server, body []byte, refs []wire.Ref) []byte {
	tb.Helper()
	st, ok := stores.Load(s.pack)
	if !ok {
		tb.Fatal("no store for this server's catalog")
	}
	objs, err := wire.Objects(refs, st.(*compile.Store))
	if err != nil {
		tb.Fatal(err)
	}
	return wire.AppendResolved(nil, body, refs, objs)
}

// handle is s.HandleMessage with the reply resolved.
func handle(tb testing.TB, s *Server, version, msg string) []byte {
	tb.Helper()
	reply, refs, _ := s.HandleMessage(version, []byte(msg))
	if reply == nil {
		return nil
	}
	return resolved(tb, s, reply, refs)
}

type errorString string

func (e errorString) Error() string { return string(e) }

// exampleServer returns a Server on the example catalog.
func exampleServer(tb testing.TB, opt wire.Options) *Server {
	tb.Helper()
	p, err := examplePack()
	if err != nil {
		tb.Fatal(err)
	}
	return New(p, opt)
}

// skillMD is a minimal valid SKILL.md for a skill named name.
func skillMD(name string) string {
	return "---\nname: " + name + "\ndescription: Test skill " + name + ".\n---\n\n# " + name + "\n"
}

// packOf builds a pack from a folder given as path -> content.
func packOf(tb testing.TB, files map[string]string) *catalog.Pack {
	tb.Helper()
	fsys := fstest.MapFS{}
	for p, data := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(data)}
	}
	c, problems, err := compile.Load(fsys, "test", compile.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if compile.HasErrors(problems) {
		tb.Fatalf("problems: %v", problems)
	}
	p, err := encode(c)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// nSkillsPack builds a catalog of n single-file skills s0 … s(n-1).
func nSkillsPack(tb testing.TB, n int) *catalog.Pack {
	files := map[string]string{}
	for i := range n {
		name := "s" + strconv.Itoa(i)
		files[name+"/SKILL.md"] = skillMD(name)
	}
	return packOf(tb, files)
}

// parseMsg parses one JSON-RPC message that the test requires to be valid.
func parseMsg(tb testing.TB, raw string) jsonrpc.Message {
	tb.Helper()
	m, err := jsonrpc.Parse([]byte(raw))
	if err != nil {
		tb.Fatalf("jsonrpc.Parse(%s): %v", raw, err)
	}
	return m
}

// request is a JSON-RPC request with the given id, method and raw params ("" for none).
func request(id int, method, params string) string {
	s := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":` + strconv.Quote(method)
	if params != "" {
		s += `,"params":` + params
	}
	return s + "}"
}

// modernMeta is the _meta member of a 2026-07-28 request.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
