package serving

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skilledge/skilledge/edge/wire"
	"github.com/skilledge/skilledge/runtime/front"
	"github.com/skilledge/skilledge/runtime/wasm"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// stdio serves opt.Dir over the MCP stdio transport as skilledge stdio does (Open, Start,
// Watch, ServeStdio, the pool sized for one connection and its longest line), until in
// ends or ctx does; opt.Log gets the log, and opt.Cache must name the test's build cache.
func stdio(ctx context.Context, opt Options, in io.Reader, out io.Writer) error {
	opt.Command = "stdio"
	opt.Pool = wasm.Options{Size: 1, MaxBody: front.MaxLine, Server: wire.Options{ListChanged: opt.Watch}}
	s, err := Open(ctx, opt)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.Start(ctx, front.Options{}); err != nil {
		return err
	}
	s.Watch(ctx)
	return s.ServeStdio(ctx, in, out)
}

// stdioLines serves dir, built as opt says into the build cache cache, over stdio with the
// lines in as its input, and returns what it wrote on stdout and on its log.
func stdioLines(t *testing.T, cache, dir string, opt BuildOptions, in string) (stdout, log string) {
	t.Helper()
	var out, errs bytes.Buffer
	if err := stdio(context.Background(), Options{Dir: dir, Build: opt, Cache: cache, Log: &errs}, strings.NewReader(in), &out); err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	return out.String(), errs.String()
}
