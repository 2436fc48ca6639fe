package tests

import (
	"sync"
	"testing"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/build"
	"github.com/skilledge/skilledge/catalog/examples"
	"github.com/skilledge/skilledge/edge"
	"github.com/skilledge/skilledge/edge/wire"
)

// examplePack returns the pack of the built-in example catalog, built once per test binary.
var examplePack = sync.OnceValues(func() ([]byte, error) {
	c, problems, err := build.Load(examples.FS, "examples", build.Options{})
	if err != nil {
		return nil, err
	}
	if build.HasErrors(problems) {
		return nil, fmtProblems(problems)
	}
	return build.Encode(c), nil
})

// inProcess is the edge package called directly: the reference target.
type inProcess struct{ srv *edge.Server }

func newInProcess(t *testing.T, options []byte) target {
	b, err := examplePack()
	if err != nil {
		t.Fatal(err)
	}
	p, err := catalog.Open(b)
	if err != nil {
		t.Fatal(err)
	}
	opt, err := edge.ParseOptions(options)
	if err != nil {
		t.Fatal(err)
	}
	return inProcess{edge.New(p, opt)}
}

func (s inProcess) HTTP(t *testing.T, frame []byte) []byte {
	req, err := wire.ParseRequest(frame)
	if err != nil {
		t.Fatalf("bad request frame %q: %v", frame, err)
	}
	return wire.AppendResponse(nil, s.srv.ServeHTTP(&req))
}

func (s inProcess) Message(t *testing.T, version string, line []byte) ([]byte, string) {
	return s.srv.HandleMessage(version, line)
}

func TestCasesInProcess(t *testing.T) { runCases(t, newInProcess, true) }
