package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skilledge/skilledge/runtime/pluginbuild"
)

// TestStdioInterpretsUntilCompiled: on a machine where plugin.wasm was never compiled, stdio
// answers at once through wazero's interpreter and moves to the machine code when its
// compilation ends, answering the same throughout; the next start finds it compiled, and
// --watch (which keeps its plugin) compiles before it answers, as before.
func TestStdioInterpretsUntilCompiled(t *testing.T) {
	plugin, err := pluginbuild.Ensure(context.Background(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	skills := t.TempDir()
	writeFile(t, filepath.Join(skills, "alpha", "SKILL.md"), "---\nname: alpha\ndescription: First.\n---\nBody\n")
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache) // wazero's compilation cache, empty

	const interpreting = "answering with wazero's interpreter"
	const compiled = "answering with plugin.wasm's machine code now"
	for _, tc := range []struct {
		name  string
		args  []string
		fresh bool // a new, empty compilation cache
		says  []string
		never []string
	}{
		{"never compiled", nil, false, []string{interpreting, compiled}, nil},
		{"compiled before", nil, false, nil, []string{interpreting, compiled}},
		{"--watch, never compiled", []string{"--watch"}, true, nil, []string{interpreting, compiled}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fresh {
				t.Setenv("XDG_CACHE_HOME", t.TempDir())
			}
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			var stderr syncBuffer
			ran := make(chan int, 1)
			go func() {
				ran <- run(context.Background(), append([]string{"stdio", skills, "--plugin", plugin}, tc.args...), inR, outW, &stderr)
				outW.Close()
			}()
			out := bufio.NewScanner(outR)
			ask := func(id int, method string) gjson.Result {
				t.Helper()
				fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n", id, method)
				if !out.Scan() {
					t.Fatalf("stdout ended; stderr:\n%s", stderr.String())
				}
				return gjson.Get(out.Text(), "result")
			}
			if v := ask(1, "initialize").Get("protocolVersion").Str; v != "2025-06-18" {
				t.Fatalf("initialize answered %q; stderr:\n%s", v, stderr.String())
			}
			for _, s := range tc.says {
				for deadline := time.Now().Add(60 * time.Second); !strings.Contains(stderr.String(), s); time.Sleep(20 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("stderr never said %q:\n%s", s, stderr.String())
					}
				}
			}
			// The same answer after the move as before it.
			if d := ask(2, "skills/list").Get("skills.0.description").Str; d != "First." {
				t.Fatalf("skills/list: description %q; stderr:\n%s", d, stderr.String())
			}
			inW.Close()
			if code := <-ran; code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
			}
			for _, s := range tc.never {
				if strings.Contains(stderr.String(), s) {
					t.Fatalf("stderr said %q:\n%s", s, stderr.String())
				}
			}
		})
	}
}
