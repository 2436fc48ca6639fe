package main

import (
	"context"
	"fmt"
	"io"

	"github.com/skilledge/skilledge/runtime/front"
	"github.com/skilledge/skilledge/runtime/serving"
	"github.com/skilledge/skilledge/runtime/wasm"
)

const stdioAbout = `Serves the skills in DIR (default: the built-in examples) over the MCP stdio transport:
newline-delimited JSON-RPC on stdin and stdout, logs on stderr. It ends at the end of
stdin. The folder is refused if it has invalid skills, unless --skip-invalid. DIR is
built into the user cache on first use and that build is reused until a file changes;
OUT, the output of skilledge build, is served as it is. With --watch, DIR is rebuilt
whenever its files change, the new catalog replaces the served one atomically, and the
client is sent notifications/skills/list_changed and notifications/resources/list_changed.`

// cmdStdio serves a catalog over the MCP stdio transport until stdin ends.
//
// Why does `stdio` take `--auth` when it never asks for a credential? A catalog with an
// access policy is served only with an auth option, so that no host can serve it to
// everyone by forgetting one; over stdio the caller is a local process that already has
// the files, and MCP asks no credential there. So stdio --auth FILE checks the option and
// serves without asking, and fetches no key set (nothing would use it).
func cmdStdio(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("stdio", "skilledge stdio [DIR|OUT] [flags]", stdioAbout)
	var f serverFlags
	f.register(c.fs, true)
	pos, code, ok := c.parse(args, 0, 1, stdout, stderr)
	if !ok {
		return code
	}
	server, err := f.server()
	if err != nil {
		fmt.Fprintf(stderr, "skilledge stdio: %v\n", err)
		return 2
	}
	// No key set is fetched: over stdio no credential is asked.
	if _, ok := f.check("stdio", dirArg(pos), &server, stderr); !ok {
		return 2
	}
	stderr = serving.SyncWriter(stderr)
	// A stdio message may be a whole line: budget instance memory for the longest.
	s, ok := f.open(ctx, "stdio", dirArg(pos), wasm.Options{Size: 1, MaxBody: front.MaxLine, Server: server}, stderr)
	if !ok {
		return 1
	}
	defer s.Close()
	if err := s.Start(ctx, front.Options{}); err != nil {
		fmt.Fprintf(stderr, "skilledge stdio: %s\n", advised(err))
		return 1
	}
	s.Banner(stderr, nil, "")
	s.Watch(ctx) // stopped by s.Close, before the front closes
	if err := s.ServeStdio(ctx, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "skilledge stdio: %v\n", err)
		return 1
	}
	return 0
}
