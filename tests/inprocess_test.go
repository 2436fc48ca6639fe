package tests

import (
	"sync"
	"testing"

	"github.com/skilledge/skilledge/catalog"
	"github.com/skilledge/skilledge/catalog/compile"
	"github.com/skilledge/skilledge/catalog/examples"
	"github.com/skilledge/skilledge/edge"
	"github.com/skilledge/skilledge/edge/wire"
)

// exampleBuild returns the built-in example catalog encoded, built once per test binary.
var exampleBuild = sync.OnceValues(func() (*compile.Encoded, error) {
	c, problems, err := compile.Load(examples.FS, "examples", compile.Options{})
	if err != nil {
		return nil, err
	}
	if compile.HasErrors(problems) {
		return nil, fmtProblems(problems)
	}
	return compile.Encode(c)
})

// examplePack returns the index of the built-in example catalog.
func examplePack() ([]byte, error) {
	enc, err := exampleBuild()
	if err != nil {
		return nil, err
	}
	return enc.Index, nil
}

// inProcess is the edge package called directly: the reference target. Like every host,
// it splices the store objects the answers name, from the store the build made.
type inProcess struct {
	srv   *edge.Server
	store wire.Store
}

func newInProcess(t *testing.T, options []byte) target { return newInProcessFor(t, options, nil) }

// newInProcessFor is newInProcess serving the case folder skills (nil: the examples).
func newInProcessFor(t *testing.T, options []byte, skills *caseSkills) target {
	enc, err := buildCase(skills)
	if err != nil {
		t.Fatal(err)
	}
	p, err := catalog.Open(enc.Index)
	if err != nil {
		t.Fatal(err)
	}
	opt, err := wire.ParseOptions(options)
	if err != nil {
		t.Fatal(err)
	}
	return inProcess{edge.New(p, opt), enc.Store}
}

func (s inProcess) HTTP(t *testing.T, frame []byte) []byte {
	req, err := wire.ParseRequest(frame)
	if err != nil {
		t.Fatalf("bad request frame %q: %v", frame, err)
	}
	return resolveFrame(t, wire.AppendResponse(nil, s.srv.ServeHTTP(&req)), s.store)
}

func (s inProcess) Message(t *testing.T, version string, line []byte) ([]byte, string) {
	reply, refs, negotiated := s.srv.HandleMessage(version, line)
	return resolveReply(t, reply, refs, s.store), negotiated
}

// resolveFrame is the response frame with the store objects it names spliced in: what a
// client receives.
func resolveFrame(t *testing.T, frame []byte, st wire.Store) []byte {
	t.Helper()
	r, err := wire.ParseResponse(frame)
	if err != nil {
		t.Fatalf("malformed response frame %q: %v", frame, err)
	}
	out, err := wire.ResolveResponse(nil, &r, st)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// resolveReply is a stream-transport reply with the objects refs names spliced in.
func resolveReply(t *testing.T, reply []byte, refs []wire.Ref, st wire.Store) []byte {
	t.Helper()
	if reply == nil {
		return nil
	}
	objs, err := wire.Objects(refs, st)
	if err != nil {
		t.Fatal(err)
	}
	return wire.AppendResolved(nil, reply, refs, objs)
}

func TestCasesInProcess(t *testing.T) { runCases(t, newInProcessFor, true) }
