// Command floor is the baseline of the load benchmark (tests/load_bench_test.go): a plain
// net/http handler that answers each MCP request with the bytes skilledge answers it with,
// read from files beforehand, doing nothing else but reading the request body. What any
// Go HTTP server pays for these requests, and nothing of the protocol.
//
//	floor ADDR DIR
//
// DIR holds one file per request, named by the request's Mcp-Method and Mcp-Name headers
// (answerName); it prints "listening on http://ADDR" once it listens.
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: floor ADDR DIR")
		os.Exit(2)
	}
	answers := map[string][]byte{}
	ents, err := os.ReadDir(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(os.Args[2], e.Name()))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		answers[e.Name()] = b
	}
	ln, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		b, ok := answers[AnswerName(r.Header.Get("Mcp-Method"), r.Header.Get("Mcp-Name"))]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
}

// AnswerName is the file name of the answer to a request with these headers.
func AnswerName(method, name string) string { return fileSafe.Replace(method + "__" + name) }

// fileSafe is made once: the floor does no work per request that a server need not do.
var fileSafe = strings.NewReplacer("/", "_", ":", "_")
